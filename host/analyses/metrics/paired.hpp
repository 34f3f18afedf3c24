// Paired inference between judges (docs/statistics.md §7.2, §7.3): differences of any per-judge
// statistic on the same replicates, the pair's complementarity and oracle accuracy, and the
// human-adjudicated disputes between a judge and its reference.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// Per-judge statistics `--diff` may name (docs/statistics.md §7.3).
const std::vector<std::string>& differenceable_statistics();

/// (judge, reference) matrix indices: each judge minus the reference, or with all_pairs judge j
/// minus judge i for i < j in the selection's order.
std::vector<std::pair<int32_t, int32_t>> judge_pairs(const std::vector<int32_t>& judges, int32_t reference,
                                                     bool all_pairs);

/// Appends a `diff` row for every pair × name × per-judge statistic of the plan that both judges
/// have with the same identity (group, order, label, position, variant): judge minus reference on
/// the same replicates. A difference of two ratios with equal per-unit denominators gets its
/// cluster sign-flip test. Returns notes for names no pair has. std::invalid_argument for a name
/// that is not a per-judge statistic.
std::vector<std::string> add_paired_differences(const ItemMatrix& m, const std::vector<std::string>& names,
                                                const std::vector<std::pair<int32_t, int32_t>>& pairs, Plan& plan);

/// One judge's order-0 facts on the accuracy units (verdict code, present, correct).
struct OrderZero {
  std::vector<int16_t> verdict;
  std::vector<uint8_t> present, correct;
};
OrderZero order_zero(const ItemMatrix& m, int32_t judge, const std::vector<AccuracyUnit>& units);

/// The pair's 2×2 counts over the scope's units both judges rated in order 0.
Complementarity complementarity_counts(const OrderZero& judge, const OrderZero& reference,
                                       const std::vector<double>& mask);

/// `oracle_acc` of the pair: correct iff either is correct in order 0, on units both rated.
void add_oracle_acc(const OrderZero& judge, const OrderZero& reference, const std::vector<double>& mask,
                    StatLabel label, const std::string& tag, Plan& plan);

/// docs/statistics.md §7.2's disputes: adjudicated units where judge and reference disagree in order 0.
Disputes dispute_counts(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const OrderZero& judge,
                        const OrderZero& reference, const std::vector<double>& mask);

/// The difference of order-0 accuracy judge − reference under adjudicated labels (decisive
/// adjudication, gold elsewhere), on units both rated: a `diff` row with of = "acc_adjudicated".
/// `indecisive_zero` (`--indecisive zero`, JEV App. C's primary outcome): an indecisive item
/// contributes 0 instead of being scored by its gold.
void add_adjudicated_difference(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const OrderZero& judge,
                                const OrderZero& reference, const std::vector<double>& mask, StatLabel label,
                                const std::string& tag, Plan& plan, bool indecisive_zero = false);

}  // namespace judgestat
