// Order averaging (docs/statistics.md §3.1; JEV Tables 24–25): the accuracy of a judge's
// probabilities averaged over the presentation orders, and its gain over the base order.
#pragma once
#include <cstdint>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/scope_view.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// The `of` of the gain rows: `diff` with judge = reference, acc_avg − acc[order 0].
inline constexpr const char* kOrderGain = "order_gain";

/// Per unit with every order present (and gold), the credit of the averaged probabilities: 1
/// when gold alone is on top, ½ on an exact tie at the top, 0 otherwise — and 0 when any order is
/// invalid or carries no probabilities (JEV: "an invalid output in either order counted as an
/// error"). Empty when the judge has no probabilities on the units.
std::vector<double> order_averaged_credit(const ItemMatrix& m, int32_t judge, const std::vector<AccuracyUnit>& units,
                                          int orders);

/// `acc_avg` (credit / complete units with gold) and the paired `diff` row of = "order_gain"
/// (acc_avg − acc[order 0] on the same complete units, with its sign-flip test), judge j on the
/// scope `view` (whose mask already keeps units with gold). `base_correct` is order 0's credit
/// per unit; `complete` whether the unit has every order. Nothing when no unit is complete.
void add_order_averaging(int32_t judge, const ItemMatrix& m, const std::vector<double>& credit,
                         const PlanColumn& base_correct, const PlanColumn& complete, const ScopeView& view, Plan& plan);

/// Holm's adjustment of the order_gain rows, within each group (benchmark, condition): the
/// judges of one column of JEV Table 25 are one family. `p` per statistic; NaN elsewhere.
std::vector<double> holm_over_order_gains(const std::vector<StatLabel>& labels, const std::vector<double>& p);

}  // namespace judgestat
