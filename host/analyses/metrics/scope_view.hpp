// What the judge-study statistics of docs/statistics.md §7.1 (classification.hpp, agreement.hpp,
// position_cost.hpp) share: the scope they are computed on — the accuracy units of a selection, a
// mask choosing some of them, the label template of the scope's group — and the small pieces of
// plan building they all repeat.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// One (judge or judge pair or rater set) × scope's view of the plan's units.
struct ScopeView {
  const std::vector<AccuracyUnit>& units;  // the plan's units, in plan order
  const std::vector<double>& mask;         // 1 = unit in this scope
  StatLabel base;                          // group fields set; name/judge empty
  std::string tag;                         // prefix for column names (unique per judge × scope)

  bool has(size_t u) const { return mask[u] != 0; }
  size_t size() const { return units.size(); }
};

/// scope.base with name and judge set.
StatLabel scope_label(const ScopeView& scope, const std::string& name, const std::string& judge);

/// Appends a column holding `values` (one per unit) and returns its index.
int32_t add_values_column(Plan& plan, const std::string& name, std::vector<double> values);

/// Σ values (the column's total on the original data).
double column_total(const std::vector<double>& values);

/// Agreement categories of a present verdict: the label index, then `tie` (n_labels) and invalid
/// (n_labels + 1), each its own category (LLMBar's kappa; docs/statistics.md §7.1).
inline int32_t agreement_category(const ItemMatrix& m, int16_t verdict) {
  return verdict >= 0 ? verdict : m.n_labels() + (verdict == kTie ? 0 : 1);
}
inline int32_t agreement_categories(const ItemMatrix& m) { return m.n_labels() + 2; }

/// Appends `term` to the program `sum` of earlier terms, adding it to them (kAdd) when there
/// were any: sums accumulate left to right, so a program stays within kMaxStack.
void add_term(std::vector<Op>& sum, const std::vector<Op>& term);

}  // namespace judgestat
