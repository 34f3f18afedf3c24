#include "analyses/metrics/scope_view.hpp"

namespace judgestat {

StatLabel scope_label(const ScopeView& scope, const std::string& name, const std::string& judge) {
  StatLabel label = scope.base;
  label.name = name;
  label.judge = judge;
  return label;
}

int32_t add_values_column(Plan& plan, const std::string& name, std::vector<double> values) {
  const int32_t k = plan.add_column(name);
  plan.columns[k] = std::move(values);
  return k;
}

double column_total(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

void add_term(std::vector<Op>& sum, const std::vector<Op>& term) {
  const bool first = sum.empty();
  sum.insert(sum.end(), term.begin(), term.end());
  if (!first) sum.push_back({OpCode::kAdd});
}

}  // namespace judgestat
