// Classification detail of docs/statistics.md §7.1 as plan statistics: macro precision, recall and
// F1 and per label precision, recall and F1 of one judge's order-0 verdicts against gold (sklearn's
// definitions, zero_division=0), and the confusion matrix of counts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyses/metrics/scope_view.hpp"
#include "judgestat/metrics.hpp"

namespace judgestat {

/// On the scope's units where `judge` has an order-0 record, over the labels that occur there as
/// gold or as the judge's verdict (sklearn's default label set; ascending label index): `macro_precision`,
/// `macro_recall`, `macro_f1` (each the mean of the per-label values), then per label (field `label`) `precision`,
/// `recall`, `f1`. Per label, tp = gold k and verdict k, precision = tp / (verdicts k), recall = tp / (gold k), F1 = 2
/// tp / (gold k + verdicts k), each 0 when its denominator is 0 (sklearn's zero_division=0). An invalid or tie verdict
/// predicts no label. All rows have order 0; macro n = the units, per-label n = the statistic's denominator (verdicts
/// k, gold k, units with either). Nothing without units.
///
/// With `composition` (one weight per label index, summing to 1; empty: none) also `composition_acc` = Σ_k w_k ·
/// TP_k / P_k (CAP App. C's deployment-composition agreement): each verdict's agreement with gold reweighted to
/// another population's verdict shares; a replicate where a weighted label is never the verdict leaves it undefined.
/// Returns a note when it is left out: a weighted label the judge never gives on the scope.
std::optional<std::string> add_classification(const ItemMatrix& m, int32_t judge, const ScopeView& scope, Plan& plan,
                                              const std::vector<double>& composition = {});

/// Gold × verdict counts (Confusion: include/judgestat/metrics.hpp) of one judge's order-0 records on a scope.
Confusion confusion_counts(const ItemMatrix& m, int32_t judge, const ScopeView& scope);

}  // namespace judgestat
