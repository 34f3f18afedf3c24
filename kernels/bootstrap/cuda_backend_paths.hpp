// Kernel-path selection of the CUDA backend, for tests and benchmarks that must exercise a
// particular path. Declared only; defined in kernels/bootstrap/cuda_backend.cu, so call it only where
// JUDGESTAT_HAVE_CUDA is defined.
#pragma once
#include <cstdint>
#include <memory>

#include "judgestat/backend.hpp"
#include "judgestat/exec_target.hpp"

namespace judgestat {

enum class CudaKernelPath {
  kAuto,              // the multiplicity tile when the plan fits it, else gather
  kMultiplicityTile,  // 16 replicates per block, shared histogram, tensor-core product
  kGather,            // one replicate per block, rows of drawn clusters added directly
};

/// make_cuda_backend with a fixed kernel path and the given switches (by default this process's
/// environment, read when called). A plan the forced path cannot run makes run_replicates throw
/// std::invalid_argument saying why.
std::unique_ptr<Backend> make_cuda_backend_with_path(int device, uint64_t max_chunk, CudaKernelPath path,
                                                     const CudaTuning& tuning = cuda_tuning_from_environment());

}  // namespace judgestat
