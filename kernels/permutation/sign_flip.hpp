// docs/statistics.md §7.3's sign-flip permutation counts on a CUDA device (sign_flip.cu): the
// CUDA backend's Backend::count_sign_flip_exceedances.
#pragma once
#include <cstdint>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat::cuda_detail {

/// Entry t = #{r in [first, first + count) : |T_r| ≥ |T_obs|} of plan.sign_flip_tests[t], on
/// `device`: the same integers as count_sign_flip_exceedances_on_host. Synchronous; device
/// memory is the tests' d_c and a counter per test (no replicate × cluster buffer).
std::vector<uint64_t> count_sign_flip_exceedances_on_device(int device, const CompiledPlan& plan, uint64_t seed,
                                                            uint64_t first, uint64_t count);

}  // namespace judgestat::cuda_detail
