// The accuracy family of docs/statistics.md §3.1 as a plan builder: per judge acc per order, pa, bc, cons,
// stable_wrong, jb_score, macro_f1, and diff of acc/pa/bc against a reference judge.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/probability.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"

namespace judgestat {

/// One (item, variant) of a selection: the unit of the accuracy family.
struct AccuracyUnit {
  int32_t item, variant;
};

/// Where per-judge statistics are reported: all units (group unset), or one reporting group's.
struct MetricsScope {
  std::optional<std::string> group;
  std::vector<double> mask;  // per accuracy unit: 1 = in this scope
};

/// A label whose group field names `group` (benchmark, or condition for conditions and
/// difficulty groups, written "difficulty=k"); nothing set for the all-units scope.
StatLabel group_label(const Selection& selection, const std::optional<std::string>& group);

struct MetricsPlan {
  Plan plan;
  std::vector<JudgeValidity> validity;
  std::vector<std::string> notes;  // statistics left out and why
  std::vector<AccuracyUnit> units;
  std::vector<MetricsScope> scopes;  // all units, then each group when reporting per group
  // Filled by build_metrics_run_plan.
  ProbabilityQuality probability;
  std::vector<Confusion> confusion;
  std::vector<std::pair<StatLabel, double>> point_statistics;  // latency quantiles
  std::vector<Complementarity> complementarity;
  std::vector<Disputes> disputes;
};

/// Per-unit facts about one judge, from which the accuracy family's columns are cut.
// Stored as plan columns (a byte per unit while the values are counts): a judge's facts were a
// large part of the metrics plan builder's peak at eleven doubles per unit.
struct JudgeUnits {
  std::vector<PlanColumn> present, correct;  // per order
  PlanColumn any_present, order_mean;        // pa
  PlanColumn complete, all_correct, consistent, jb_positive;
  std::vector<int32_t> verdict0;  // order-0 verdict code
};

/// Judge j's facts on each unit over `orders` presentation orders (cons: an invalid verdict
/// matches nothing unless invalid_match).
/// Every (item, variant) of the selection that a selected judge has a record for, in selection
/// order; appends each unit's cluster to plan.unit_cluster.
std::vector<AccuracyUnit> accuracy_units(const ItemMatrix& matrix, const Selection& selection, Plan& plan);

/// `mask` (one per unit) kept on the units whose item has gold (docs/statistics.md §8.1).
std::vector<double> gold_units(const ItemMatrix& matrix, const std::vector<AccuracyUnit>& units,
                               const std::vector<double>& mask);

/// The metrics statistics that need gold, as the note on items without gold names them (§8.1).
inline constexpr const char* kMetricsGoldStatistics =
    "acc, pa, bc, stable_wrong, jb_score, classification (macro_f1, precision, recall, f1), oracle_acc, "
    "complementarity and probability quality";

/// `tie_credit`: what a valid `tie` verdict earns in acc and pa (0, JudgeBench's convention; ½
/// with --tie-credit half, JEV Tables 1 and 13: an exact score tie on a pair, the expected credit
/// of a random pick). bc, cons and jb_score are unchanged by it.
JudgeUnits judge_units(const ItemMatrix& matrix, int32_t j, const std::vector<AccuracyUnit>& units, int orders,
                       bool invalid_match, double tie_credit = 0.0);

/// The accuracy family's plan of a selection (options: invalid_match, reference, per_group;
/// the selection and bootstrap fields are not read here).
MetricsPlan build_metrics_plan(const ItemMatrix& matrix, const Selection& selection, const MetricsOptions& options);

/// Everything `metrics` resamples, in report order: build_metrics_plan, probability quality,
/// then the comparisons of judges (differences, pair κ, oracle accuracy, adjudication) and of
/// raters (Fleiss' κ, Krippendorff's α).
MetricsPlan build_metrics_run_plan(const ItemMatrix& matrix, const Selection& selection, const MetricsOptions& options);

/// Point estimates of a plan on the original data (no resampling), in statistic order.
std::vector<double> point_estimates(const Plan& plan);

}  // namespace judgestat
