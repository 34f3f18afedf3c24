// The device summaries' kernels (their dispatch and the reasoning are in device_summary.cu), in a
// header so that the CPU runtime (tests/cuda_cpu/) runs the same source. CUB's radix sort, which
// device_summary.cu runs between order_keys_kernel and pick_order_statistics_kernel, is covered
// by a device run only. Included by one .cu only.
#pragma once
#include <cstdint>

#include "../detail/device_runtime.cuh"
#include "judgestat/replicate_summary.hpp"

namespace judgestat::cuda_detail {

using SummaryCount = unsigned long long;
constexpr int kSummaryThreads = 256;

// Thread i = b·S + s: block b of statistic s, its defined values' sum and count.
__global__ void block_sums_kernel(const double* values, uint64_t B, int32_t S, uint64_t n_blocks, double* block_sum,
                                  SummaryCount* block_defined) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_blocks * uint64_t(S)) return;
  const uint64_t b = i / uint64_t(S), s = i % uint64_t(S);
  const uint64_t end = min(B, (b + 1) * kSummaryBlock);
  double sum = 0;
  SummaryCount defined = 0;
  for (uint64_t r = b * kSummaryBlock; r < end; ++r) {
    const double v = values[r * S + s];
    if (!isnan(v)) {
      sum += v;
      ++defined;
    }
  }
  block_sum[i] = sum;
  block_defined[i] = defined;
}

// The same blocks: squared deviations from the statistic's mean, and counts against its
// reference.
__global__ void block_squares_kernel(const double* values, uint64_t B, int32_t S, uint64_t n_blocks, const double* mean,
                                     const double* reference, double* block_squares, SummaryCount* block_below,
                                     SummaryCount* block_at_or_below) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_blocks * uint64_t(S)) return;
  const uint64_t b = i / uint64_t(S), s = i % uint64_t(S);
  const uint64_t end = min(B, (b + 1) * kSummaryBlock);
  const double m = mean[s], ref = reference[s];
  double squares = 0;
  SummaryCount below = 0, at_or_below = 0;
  for (uint64_t r = b * kSummaryBlock; r < end; ++r) {
    const double v = values[r * S + s];
    if (isnan(v)) continue;
    const double d = v - m;
    squares += d * d;
    below += v < ref;
    at_or_below += v <= ref;
  }
  block_squares[i] = squares;
  block_below[i] = below;
  block_at_or_below[i] = at_or_below;
}

// Thread s: statistic s's block totals added in block order (counts: any order, exact).
__global__ void add_blocks_kernel(const double* block_real, const SummaryCount* block_a, const SummaryCount* block_b,
                                  uint64_t n_blocks, int32_t S, double* real, SummaryCount* a, SummaryCount* b) {
  const int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= S) return;
  double total = 0;
  SummaryCount total_a = 0, total_b = 0;
  // One thread walks n_blocks ≈ B / 256 entries: unrolled so that its loads, which do not wait
  // on the additions, are in flight together.
#pragma unroll 8
  for (uint64_t k = 0; k < n_blocks; ++k) {
    total += block_real[k * S + s];
    total_a += block_a[k * S + s];
    if (block_b) total_b += block_b[k * S + s];
  }
  real[s] = total;
  a[s] = total_a;
  if (b) b[s] = total_b;
}

__global__ void order_keys_kernel(const double* values, uint64_t B, int32_t S, int32_t s, uint64_t* keys) {
  for (uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < B; r += uint64_t(gridDim.x) * blockDim.x)
    keys[r] = order_key(values[r * S + s]);
}

// Query i: the sorted keys at rank and rank + 1 (the rank's own when rank + 1 is past the
// defined values); NaN at the rank itself marks a rank beyond the defined values.
__global__ void pick_order_statistics_kernel(const uint64_t* sorted, uint64_t B, const uint64_t* ranks, int64_t n,
                                             double* out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr uint64_t kUndefined = ~uint64_t(0);
  const uint64_t rank = ranks[i];
  const uint64_t at = rank < B ? sorted[rank] : kUndefined;
  uint64_t next = rank + 1 < B ? sorted[rank + 1] : kUndefined;
  if (next == kUndefined) next = at;
  out[2 * i] = from_order_key(at);
  out[2 * i + 1] = from_order_key(next);
}

}  // namespace judgestat::cuda_detail
