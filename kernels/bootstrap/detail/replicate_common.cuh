// Device pieces both bootstrap agents share: docs/statistics.md §2's draws of one replicate, numbered across
// strata, and the statistics' programs.
#pragma once
#include <cstdint>

#include "../../detail/device_runtime.cuh"
#include "judgestat/philox.hpp"
#include "judgestat/plan.hpp"
#include "plan_tables.hpp"  // kDrawsPerPhiloxBlock

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "judgestat's CUDA kernels need compute capability 8.0 or newer (mma.sync m16n8k32)"
#endif

namespace judgestat::cuda_detail {

constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kWarpSize = 32;

/// The strata as the draw loops see them. A replicate's Philox blocks are numbered across
/// strata: stratum h owns the ceil(C_h / 4) blocks [block_offset[h], block_offset[h + 1]), so
/// threads can split one flat range of blocks without caring where strata begin.
struct StratumTable {
  const uint32_t* cluster_offset;  // H + 1 entries: first cluster of each stratum
  const uint32_t* block_offset;    // H + 1 entries: first flat Philox block of each stratum
  int32_t n_strata;
  uint32_t n_blocks;  // block_offset[H]: Philox blocks per replicate
};

/// Up to four drawn clusters (global numbers) from one Philox block.
struct ClusterDraws {
  uint32_t cluster[kDrawsPerPhiloxBlock];
  uint32_t count;  // the stratum's last block holds C_h mod 4 draws when that is not 0
};

/// Read-only load through the non-coherent cache on the device; a plain load in host code (the
/// draw helpers below are __host__ __device__ so host-side checks can run the same code).
template <typename T>
__host__ __device__ __forceinline__ T load_readonly(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

/// The stratum that owns flat Philox block `block` (< n_blocks). Binary search for the last h
/// with block_offset[h] <= block; an empty stratum owns no block and is never returned.
__host__ __device__ __forceinline__ int32_t stratum_of_block(const StratumTable& strata, uint32_t block) {
  int32_t lo = 0, hi = strata.n_strata;  // block_offset[lo] <= block < block_offset[hi]
  while (hi - lo > 1) {
    const int32_t mid = (lo + hi) >> 1;
    if (load_readonly(strata.block_offset + mid) <= block)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// Draws 4b .. 4b+3 of `replicate` in the stratum owning flat block `block` (local block b):
/// word d mod 4 of Philox(counter = (d div 4, r, h, 0)), scaled to the stratum's C_h clusters.
__host__ __device__ __forceinline__ ClusterDraws draw_clusters(PhiloxKey key, uint32_t replicate, uint32_t block,
                                                               const StratumTable& strata) {
  const int32_t h = stratum_of_block(strata, block);
  const uint32_t first_cluster = load_readonly(strata.cluster_offset + h);
  const uint32_t size = load_readonly(strata.cluster_offset + h + 1) - first_cluster;
  const uint32_t local_block = block - load_readonly(strata.block_offset + h);
  const Words4 words = draw_block(key, local_block, replicate, bootstrap_stream(static_cast<uint32_t>(h)));
  ClusterDraws draws;
  const uint32_t left = size - kDrawsPerPhiloxBlock * local_block;
  draws.count = left < kDrawsPerPhiloxBlock ? left : kDrawsPerPhiloxBlock;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i) draws.cluster[i] = first_cluster + scale_to(words.w[i], size);
  return draws;
}

/// The statistics' finishing programs (plan.hpp's evaluate) as uploaded to the device. A
/// replicate's extras are its normal draws, then its rank terms' 2U (what kNormal and kRank read).
struct ProgramView {
  const Op* ops;
  const int32_t* op_offset;      // n_statistics + 1
  const double* column_unscale;  // n_columns
  int32_t n_statistics;
  int32_t n_columns;
  int32_t n_normals;
  int32_t n_rank_terms;

  __host__ __device__ int32_t n_extras() const { return n_normals + n_rank_terms; }
};

/// Statistic `s` of one replicate from its column sums (fixed point) and extras.
template <typename Sum>
__host__ __device__ __forceinline__ double evaluate_statistic(const ProgramView& program, int32_t s, const Sum* sums,
                                                              const double* extras) {
  const int32_t begin = load_readonly(program.op_offset + s);
  const int32_t end = load_readonly(program.op_offset + s + 1);
  return evaluate(program.ops + begin, end - begin, sums, program.column_unscale, extras);
}

/// The plan's rank terms: term t owns entries [entry_offset[t], entry_offset[t + 1]), sorted by
/// ascending score, tie groups marked by entry_tie_start (CompiledPlan's rank_* arrays).
struct RankView {
  const int64_t* entry_offset;   // n_terms + 1
  const int32_t* entry_cluster;  // the entry's cluster (the tile path's histogram index)
  const int32_t* entry_slot;     // the gather path's counter of the entry's cluster
  const uint8_t* entry_positive;
  const uint8_t* entry_tie_start;
  int32_t n_terms;
};

/// 2U of rank term t (plan.hpp's rank_term_2u), computed by one whole warp, 32 entries at a
/// time; weight_of(e) is the multiplicity of entry e's cluster. Instead of rank_term_2u's walk
/// over tie groups it uses the equivalent sum over entries of quantities that only look back:
///   2U = sum_{e positive} w_e (2 N(e) - Ng(e)) + sum_{e negative} w_e Pg(e),
/// N(e) = negative weight before e, Ng(e) / Pg(e) = negative / positive weight before e in e's
/// tie group. (Per group g this is 2 pos_g N_g + pos_g neg_g, rank_term_2u's term.) Prefix sums
/// across the warp are shuffle scans, segmented at tie-group starts, carried across chunks.
/// Integer arithmetic modulo 2^64: the exact 2U whatever the order. Every lane gets the result.
template <typename WeightOf>
__device__ int64_t warp_rank_term_2u(const RankView& rank, int32_t t, WeightOf weight_of) {
  const uint32_t lane = threadIdx.x % kWarpSize;
  const int64_t begin = load_readonly(rank.entry_offset + t);
  const int64_t end = load_readonly(rank.entry_offset + t + 1);
  uint64_t twice_u = 0;                             // this lane's share
  uint64_t negatives_before = 0;                    // negative weight of the entries before this chunk
  uint64_t open_negatives = 0, open_positives = 0;  // the tie group open at the chunk's start
  for (int64_t base = begin; base < end; base += kWarpSize) {
    const int64_t e = base + lane;
    const bool valid = e < end;  // lanes past the end carry weight 0 and start no group
    const uint64_t weight = valid ? uint64_t(weight_of(e)) : 0;
    const bool positive = valid && load_readonly(rank.entry_positive + e) != 0;
    const uint64_t negative_weight = positive ? 0 : weight;
    const uint64_t positive_weight = positive ? weight : 0;
    uint64_t negatives = negative_weight;                                           // inclusive scan over the chunk
    uint64_t group_negatives = negative_weight, group_positives = positive_weight;  // segmented
    int group_started = valid && load_readonly(rank.entry_tie_start + e) != 0;      // at or before
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset <<= 1) {
      const uint64_t negatives_up = __shfl_up_sync(kFullMask, negatives, offset);
      const uint64_t group_negatives_up = __shfl_up_sync(kFullMask, group_negatives, offset);
      const uint64_t group_positives_up = __shfl_up_sync(kFullMask, group_positives, offset);
      const int group_started_up = __shfl_up_sync(kFullMask, group_started, offset);
      if (lane >= uint32_t(offset)) {
        negatives += negatives_up;
        if (!group_started) {
          group_negatives += group_negatives_up;
          group_positives += group_positives_up;
        }
        group_started |= group_started_up;
      }
    }
    uint64_t negatives_in_group_before = group_negatives - negative_weight;
    uint64_t positives_in_group_before = group_positives - positive_weight;
    if (!group_started) {  // this lane's group began in an earlier chunk
      negatives_in_group_before += open_negatives;
      positives_in_group_before += open_positives;
    }
    const uint64_t all_negatives_before = negatives_before + negatives - negative_weight;
    twice_u +=
        positive ? weight * (2 * all_negatives_before - negatives_in_group_before) : weight * positives_in_group_before;
    // Carries into the next chunk, from the last lane.
    negatives_before += __shfl_sync(kFullMask, negatives, kWarpSize - 1);
    const uint64_t last_group_negatives = __shfl_sync(kFullMask, group_negatives, kWarpSize - 1);
    const uint64_t last_group_positives = __shfl_sync(kFullMask, group_positives, kWarpSize - 1);
    const int last_group_started = __shfl_sync(kFullMask, group_started, kWarpSize - 1);
    open_negatives = last_group_negatives + (last_group_started ? 0 : open_negatives);
    open_positives = last_group_positives + (last_group_started ? 0 : open_positives);
  }
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) twice_u += __shfl_xor_sync(kFullMask, twice_u, offset);
  return static_cast<int64_t>(twice_u);
}

}  // namespace judgestat::cuda_detail
