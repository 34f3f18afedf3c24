// Item covariates in the metrics analysis (docs/statistics.md §8.3): a record column `x.NAME`
// slices the statistics (`--by x.NAME`, `--bins`), and two bias analyses read covariates:
// length bias (`--length x.len_a,x.len_b`) and a numeric covariate's association with correctness
// (`--assoc x.NAME`: point-biserial correlation, Spearman's ρ and accuracy per bin). Their
// statistics are rows of the metrics report, each with its clustered bootstrap CI:
//   longer_rate, gold_longer_rate, longer_rate_gold_shorter, acc_gold_longer, acc_gold_shorter,
//   length_acc_diff, length_acc (label: the bin of len(gold) − len(other)),
//   point_biserial, assoc_rho, assoc_acc (label: the bin of the covariate).
#pragma once
#include <string>

namespace judgestat {

struct CovariateOptions {
  /// `--bins`: with MetricsOptions::by = "x.NAME" of a numeric covariate, "K" quantile bins or
  /// edges "E0,E1,…" (inf allowed); "" groups by the covariate's distinct values.
  std::string bins;
  /// `--length x.A,x.B`: the lengths of canonical candidate A's (label 0) and B's (label 1)
  /// responses of two-label pairwise items; "" = no length-bias statistics.
  std::string length;
  /// `--length-bins`: bins of the length measure for length_acc ("K" quantile bins or edges).
  std::string length_bins = "4";
  /// `--assoc x.NAME`: a numeric covariate's point-biserial correlation and Spearman's ρ with
  /// order-0 correctness.
  std::string assoc;
  /// `--assoc-bins`: bins of the covariate for assoc_acc ("K" quantile bins or edges).
  std::string assoc_bins = "4";
  /// `--length-measure`: length_acc's bins over len(gold) − len(other) ("difference") or
  /// len(other) / len(gold), rejected over preferred ("ratio", JEV Table 12).
  std::string length_measure = "difference";
};

}  // namespace judgestat
