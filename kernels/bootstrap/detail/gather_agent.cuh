// General path: one thread block per replicate, for plans whose multiplicity histograms do not
// fit in shared memory (C in the tens of millions is fine) or that the fast path cannot take.
//
// A warp's lanes each draw one Philox block (four clusters); the warp then walks the drawn
// clusters one at a time (shuffled to every lane) and adds the cluster's row of per-cluster
// sums, lane j holding columns j, j + 32, j + 64, j + 96 in registers, so each row is read with
// coalesced loads. Lanes' partial sums meet in shared memory with integer atomics. Columns
// beyond 128 take further passes over the same draws (recomputed: Philox is cheaper than
// storing them). Nothing here grows with the number of replicates or clusters except the
// uploaded plan itself and, for plans with rank terms, one counter per block for each cluster a
// rank term mentions: the first pass also counts those clusters' draws (global-memory atomics),
// and a warp per rank term then turns the counts into its 2U (warp_rank_term_2u).
//
// Word is uint32 when the plan promises int32 replicate sums (fits_int32), else uint64: sums
// are formed modulo 2^32 or 2^64, which gives the exact sum whenever that sum fits the signed
// type, whatever the order of additions and however partial sums wander.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../detail/device_runtime.cuh"
#include "gather_rows.hpp"
#include "replicate_common.cuh"

namespace judgestat::cuda_detail {

constexpr int kGatherThreads = 256;
constexpr int kGatherColumnsPerLane = 4;
constexpr int kGatherColumnsPerPass = kWarpSize * kGatherColumnsPerLane;

template <typename Word>
struct GatherPlanView {
  StratumTable strata;
  ProgramView program;
  RankView rank;
  const Word* values;           // n_clusters x n_columns per-cluster sums, mod 2^(8 sizeof(Word))
  const int32_t* cluster_slot;  // rank terms only: per cluster its counter, or -1
  uint32_t n_slots;             // counters per block (clusters some rank term mentions)
  uint32_t* slot_counts;        // gridDim.x x n_slots multiplicity counters
};

/// Dynamic shared memory of one block: extras, then the column sums.
template <typename Word>
__host__ __device__ inline size_t gather_shared_bytes(int32_t n_columns, int32_t n_extras) {
  return size_t(n_extras) * sizeof(double) + size_t(n_columns) * sizeof(Word);
}

/// RowsInFlight (JUDGESTAT_GATHER_ROWS, bench/NOTES.md): kGatherRowsInFlight rows loaded
/// together; a separate kernel, so that the default keeps its registers.
template <typename Word, bool RowsInFlight>
class GatherAgent {
  static_assert(std::is_same<Word, unsigned int>::value || std::is_same<Word, unsigned long long>::value,
                "column sums are formed in uint32 or uint64 (the types atomicAdd takes)");
  using SignedWord = std::make_signed_t<Word>;

 public:
  __device__ GatherAgent(const GatherPlanView<Word>& plan, PhiloxKey key, unsigned char* shared)
      : plan_(plan), key_(key) {
    extras_ = reinterpret_cast<double*>(shared);
    sums_ = reinterpret_cast<Word*>(shared + size_t(plan.program.n_extras()) * sizeof(double));
    slot_counts_ = plan.slot_counts + size_t(blockIdx.x) * plan.n_slots;
  }

  __device__ void run_replicate(uint32_t replicate, double* out_row) {
    const int32_t n_columns = plan_.program.n_columns;
    const bool counting = plan_.rank.n_terms > 0;
    for (int32_t k = threadIdx.x; k < n_columns; k += blockDim.x) sums_[k] = 0;
    for (int32_t k = threadIdx.x; k < plan_.program.n_normals; k += blockDim.x)
      extras_[k] = normal_draw(key_, replicate, static_cast<uint32_t>(k));
    if (counting)
      for (uint32_t i = threadIdx.x; i < plan_.n_slots; i += blockDim.x) slot_counts_[i] = 0;
    __syncthreads();
    // At least one pass when rank terms need the draws counted, even without columns.
    for (int32_t first_column = 0; first_column < n_columns || (counting && first_column == 0);
         first_column += kGatherColumnsPerPass)
      gather_columns(replicate, first_column, counting && first_column == 0);
    __syncthreads();
    if (counting) {
      rank_terms();
      __syncthreads();
    }
    // Two's complement: the signed reading of the wrapped sum is the true sum.
    const auto* sums = reinterpret_cast<const SignedWord*>(sums_);
    for (int32_t s = threadIdx.x; s < plan_.program.n_statistics; s += blockDim.x)
      out_row[s] = evaluate_statistic(plan_.program, s, sums, extras_);
    __syncthreads();  // the next replicate clears sums, extras and counters
  }

 private:
  // Extras n_normals + t: 2U of rank term t, a warp per term. The counters were written by
  // atomics at L2; reading them with ld.global.cg (L2, not L1) cannot see a stale L1 line.
  __device__ void rank_terms() {
    const uint32_t warp = threadIdx.x / kWarpSize, n_warps = blockDim.x / kWarpSize;
    const uint32_t* counts = slot_counts_;
    const int32_t* entry_slot = plan_.rank.entry_slot;
    for (int32_t t = warp; t < plan_.rank.n_terms; t += n_warps) {
      const int64_t twice_u =
          warp_rank_term_2u(plan_.rank, t, [=](int64_t e) { return __ldcg(counts + load_readonly(entry_slot + e)); });
      if (threadIdx.x % kWarpSize == 0) extras_[plan_.program.n_normals + t] = static_cast<double>(twice_u);
    }
  }

