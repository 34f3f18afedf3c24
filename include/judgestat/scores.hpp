// Score judges (docs/statistics.md §8.2): a judge that gives a number on a scale (`--scale 1:10`)
// is compared with a human score as gold, and raters' scores with each other. `judgestat metrics`
// on a scored matrix (ItemMatrix::scored) reports these statistics in place of the categorical
// ones, each with its clustered bootstrap interval (they compile to the same plan as the rest):
//   per judge against gold: pearson, spearman, kendall_tau_b, mae, rmse, exact, within_one, qwk;
//   over the raters (`--raters`, two or more): krippendorff_alpha at `alpha_level`, kendall_w;
//   pairs of two scored responses (`pair_covariate`): pair_acc, pair_tie_rate;
//   `diff` of any of them between judges.
#pragma once
#include <string>

namespace judgestat {

/// The distance Krippendorff's α uses between two values (Krippendorff 2011, "Computing
/// Krippendorff's Alpha-Reliability", §B): nominal (0/1), ordinal (ranks of the values used),
/// interval (difference²) or ratio (((a − b)/(a + b))², values ≥ 0).
enum class AlphaLevel { kNominal, kOrdinal, kInterval, kRatio };

/// "nominal", "ordinal", "interval" or "ratio"; UsageError naming --alpha-level otherwise.
AlphaLevel parse_alpha_level(const std::string& name);
std::string to_string(AlphaLevel level);

struct ScoreOptions {
  /// Krippendorff's α over `--raters` on scores (categorical data: nominal, always).
  AlphaLevel alpha_level = AlphaLevel::kInterval;
  /// A pair's decision from its two scores a, b: A when a − b > margin, B when b − a > margin,
  /// else a tie (`--tie-margin`, ≥ 0).
  double tie_margin = 0;
  /// `--score-pairs x.NAME`: items whose covariate NAME has the same value are the two responses
  /// of one pair, A the first in the file and B the second; "" = no pair statistics.
  std::string pair_covariate;
};

}  // namespace judgestat
