// A score judge against gold on one scope (docs/statistics.md §8.2): pearson, spearman,
// kendall_tau_b, mae, rmse, exact, within_one and qwk as plan statistics, each a function of
// column sums, so each gets the run's clustered bootstrap CI and a `diff` between judges.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

/// Per plan unit the gold level and the judge's level (label indices, ascending score), −1 where
/// the unit does not enter (outside the scope, no gold, no valid score).
struct ScoredUnits {
  std::vector<int32_t> gold, judge;
};

/// The rank and ordinal statistics (spearman, kendall_tau_b, krippendorff_alpha, kendall_w) are left
/// out, with a note, where the scores compared take more distinct values than this: each value used
/// is a column of the units at or below it (a replicate's ranks are read off their sums), and past a
/// few hundred those columns outgrow the per-cluster sums of everything else. A 1–100 scale fits;
/// continuous scores (0:100 with decimals) may not.
inline constexpr int32_t kMaxRankLevels = 256;

/// Spearman's ρ takes rank terms while they hold at most this many entries: one term over every
/// unit per value of the side with fewer values (items × values), each scanned once per replicate.
inline constexpr int64_t kMaxSpearmanEntries = int64_t(1) << 22;

/// Past kMaxSpearmanEntries, ρ is built from per-cell counts where the units take at most this many
/// (gold, judge) pairs of values (every pair of two scales of up to 32 values fits): a column per
/// cell, summed per cluster like the moments, with no limit on the items; beyond, it is left out
/// with a note. Rank terms come first because on unclustered data a replicate's column sums cost
/// clusters × cells, more than the items × values of the terms (100,000 items on 1:10: 1.4×).
inline constexpr int64_t kMaxSpearmanCells = 1024;

/// The two forms of Spearman's ρ, the same formula (Pearson's r of the replicate's average ranks):
/// kChosen takes the rank terms up to kMaxSpearmanEntries, then the cells up to kMaxSpearmanCells;
/// tests force kCells or kRankTerms (no limit then) to compare them.
enum class SpearmanForm { kChosen, kCells, kRankTerms };

/// The form kChosen takes for `cells` used (gold, judge) pairs of values and `entries` = items ×
/// the smaller side's number of values; kChosen itself where ρ is left out.
SpearmanForm chosen_spearman_form(int64_t cells, int64_t entries);

/// The per-judge score statistics (names as in docs/statistics.md §8.2), labelled `base` with its
/// name set; columns named tag + "/…". Returns a note for each statistic left out (no unit, or a
/// side with one value only: the correlation is 0/0).
std::vector<std::string> add_score_statistics(const std::vector<double>& level_score, const ScoredUnits& units,
                                              const StatLabel& base, const std::string& tag, Plan& plan,
                                              SpearmanForm spearman_form = SpearmanForm::kChosen);

/// The names add_score_statistics gives, in its order.
const std::vector<std::string>& score_statistic_names();

}  // namespace judgestat
