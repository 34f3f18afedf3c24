// Replicates over MPI ranks, as an engine beside the split backend: the bootstrap driver asks
// for replicate values kept somewhere and summarises them, without knowing how many ranks ran.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"

namespace judgestat::distributed {

struct KeptRun {
  /// Answers facts() and order_statistics() on every rank, equal to one process's: under MPI
  /// rank 0 holds every value and computes, the other ranks receive its answers (collective:
  /// every rank asks the same questions in the same order, as the deterministic driver does).
  std::unique_ptr<KeptReplicates> kept;
  /// The B × S values (replicate-major) when asked for with `keep_values`, on every rank.
  std::vector<double> values;
};

/// Runs replicates [0, B) of `plan` on this process's backend. One process: kept where made
/// (the CUDA backend's device memory) unless the values are wanted or
/// JUDGESTAT_DEVICE_SUMMARIES=0, else in chunks on the host. Under MPI: each rank runs its
/// contiguous share, rank 0 gathers them in replicate order. A failing rank fails every rank.
/// std::invalid_argument ("replicates: …") when the host values cannot fit in memory.
/// progress(done) counts replicates of the whole run.
KeptRun run_replicates_kept_everywhere(Backend& backend, const CompiledPlan& plan, uint64_t seed, uint64_t B,
                                       bool keep_values, const std::function<void(uint64_t)>& progress);

/// docs/statistics.md §7.3's sign-flip exceedance counts over replicates [0, B), on every rank:
/// each rank counts its contiguous share on its backend and the counts are summed (exact, so
/// equal to one process's). A failing rank fails every rank.
std::vector<uint64_t> count_sign_flip_exceedances_everywhere(Backend& backend, const CompiledPlan& plan, uint64_t seed,
                                                             uint64_t B);

}  // namespace judgestat::distributed
