// The label-budget kernel (docs/statistics.md §3.5; its dispatch and the description of its
// steps and variants are in ../cuda_budget_engine.cu), CUB-style like the bootstrap kernels: the kernel at
// the bottom is a grid-stride loop over the chunk's draws, one warp each, that hands each draw to
// a BudgetWarpAgent, which runs its three steps (select, choose thresholds, score) with the
// warp's shared memory. In a header so that the CPU runtime (tests/cuda_cpu/) runs the same
// source. Included by one .cu only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../../detail/device_runtime.cuh"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"

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

/// What one warp does for one draw. Variant 1 or 2 (../cuda_budget_engine.cu) chooses how steps 1 and 2
/// reach their Philox words and their per-threshold sums; the outcomes are identical.
template <int Variant>
class BudgetWarpAgent {
 public:
  /// `warp_area`: this warp's budget_warp_words(k, n_grid, n_strata) words of shared memory.
  __device__ BudgetWarpAgent(const BudgetKernelArgs& a, uint32_t* warp_area)
      : a_(a),
        lane_(threadIdx.x & 31),
        n_choices_(a.n_grid + 1),
        n_counts_(a.n_strata * n_choices_ * 5),
        n_levels_(a.n_strata * n_choices_),
        counts_(reinterpret_cast<int32_t*>(warp_area)),
        best_(counts_ + n_counts_),
        picks_(reinterpret_cast<uint32_t*>(best_ + a.n_strata)),
        level_count_(reinterpret_cast<int32_t*>(picks_ + a.k)),
        level_2d_(level_count_ + n_levels_),
        level_4d2_(level_2d_ + n_levels_),
        key_(uint64_t{a.key0} | (uint64_t{a.key1} << 32)) {}

  /// Draw first_draw + r: its outcomes into entry r of the outputs.
  __device__ void run_draw(uint32_t r) {
    for (int32_t x = lane_; x < n_counts_; x += 32) counts_[x] = 0;
    for (int32_t h = lane_; h < a_.n_strata; h += 32) best_[h] = -1;
    __syncwarp();
    select(a_.first_draw + r);
    if constexpr (Variant == 1)
      choose_by_levels_above();
    else
      choose_by_suffix_sums();
    __syncwarp();
    score(r);
  }

 private:
  /// 1. Floyd's selection, one batch of 32 steps per iteration; each pick counted in its
  /// (stratum, level, 2d) bin.
  __device__ void select(uint32_t draw) {
    Words4 group_block{};  // variant 2: block (i0 & ~127) / 4 + lane, serving steps of 4 lanes
    for (uint32_t i0 = 0; i0 < a_.k; i0 += 32) {
      const uint32_t i = i0 + lane_;
      const bool active = i < a_.k;
      Words4 block{};
      if constexpr (Variant == 2) {
        if ((i0 & 127u) == 0) {
          const uint32_t own = (i0 >> 2) + static_cast<uint32_t>(lane_);
          if (own < (a_.k + 3) / 4) group_block = draw_block(key_, own, draw, kBudgetStream);
        }
        // Step i's block is i / 4 = i0 / 4 + lane / 4, held by lane (i0 & 127) / 4 + lane / 4.
        const int owner = static_cast<int>((i0 & 127u) >> 2) + (lane_ >> 2);
        for (int w = 0; w < 4; ++w) block.w[w] = __shfl_sync(kBudgetFullMask, group_block.w[w], owner);
      }
      uint32_t j = 0, t = 0;
      bool taken = false;
      if (active) {
        if constexpr (Variant == 1) block = draw_block(key_, i >> 2, draw, kBudgetStream);
        j = floyd_candidate(block, i, a_.n_items, a_.k);
        t = a_.n_items - a_.k + i;
        for (uint32_t e = 0; e < i0; ++e) taken |= picks_[e] == j;
      }
      const uint32_t batch = min(32u, a_.k - i0);
      for (uint32_t m = 0; m < batch; ++m) {
        // Step i0 + m's pick is final once the steps before it have been applied.
        const uint32_t pick_m = __shfl_sync(kBudgetFullMask, taken ? t : j, m);
        if (static_cast<uint32_t>(lane_) > m && j == pick_m) taken = true;
      }
      if (active) {
        const uint32_t pick = taken ? t : j;
        picks_[i] = pick;
        const uint32_t code = a_.item_code[pick];
        atomicAdd(&counts_[(item_stratum(code) * n_choices_ + item_level(code)) * 5 + item_d_code(code)], 1);
      }
      __syncwarp();
    }
  }

