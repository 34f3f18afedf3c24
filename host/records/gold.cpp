// Items without gold (docs/statistics.md §8.1) and the invalid values of cells (§1 "Validity").
#include <algorithm>

#include "judgestat/records.hpp"
#include "records/fields.hpp"

namespace judgestat {

int32_t ItemMatrix::invalid_value_of(size_t c) const {
  const auto found = std::lower_bound(invalid_cells.begin(), invalid_cells.end(), c,
                                      [](const InvalidCell& cell, size_t wanted) { return cell.cell < wanted; });
  return found != invalid_cells.end() && found->cell == c ? found->value : -1;
}

namespace {

/// Copies the per-item entries of `from` at `kept` into `to`.
template <typename T>
std::vector<T> kept_entries(const std::vector<T>& from, const std::vector<int32_t>& kept) {
  std::vector<T> to;
  if (from.empty()) return to;
  to.reserve(kept.size());
  for (int32_t i : kept) to.push_back(from[i]);
  return to;
}

/// A covariate of the kept items, its cell levels left for the caller to add.
Covariate items_covariate(const Covariate& from, const std::vector<int32_t>& kept) {
  Covariate to;
  to.name = from.name;
  to.levels = from.levels;
  to.numbers = from.numbers;
  to.numeric = from.numeric;
  to.item_level = kept_entries(from.item_level, kept);
  // The message names the file's first mixed item, which may have no gold: still a fault of the file.
  if (std::find(to.item_level.begin(), to.item_level.end(), kMixedLevels) != to.item_level.end()) {
    to.mixed_item = from.mixed_item;
    to.mixed_line = from.mixed_line;
    to.first_line = from.first_line;
    to.mixed_text = from.mixed_text;
    to.first_text = from.first_text;
  }
  return to;
}

/// The repeat cells (docs/statistics.md §8.5) of the kept items, in the output's cell order.
void copy_repeat_cells(const ItemMatrix& m, const std::vector<int32_t>& kept, ItemMatrix& out) {
  const size_t L = m.labels.size();
  for (int32_t r = 1; r < m.repeats; ++r)
    for (int32_t j = 0; j < m.n_judges(); ++j)
      for (int32_t i : kept)
        for (int o = 0; o < m.orders; ++o)
          for (int32_t v = 0; v < m.n_variants(); ++v) {
            const size_t c = (static_cast<size_t>(r) - 1) * m.n_cells() + m.cell(j, i, o, v);
            if (m.repeat_verdict[c] != kAbsent) ++out.repeat_records;
            out.repeat_verdict.push_back(m.repeat_verdict[c]);
            out.repeat_line.push_back(m.repeat_line[c]);
            out.repeat_prob.insert(out.repeat_prob.end(), m.repeat_prob.begin() + c * L,
                                   m.repeat_prob.begin() + (c + 1) * L);
          }
}

}  // namespace

ItemMatrix items_with_gold(const ItemMatrix& m, const std::string& analysis) {
  std::vector<int32_t> kept;
  for (int32_t i = 0; i < m.n_items(); ++i)
    if (m.has_gold(i)) kept.push_back(i);
  if (kept.empty())
    throw UsageError(analysis + " needs gold labels, and no item of " + loading::display_name(m.path) +
                     " has one (every record leaves 'gold' empty or omits it); give gold for some items, or use "
                     "metrics, which computes consistency, position and agreement statistics without gold");
  ItemMatrix out;
  out.path = m.path;
  out.sha256 = m.sha256;
  out.judges = m.judges;
  out.labels = m.labels;
  out.clusters = m.clusters;
  out.benchmarks = m.benchmarks;
  out.conditions = m.conditions;
  out.variants = m.variants;
  out.orders = m.orders;
  out.has_probs = m.has_probs;
  out.has_fee = m.has_fee;
  out.has_latency = m.has_latency;
  out.has_rationale = m.has_rationale;
  out.has_adjudicated = m.has_adjudicated;
  out.invalid_values = m.invalid_values;
  out.item_column = m.item_column;
  out.line_files = m.line_files;
  out.line_offsets = m.line_offsets;
  out.items = kept_entries(m.items, kept);
  out.gold = kept_entries(m.gold, kept);
  out.item_cluster = kept_entries(m.item_cluster, kept);
  out.item_benchmark = kept_entries(m.item_benchmark, kept);
  out.item_condition = kept_entries(m.item_condition, kept);
  out.item_flag = kept_entries(m.item_flag, kept);
  out.item_adjudicated = kept_entries(m.item_adjudicated, kept);
  out.item_column_value = kept_entries(m.item_column_value, kept);
  out.scored = m.scored;
  out.scale = m.scale;
  out.label_score = m.label_score;
  out.repeats = m.repeats;
  for (const Covariate& covariate : m.covariates) out.covariates.push_back(items_covariate(covariate, kept));
  const size_t cells = static_cast<size_t>(m.n_judges()) * kept.size() * m.orders * m.variants.size();
  const size_t L = m.labels.size();
  out.verdict.reserve(cells);
  out.line.reserve(cells);
  out.prob.reserve(cells * L);
  for (int32_t j = 0; j < m.n_judges(); ++j)
    for (int32_t i : kept)
      for (int o = 0; o < m.orders; ++o)
        for (int32_t v = 0; v < m.n_variants(); ++v) {
          const size_t c = m.cell(j, i, o, v);
          if (m.verdict[c] != kAbsent) ++out.records;
          if (m.verdict[c] == kInvalid) {
            ++out.invalid;
            out.invalid_cells.push_back({out.verdict.size(), m.invalid_value_of(c)});
          }
          out.verdict.push_back(m.verdict[c]);
          out.line.push_back(m.line[c]);
          out.prob.insert(out.prob.end(), m.prob.begin() + c * L, m.prob.begin() + (c + 1) * L);
          out.fee.push_back(m.fee[c]);
          out.latency.push_back(m.latency[c]);
          out.rationale_ok.push_back(m.rationale_ok[c]);
          for (size_t k = 0; k < m.covariates.size(); ++k)
            out.covariates[k].cell_level.push_back(m.covariates[k].cell_level[c]);
        }
  copy_repeat_cells(m, kept, out);
  return out;
}

}  // namespace judgestat
