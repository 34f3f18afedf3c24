// The label-budget draws over MPI ranks (docs/statistics.md §3.5, and §7.6's `--compare`), beside
// the split engine: each rank runs its share, rank 0 combines the summaries exactly, every rank
// returns it.
#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <stdexcept>
#include <vector>

#include "distributed/distributed.hpp"

namespace judgestat {
namespace {

// Rank 0's summary to every rank (their own summarizers gave theirs to rank 0: no draws).
void broadcast_summary(BudgetSummary& summary) {
  double reals[12] = {summary.loss_share,         summary.delta_mean,     summary.delta_q[0],
                      summary.delta_q[1],         summary.delta_q[2],     summary.fee_ratio_median,
                      summary.fee_ratio_q[0],     summary.fee_ratio_q[1], summary.fee_ratio_q[2],
                      summary.escalate_all_share, summary.delta_p10,      summary.escalated_median};
  uint64_t counts[2] = {summary.draws, summary.fee_ratio_undefined};
  distributed::broadcast_from_root(reals, 12);
  distributed::broadcast_from_root(counts, 2);
  distributed::broadcast_from_root(summary.tau_hist.data(), summary.tau_hist.size());
  distributed::broadcast_from_root(summary.delta_hist.data(), summary.delta_hist.size());
  distributed::broadcast_from_root(summary.escalated_hist.data(), summary.escalated_hist.size());
  summary.loss_share = reals[0];
  summary.delta_mean = reals[1];
  std::copy(reals + 2, reals + 5, summary.delta_q);
  summary.fee_ratio_median = reals[5];
  std::copy(reals + 6, reals + 9, summary.fee_ratio_q);
  summary.escalate_all_share = reals[9];
  summary.delta_p10 = reals[10];
  summary.escalated_median = reals[11];
  summary.draws = counts[0];
  summary.fee_ratio_undefined = counts[1];
}

}  // namespace

void BudgetSummarizer::combine_ranks() {
  if (distributed::size() == 1) return;
  distributed::sum_to_root(summary_.delta_hist.data(), summary_.delta_hist.size());
  distributed::sum_to_root(summary_.tau_hist.data(), summary_.tau_hist.size());
  distributed::sum_to_root(summary_.escalated_hist.data(), summary_.escalated_hist.size());
  uint64_t counts[3] = {summary_.fee_ratio_undefined, escalate_all_, added_};
  distributed::sum_to_root(counts, 3);
  const uint64_t own_ratios = fee_ratios_.size();
  if (distributed::is_root()) {
    summary_.fee_ratio_undefined = counts[0];
    escalate_all_ = counts[1];
    added_ = counts[2];
    fee_ratios_.resize(added_ - summary_.fee_ratio_undefined);
    distributed::gather_to_root(fee_ratios_.data(), own_ratios, fee_ratios_.data(), fee_ratios_.size());
  } else {
    distributed::gather_to_root(fee_ratios_.data(), own_ratios, nullptr, 0);
    // Rank 0 holds these draws now; this summarizer is left with none.
    std::fill(summary_.delta_hist.begin(), summary_.delta_hist.end(), 0);
    std::fill(summary_.tau_hist.begin(), summary_.tau_hist.end(), 0);
    std::fill(summary_.escalated_hist.begin(), summary_.escalated_hist.end(), 0);
    summary_.fee_ratio_undefined = escalate_all_ = added_ = 0;
    fee_ratios_.clear();
  }
}

BudgetSummary simulate_budget(BudgetEngine& engine, const BudgetProblem& problem, const BudgetRun& run, uint64_t draws,
                              const std::function<void(uint64_t)>& progress) {
  check_budget_k(problem, run.k, run.rule.rule);
  if (draws == 0 || draws > (uint64_t{1} << 32))
    throw std::invalid_argument("draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");
  const auto start = std::chrono::steady_clock::now();
  // Under MPI (host/distributed/distributed.hpp) each rank simulates its contiguous share of the draws and
  // summarises it; rank 0 combines the summarizers (exact: counts and fee ratios) and every rank
  // returns its summary. A rank that fails (no device, out of memory) fails the run everywhere.
  const distributed::Range mine = distributed::my_share(draws);
  std::unique_ptr<BudgetSummarizer> summarizer;
  distributed::fail_together([&] {
    summarizer = std::make_unique<BudgetSummarizer>(problem, run, distributed::is_root() ? draws : mine.count);
    // Two outcome buffers: chunk n + 1 is simulated while chunk n is summarised (chunks are still
    // added in order, so the summary does not depend on the timing).
    DrawOutcomes buffers[2];
    std::future<void> summarizing;
    const uint32_t max_chunk = std::max<uint32_t>(1, engine.max_chunk(run));
    uint64_t done = 0;
    for (int n = 0; done < mine.count; ++n) {
      const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(max_chunk, mine.count - done));
      const uint64_t first = mine.first + done;
      DrawOutcomes& chunk = buffers[n % 2];
      engine.run(run, static_cast<uint32_t>(first), count, chunk);
      if (summarizing.valid()) summarizing.get();
      BudgetSummarizer* into = summarizer.get();
      summarizing = std::async(std::launch::async, [into, &chunk, first, count] { into->add(chunk, first, count); });
      done += count;
      if (progress) progress(distributed::run_progress(done, mine.count, draws));
    }
    if (summarizing.valid()) summarizing.get();
  });
  summarizer->combine_ranks();
  BudgetSummary summary;
  distributed::fail_together([&] { summary = summarizer->finish(); });
  if (distributed::size() > 1) broadcast_summary(summary);
  summary.resample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

void CompareSummarizer::combine_ranks() {
  if (distributed::size() == 1) return;
  // Integer counts only: every rank gets the sums and finishes alike.
  distributed::sum_to_root(sum_hist_.data(), sum_hist_.size());
  uint64_t counts[3] = {above_, below_, added_};
  distributed::sum_to_root(counts, 3);
  distributed::broadcast_from_root(sum_hist_.data(), sum_hist_.size());
  distributed::broadcast_from_root(counts, 3);
  above_ = counts[0];
  below_ = counts[1];
  added_ = counts[2];
}

CompareSummary simulate_compare(CompareEngine& engine, const CompareProblem& problem, const CompareRun& run,
                                uint64_t draws, const std::function<void(uint64_t)>& progress) {
  check_compare_k(problem, run.k);
  if (draws == 0 || draws > (uint64_t{1} << 32))
    throw std::invalid_argument("draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");
  const auto start = std::chrono::steady_clock::now();
  const distributed::Range mine = distributed::my_share(draws);
  CompareSummarizer summarizer(problem, run);
  distributed::fail_together([&] {
    CompareOutcomes chunk;
    const uint32_t max_chunk = std::max<uint32_t>(1, engine.max_chunk(run));
    for (uint64_t done = 0; done < mine.count;) {
      const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(max_chunk, mine.count - done));
      engine.run(run, static_cast<uint32_t>(mine.first + done), count, chunk);
      summarizer.add(chunk, count);
      done += count;
      if (progress) progress(distributed::run_progress(done, mine.count, draws));
    }
  });
  summarizer.combine_ranks();
  CompareSummary summary = summarizer.finish();
  summary.resample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace judgestat
