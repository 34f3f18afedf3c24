// The label-budget kernel (docs/statistics.md §3.5; its dispatch and the description of its
// steps and variants are in budget.cu), in a header so that the CPU runtime (tests/cuda_cpu/)
// runs the same source. Included by one .cu only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../detail/device_runtime.cuh"
#include "judgestat/budget.hpp"

namespace judgestat::cuda_detail {

constexpr unsigned kBudgetFullMask = 0xFFFFFFFFu;

struct BudgetKernelArgs {
  const uint32_t* item_code;
  const int64_t* fee_first;
  const int64_t* fee_fallback;
  const int64_t* total_accepted_2d;  // n_strata × n_choices
  const int64_t* total_cascade_fee;  // n_strata × n_choices
  const int64_t* total_escalated;    // n_strata × n_choices
  int64_t total_fallback_fee;
  uint32_t n_items, k;
  int32_t n_grid, n_strata;
  RuleSettings rule;
  uint32_t key0, key1;
  uint32_t first_draw, count;
  int64_t* out_heldout_2d;
  int64_t* out_heldout_escalated;
  double* out_fee_ratio;
  uint8_t* out_chosen;  // count × n_strata
};

// Shared memory of one warp, in 32-bit words: counts, then per-stratum choices, then picks, then
// (variant 2) per-(stratum, level) suffix sums of counts, 2d and 4d².
__host__ __device__ inline size_t budget_warp_words(uint32_t k, int32_t n_grid, int32_t n_strata) {
  const size_t words = static_cast<size_t>(n_strata) * (n_grid + 1) * 8 + n_strata + k;
  return (words + 3) & ~size_t{3};  // keep every warp's area 16-byte aligned
}

__device__ __forceinline__ int64_t budget_warp_sum(int64_t value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kBudgetFullMask, value, offset);
  return value;
}

