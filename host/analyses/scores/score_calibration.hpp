// The score judge's calibration against gold (docs/statistics.md §8.2): per gold level, the judge's
// mean score over the units whose gold is that level, a plan statistic (Σ judge score / n, a ratio
// of column sums) so it gets the run's clustered bootstrap CI; `metrics --plots` draws them against
// the human score with the identity line.
#pragma once
#include <string>
#include <vector>

#include "analyses/scores/score_judge.hpp"
#include "judgestat/plan.hpp"

namespace judgestat {

/// More gold levels than this are grouped into kCalibrationBins bins of equal width on the score.
inline constexpr int kMaxCalibrationLevels = 12;
inline constexpr int kCalibrationBins = 10;

/// Appends, per gold level the units use (or per non-empty bin), `mean_score` with `label` = the
/// level's name ("7") or the bin's ("61 to 70": its lowest and highest gold level used); binned,
/// also `mean_gold` (the gold's mean in the bin, where the figure places the point). `base` gives
/// judge and scope; columns are named tag + "/calibration/…".
void add_calibration_means(const std::vector<double>& level_score, const std::vector<std::string>& level_names,
                           const ScoredUnits& units, const StatLabel& base, const std::string& tag, Plan& plan);

/// The bin of `score` among kCalibrationBins equal-width bins over [lo, hi] (hi in the last one).
int calibration_bin(double score, double lo, double hi);

}  // namespace judgestat