  /// 2 (variant 1). The rule at every (stratum, threshold), summing the levels above g for each
  /// g; accepted at g = levels above g.
  __device__ void choose_by_levels_above() {
    for (int32_t pair = lane_; pair < a_.n_strata * a_.n_grid; pair += 32) {
      const int32_t h = pair / a_.n_grid, g = pair % a_.n_grid;
      const int32_t* stratum_counts = counts_ + h * n_choices_ * 5;
      int64_t labelled = 0, accepted = 0, sum_2d = 0, sum_4d2 = 0;
      for (int32_t level = 0; level < n_choices_; ++level) {
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
      if (rule_passes(a_.rule, sum_2d, sum_4d2, labelled))
        atomicMax(&best_[h], static_cast<int32_t>((accepted << 8) | g));
    }
  }

  /// 2 (variant 2). Per (stratum, level) totals over the five 2d bins, then suffix sums, so each
  /// (stratum, g) reads its sums.
  __device__ void choose_by_suffix_sums() {
    for (int32_t x = lane_; x < n_levels_; x += 32) {
      const int32_t* bins = counts_ + x * 5;
      int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
      for (int32_t b = 0; b < 5; ++b) {
        count += bins[b];
        sum_2d += bins[b] * (b - 2);
        sum_4d2 += bins[b] * (b - 2) * (b - 2);
      }
      level_count_[x] = count;
      level_2d_[x] = sum_2d;
      level_4d2_[x] = sum_4d2;
    }
    __syncwarp();
    // ... then suffix sums, a lane per stratum: entry (h, L) holds the sums over levels >= L.
    for (int32_t h = lane_; h < a_.n_strata; h += 32) {
      int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
      for (int32_t level = n_choices_ - 1; level >= 0; --level) {
        const int32_t x = h * n_choices_ + level;
        level_count_[x] = count += level_count_[x];
        level_2d_[x] = sum_2d += level_2d_[x];
        level_4d2_[x] = sum_4d2 += level_4d2_[x];
      }
    }
    __syncwarp();
    // Accepted at g: levels above g, the suffix at g + 1 (g + 1 <= n_grid, the `all` level).
    for (int32_t pair = lane_; pair < a_.n_strata * a_.n_grid; pair += 32) {
      const int32_t h = pair / a_.n_grid, g = pair % a_.n_grid;
      const int32_t above = h * n_choices_ + g + 1;
      const int64_t accepted = level_count_[above];
      if (rule_passes(a_.rule, level_2d_[above], level_4d2_[above], level_count_[h * n_choices_]))
        atomicMax(&best_[h], static_cast<int32_t>((accepted << 8) | g));
    }
  }

  /// 3. The chosen policy scored on the held-out items: pool totals under each stratum's choice
  /// minus the labelled items' part, in integers, reduced across the warp.
  __device__ void score(uint32_t r) {
    int64_t heldout_2d = 0, escalated = 0, cascade_fee = 0, fallback_fee = lane_ == 0 ? a_.total_fallback_fee : 0;
    for (int32_t h = lane_; h < a_.n_strata; h += 32) {
      const int32_t c = best_[h] < 0 ? a_.n_grid : (best_[h] & 0xFF);
      best_[h] = c;
      a_.out_chosen[static_cast<size_t>(r) * a_.n_strata + h] = static_cast<uint8_t>(c);
      heldout_2d += a_.total_accepted_2d[h * n_choices_ + c];
      escalated += a_.total_escalated[h * n_choices_ + c];
      cascade_fee += a_.total_cascade_fee[h * n_choices_ + c];
    }
    __syncwarp();
    for (uint32_t i = lane_; i < a_.k; i += 32) {
      const uint32_t pick = picks_[i];
      const uint32_t code = a_.item_code[pick];
      const bool accepted = item_level(code) > best_[item_stratum(code)];
      if (accepted)
        heldout_2d -= item_twice_d(code);
      else
        --escalated;
      cascade_fee -= a_.fee_first[pick] + (accepted ? 0 : a_.fee_fallback[pick]);
      fallback_fee -= a_.fee_fallback[pick];
    }
    heldout_2d = budget_warp_sum(heldout_2d);
    escalated = budget_warp_sum(escalated);
    cascade_fee = budget_warp_sum(cascade_fee);
    fallback_fee = budget_warp_sum(fallback_fee);
    if (lane_ == 0) {
      a_.out_heldout_2d[r] = heldout_2d;
      a_.out_heldout_escalated[r] = escalated;
      a_.out_fee_ratio[r] = fee_ratio_of(cascade_fee, fallback_fee);
    }
    __syncwarp();
  }

  const BudgetKernelArgs& a_;  // the kernel's parameter, read in place: sm_90 registers stay 48 and 60
  const int lane_;
  const int32_t n_choices_, n_counts_, n_levels_;
  int32_t* counts_;       // [stratum][level][2d + 2]
  int32_t* best_;         // per stratum: packed choice, then index
  uint32_t* picks_;       // [k] the selection, in step order
  int32_t* level_count_;  // variant 2: per (stratum, level) suffix sums of counts, 2d and 4d²
  int32_t* level_2d_;
  int32_t* level_4d2_;
  const PhiloxKey key_;
};

/// Grid-stride loop over the chunk's draws, one warp each.
template <int Variant>
__global__ void budget_kernel(BudgetKernelArgs a) {
  JS_DYNAMIC_SHARED(uint32_t, shared_words, 16);
  const int warp = threadIdx.x >> 5;
  const int warps_per_block = blockDim.x >> 5;
  BudgetWarpAgent<Variant> agent(a, shared_words + budget_warp_words(a.k, a.n_grid, a.n_strata) * warp);
  for (uint32_t r = blockIdx.x * warps_per_block + warp; r < a.count; r += gridDim.x * warps_per_block)
    agent.run_draw(r);
}

using BudgetKernel = void (*)(BudgetKernelArgs);

/// The variant the execution target's tuning names (JUDGESTAT_BUDGET_KERNEL; 1 unless it is 2).
inline BudgetKernel budget_kernel_for(const CudaTuning& tuning) {
  return tuning.budget_kernel == 2 ? budget_kernel<2> : budget_kernel<1>;
}

}  // namespace judgestat::cuda_detail
