// The length-bias panels of `metrics --length --plots` (docs/statistics.md §8.3): accuracy by bin of
// len(gold) − len(other) with its clustered CI, a section per bin, the judges inside; with `--by`, a
// second panel of the groups' rows, a section per group and bin.
#pragma once
#include <optional>

#include "judgestat/bootstrap.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// The panel of the pooled `length_acc` rows (no group), or nothing when there are none.
std::optional<PlotFile> length_bias_panel(const BootstrapResult& result);

/// `metrics_length_bias_by`: the per-group `length_acc` rows (with `--by`), or nothing when none.
/// CSV: series (the bin), group, label (the judge), estimate, ci_lo, ci_hi, n.
std::optional<PlotFile> length_bias_by_panel(const BootstrapResult& result);

}  // namespace judgestat
