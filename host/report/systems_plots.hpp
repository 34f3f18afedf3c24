// The figures of the systems analysis (docs/statistics.md §8.4; `systems --plots`, the study
// report): the win rates as a dot-and-whisker panel, one section per judge, and, with gold, each
// system's score by the judge against its score by gold, both with their clustered CIs.
#pragma once
#include <optional>

#include "judgestat/report.hpp"
#include "judgestat/systems.hpp"

namespace judgestat {

/// `systems_win_rates`: the win_rate rows against all opponents (or against the baseline), per
/// judge each system's estimate and CI; the x axis spans every estimate and CI end. CSV: judge,
/// system, against, n, estimate, ci_lo, ci_hi — one row per plotted row. Nothing without such rows.
std::optional<PlotFile> win_rates_panel(const SystemsReport& report);

/// `systems_system_level`: per judge and system, its system_score by the judge (y, with its CI)
/// against by gold (x, with its CI) on one shared range, with the identity line. CSV: judge,
/// system, n, by_judge, by_judge_ci_lo, by_judge_ci_hi, by_gold, by_gold_ci_lo, by_gold_ci_hi. Nothing
/// without gold.
std::optional<PlotFile> system_level_panel(const SystemsReport& report);

}  // namespace judgestat
