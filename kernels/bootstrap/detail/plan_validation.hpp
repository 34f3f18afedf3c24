// The CUDA backend's checks of a compiled plan before it is uploaded, and the plan's identity
// for the upload cache (defined in ../plan_validation.cu; host code only).
#pragma once
#include <cstdint>

#include "judgestat/plan.hpp"

namespace judgestat::cuda_detail {

/// Throws std::invalid_argument ("CUDA backend: malformed compiled plan: …") for a plan the
/// kernels would read out of bounds: a malformed plan fails here with a message, not as an
/// illegal address in a kernel.
void validate_plan(const CompiledPlan& plan);

/// A hash of the plan's whole content. The upload cache is keyed on the plan's address and this,
/// so a different plan that happens to reuse an address (a plan rebuilt in a loop) is re-uploaded.
uint64_t plan_fingerprint(const CompiledPlan& plan);

}  // namespace judgestat::cuda_detail
