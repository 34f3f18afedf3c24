// What `metrics` resamples on a scored matrix (docs/statistics.md §8.2): per judge and scope the
// score statistics against gold, the pair decisions, the raters' α and W, and the `diff` rows.
#pragma once
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"

namespace judgestat {

/// The statistics `--diff` defaults to on scores (the categorical default acc, pa, bc is replaced).
const std::vector<std::string>& default_score_diff();

/// The plan of a scored matrix's selection (m.scored): units, scopes, validity and notes as
/// build_metrics_plan's, the statistics of docs/statistics.md §8.2. UsageError/invalid_argument for
/// a rater or reference not analysed, --score-pairs naming a missing column, a pair of more than
/// two items, ratio α on negative scores.
MetricsPlan build_scores_run_plan(const ItemMatrix& m, const Selection& selection, const MetricsOptions& options);

}  // namespace judgestat
