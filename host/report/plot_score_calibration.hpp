// The score-judge calibration panel of `metrics --scale --plots` (docs/statistics.md §8.2): per
// judge its mean score at each gold level (or bin) with the clustered CI, against the human
// score, with the identity line; drawn from the pooled `mean_score` rows.
#pragma once
#include <optional>

#include "judgestat/bootstrap.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// `metrics_score_calibration` from the pooled (no group) `mean_score` rows, placed at their
/// `mean_gold` when binned, else at the level's score; nothing when there are none. The CSV has
/// one row per point: judge, label, gold_score, estimate, ci_lo, ci_hi, n.
std::optional<PlotFile> score_calibration_panel(const BootstrapResult& result);

}  // namespace judgestat
