// The order guard (docs/statistics.md §1, issue 29 item 4): order-1 verdicts must be written in
// canonical terms. A converter that forgets to swap them back leaves a judge's order-1 verdicts
// agreeing with the label gold takes after swapping A and B ("presented gold") rather than with
// gold; the guard names such a judge above the tables.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "records/selection.hpp"

namespace judgestat {

/// One judge's order-0 and order-1 records with gold on a two-label selection: how many, how many
/// right, and in order 1 how many name the other label (gold's presented position), per gold label.
struct OrderAgreement {
  std::string judge;
  int64_t order0 = 0, right0 = 0, order1 = 0, right1 = 0, presented1 = 0;
  int64_t order1_by_gold[2] = {0, 0}, presented1_by_gold[2] = {0, 0};
};

OrderAgreement order_agreement(const ItemMatrix& matrix, const Selection& selection, int32_t judge);

/// The rule: at least kGuardRecords order-1 records with gold, at least kGuardPerLabel of each gold
/// label; order-1 accuracy below 0.5 and at least 0.25 below order 0's; presented-gold agreement
/// at least 0.75 over the order-1 records and averaged over the two gold labels (honest position
/// bias, a verdict that does not follow gold, averages at most 0.5 there).
inline constexpr int64_t kGuardRecords = 20, kGuardPerLabel = 5;
bool looks_unswapped(const OrderAgreement& agreement);

/// A warning per selected judge whose order-1 verdicts look written in presented terms; none for a
/// selection that is not two-label, is scored, or has one presentation order.
std::vector<std::string> order_guard_warnings(const ItemMatrix& matrix, const Selection& selection);

}  // namespace judgestat
