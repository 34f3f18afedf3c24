// Agreement between raters who give scores (docs/statistics.md §8.2): Krippendorff's α at a chosen
// level of measurement and Kendall's W, as plan statistics (clustered CI, two raters allowed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/scores.hpp"

namespace judgestat {

/// Per rater, per plan unit: the rater's level (label index, ascending score), −1 = no rating.
using RaterLevels = std::vector<std::vector<int32_t>>;

/// Ratio α is left out past this many distinct values: its distance ((a − b)/(a + b))² does not
/// separate, so its expected disagreement sums over every pair of values.
inline constexpr int32_t kMaxRatioAlphaLevels = 128;

/// α is left out where the coincidences take more columns than this: one per pair of distinct
/// values rated on one item and number of ratings on it.
inline constexpr size_t kMaxAlphaPairColumns = 2048;

/// `krippendorff_alpha` at `level` (Krippendorff 2011): α = 1 − (n − 1) Σ_{c<k} o_ck δ²_ck /
/// Σ_{c<k} n_c n_k δ²_ck over the units with two or more ratings; the ordinal δ² is taken from the
/// replicate's own value counts (running totals over the values). Returns why it is left out
/// (nothing appended, not even a column) when no unit has two ratings, every rating is one value,
/// the ratings take more than kMaxRankLevels values (kMaxRatioAlphaLevels at ratio), or the
/// coincidences more than kMaxAlphaPairColumns columns; empty when added. UsageError naming
/// --alpha-level for ratio with a negative score.
std::string add_score_alpha(const std::vector<double>& level_score, const RaterLevels& ratings, AlphaLevel level,
                            StatLabel label, const std::string& tag, Plan& plan);

/// Kendall's W is left out past this many distinct patterns of the raters' scores over the units.
inline constexpr size_t kMaxKendallWPatterns = 4096;

/// `kendall_w`, Kendall's coefficient of concordance with the tie correction
/// W = 12 S / (m²(n³ − n) − m Σ_r Σ_l (t_rl³ − t_rl)), over the units every rater scored; each
/// rater's scores ranked among those units (average ranks) on every replicate. Returns why it is
/// left out (nothing appended: fewer than two such units, every rater gives one score, more than
/// kMaxKendallWPatterns patterns, or a rater with more than kMaxRankLevels values); empty when added.
std::string add_kendall_w(const RaterLevels& ratings, int32_t n_levels, StatLabel label, const std::string& tag,
                          Plan& plan);

}  // namespace judgestat
