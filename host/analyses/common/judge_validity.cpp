#include "analyses/common/judge_validity.hpp"

namespace judgestat {

ValidityTally::ValidityTally(const ItemMatrix& m, int32_t judge)
    : m_(m), judge_(judge), value_counts_(m.invalid_values.size(), 0) {}

void ValidityTally::add(size_t c) {
  if (!m_.present(c)) return;
  ++records_;
  if (m_.verdict[c] != kInvalid) return;
  ++invalid_;
  reasons_.add(m_.probs_of(c), m_.labels.size());
  const int32_t value = m_.invalid_value_of(c);
  if (value < 0) return;  // a matrix built without invalid values
  if (value_counts_[value]++ == 0) value_order_.push_back(value);
}

JudgeValidity ValidityTally::finish() const {
  JudgeValidity out{m_.judges[judge_], records_, invalid_, reasons_.most_common()};
  out.repeat_records = m_.repeat_records;  // read by no analysis but repeats (§8.5)
  for (int32_t value : value_order_)
    if (value_counts_[value] > out.common_invalid_count) {
      out.common_invalid_value = m_.invalid_values[value];
      out.common_invalid_count = value_counts_[value];
    }
  return out;
}

std::vector<JudgeValidity> judge_validity(const ItemMatrix& m, const std::vector<int32_t>& judges) {
  std::vector<JudgeValidity> out;
  for (int32_t j : judges) {
    ValidityTally tally(m, j);
    for (int32_t item = 0; item < m.n_items(); ++item)
      for (int32_t variant = 0; variant < m.n_variants(); ++variant)
        for (int o = 0; o < m.orders; ++o) tally.add(m.cell(j, item, o, variant));
    out.push_back(tally.finish());
  }
  return out;
}

void set_gold_counts(std::vector<JudgeValidity>& validity, int64_t items, int64_t without_gold,
                     const std::string& gold_statistics) {
  for (JudgeValidity& v : validity) {
    v.items = items;
    v.items_without_gold = without_gold;
    v.gold_statistics = gold_statistics;
  }
}

std::optional<ItemMatrix> gold_items_for(const ItemMatrix& m, const std::string& analysis, int64_t& items,
                                         int64_t& without_gold) {
  items = m.n_items();
  without_gold = m.items_without_gold;
  if (without_gold == 0) return std::nullopt;
  return items_with_gold(m, analysis);
}

}  // namespace judgestat
