// The `budget --compare` kernel (docs/statistics.md §7.6; its dispatch is cuda_compare_engine.cu), in a header
// so that the CPU runtime (tests/cuda_cpu/) runs the same source. Included by one .cu only.
#pragma once
#include <cstdint>

#include "../detail/device_runtime.cuh"
#include "judgestat/compare_engine.hpp"

namespace judgestat::cuda_detail {

struct CompareArgs {
  const int8_t* scaled_d;
  uint32_t n_items, k;
  int32_t scale;
  double z;
  uint32_t key0, key1;
  uint32_t first_draw, count;
  uint32_t* taken;   // threads × words, interleaved
  uint32_t threads;  // launched threads = the bitmaps' stride
  int32_t* out_sum;
  int32_t* out_sum_sq;
  int8_t* out_side;
};

__global__ void compare_kernel(CompareArgs a) {
  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  if (thread >= a.threads) return;
  const PhiloxKey key(uint64_t{a.key0} | (uint64_t{a.key1} << 32));
  uint32_t* taken = a.taken + thread;
  for (uint32_t r = thread; r < a.count; r += a.threads) {
    const CompareDraw draw = compare_draw(key, a.first_draw + r, a.scaled_d, a.n_items, a.k, taken, a.threads);
    a.out_sum[r] = draw.sum;
    a.out_sum_sq[r] = draw.sum_sq;
    a.out_side[r] = static_cast<int8_t>(compare_interval_side(draw.sum, draw.sum_sq, a.k, a.scale, a.z));
  }
}

}  // namespace judgestat::cuda_detail
