#include "analyses/metrics/position_cost.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "support/quantile.hpp"

namespace judgestat {

namespace {

// Sets label.n and appends num / den as a statistic named by label, after `scale` (1 for shares).
void add_scope_ratio(const std::string& column_prefix, std::vector<double> num, std::vector<double> den, double scale,
                     StatLabel label, Plan& plan) {
  label.n = static_cast<int64_t>(column_total(den));
  const int32_t kn = add_values_column(plan, column_prefix + "/num", std::move(num));
  const int32_t kd = add_values_column(plan, column_prefix + "/den", std::move(den));
  std::vector<Op> program = ratio_program(kn, kd);
  if (scale != 1.0) program.insert(program.end(), {{OpCode::kConstant, 0, scale}, {OpCode::kMul}});
  plan.statistics.push_back({std::move(label), std::move(program)});
}

void check_per_call(const std::optional<double>& value, const char* field) {
  if (value && !(std::isfinite(*value) && *value >= 0))
    throw std::invalid_argument(std::string(field) + ": must be a finite number ≥ 0, got " + std::to_string(*value));
}

// Every present record of `judge` on the scope's units, in unit then order order.
template <typename Visit>
void for_each_record(const ItemMatrix& m, int32_t judge, const ScopeView& scope, Visit visit) {
  for (size_t u = 0; u < scope.size(); ++u) {
    if (!scope.has(u)) continue;
    for (int o = 0; o < m.orders; ++o) {
      const size_t c = m.cell(judge, scope.units[u].item, o, scope.units[u].variant);
      if (m.present(c)) visit(u, c);
    }
  }
}

// Canonical label order for positions: the label names sorted (A, B, C, D…), so that a file
// whose first gold label is B still has order 0 showing A first (labels are otherwise
// numbered by first appearance).
std::vector<int32_t> canonical_rank(const ItemMatrix& m) {
  std::vector<int32_t> by_name(m.n_labels());
  for (int32_t k = 0; k < m.n_labels(); ++k) by_name[k] = k;
  std::sort(by_name.begin(), by_name.end(), [&](int32_t a, int32_t b) { return m.labels[a] < m.labels[b]; });
  std::vector<int32_t> rank(m.n_labels());
  for (int32_t r = 0; r < m.n_labels(); ++r) rank[by_name[r]] = r;
  return rank;
}

// The number of candidates K of a unit: 1 + the largest order (rotation) any judge's record
// presents it in. One order cannot tell position from label.
int32_t presentations(const ItemMatrix& m, const AccuracyUnit& unit) {
  for (int32_t o = m.orders - 1; o > 0; --o)
    for (int32_t j = 0; j < m.n_judges(); ++j)
      if (m.present(m.cell(j, unit.item, o, unit.variant))) return o + 1;
  return 1;
}

}  // namespace

void add_position_bias(const ItemMatrix& m, int32_t judge, int orders, const ScopeView& scope, Plan& plan) {
  if (orders < 1 || orders > m.orders)
    throw std::invalid_argument("orders: position bias reads orders 0..orders−1 of the data's " +
                                std::to_string(m.orders) + ", got " + std::to_string(orders));
  const size_t U = scope.size();
  const std::vector<int32_t> rank = canonical_rank(m);
  int32_t max_k = 0;
  std::vector<int32_t> k_of(U, 0);
  for (size_t u = 0; u < U; ++u)
    if (scope.has(u)) max_k = std::max(max_k, k_of[u] = presentations(m, scope.units[u]));
  std::vector<std::vector<double>> at(max_k, std::vector<double>(U, 0.0));  // [position][unit]
  std::vector<double> valid(U, 0.0), complete(U, 0.0), all_first(U, 0.0), all_second(U, 0.0);
  for (size_t u = 0; u < U; ++u) {
    const int32_t K = k_of[u];
    if (K < 2) continue;
    int n_valid = 0, n_first = 0, n_second = 0;
    const int read = std::min<int>(K, orders);
    for (int o = 0; o < read; ++o) {
      const size_t c = m.cell(judge, scope.units[u].item, o, scope.units[u].variant);
      if (!m.valid(c)) continue;
      ++n_valid;
      // A tie, or a label outside the item's K canonical candidates, is valid at no position.
      if (m.verdict[c] == kTie || rank[m.verdict[c]] >= K) continue;
      const int32_t position = ((rank[m.verdict[c]] - o) % K + K) % K;
      ++at[position][u];
      n_first += position == 0;
      n_second += position == 1;
    }
    valid[u] = n_valid;
    if (K != 2 || read != 2 || n_valid < 2) continue;  // always_* on pairs with both orders valid
    complete[u] = 1;
    all_first[u] = n_first == K;
    all_second[u] = n_second == K;
  }
  const std::string& judge_name = m.judges[judge];
  const std::string prefix = scope.tag + "/position/o" + std::to_string(orders);
  if (column_total(valid) > 0)
    for (int32_t p = 0; p < max_k; ++p) {
      StatLabel label = scope_label(scope, "position_rate", judge_name);
      label.position = p;
      add_scope_ratio(prefix + "/at" + std::to_string(p), std::move(at[p]), valid, 1.0, std::move(label), plan);
    }
  if (column_total(complete) == 0) return;  // pairs (K = 2) only
  add_scope_ratio(prefix + "/always_first", std::move(all_first), complete, 1.0,
                  scope_label(scope, "always_first", judge_name), plan);
  add_scope_ratio(prefix + "/always_second", std::move(all_second), complete, 1.0,
                  scope_label(scope, "always_second", judge_name), plan);
}

void add_fee_per_1k(const ItemMatrix& m, int32_t judge, const ScopeView& scope,
                    const std::optional<double>& fee_per_call, Plan& plan) {
  check_per_call(fee_per_call, "fee_per_call");
  std::vector<double> fee(scope.size(), 0.0), records(scope.size(), 0.0);
  for_each_record(m, judge, scope, [&](size_t u, size_t c) {
    const double value = fee_per_call ? *fee_per_call : m.fee[c];
    if (std::isnan(value)) return;
    fee[u] += value;
    ++records[u];
  });
  if (column_total(records) == 0) return;
  add_scope_ratio(scope.tag + "/fee_per_1k", std::move(fee), std::move(records), 1000.0,
                  scope_label(scope, "fee_per_1k", m.judges[judge]), plan);
}

void add_failure_rates(const ItemMatrix& m, int32_t judge, const ScopeView& scope, const Covariate& type, Plan& plan) {
  const size_t untyped = type.levels.size();  // the slot of failures without a type
  std::vector<std::vector<double>> failed(untyped + 1);
  std::vector<double> records(scope.size(), 0.0);
  for_each_record(m, judge, scope, [&](size_t u, size_t c) {
    ++records[u];
    if (m.valid(c)) return;
    const size_t slot = type.cell_level[c] >= 0 ? static_cast<size_t>(type.cell_level[c]) : untyped;
    if (failed[slot].empty()) failed[slot].assign(scope.size(), 0.0);
    ++failed[slot][u];
  });
  for (size_t slot = 0; slot <= untyped; ++slot) {
    if (failed[slot].empty()) continue;  // a type this judge never failed with: no row
    StatLabel label = scope_label(scope, "failure_rate", m.judges[judge]);
    label.label = slot < untyped ? type.levels[slot] : "(no type)";
    add_scope_ratio(scope.tag + "/failure/" + std::to_string(slot), std::move(failed[slot]), records, 1.0,
                    std::move(label), plan);
  }
}

LatencyQuantiles latency_quantiles(const ItemMatrix& m, int32_t judge, const ScopeView& scope,
                                   const std::optional<double>& latency_per_call) {
  check_per_call(latency_per_call, "latency_per_call");
  std::vector<double> latencies;
  for_each_record(m, judge, scope, [&](size_t, size_t c) {
    const double value = latency_per_call ? *latency_per_call : m.latency[c];
    if (!std::isnan(value)) latencies.push_back(value);
  });
  LatencyQuantiles out;
  out.n = static_cast<int64_t>(latencies.size());
  if (latencies.empty()) return out;
  out.p50 = quantile_type7_unsorted(latencies, 0.50);
  out.p95 = quantile_type7_unsorted(latencies, 0.95);
  return out;
}

}  // namespace judgestat
