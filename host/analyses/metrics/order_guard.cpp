#include "analyses/metrics/order_guard.hpp"

#include <cstdio>

#include "judgestat/metrics.hpp"

namespace judgestat {

OrderAgreement order_agreement(const ItemMatrix& m, const Selection& sel, int32_t j) {
  OrderAgreement out;
  out.judge = m.judges[j];
  for (int32_t i : sel.items) {
    if (!m.has_gold(i)) continue;
    const int32_t gold = m.gold[i];
    for (int32_t v : sel.variants) {
      const size_t first = m.cell(j, i, 0, v), second = m.cell(j, i, 1, v);
      if (m.present(first)) {
        ++out.order0;
        out.right0 += m.verdict[first] == gold;
      }
      if (!m.present(second)) continue;
      const bool presented = m.verdict[second] == 1 - gold;  // two labels: swapping gives the other
      ++out.order1;
      out.right1 += m.verdict[second] == gold;
      out.presented1 += presented;
      ++out.order1_by_gold[gold];
      out.presented1_by_gold[gold] += presented;
    }
  }
  return out;
}

bool looks_unswapped(const OrderAgreement& a) {
  if (a.order1 < kGuardRecords || a.order0 == 0) return false;
  if (a.order1_by_gold[0] < kGuardPerLabel || a.order1_by_gold[1] < kGuardPerLabel) return false;
  const double acc0 = double(a.right0) / double(a.order0), acc1 = double(a.right1) / double(a.order1);
  const double presented = double(a.presented1) / double(a.order1);
  const double balanced = (double(a.presented1_by_gold[0]) / double(a.order1_by_gold[0]) +
                           double(a.presented1_by_gold[1]) / double(a.order1_by_gold[1])) /
                          2;
  return acc1 < 0.5 && acc0 - acc1 >= 0.25 && presented >= 0.75 && balanced >= 0.75;
}

namespace {

std::string warning_text(const ItemMatrix& m, const OrderAgreement& a) {
  auto share = [](int64_t count, int64_t of) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", double(count) / double(of));
    return std::string(text);
  };
  return a.judge + kOrderGuardWarning + " (the label gold takes once " + m.labels[0] + " and " + m.labels[1] +
         " are swapped) on " + std::to_string(a.presented1) + " of " + std::to_string(a.order1) + " records (" +
         share(a.presented1, a.order1) + ") but with gold on " + std::to_string(a.right1) + " (" +
         share(a.right1, a.order1) + "; order 0: " + share(a.right0, a.order0) +
         "). Order-1 verdicts look written in presented terms: records give verdicts in canonical terms "
         "(docs/statistics.md §1); swap them back (an import map's `swap`)";
}

}  // namespace

std::vector<std::string> order_guard_warnings(const ItemMatrix& m, const Selection& sel) {
  std::vector<std::string> out;
  if (m.scored || m.n_labels() != 2 || sel.orders < 2) return out;
  for (int32_t j : sel.judges) {
    const OrderAgreement a = order_agreement(m, sel, j);
    if (looks_unswapped(a)) out.push_back(warning_text(m, a));
  }
  return out;
}

}  // namespace judgestat
