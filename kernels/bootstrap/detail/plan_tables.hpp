// Host-side tables the CUDA backend builds from a compiled plan for its kernels (dispatch in
// ../cuda_backend.cu): the strata's flat Philox-block numbering, the gather path's words and rank
// counters, and whether the tile path's counters can hold the plan. Plain C++ (no CUDA headers),
// so the CPU runtime's tests (tests/cuda_cpu/) build the very views the backend uploads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "byte_planes.hpp"
#include "judgestat/plan.hpp"

namespace judgestat::cuda_detail {

constexpr uint32_t kDrawsPerPhiloxBlock = 4;  // one Philox call yields four 32-bit words

/// StratumTable's arrays: cluster offsets in uint32 and the flat Philox-block numbering
/// (stratum h owns ceil(C_h / 4) blocks).
struct StratumVectors {
  std::vector<uint32_t> cluster_offset, block_offset;
};

inline StratumVectors stratum_vectors(const CompiledPlan& plan) {
  const int32_t H = plan.n_strata();
  StratumVectors tables;
  tables.cluster_offset.resize(H + 1);
  tables.block_offset.assign(H + 1, 0);
  for (int32_t h = 0; h <= H; ++h) tables.cluster_offset[h] = static_cast<uint32_t>(plan.stratum_offset[h]);
  for (int32_t h = 0; h < H; ++h) {
    const uint32_t size = tables.cluster_offset[h + 1] - tables.cluster_offset[h];
    tables.block_offset[h + 1] = tables.block_offset[h] + (size + kDrawsPerPhiloxBlock - 1) / kDrawsPerPhiloxBlock;
  }
  return tables;
}

/// The gather path's per-cluster sums modulo 2^(8 sizeof(Word)).
template <typename Word>
inline std::vector<Word> gather_words(const CompiledPlan& plan) {
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "64-bit words");
  std::vector<Word> words(plan.cluster_sums.size());
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = static_cast<Word>(static_cast<unsigned long long>(plan.cluster_sums[i]));
  return words;
}

/// The gather path's counters for rank terms: one slot per cluster that some rank entry names.
struct RankSlots {
  std::vector<int32_t> cluster_slot;  // n_clusters: slot or -1
  std::vector<int32_t> entry_slot;    // per rank entry
  uint32_t n_slots = 0;
};

inline RankSlots rank_slots(const CompiledPlan& plan) {
  RankSlots slots;
  slots.cluster_slot.assign(size_t(plan.n_clusters), -1);
  slots.entry_slot.reserve(plan.rank_cluster.size());
  for (int32_t c : plan.rank_cluster) {
    if (slots.cluster_slot[c] < 0) slots.cluster_slot[c] = static_cast<int32_t>(slots.n_slots++);
    slots.entry_slot.push_back(slots.cluster_slot[c]);
  }
  return slots;
}

/// Why the multiplicity-tile path's counters cannot hold this plan's draws ("" when they can).
inline std::string tile_counter_refusal(const CompiledPlan& plan) {
  int64_t largest_stratum = 0;
  for (size_t h = 1; h < plan.stratum_offset.size(); ++h)
    largest_stratum = std::max(largest_stratum, plan.stratum_offset[h] - plan.stratum_offset[h - 1]);
  // A counter never exceeds its stratum's size: one draw per cluster of the stratum.
  if (largest_stratum > int64_t(kMaxStratumForCounters))
    return "a stratum has " + std::to_string(largest_stratum) +
           " clusters; 16-bit multiplicity counters hold at most 65535";
  // Plane sums are int32 and reach at most 255 * C.
  if (plan.n_clusters > int64_t(std::numeric_limits<int32_t>::max() / 255))
    return "too many clusters for int32 plane sums";
  return "";
}

}  // namespace judgestat::cuda_detail
