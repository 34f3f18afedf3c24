// Label-budget simulation (docs/statistics.md §3.5): problem set-up, the draws driver and the summaries.
// The engines that run the draws are in engine/ (CPU, split) and kernels/budget/budget.cu (CUDA).
#include "judgestat/budget.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade_pool.hpp"
#include "distributed/distributed.hpp"
#include "judgestat/records.hpp"

namespace judgestat {
namespace {

double type7(std::vector<double>& values, double p) {
  // values: unsorted, no NaN, not empty. Partial selection keeps this O(n).
  const double h = (static_cast<double>(values.size()) - 1.0) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  std::nth_element(values.begin(), values.begin() + lo, values.end());
  const double below = values[lo];
  if (lo + 1 >= values.size()) return below;
  const double above = *std::min_element(values.begin() + lo + 1, values.end());
  return below + (h - static_cast<double>(lo)) * (above - below);
}

// Rank 0's summary to every rank (their own summarizers gave theirs to rank 0: no draws).
void broadcast_summary(BudgetSummary& summary) {
  double reals[11] = {summary.loss_share,
                      summary.delta_mean,
                      summary.delta_q[0],
                      summary.delta_q[1],
                      summary.delta_q[2],
                      summary.fee_ratio_median,
                      summary.fee_ratio_q[0],
                      summary.fee_ratio_q[1],
                      summary.fee_ratio_q[2],
                      summary.escalate_all_share,
                      0.0};
  uint64_t counts[2] = {summary.draws, summary.fee_ratio_undefined};
  distributed::broadcast_from_root(reals, 11);
  distributed::broadcast_from_root(counts, 2);
  distributed::broadcast_from_root(summary.tau_hist.data(), summary.tau_hist.size());
  distributed::broadcast_from_root(summary.delta_hist.data(), summary.delta_hist.size());
  summary.loss_share = reals[0];
  summary.delta_mean = reals[1];
  std::copy(reals + 2, reals + 5, summary.delta_q);
  summary.fee_ratio_median = reals[5];
  std::copy(reals + 6, reals + 9, summary.fee_ratio_q);
  summary.escalate_all_share = reals[9];
  summary.draws = counts[0];
  summary.fee_ratio_undefined = counts[1];
}

}  // namespace

ThresholdGrid default_grid() {
  return threshold_grid({"0.5", "0.6", "0.7", "0.8", "0.85", "0.9", "0.95", "0.99", "1"});
}

ThresholdGrid threshold_grid(const std::vector<std::string>& values) {
  ThresholdGrid grid;
  for (const std::string& part : values) {
    char* end = nullptr;
    const double value = part.empty() ? NAN : std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0' || !std::isfinite(value))
      throw std::invalid_argument("grid: '" + part + "' is not a number (expected values in [0, 1], e.g. 0.5,0.8,0.9)");
    if (value < 0.0 || value > 1.0)
      throw std::invalid_argument("grid: " + part + " is outside [0, 1]: thresholds are confidences");
    if (!grid.values.empty() && value <= grid.values.back())
      throw std::invalid_argument("grid: values must strictly ascend (" + grid.labels.back() + " then " + part + ")");
    grid.values.push_back(value);
    grid.labels.push_back(part);
  }
  if (grid.size() > kMaxGrid) throw std::invalid_argument("grid: at most " + std::to_string(kMaxGrid) + " thresholds");
  return grid;
}

BudgetProblem make_budget_problem(const CascadePool& pool, const ThresholdGrid& grid, bool per_stratum) {
  BudgetProblem problem;
  problem.n_items = pool.size();
  problem.n_grid = grid.size();
  problem.n_strata = per_stratum ? pool.n_strata() : 1;
  problem.strata_names = per_stratum ? pool.strata_names : std::vector<std::string>{"all"};
  if (problem.n_grid > kMaxGrid) throw UsageError("at most " + std::to_string(kMaxGrid) + " grid thresholds");
  if (problem.n_strata > kMaxStrata || problem.n_strata < 1)
    throw UsageError("per-stratum rules take 1 to " + std::to_string(kMaxStrata) + " strata, got " +
                     std::to_string(problem.n_strata));

  // Fixed point: the largest power-of-two scale whose pool total stays below 2^61, so every
  // sum of rounded fees (each off by at most ½) fits in int64.
  double total_fee = 0.0;
  for (int32_t i = 0; i < problem.n_items; ++i) {
    for (double fee : {pool.fee_first[i], pool.fee_fallback[i]})
      if (!std::isfinite(fee) || fee < 0.0)
        throw UsageError("fees must be finite and non-negative; item " + std::to_string(i) + " of the pool has " +
                         std::to_string(fee));
    total_fee += pool.fee_first[i] + pool.fee_fallback[i];
  }
  problem.fee_shift = total_fee > 0.0 ? 60 - std::ilogb(total_fee) : 0;

  const int32_t n_choices = problem.n_choices();
  problem.item_code.resize(problem.n_items);
  problem.fee_first_fx.resize(problem.n_items);
  problem.fee_fallback_fx.resize(problem.n_items);
  problem.total_accepted_2d.assign(static_cast<size_t>(problem.n_strata) * n_choices, 0);
  problem.total_cascade_fee.assign(static_cast<size_t>(problem.n_strata) * n_choices, 0);
  for (int32_t i = 0; i < problem.n_items; ++i) {
    const double twice_c1 = 2.0 * pool.c1[i], twice_c2 = 2.0 * pool.c2[i];
    if (!(twice_c1 == std::round(twice_c1) && twice_c1 >= 0 && twice_c1 <= 2 && twice_c2 == std::round(twice_c2) &&
          twice_c2 >= 0 && twice_c2 <= 2))
      throw std::invalid_argument("cascade pool: c1 and c2 must be 0, 0.5 or 1 (item " + std::to_string(i) + ")");
    const int32_t twice_d = static_cast<int32_t>(twice_c1) - static_cast<int32_t>(twice_c2);
    // Accepted at grid index g iff the gate holds and q >= grid[g]: a prefix of the grid.
    const int32_t level =
        pool.gate_ok[i] && !std::isnan(pool.q[i])
            ? static_cast<int32_t>(std::upper_bound(grid.values.begin(), grid.values.end(), pool.q[i]) -
                                   grid.values.begin())
            : 0;
    const int32_t h = per_stratum ? pool.stratum[i] : 0;
    problem.item_code[i] = pack_item(level, twice_d, h);
    problem.fee_first_fx[i] = std::llround(std::ldexp(pool.fee_first[i], problem.fee_shift));
    problem.fee_fallback_fx[i] = std::llround(std::ldexp(pool.fee_fallback[i], problem.fee_shift));
    problem.total_fallback_fee += problem.fee_fallback_fx[i];
    for (int32_t c = 0; c < n_choices; ++c) {
      const size_t at = static_cast<size_t>(h) * n_choices + c;
      const bool accepted = level > c;
      if (accepted) problem.total_accepted_2d[at] += twice_d;
      problem.total_cascade_fee[at] += problem.fee_first_fx[i] + (accepted ? 0 : problem.fee_fallback_fx[i]);
    }
  }
  return problem;
}

void check_budget_k(const BudgetProblem& problem, uint32_t k, ThresholdRule rule) {
  if (k < static_cast<uint32_t>(rule_min_labels(rule)))
    throw std::invalid_argument("k: " + std::to_string(k) + " is too small for the " + rule_name(rule) +
                                " rule: it needs at least " + std::to_string(rule_min_labels(rule)) +
                                " labelled items");
  if (k >= static_cast<uint32_t>(problem.n_items))
    throw std::invalid_argument("k: " + std::to_string(k) + " leaves no held-out items: the pool has " +
                                std::to_string(problem.n_items) + " items, so k must be below " +
                                std::to_string(problem.n_items));
}

double histogram_quantile(const std::vector<uint64_t>& hist, int64_t offset, double p) {
  uint64_t total = 0;
  for (uint64_t count : hist) total += count;
  if (total == 0) return NAN;
  const double h = (static_cast<double>(total) - 1.0) * p;
  const uint64_t lo = static_cast<uint64_t>(std::floor(h));
  // Values of the order statistics lo and hi = lo + 1 (0-based; hi clipped to the last).
  const uint64_t hi = std::min(lo + 1, total - 1);
  int64_t value_lo = 0, value_hi = 0;
  bool found_lo = false;
  uint64_t seen = 0;
  for (size_t x = 0; x < hist.size(); ++x) {
    seen += hist[x];
    if (!found_lo && seen > lo) {
      value_lo = static_cast<int64_t>(x) + offset;
      found_lo = true;
    }
    if (seen > hi) {
      value_hi = static_cast<int64_t>(x) + offset;
      break;
    }
  }
  return static_cast<double>(value_lo) + (h - static_cast<double>(lo)) * static_cast<double>(value_hi - value_lo);
}

BudgetSummarizer::BudgetSummarizer(const BudgetProblem& problem, const BudgetRun& run, uint64_t draws)
    : problem_(problem), run_(run) {
  summary_.k = run.k;
  summary_.rule = run.rule.rule;
  summary_.per_stratum = problem.n_strata > 1;
  summary_.draws = draws;
  summary_.heldout_items = static_cast<int64_t>(problem.n_items) - run.k;
  summary_.delta_hist.assign(static_cast<size_t>(4 * summary_.heldout_items + 1), 0);
  summary_.tau_hist.assign(problem.n_choices(), 0);
  fee_ratios_.reserve(draws);
}

void BudgetSummarizer::add(const DrawOutcomes& chunk, uint64_t, uint32_t count) {
  const int32_t n_strata = problem_.n_strata, all = problem_.n_grid;
  const int64_t offset = 2 * summary_.heldout_items;
  for (uint32_t r = 0; r < count; ++r) {
    ++summary_.delta_hist[static_cast<size_t>(chunk.heldout_2d[r] + offset)];
    if (std::isnan(chunk.fee_ratio[r]))
      ++summary_.fee_ratio_undefined;
    else
      fee_ratios_.push_back(chunk.fee_ratio[r]);
    bool escalate_all = true;
    for (int32_t h = 0; h < n_strata; ++h) {
      const uint8_t c = chunk.chosen[static_cast<size_t>(r) * n_strata + h];
      ++summary_.tau_hist[c];
      escalate_all = escalate_all && c == all;
    }
    escalate_all_ += escalate_all ? 1 : 0;
  }
  added_ += count;
}

void BudgetSummarizer::combine_ranks() {
  if (distributed::size() == 1) return;
  distributed::sum_to_root(summary_.delta_hist.data(), summary_.delta_hist.size());
  distributed::sum_to_root(summary_.tau_hist.data(), summary_.tau_hist.size());
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
    summary_.fee_ratio_undefined = escalate_all_ = added_ = 0;
    fee_ratios_.clear();
  }
}

