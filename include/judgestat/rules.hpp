// Threshold rules of docs/statistics.md §3.4: which cascade threshold a set of labelled items supports.
//
// d_i = cascade_i(τ) − c2_i takes the values {−1, −½, 0, ½, 1}, so the rules are fed exact
// integer sums of 2d and of (2d)² = 4d²; means and standard deviations are then formed in double
// by one fixed sequence of correctly rounded operations (no fused multiply-add: host code is
// built with -ffp-contract=off, kernels with --fmad=false). The CPU and CUDA backends, and the
// cascade analysis, therefore decide every threshold identically.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "judgestat/philox.hpp"

namespace judgestat {

enum class ThresholdRule : int32_t {
  kPoint = 0,  // mean(d) >= −tol, needs n >= 1
  kLower = 1,  // mean(d) − z·sd(d)/√n >= −tol, sd with ddof = 1, needs n >= 2
};

struct RuleSettings {
  ThresholdRule rule = ThresholdRule::kLower;
  double tol = 0.02;
  double z = 1.645;
};

/// Fewest labelled items the rule can judge; with fewer, no grid threshold passes.
JS_HD int64_t rule_min_labels(ThresholdRule rule) { return rule == ThresholdRule::kPoint ? 1 : 2; }

/// mean(d) from the exact sums (n >= 1): the value the point rule compares with −tol.
JS_HD double rule_mean_delta(int64_t sum_2d, int64_t n) {
  return static_cast<double>(sum_2d) / (2.0 * static_cast<double>(n));
}

/// mean(d) − z·sd(d)/√n from the exact sums (n >= 2): the value the lower-bound rule compares
/// with −tol. Shown in the selection-set table (JEV Table 33) by the same arithmetic.
JS_HD double rule_lower_bound(double z, int64_t sum_2d, int64_t sum_4d2, int64_t n) {
  const double nd = static_cast<double>(n);
  const double mean = rule_mean_delta(sum_2d, n);
  // Σd² − (Σd)²/n = (n·Σ4d² − (Σ2d)²) / (4n): an exact non-negative integer numerator.
  const int64_t spread = n * sum_4d2 - sum_2d * sum_2d;
  const double variance = static_cast<double>(spread) / (4.0 * nd * (nd - 1.0));
  const double sd = sqrt(variance);
  return mean - z * sd / sqrt(nd);
}

/// Whether a threshold passes, from the labelled items' sums at that threshold:
/// sum_2d = Σ 2d, sum_4d2 = Σ 4d² = Σ (2d)², n = labelled items (accepted or not).
/// Exact for n up to about 10^9 (n·sum_4d2 must fit in int64).
JS_HD bool rule_passes(const RuleSettings& settings, int64_t sum_2d, int64_t sum_4d2, int64_t n) {
  if (n < rule_min_labels(settings.rule)) return false;
  if (settings.rule == ThresholdRule::kPoint) return rule_mean_delta(sum_2d, n) >= -settings.tol;
  return rule_lower_bound(settings.z, sum_2d, sum_4d2, n) >= -settings.tol;
}

/// Preference among passing thresholds: more accepted items first (the most permissive
/// threshold), then the larger grid index (ties go to the stricter threshold). Collects
/// candidates in any order; `all` is the answer only when no grid threshold was offered.
struct ThresholdChoice {
  int32_t index = -1;
  int64_t accepted = -1;

  JS_HD void offer(int32_t grid_index, int64_t accepted_count) {
    if (accepted_count > accepted || (accepted_count == accepted && grid_index > index)) {
      index = grid_index;
      accepted = accepted_count;
    }
  }
  /// The chosen grid index, or `all_index` (= the grid's size) when nothing passed.
  JS_HD int32_t chosen(int32_t all_index) const { return index < 0 ? all_index : index; }
};

/// docs/statistics.md §3.4's choice over an ascending grid of n_grid thresholds, from per-threshold sums over
/// the n labelled items (arrays of n_grid entries; the `all` entry is not passed). Returns the
/// chosen grid index, or n_grid for `all` (escalate every item).
JS_HD int32_t choose_threshold(const RuleSettings& settings, int32_t n_grid, const int64_t* sum_2d,
                               const int64_t* sum_4d2, const int64_t* accepted, int64_t n) {
  ThresholdChoice choice;
  for (int32_t g = 0; g < n_grid; ++g)
    if (rule_passes(settings, sum_2d[g], sum_4d2[g], n)) choice.offer(g, accepted[g]);
  return choice.chosen(n_grid);
}

inline const char* rule_name(ThresholdRule rule) { return rule == ThresholdRule::kPoint ? "point" : "lower"; }

/// "point" or "lower"; std::invalid_argument otherwise (callers turn it into a usage error).
inline ThresholdRule parse_rule(const std::string& name) {
  if (name == "point") return ThresholdRule::kPoint;
  if (name == "lower") return ThresholdRule::kLower;
  throw std::invalid_argument("unknown threshold rule '" + name + "' (expected point or lower)");
}

}  // namespace judgestat