template <int Variant>
__global__ void budget_kernel(BudgetKernelArgs a) {
  JS_DYNAMIC_SHARED(uint32_t, shared_words, 16);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps_per_block = blockDim.x >> 5;
  const int32_t n_choices = a.n_grid + 1;
  const int32_t n_counts = a.n_strata * n_choices * 5;

  uint32_t* area = shared_words + budget_warp_words(a.k, a.n_grid, a.n_strata) * warp;
  int32_t* counts = reinterpret_cast<int32_t*>(area);  // [stratum][level][2d + 2]
  int32_t* best = counts + n_counts;                   // per stratum: packed choice, then index
  uint32_t* picks = reinterpret_cast<uint32_t*>(best + a.n_strata);
  const int32_t n_levels = a.n_strata * n_choices;
  int32_t* level_count = reinterpret_cast<int32_t*>(picks + a.k);  // variant 2: suffix sums
  int32_t* level_2d = level_count + n_levels;
  int32_t* level_4d2 = level_2d + n_levels;
  const PhiloxKey key(uint64_t{a.key0} | (uint64_t{a.key1} << 32));

  for (uint32_t r = blockIdx.x * warps_per_block + warp; r < a.count; r += gridDim.x * warps_per_block) {
    const uint32_t draw = a.first_draw + r;
    for (int32_t x = lane; x < n_counts; x += 32) counts[x] = 0;
    for (int32_t h = lane; h < a.n_strata; h += 32) best[h] = -1;
    __syncwarp();

    // 1. Floyd's selection, one batch of 32 steps per iteration.
    Words4 group_block{};  // variant 2: block (i0 & ~127) / 4 + lane, serving steps of 4 lanes
    for (uint32_t i0 = 0; i0 < a.k; i0 += 32) {
      const uint32_t i = i0 + lane;
      const bool active = i < a.k;
      Words4 block{};
      if constexpr (Variant == 2) {
        if ((i0 & 127u) == 0) {
          const uint32_t own = (i0 >> 2) + static_cast<uint32_t>(lane);
          if (own < (a.k + 3) / 4) group_block = draw_block(key, own, draw, kBudgetStream);
        }
        // Step i's block is i / 4 = i0 / 4 + lane / 4, held by lane (i0 & 127) / 4 + lane / 4.
        const int owner = static_cast<int>((i0 & 127u) >> 2) + (lane >> 2);
        for (int w = 0; w < 4; ++w) block.w[w] = __shfl_sync(kBudgetFullMask, group_block.w[w], owner);
      }
      uint32_t j = 0, t = 0;
      bool taken = false;
      if (active) {
        if constexpr (Variant == 1) block = draw_block(key, i >> 2, draw, kBudgetStream);
        j = floyd_candidate(block, i, a.n_items, a.k);
        t = a.n_items - a.k + i;
        for (uint32_t e = 0; e < i0; ++e) taken |= picks[e] == j;
      }
      const uint32_t batch = min(32u, a.k - i0);
      for (uint32_t m = 0; m < batch; ++m) {
        // Step i0 + m's pick is final once the steps before it have been applied.
        const uint32_t pick_m = __shfl_sync(kBudgetFullMask, taken ? t : j, m);
        if (static_cast<uint32_t>(lane) > m && j == pick_m) taken = true;
      }
      if (active) {
        const uint32_t pick = taken ? t : j;
        picks[i] = pick;
        const uint32_t code = a.item_code[pick];
        atomicAdd(&counts[(item_stratum(code) * n_choices + item_level(code)) * 5 + item_d_code(code)], 1);
      }
      __syncwarp();
    }

    // 2. The rule at every (stratum, threshold); accepted at g = levels above g.
    if constexpr (Variant == 1) {
      for (int32_t pair = lane; pair < a.n_strata * a.n_grid; pair += 32) {
        const int32_t h = pair / a.n_grid, g = pair % a.n_grid;
        const int32_t* stratum_counts = counts + h * n_choices * 5;
        int64_t labelled = 0, accepted = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t level = 0; level < n_choices; ++level) {
          for (int32_t b = 0; b < 5; ++b) {
            const int64_t count = stratum_counts[level * 5 + b], twice_d = b - 2;
            labelled += count;
            if (level > g) {
              accepted += count;
              sum_2d += count * twice_d;
              sum_4d2 += count * twice_d * twice_d;
            }
          }
        }
        // ThresholdChoice's order: more accepted first, then the larger grid index.
        if (rule_passes(a.rule, sum_2d, sum_4d2, labelled))
          atomicMax(&best[h], static_cast<int32_t>((accepted << 8) | g));
      }
    } else {
      // Per (stratum, level) totals over the five 2d bins ...
      for (int32_t x = lane; x < n_levels; x += 32) {
        const int32_t* bins = counts + x * 5;
        int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t b = 0; b < 5; ++b) {
          count += bins[b];
          sum_2d += bins[b] * (b - 2);
          sum_4d2 += bins[b] * (b - 2) * (b - 2);
        }
        level_count[x] = count;
        level_2d[x] = sum_2d;
        level_4d2[x] = sum_4d2;
      }
      __syncwarp();
      // ... then suffix sums, a lane per stratum: entry (h, L) holds the sums over levels >= L.
      for (int32_t h = lane; h < a.n_strata; h += 32) {
        int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t level = n_choices - 1; level >= 0; --level) {
          const int32_t x = h * n_choices + level;
          level_count[x] = count += level_count[x];
          level_2d[x] = sum_2d += level_2d[x];
          level_4d2[x] = sum_4d2 += level_4d2[x];
        }
      }
      __syncwarp();
      // Accepted at g: levels above g, the suffix at g + 1 (g + 1 <= n_grid, the `all` level).
      for (int32_t pair = lane; pair < a.n_strata * a.n_grid; pair += 32) {
        const int32_t h = pair / a.n_grid, g = pair % a.n_grid;
        const int32_t above = h * n_choices + g + 1;
        const int64_t accepted = level_count[above];
        if (rule_passes(a.rule, level_2d[above], level_4d2[above], level_count[h * n_choices]))
          atomicMax(&best[h], static_cast<int32_t>((accepted << 8) | g));
      }
    }
    __syncwarp();

    // 3. Pool totals under each stratum's choice ...
    int64_t heldout_2d = 0, escalated = 0, cascade_fee = 0, fallback_fee = lane == 0 ? a.total_fallback_fee : 0;
    for (int32_t h = lane; h < a.n_strata; h += 32) {
      const int32_t c = best[h] < 0 ? a.n_grid : (best[h] & 0xFF);
      best[h] = c;
      a.out_chosen[static_cast<size_t>(r) * a.n_strata + h] = static_cast<uint8_t>(c);
      heldout_2d += a.total_accepted_2d[h * n_choices + c];
      escalated += a.total_escalated[h * n_choices + c];
      cascade_fee += a.total_cascade_fee[h * n_choices + c];
    }
    __syncwarp();
    // ... minus the labelled items' part.
    for (uint32_t i = lane; i < a.k; i += 32) {
      const uint32_t pick = picks[i];
      const uint32_t code = a.item_code[pick];
      const bool accepted = item_level(code) > best[item_stratum(code)];
      if (accepted)
        heldout_2d -= item_twice_d(code);
      else
        --escalated;
      cascade_fee -= a.fee_first[pick] + (accepted ? 0 : a.fee_fallback[pick]);
      fallback_fee -= a.fee_fallback[pick];
    }
    heldout_2d = budget_warp_sum(heldout_2d);
    escalated = budget_warp_sum(escalated);
    cascade_fee = budget_warp_sum(cascade_fee);
    fallback_fee = budget_warp_sum(fallback_fee);
    if (lane == 0) {
      a.out_heldout_2d[r] = heldout_2d;
      a.out_heldout_escalated[r] = escalated;
      a.out_fee_ratio[r] = fee_ratio_of(cascade_fee, fallback_fee);
    }
    __syncwarp();
  }
}

}  // namespace judgestat::cuda_detail
