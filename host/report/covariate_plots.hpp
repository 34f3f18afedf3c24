// The length-bias panel of `metrics --length --plots` (docs/statistics.md §8.3): accuracy by bin of
// len(gold) − len(other) with its clustered CI, a section per bin, the judges inside.
#pragma once
#include <optional>

#include "judgestat/bootstrap.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// The panel of the pooled `length_acc` rows (no group), or nothing when there are none.
std::optional<PlotFile> length_bias_panel(const BootstrapResult& result);

}  // namespace judgestat
