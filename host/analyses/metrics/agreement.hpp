// Agreement between raters (docs/statistics.md §7.1) as plan statistics: Cohen's κ between two
// judges, Fleiss' κ and Krippendorff's α (nominal) over two or more. Each is a fixed function
// of column sums over units (items × variants), so it gets the run's clustered CI. Categories are
// the labels, `tie` and invalid, each its own (agreement_category).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analyses/metrics/scope_view.hpp"

namespace judgestat {

/// Cohen's κ = (p_o − p_e) / (1 − p_e) with p_o = agree / n and p_e = Σ_c x_c y_c / n², from
/// per-unit categories of two raters (−1 = the unit is not rated by both): columns named
/// prefix + "/agree", "/n", "/x<c>", "/y<c>". Appends nothing and returns false when no unit is
/// rated by both or p_e = 1 on the original data (κ is 0/0). label.n is set here.
bool add_cohen_kappa(const std::vector<int32_t>& first, const std::vector<int32_t>& second, int32_t n_categories,
                     const std::string& prefix, StatLabel label, Plan& plan);

/// `kappa` between `judge` and `reference` (fields judge, reference, order) on the scope's units
/// both rated in presentation `order`.
void add_pair_kappa(const ItemMatrix& m, int32_t judge, int32_t reference, int order, const ScopeView& scope,
                    Plan& plan);

/// CAP App. C's one-sided disagreements between two raters: per ordered pair of categories
/// (x, y), x ≠ y, seen on the data, `disagree` (label "x/y") = the share of the units both rated in
/// `order` on which `judge` says x and `reference` says y (n = those units). Categories are the
/// labels, `tie` and `invalid`.
void add_pair_disagreements(const ItemMatrix& m, int32_t judge, int32_t reference, int order, const ScopeView& scope,
                            Plan& plan);

/// CAP App. C's mean label per rater: per category c (a label or `tie`) the judge gives on the
/// scope in `order`, `label_share` (label c) = the share of its valid verdicts there that are c
/// (n = valid verdicts); on 0/1 labels the share of "1" is the mean label.
void add_label_shares(const ItemMatrix& m, int32_t judge, int order, const ScopeView& scope, Plan& plan);

/// `fleiss_kappa` (Fleiss 1971) over the scope's units every rater rated in `order`; judge =
/// the raters' names joined with ",". std::invalid_argument for fewer than two raters or one
/// named twice.
void add_fleiss_kappa(const ItemMatrix& m, const std::vector<int32_t>& raters, int order, const ScopeView& scope,
                      Plan& plan);

/// `krippendorff_alpha`, nominal (Krippendorff 2011), over the scope's units with at least two
/// of the raters' ratings in `order` (any missing pattern); otherwise as add_fleiss_kappa.
void add_krippendorff_alpha(const ItemMatrix& m, const std::vector<int32_t>& raters, int order, const ScopeView& scope,
                            Plan& plan);

}  // namespace judgestat
