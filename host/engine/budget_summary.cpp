// Per-draw outcomes of any budget engine into a BudgetSummary (docs/statistics.md §3.5), and of any
// `budget --compare` engine into a CompareSummary (§7.6).
#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <stdexcept>
#include <vector>

#include "support/quantile.hpp"

namespace judgestat {
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
  summary_.escalated_hist.assign(static_cast<size_t>(summary_.heldout_items + 1), 0);
  summary_.tau_hist.assign(problem.n_choices(), 0);
  fee_ratios_.reserve(draws);
}

void BudgetSummarizer::add(const DrawOutcomes& chunk, uint64_t, uint32_t count) {
  const int32_t n_strata = problem_.n_strata, all = problem_.n_grid;
  const int64_t offset = 2 * summary_.heldout_items;
  for (uint32_t r = 0; r < count; ++r) {
    ++summary_.delta_hist[static_cast<size_t>(chunk.heldout_2d[r] + offset)];
    ++summary_.escalated_hist[static_cast<size_t>(chunk.heldout_escalated[r])];
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
  summary.delta_p10 = histogram_quantile(summary.delta_hist, offset, 0.10) / (2.0 * heldout);
  summary.escalated_median = histogram_quantile(summary.escalated_hist, 0, 0.5) / static_cast<double>(heldout);
  for (int n = 0; n < 3; ++n)
    summary.fee_ratio_q[n] = fee_ratios_.empty() ? NAN : quantile_type7_unsorted(fee_ratios_, levels[n]);
  summary.fee_ratio_median = summary.fee_ratio_q[1];
  summary.escalate_all_share = static_cast<double>(escalate_all_) / draws;
  return summary;
}

CompareSummarizer::CompareSummarizer(const CompareProblem& problem, const CompareRun& run)
    : problem_(problem), run_(run), sum_hist_(2 * static_cast<size_t>(problem.scale) * run.k + 1, 0) {}

void CompareSummarizer::add(const CompareOutcomes& chunk, uint32_t count) {
  const int64_t offset = static_cast<int64_t>(problem_.scale) * run_.k;
  for (uint32_t r = 0; r < count; ++r) {
    ++sum_hist_[static_cast<size_t>(chunk.sum[r] + offset)];
    above_ += chunk.side[r] > 0;
    below_ += chunk.side[r] < 0;
  }
  added_ += count;
}

CompareSummary CompareSummarizer::finish() const {
  CompareSummary summary;
  summary.k = run_.k;
  summary.draws = added_;
  summary.above = above_;
  summary.below = below_;
  summary.sum_hist = sum_hist_;
  const double units = static_cast<double>(problem_.scale) * run_.k;  // Σ scaled d per unit of mean d
  summary.pool_diff = static_cast<double>(problem_.pool_scaled_sum) /
                      (static_cast<double>(problem_.scale) * static_cast<double>(problem_.n_items));
  if (added_ == 0) return summary;
  // The side of the full-pool difference is the right one; with no difference, every exclusion
  // is on a wrong side.
  const int sign = (problem_.pool_scaled_sum > 0) - (problem_.pool_scaled_sum < 0);
  const uint64_t right = sign > 0 ? above_ : sign < 0 ? below_ : 0;
  const uint64_t wrong = sign > 0 ? below_ : sign < 0 ? above_ : above_ + below_;
  const double draws = static_cast<double>(added_);
  summary.power = static_cast<double>(right) / draws;
  summary.wrong_sign = static_cast<double>(wrong) / draws;
  const int64_t offset = -static_cast<int64_t>(problem_.scale) * run_.k;
  summary.d_median = histogram_quantile(sum_hist_, offset, 0.5) / units;
  summary.d_q[0] = histogram_quantile(sum_hist_, offset, 0.025) / units;
  summary.d_q[1] = histogram_quantile(sum_hist_, offset, 0.975) / units;
  return summary;
}

}  // namespace judgestat
