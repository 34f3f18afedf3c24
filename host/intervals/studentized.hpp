// docs/statistics.md §2's cluster bootstrap-t (`--ci studentized`) as plan columns: each replicate's
// linearised SE of a ratio R = A/B (or of a difference of two ratios) is a function of per-stratum
// sums of per-cluster products (a², ab, b², cross terms) and of a and b, so the product columns
// ride along as ordinary compiled columns and one more statistic per studentised statistic
// evaluates t*·|t*| (a monotone image of t*: no square root in the programs). Every backend sums
// and evaluates them as it does any plan, bit for bit.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

/// A statistic that is a ratio of two column sums (num[0] / den[0]) or a difference of two such
/// ratios (num[0] / den[0] − num[1] / den[1]): compiled column indices.
struct RatioForm {
  int32_t num[2] = {-1, -1}, den[2] = {-1, -1};
  bool difference = false;
};
/// The statistic's ratio form, when its program is exactly one of those two shapes.
std::optional<RatioForm> ratio_form(const CompiledPlan& plan, int32_t statistic);

/// Per cluster, e_c = (a_c − R b_c) / B of a ratio form on the original data (a difference: e1 − e2);
/// NaN everywhere when a denominator is 0.
std::vector<double> linearised_residuals(const CompiledPlan& plan, const RatioForm& form);
/// The linearised cluster-robust SE from residuals: sqrt(Σ_h C_h/(C_h − 1) [Σ_c e_c² − (Σ_c e_c)²/C_h])
/// over strata with at least two clusters.
double linearised_se(const CompiledPlan& plan, const std::vector<double>& residuals);

struct StudentizedPlan {
  /// The original plan's columns and statistics first (unchanged), then the product columns and
  /// the t*·|t*| statistics.
  CompiledPlan plan;
  /// Per original statistic: the index of its t*·|t*| statistic in `plan`, or −1 (not a ratio).
  std::vector<int32_t> t_statistic;
  /// Per original statistic: the linearised SE on the original data (NaN when not a ratio).
  std::vector<double> se;
};

/// Adds, for every statistic in ratio form with a defined estimate, the product columns of the
/// strata it has units in and the statistic (θ*_r − θ̂) |θ*_r − θ̂| / SE*_r², whose replicates are
/// t*_r·|t*_r| (NaN when SE*_r = 0 or a denominator is 0).
StudentizedPlan studentize(const CompiledPlan& plan, const std::vector<double>& estimates);

}  // namespace judgestat
