#include "analyses/judge_validity.hpp"

#include "records/validity.hpp"

namespace judgestat {

std::vector<JudgeValidity> judge_validity(const ItemMatrix& m, const std::vector<int32_t>& judges) {
  std::vector<JudgeValidity> out;
  for (int32_t j : judges) {
    JudgeValidity validity{m.judges[j], 0, 0, ""};
    loading::InvalidReasons reasons;
    for (int32_t item = 0; item < m.n_items(); ++item)
      for (int32_t variant = 0; variant < m.n_variants(); ++variant)
        for (int o = 0; o < m.orders; ++o) {
          const size_t c = m.cell(j, item, o, variant);
          if (!m.present(c)) continue;
          ++validity.records;
          if (m.verdict[c] != kInvalid) continue;
          ++validity.invalid;
          reasons.add(m.probs_of(c), m.labels.size());
        }
    validity.invalid_reason = reasons.most_common();
    out.push_back(std::move(validity));
  }
  return out;
}

}  // namespace judgestat
