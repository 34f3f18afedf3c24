// `--invalid exclude` (docs/statistics.md §1 "Validity"): failed calls leave n, as in CAP.
#include "invalid_policy.hpp"

#include <cmath>
#include <limits>

namespace judgestat {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void clear_cell(ItemMatrix& m, size_t c) {
  m.verdict[c] = kAbsent;
  m.line[c] = 0;
  if (!m.prob.empty())
    for (int32_t l = 0; l < m.n_labels(); ++l) m.prob[c * m.labels.size() + l] = kNaN;
  for (auto* column : {&m.fee, &m.latency, &m.rationale_ok})
    if (!column->empty()) (*column)[c] = kNaN;
}

// The judge of cell c (cells are judge-major, ItemMatrix::cell).
int32_t judge_of(const ItemMatrix& m, size_t c) {
  const size_t per_judge = m.items.size() * static_cast<size_t>(m.orders) * m.variants.size();
  return static_cast<int32_t>(c / per_judge);
}

}  // namespace

std::vector<int64_t> exclude_invalid_records(ItemMatrix& m) {
  std::vector<int64_t> excluded(m.judges.size(), 0);
  const size_t cells = m.n_cells();
  int64_t first_repeat = 0;  // m.invalid counts repeat 0's records only (the loader's count)
  for (size_t c = 0; c < cells; ++c) {
    if (m.verdict[c] != kInvalid) continue;
    clear_cell(m, c);
    ++excluded[judge_of(m, c)];
    ++first_repeat;
  }
  m.invalid_cells.clear();  // no cell is invalid any more
  for (int32_t r = 1; r < m.repeats; ++r) {
    for (size_t c = 0; c < cells; ++c) {
      const size_t at = (r - 1) * cells + c;
      if (m.repeat_verdict[at] != kInvalid) continue;
      m.repeat_verdict[at] = kAbsent;
      m.repeat_line[at] = 0;
      if (!m.repeat_prob.empty())
        for (int32_t l = 0; l < m.n_labels(); ++l) m.repeat_prob[at * m.labels.size() + l] = kNaN;
      ++excluded[judge_of(m, c)];
    }
  }
  m.invalid -= first_repeat;
  return excluded;
}

}  // namespace judgestat
