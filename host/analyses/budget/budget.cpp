// Label-budget simulation (docs/statistics.md §3.5): the threshold grid and the problem set-up; and
// the problem of `budget --compare` (§7.6).
// The engines that run the draws are in engine/ (CPU, split, the summaries), distributed/ (ranks)
// and kernels/budget/cuda_budget_engine.cu (CUDA).
#include "judgestat/budget_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

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
  problem.total_escalated.assign(static_cast<size_t>(problem.n_strata) * n_choices, 0);
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
      if (accepted)
        problem.total_accepted_2d[at] += twice_d;
      else
        ++problem.total_escalated[at];
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

CompareProblem make_compare_problem(const std::vector<double>& d, int32_t scale) {
  if (scale < 1 || scale > kMaxCompareScale)
    throw std::invalid_argument("compare: the scale of d must be 1 to " + std::to_string(kMaxCompareScale) + ", got " +
                                std::to_string(scale));
  if (d.empty()) throw std::invalid_argument("compare: the pool has no items");
  CompareProblem problem;
  problem.n_items = static_cast<int32_t>(d.size());
  problem.scale = scale;
  problem.scaled_d.resize(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    const double scaled = d[i] * scale;
    if (!(std::abs(scaled - std::round(scaled)) < 1e-9 && std::abs(scaled) <= scale + 1e-9))
      throw std::invalid_argument("compare: d of item " + std::to_string(i) + " (" + std::to_string(d[i]) +
                                  ") is not a multiple of 1/" + std::to_string(scale) + " in [-1, 1]");
    problem.scaled_d[i] = static_cast<int8_t>(std::lround(scaled));
    problem.pool_scaled_sum += problem.scaled_d[i];
  }
  return problem;
}

void check_compare_k(const CompareProblem& problem, uint32_t k) {
  if (k < 2)
    throw std::invalid_argument("k: " + std::to_string(k) +
                                " is too small: the interval's SE needs at least 2 labelled items");
  if (k > static_cast<uint32_t>(problem.n_items))
    throw std::invalid_argument("k: " + std::to_string(k) + " exceeds the " + std::to_string(problem.n_items) +
                                " items of the pool; k must be at most " + std::to_string(problem.n_items));
  const uint64_t square = static_cast<uint64_t>(problem.scale) * problem.scale;
  if (square * k >= (uint64_t{1} << 31))
    throw std::invalid_argument("k: " + std::to_string(k) + " is too large for exact sums at scale " +
                                std::to_string(problem.scale) + " (k · scale² must stay below 2^31)");
}

}  // namespace judgestat