BudgetSummary BudgetSummarizer::finish() {
  BudgetSummary summary = summary_;
  summary.draws = added_;
  if (added_ == 0) return summary;
  const int64_t heldout = summary.heldout_items, offset = -2 * heldout;
  uint64_t losing = 0;
  long double sum_2d = 0;
  for (size_t x = 0; x < summary.delta_hist.size(); ++x) {
    const uint64_t count = summary.delta_hist[x];
    if (count == 0) continue;
    const int64_t twice_d = static_cast<int64_t>(x) + offset;
    if (heldout_delta(twice_d, heldout) < -run_.rule.tol) losing += count;
    sum_2d += static_cast<long double>(twice_d) * count;
  }
  const double draws = static_cast<double>(added_);
  summary.loss_share = static_cast<double>(losing) / draws;
  summary.delta_mean = static_cast<double>(sum_2d / (2.0L * heldout * added_));
  const double levels[3] = {0.025, 0.5, 0.975};
  for (int n = 0; n < 3; ++n)
    summary.delta_q[n] = histogram_quantile(summary.delta_hist, offset, levels[n]) / (2.0 * heldout);
  for (int n = 0; n < 3; ++n) summary.fee_ratio_q[n] = fee_ratios_.empty() ? NAN : type7(fee_ratios_, levels[n]);
  summary.fee_ratio_median = summary.fee_ratio_q[1];
  summary.escalate_all_share = static_cast<double>(escalate_all_) / draws;
  return summary;
}

BudgetSummary simulate_budget(BudgetEngine& engine, const BudgetProblem& problem, const BudgetRun& run, uint64_t draws,
                              const std::function<void(uint64_t)>& progress) {
  check_budget_k(problem, run.k, run.rule.rule);
  if (draws == 0 || draws > (uint64_t{1} << 32))
    throw std::invalid_argument("draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");
  const auto start = std::chrono::steady_clock::now();
  // Under MPI (host/distributed.hpp) each rank simulates its contiguous share of the draws and
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

}  // namespace judgestat
