#include "distributed/rank_replicates.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "distributed/distributed.hpp"

namespace judgestat::distributed {
namespace {

// The replicate values live on the host (B × S doubles, twice that when kept): refuse a run
// that cannot fit in this machine's memory up front, with the numbers, rather than failing an
// allocation or being killed by the system part-way.
void check_replicates_fit_memory(uint64_t B, int32_t S, bool keep) {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0 || S <= 0) return;
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  const double needed = static_cast<double>(B) * S * sizeof(double) * (keep ? 2 : 1);
  if (needed <= 0.8 * physical) return;
  char text[512];
  std::snprintf(text, sizeof text,
                "replicates: %llu replicates x %d statistics need %.1f GB of memory for the "
                "replicate values%s; this machine has %.1f GB. Use fewer replicates or statistics "
                "(e.g. fewer judges).",
                static_cast<unsigned long long>(B), S, needed / 1e9, keep ? " (kept, as they were asked for)" : "",
                physical / 1e9);
  throw std::invalid_argument(text);
}

// Rank 0's summaries for every rank: it computes, the others receive.
class RankKeptReplicates final : public KeptReplicates {
 public:
  explicit RankKeptReplicates(std::unique_ptr<KeptReplicates> root) : root_(std::move(root)) {}

  std::vector<ReplicateFacts> facts(const std::vector<double>& reference) override {
    std::vector<ReplicateFacts> facts(reference.size());
    fail_together([&] {
      if (is_root()) facts = root_->facts(reference);
    });
    std::vector<double> reals(2 * facts.size());
    std::vector<uint64_t> counts(3 * facts.size());
    for (size_t s = 0; s < facts.size(); ++s) {
      reals[2 * s] = facts[s].mean, reals[2 * s + 1] = facts[s].sum_squares;
      counts[3 * s] = facts[s].defined, counts[3 * s + 1] = facts[s].below, counts[3 * s + 2] = facts[s].at_or_below;
    }
    broadcast_from_root(reals.data(), reals.size());
    broadcast_from_root(counts.data(), counts.size());
    for (size_t s = 0; s < facts.size(); ++s)
      facts[s] = {counts[3 * s], reals[2 * s], reals[2 * s + 1], counts[3 * s + 1], counts[3 * s + 2]};
    return facts;
  }

  std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& queries) override {
    std::vector<std::pair<double, double>> pairs(queries.size());
    fail_together([&] {
      if (is_root()) pairs = root_->order_statistics(queries);
    });
    std::vector<double> flat(2 * pairs.size());
    for (size_t q = 0; q < pairs.size(); ++q) flat[2 * q] = pairs[q].first, flat[2 * q + 1] = pairs[q].second;
    broadcast_from_root(flat.data(), flat.size());
    for (size_t q = 0; q < pairs.size(); ++q) pairs[q] = {flat[2 * q], flat[2 * q + 1]};
    return pairs;
  }

  std::vector<uint64_t> distinct_counts(const std::vector<uint64_t>& defined) override {
    std::vector<uint64_t> counts(defined.size());
    fail_together([&] {
      if (is_root()) counts = root_->distinct_counts(defined);
    });
    broadcast_from_root(counts.data(), counts.size());
    return counts;
  }

 private:
  std::unique_ptr<KeptReplicates> root_;  // null off rank 0
};

// The host values of replicates [0, B): this rank's share run in chunks, gathered on rank 0
// behind its own share (replicate order); `values` holds B × S on rank 0, the share elsewhere.
double* run_on_host(Backend& backend, const CompiledPlan& plan, uint64_t seed, uint64_t B,
                    const std::function<void(uint64_t)>& progress) {
  const uint64_t S = static_cast<uint64_t>(plan.n_statistics);
  const Range mine = my_share(B);
  double* values = nullptr;
  fail_together([&] {
    values = backend.replicate_buffer((is_root() ? B : mine.count) * S);
    const uint64_t chunk = std::max<uint64_t>(1, backend.max_chunk(plan));
    for (uint64_t done = 0; done < mine.count; done += chunk) {
      const uint64_t count = std::min(chunk, mine.count - done);
      backend.run_replicates(plan, seed, mine.first + done, count, values + done * S);
      if (progress) progress(run_progress(done + count, mine.count, B));
    }
  });
  gather_to_root(values, mine.count * S, values, is_root() ? B * S : 0);
  return values;
}

}  // namespace

KeptRun run_replicates_kept_everywhere(Backend& backend, const CompiledPlan& plan, uint64_t seed, uint64_t B,
                                       bool keep_values, const std::function<void(uint64_t)>& progress) {
  const int32_t S = plan.n_statistics;
  KeptRun run;
  if (size() == 1 && !keep_values) {  // a backend may decline (JUDGESTAT_DEVICE_SUMMARIES=0: CudaTuning)
    run.kept = backend.run_replicates_kept(plan, seed, B, progress);
    if (run.kept) return run;
  }
  check_replicates_fit_memory(B, S, keep_values);
  double* values = run_on_host(backend, plan, seed, B, progress);
  if (keep_values) {
    // Every rank returns the whole distribution.
    if (size() > 1 && !is_root()) values = backend.replicate_buffer(B * S);
    if (size() > 1) broadcast_from_root(values, B * S);
    run.values.assign(values, values + B * S);
  }
  // The summaries read the values where they are: the kept copy when there is one.
  const double* summarised = keep_values ? run.values.data() : values;
  std::unique_ptr<KeptReplicates> root = is_root() ? host_kept_replicates(summarised, B, S) : nullptr;
  run.kept = size() == 1 ? std::move(root) : std::make_unique<RankKeptReplicates>(std::move(root));
  return run;
}

std::vector<uint64_t> count_sign_flip_exceedances_everywhere(Backend& backend, const CompiledPlan& plan, uint64_t seed,
                                                             uint64_t B) {
  std::vector<uint64_t> exceed(plan.sign_flip_tests.size(), 0);
  if (exceed.empty()) return exceed;
  const Range mine = my_share(B);
  fail_together([&] {
    if (mine.count > 0) exceed = backend.count_sign_flip_exceedances(plan, seed, mine.first, mine.count);
  });
  if (size() > 1) {
    sum_to_root(exceed.data(), exceed.size());
    broadcast_from_root(exceed.data(), exceed.size());
  }
  return exceed;
}

}  // namespace judgestat::distributed
