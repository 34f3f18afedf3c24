// The cascade's confidence bins with edges (JEV Fig. 5, §7.1, §7.4: q < 0.6 pooled, tenths, then
// [0.9, 0.95), [0.95, 0.99), [0.99, 1) and q = 1) and the gate of a second run of the same items
// (JEV Table 36). The bins' statistics are ratios of column sums on the sweep's plan, so they share
// its replicates (docs/statistics.md §3.3).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "analyses/cascade/cascade_detail.hpp"
#include "judgestat/bootstrap.hpp"

namespace judgestat {

std::vector<double> parse_bin_edges(const std::string& text) {
  if (text == "paper") return {0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0};
  std::vector<double> edges;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string entry = text.substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(entry.c_str(), &end);
    if (entry.empty() || end != entry.c_str() + entry.size() || !(value > 0.0 && value <= 1.0))
      throw std::invalid_argument("bins: expected `paper` or ascending edges in (0, 1] such as 0.6,0.9,1; got '" +
                                  entry + "'");
    if (!edges.empty() && !(value > edges.back()))
      throw std::invalid_argument("bins: edges must ascend; " + entry + " does not follow the edge before it");
    edges.push_back(value);
    start = comma + 1;
  }
  return edges;
}

int32_t edge_bin(const std::vector<double>& edges, double q) {
  return static_cast<int32_t>(std::upper_bound(edges.begin(), edges.end(), q) - edges.begin());
}

namespace {

// Shortest text of an edge: "0.6", "0.95", "1".
std::string edge_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The bin's q range: lo, hi, and whether hi is included (the last bin).
std::pair<double, double> bin_range(const std::vector<double>& edges, int32_t b) {
  const double lo = b == 0 ? 0.0 : edges[b - 1];
  const double hi = static_cast<size_t>(b) < edges.size() ? edges[b] : 1.0;
  return {lo, hi};
}

}  // namespace

std::string edge_bin_name(const std::vector<double>& edges, int32_t b) {
  const auto [lo, hi] = bin_range(edges, b);
  if (static_cast<size_t>(b) == edges.size()) return lo == 1.0 ? "q = 1" : "[" + edge_text(lo) + ", 1]";
  return "[" + edge_text(lo) + ", " + edge_text(hi) + ")";
}

std::vector<ConfidenceBinAccuracy> add_edge_bins(const CascadePool& pool, Plan& plan, const std::vector<double>& edges,
                                                 const PoolGroups* groups, int32_t group) {
  if (plan.n_units() != pool.size()) throw std::logic_error("cascade bins: plan units are not the pool items");
  const std::string prefix = group >= 0 ? "group " + groups->names[group] + "/" : std::string();
  auto in_scope = [&](int32_t i) { return pool.q[i] > 0 && (group < 0 || groups->item_group[i] == group); };
  std::vector<ConfidenceBinAccuracy> out;
  for (int32_t b = 0; b <= static_cast<int32_t>(edges.size()); ++b) {
    ConfidenceBinAccuracy row;
    row.bin = b;
    std::tie(row.lo, row.hi) = bin_range(edges, b);
    std::vector<int32_t> members;
    double sum_q = 0;
    row.first_errors = row.disagree = 0;
    for (int32_t i = 0; i < pool.size(); ++i)
      if (in_scope(i) && edge_bin(edges, pool.q[i]) == b) {
        members.push_back(i);
        sum_q += pool.q[i];
        row.first_errors += pool.c1[i] < 1.0;
        row.disagree += pool.c1[i] != pool.c2[i];
      }
    row.n = static_cast<int64_t>(members.size());
    if (row.n == 0) continue;
    row.mean_q = sum_q / static_cast<double>(row.n);
    const std::string tag = prefix + "edge bin/" + std::to_string(b) + "/";
    auto column = [&](const std::string& name, auto value_of) {
      const int32_t k = plan.add_column(tag + name);
      for (int32_t i : members) plan.columns[k].set(static_cast<size_t>(i), value_of(i));
      return k;
    };
    const int32_t k_n = column("n", [](int32_t) { return 1.0; });
    const int32_t k_first = column("first", [&](int32_t i) { return pool.c1[i]; });
    const int32_t k_fallback = column("fallback", [&](int32_t i) { return pool.c2[i]; });
    const int32_t k_agree = column("agree", [&](int32_t i) { return 1.0 - std::fabs(pool.c1[i] - pool.c2[i]); });
    StatLabel label;
    label.judge = pool.first;
    label.reference = pool.fallback;
    label.threshold = edge_bin_name(edges, b);
    label.n = row.n;
    if (group >= 0) (groups->key == "condition" ? label.condition : label.benchmark) = groups->names[group];
    auto add = [&](const std::string& name, int32_t k_sum) {
      StatLabel l = label;
      l.name = name;
      plan.statistics.push_back({l, ratio_program(k_sum, k_n)});
      return static_cast<int32_t>(plan.statistics.size()) - 1;
    };
    row.first = add("bin_acc", k_first);
    row.fallback = add("fallback_bin_acc", k_fallback);
    row.agree = add("bin_agree", k_agree);
    out.push_back(row);
  }
  return out;
}

std::vector<double> frozen_item_tau(const ItemMatrix& m, const CascadePool& pool, const FrozenTau& tau) {
  std::vector<std::pair<std::string, FrozenThreshold>> applied;
  frozen_policy(m, pool, tau, applied);
  std::vector<double> out(pool.size(), NAN);
  for (int32_t i = 0; i < pool.size(); ++i) {
    const std::string& benchmark = m.benchmarks[m.item_benchmark[pool.item[i]]];
    for (const auto& entry : applied)
      if (entry.first == benchmark) out[i] = entry.second.value;
  }
  return out;
}

std::vector<int8_t> compared_gate(const ItemMatrix& m, const CascadePool& pool,
                                  const std::map<std::string, GateOutcome>& second,
                                  const std::vector<double>& policy_tau, const std::vector<uint8_t>& accepted,
                                  const std::vector<uint8_t>& in_set, GateComparison& out) {
  std::vector<int8_t> there(pool.size(), -1);
  for (int32_t i = 0; i < pool.size(); ++i) {
    const auto it = second.find(m.items[pool.item[i]]);
    if (it != second.end()) {
      const double tau = policy_tau[i];
      there[i] = !std::isnan(tau) && it->second.gate_ok && it->second.q >= tau ? 1 : 0;
    }
    if (!in_set.empty() && !in_set[i]) continue;
    if (there[i] < 0) {
      ++out.only_here;
      continue;
    }
    ++out.common;
    const bool here = accepted[i] != 0;
    out.both_accept += here && there[i] == 1;
    out.both_escalate += !here && there[i] == 0;
    out.accepted_here_only += here && there[i] == 0;
    out.accepted_there_only += !here && there[i] == 1;
  }
  return there;
}

std::map<std::string, GateOutcome> gate_outcomes(const ItemMatrix& second, const CascadeSettings& settings) {
  const CascadePool pool =
      build_cascade_pool(second, settings.first, settings.fallback, settings.gate_orders, settings.strata);
  std::map<std::string, GateOutcome> out;
  for (int32_t i = 0; i < pool.size(); ++i) out[second.items[pool.item[i]]] = {pool.q[i], pool.gate_ok[i] != 0};
  return out;
}

}  // namespace judgestat