  // Adds columns [first_column, first_column + 128) of every drawn cluster's row; with
  // count_slots, also counts the draws of clusters that rank terms mention.
  __device__ void gather_columns(uint32_t replicate, int32_t first_column, bool count_slots) {
    const uint32_t lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const uint32_t n_warps = blockDim.x / kWarpSize;
    const int32_t n_columns = plan_.program.n_columns;
    const uint32_t n_blocks = plan_.strata.n_blocks;
    Word acc[kGatherColumnsPerLane] = {};
    bool lane_has_column[kGatherColumnsPerLane];
#pragma unroll
    for (int q = 0; q < kGatherColumnsPerLane; ++q)
      lane_has_column[q] = first_column + q * kWarpSize + int32_t(lane) < n_columns;

    for (uint32_t base = warp * kWarpSize; base < n_blocks; base += n_warps * kWarpSize) {
      ClusterDraws draws{};
      if (base + lane < n_blocks) draws = draw_clusters(key_, replicate, base + lane, plan_.strata);
      if (count_slots) {
#pragma unroll
        for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i) {
          if (i < draws.count) {
            const int32_t slot = load_readonly(plan_.cluster_slot + draws.cluster[i]);
            if (slot >= 0) atomicAdd(slot_counts_ + slot, 1u);
          }
        }
      }
      if constexpr (RowsInFlight) {
        add_rows_grouped(draws, first_column, lane_has_column, acc);
      } else {
#pragma unroll
        for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i) {
          uint32_t pending = __ballot_sync(kFullMask, i < draws.count);
          while (pending) {  // warp-uniform: every lane sees the same ballot
            const int source = __ffs(pending) - 1;
            pending &= pending - 1;
            const uint32_t cluster = __shfl_sync(kFullMask, draws.cluster[i], source);
            const Word* row = plan_.values + size_t(cluster) * n_columns + first_column + lane;
#pragma unroll
            for (int q = 0; q < kGatherColumnsPerLane; ++q)
              if (lane_has_column[q]) acc[q] += __ldg(row + q * kWarpSize);
          }
        }
      }
    }
#pragma unroll
    for (int q = 0; q < kGatherColumnsPerLane; ++q)
      if (lane_has_column[q]) atomicAdd(sums_ + first_column + q * kWarpSize + lane, acc[q]);
  }

  // The same additions as the one-row walk (integers modulo 2^n: any order gives the same
  // sums), kGatherRowsInFlight drawn clusters at a time: their rows' loads are all issued
  // before the first add.
  __device__ void add_rows_grouped(const ClusterDraws& draws, int32_t first_column,
                                   const bool (&lane_has_column)[kGatherColumnsPerLane],
                                   Word (&acc)[kGatherColumnsPerLane]) {
    const uint32_t lane = threadIdx.x % kWarpSize;
    const int32_t n_columns = plan_.program.n_columns;
#pragma unroll
    for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i) {
      uint32_t pending = __ballot_sync(kFullMask, i < draws.count);
      while (pending) {  // warp-uniform
        int source[kGatherRowsInFlight];
        const int n = take_lowest_lanes(pending, source);
        Word value[kGatherRowsInFlight][kGatherColumnsPerLane];
#pragma unroll
        for (int r = 0; r < kGatherRowsInFlight; ++r) {
          const uint32_t cluster = __shfl_sync(kFullMask, draws.cluster[i], source[r]);
          const Word* row = plan_.values + size_t(cluster) * n_columns + first_column + lane;
#pragma unroll
          for (int q = 0; q < kGatherColumnsPerLane; ++q)
            value[r][q] = r < n && lane_has_column[q] ? __ldg(row + q * kWarpSize) : Word(0);
        }
#pragma unroll
        for (int r = 0; r < kGatherRowsInFlight; ++r)
#pragma unroll
          for (int q = 0; q < kGatherColumnsPerLane; ++q) acc[q] += value[r][q];
      }
    }
  }

  const GatherPlanView<Word> plan_;
  PhiloxKey key_;
  double* extras_;         // [n_normals + n_rank_terms]
  Word* sums_;             // [n_columns]
  uint32_t* slot_counts_;  // this block's [n_slots] rank-cluster multiplicities (global)
};

/// Grid-stride loop over the chunk's replicates, one block each.
template <typename Word, bool RowsInFlight>
__global__ void __launch_bounds__(kGatherThreads)
    gather_kernel(GatherPlanView<Word> plan, uint64_t seed, uint64_t first, uint64_t count, double* out) {
  JS_DYNAMIC_SHARED(unsigned char, shared, 16);
  GatherAgent<Word, RowsInFlight> agent(plan, PhiloxKey(seed), shared);
  const int32_t n_statistics = plan.program.n_statistics;
  for (uint64_t i = blockIdx.x; i < count; i += gridDim.x)
    agent.run_replicate(static_cast<uint32_t>(first + i), out + i * n_statistics);
}

}  // namespace judgestat::cuda_detail
