// The sign-flip kernel (docs/statistics.md §7.3; its dispatch is sign_flip.cu), in a header so
// that the CPU runtime (tests/cuda_cpu/) runs the same source. Included by one .cu only.
#pragma once
#include <cstdint>

#include "../detail/device_runtime.cuh"
#include "judgestat/plan.hpp"
#include "sign_flip_warp.hpp"

namespace judgestat::cuda_detail {

constexpr unsigned kSignFlipFullMask = 0xffffffffu;

/// Units [0, count · n_tests) over the grid's warps in a grid-stride loop (warp-uniform, so the
/// whole warp takes part in every shuffle). d: n_tests × C test-major; exceed: n_tests counters.
__global__ void __launch_bounds__(kSignFlipThreads)
    sign_flip_kernel(const int64_t* d, const int64_t* observed, int64_t n_clusters, uint32_t n_tests, uint64_t seed,
                     uint64_t first, uint64_t count, unsigned long long* exceed) {
  const uint32_t lane = threadIdx.x % kSignFlipLanes;
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kSignFlipLanes;
  const uint64_t n_warps = uint64_t(gridDim.x) * blockDim.x / kSignFlipLanes;
  const PhiloxKey key(seed);
  const uint64_t units = count * n_tests;
  uint32_t test = 0;
  unsigned long long counted = 0;  // this warp's exceedances of `test` not yet added
  for (uint64_t u = warp; u < units; u += n_warps) {
    const SignFlipUnit unit = sign_flip_unit(u, count);
    if (unit.test != test) {
      if (lane == 0 && counted) atomicAdd(exceed + test, counted);
      test = unit.test;
      counted = 0;
    }
    const auto replicate = static_cast<uint32_t>(first + unit.replicate);
    long long t_r = sign_flip_sum(key, replicate, d + int64_t(test) * n_clusters, n_clusters, lane, kSignFlipLanes);
    for (int step = 0; step < kSignFlipButterflySteps; ++step)
      t_r += __shfl_xor_sync(kSignFlipFullMask, t_r, sign_flip_butterfly_offset(step));
    counted += sign_flip_exceeds(t_r, observed[test]);
  }
  if (lane == 0 && counted) atomicAdd(exceed + test, counted);
}

}  // namespace judgestat::cuda_detail
