// Intervals that respect their statistic's range (issue 31 part 5; docs/statistics.md §2): the
// `t` and `studentized` intervals of proportions on the logit scale, of correlations and
// differences of proportions on the Fisher-z scale, mapped back.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "judgestat/bootstrap.hpp"

namespace judgestat {
namespace {

// Statistics whose every value is a share of units (or of unit weights) in [0, 1].
const std::set<std::string>& unit_names() {
  static const std::set<std::string> names{"acc",
                                           "disagree",
                                           "failure_rate",
                                           "label_share",
                                           "acc_adjudicated",
                                           "pa",
                                           "bc",
                                           "cons",
                                           "stable_wrong",
                                           "jb_score",
                                           "precision",
                                           "recall",
                                           "f1",
                                           "macro_f1",
                                           "macro_precision",
                                           "macro_recall",
                                           "composition_acc",
                                           "high_q_error_rate",
                                           "ece",
                                           "auroc_err",
                                           "native_auroc_err",
                                           "position_rate",
                                           "longer_rate",
                                           "gold_longer_rate",
                                           "length_acc",
                                           "longer_rate_gold_shorter",
                                           "bin_acc",
                                           "assoc_acc",
                                           "cascade_acc",
                                           "selective_acc",
                                           "random_acc",
                                           "oracle_acc",
                                           "pair_acc",
                                           "pair_tie_rate",
                                           "win_rate",
                                           "escalated",
                                           "errors_escalated",
                                           "repeat_match",
                                           "always_first",
                                           "always_second"};
  return names;
}

// Coefficients in [−1, 1] (Krippendorff's α is not: it can fall below −1) and differences of two
// shares named as such.
const std::set<std::string>& signed_names() {
  static const std::set<std::string> names{"kappa",         "fleiss_kappa",   "spearman",      "spearman_rho",
                                           "assoc_rho",     "point_biserial", "win_rate_diff", "length_acc_diff",
                                           "cascade_delta", "native_q_rho"};
  return names;
}

double to_scale(StatisticRange range, double x) {
  return range == StatisticRange::kUnit ? std::log(x / (1 - x)) : std::atanh(x);
}

double from_scale(StatisticRange range, double y) {
  return range == StatisticRange::kUnit ? 1 / (1 + std::exp(-y)) : std::tanh(y);
}

// g′(x): how far the scale moves per unit of x (the delta method's factor on SE).
double scale_slope(StatisticRange range, double x) {
  return range == StatisticRange::kUnit ? 1 / (x * (1 - x)) : 1 / (1 - x * x);
}

double range_low(StatisticRange range) { return range == StatisticRange::kUnit ? 0.0 : -1.0; }

}  // namespace

StatisticRange statistic_range(const StatLabel& label) {
  // A diff row differences two values of `of`: two shares differ by at most 1 either way.
  if (label.name == "diff")
    return label.of && unit_names().count(*label.of) ? StatisticRange::kSigned : StatisticRange::kUnbounded;
  // group_diff: two groups' shares (in [−1, 1]); with a reference, two such differences (in [−2, 2]).
  if (label.name == "group_diff")
    return !label.reference && label.of && unit_names().count(*label.of) ? StatisticRange::kSigned
                                                                         : StatisticRange::kUnbounded;
  if (unit_names().count(label.name)) return StatisticRange::kUnit;
  if (signed_names().count(label.name)) return StatisticRange::kSigned;
  return StatisticRange::kUnbounded;
}

void set_pivot_interval(Interval& interval, StatisticRange range, double se, double upper, double lower) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), estimate = interval.estimate;
  interval.lo = interval.hi = nan;
  if (!std::isfinite(se) || !std::isfinite(estimate) || !std::isfinite(upper) || !std::isfinite(lower)) return;
  if (range == StatisticRange::kUnbounded) {
    interval.lo = estimate - upper * se;
    interval.hi = estimate - lower * se;
    return;
  }
  const double low = range_low(range);
  if (estimate > low && estimate < 1.0) {
    const double centre = to_scale(range, estimate), scaled_se = se * scale_slope(range, estimate);
    interval.lo = from_scale(range, centre - upper * scaled_se);
    interval.hi = from_scale(range, centre - lower * scaled_se);
    return;
  }
  // On a bound the scale has no room: the original-scale ends, clipped onto the range.
  const double lo = estimate - upper * se, hi = estimate - lower * se;
  interval.lo = std::clamp(lo, low, 1.0);
  interval.hi = std::clamp(hi, low, 1.0);
  interval.clipped = interval.lo != lo || interval.hi != hi;
}

}  // namespace judgestat
