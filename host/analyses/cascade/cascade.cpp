#include "analyses/cascade/cascade_detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "analyses/probability/calibration.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "analyses/probability/risk_coverage.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"

namespace judgestat {

PoolClusters number_pool_clusters(const ItemMatrix& m, const CascadePool& pool, const std::vector<uint8_t>& in_set) {
  const int32_t N = pool.size();
  const int32_t first = m.judge_index(pool.first), fallback = m.judge_index(pool.fallback);
  // First line of the records the cascade reads for each item.
  std::vector<int64_t> first_line(N, std::numeric_limits<int64_t>::max());
  std::vector<int32_t> order;
  for (int32_t i = 0; i < N; ++i) {
    if (!in_set.empty() && !in_set[i]) continue;
    const int32_t item = pool.item[i];
    auto see = [&](size_t cell) {
      if (m.present(cell)) first_line[i] = std::min(first_line[i], m.line[cell]);
    };
    for (int o = 0; o < pool.first_orders; ++o) see(m.cell(first, item, o, pool.variant));
    see(m.cell(fallback, item, 0, pool.variant));
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return first_line[a] < first_line[b]; });

  PoolClusters out;
  out.item_cluster.assign(N, -1);
  std::map<int32_t, int32_t> number;  // matrix cluster -> pool cluster
  for (int32_t i : order) {
    const int32_t item = pool.item[i];
    const auto [it, fresh] = number.emplace(m.item_cluster[item], out.size());
    if (fresh) {
      out.names.push_back(m.clusters[m.item_cluster[item]]);
      out.cluster_benchmark.push_back(m.item_benchmark[item]);
    }
    out.item_cluster[i] = it->second;
  }
  out.item_order = std::move(order);
  return out;
}

PoolGroups pool_groups(const ItemMatrix& m, const CascadePool& pool, const PoolClusters& clusters,
                       const std::string& key) {
  if (key != "benchmark" && key != "condition")
    throw std::invalid_argument("by: expected benchmark or condition, got '" + key + "'");
  PoolGroups groups;
  groups.key = key;
  groups.item_group.assign(pool.size(), -1);
  std::map<int32_t, int32_t> group_of_value;  // matrix benchmark/condition → group
  std::vector<int32_t> cluster_group(clusters.size(), -1);
  for (int32_t i : clusters.item_order) {
    const int32_t item = pool.item[i];
    const int32_t value = key == "benchmark" ? m.item_benchmark[item] : m.item_condition[item];
    const auto [found, fresh] = group_of_value.emplace(value, groups.size());
    if (fresh) groups.names.push_back(key == "benchmark" ? m.benchmarks[value] : m.conditions[value]);
    const int32_t g = found->second;
    groups.item_group[i] = g;
    int32_t& first = cluster_group[clusters.item_cluster[i]];
    if (first < 0) {
      first = g;
    } else if (first != g && !groups.domain) {
      // docs/statistics.md §2: the first straddling cluster in item order and two of its groups.
      groups.domain = true;
      groups.note = "cluster '" + clusters.names[clusters.item_cluster[i]] + "' has items in two " + key +
                    " groups ('" + groups.names[first] + "' and '" + groups.names[g] +
                    "'), so clusters are resampled over all analysed data (one stratum) and each " + key +
                    " group's statistic is a domain estimate on these unstratified replicates";
    }
  }
  return groups;
}

PoolClusters stratify(const PoolClusters& clusters, const PoolGroups* groups) {
  if (!groups || groups->domain) return clusters;
  // Strata by first appearance of their groups among the set's items, clusters within each in
  // their (first-appearance) order.
  std::vector<int32_t> stratum_of_group(groups->size(), -1);
  std::vector<std::vector<int32_t>> members;  // old cluster numbers per stratum
  std::vector<uint8_t> placed(clusters.size(), 0);
  PoolClusters out = clusters;
  out.stratum_names.clear();
  for (int32_t i : clusters.item_order) {
    const int32_t g = groups->item_group[i], c = clusters.item_cluster[i];
    if (stratum_of_group[g] < 0) {
      stratum_of_group[g] = static_cast<int32_t>(members.size());
      members.emplace_back();
      out.stratum_names.push_back(groups->names[g]);
    }
    if (!placed[c]) placed[c] = 1, members[stratum_of_group[g]].push_back(c);
  }
  std::vector<int32_t> renumber(clusters.size(), -1);
  out.names.clear();
  out.cluster_benchmark.clear();
  out.stratum_offset = {0};
  for (const auto& list : members) {
    for (int32_t c : list) {
      renumber[c] = out.size();
      out.names.push_back(clusters.names[c]);
      out.cluster_benchmark.push_back(clusters.cluster_benchmark[c]);
    }
    out.stratum_offset.push_back(out.size());
  }
  for (int32_t& c : out.item_cluster)
    if (c >= 0) c = renumber[c];
  return out;
}

std::vector<uint8_t> split_selection(const PoolClusters& clusters, const CascadePool& pool, double fraction,
                                     uint64_t seed) {
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw std::invalid_argument("select: expected a fraction in [0, 1] of the clusters for the selection part");
  // Benchmarks in first-appearance order over the clusters; each benchmark's clusters in order.
  std::map<int32_t, int32_t> benchmark_index;
  std::vector<std::vector<int32_t>> members;
  for (int32_t c = 0; c < clusters.size(); ++c) {
    const auto [it, fresh] =
        benchmark_index.emplace(clusters.cluster_benchmark[c], static_cast<int32_t>(members.size()));
    if (fresh) members.emplace_back();
    members[it->second].push_back(c);
  }
  const PhiloxKey key(seed);
  std::vector<uint8_t> cluster_selected(clusters.size(), 0);
  for (size_t h = 0; h < members.size(); ++h) {
    const auto& list = members[h];
    std::vector<std::pair<uint32_t, uint32_t>> keyed;  // (word, position)
    for (uint32_t c = 0; c < list.size(); ++c)
      keyed.push_back({draw_word(key, c, static_cast<uint32_t>(h), kSplitStream), c});
    std::sort(keyed.begin(), keyed.end());
    const auto take = static_cast<size_t>(std::llround(fraction * static_cast<double>(list.size())));
    for (size_t r = 0; r < take && r < keyed.size(); ++r) cluster_selected[list[keyed[r].second]] = 1;
  }
  std::vector<uint8_t> selected(pool.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i)
    if (clusters.item_cluster[i] >= 0) selected[i] = cluster_selected[clusters.item_cluster[i]];
  return selected;
}

std::vector<uint8_t> accepted_at(const CascadePool& pool, double tau) {
  std::vector<uint8_t> accepted(pool.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i) accepted[i] = pool.gate_ok[i] && pool.q[i] >= tau;
  return accepted;
}

std::vector<CascadePolicy> sweep_policies(const CascadePool& pool, const ThresholdGrid& grid) {
  std::vector<CascadePolicy> policies;
  for (int32_t g = 0; g < grid.size(); ++g) policies.push_back({grid.labels[g], accepted_at(pool, grid.values[g])});
  policies.push_back({std::string("all"), std::vector<uint8_t>(pool.size(), 0)});
  return policies;
}

FeeScale fee_scale(const CascadePool& pool) {
  std::vector<double> fees(pool.fee_first);
  fees.insert(fees.end(), pool.fee_fallback.begin(), pool.fee_fallback.end());
  for (int k = 0; k <= 9; ++k) {
    const double scale = std::pow(10.0, k);
    bool whole = true;
    int64_t divisor = 0;
    for (double fee : fees) {
      const double scaled = fee * scale;
      const double rounded = std::round(scaled);
      // Decimal text parses to within a few ulps; at most 10^9 units keeps that error far below ½.
      if (!(std::fabs(scaled) <= 1e9) || std::fabs(scaled - rounded) > 1e-12 * std::max(1.0, std::fabs(scaled))) {
        whole = false;
        break;
      }
      divisor = std::gcd(divisor, static_cast<int64_t>(std::llabs(std::llround(rounded))));
    }
    if (!whole) continue;
    return {divisor > 0 ? static_cast<double>(divisor) / scale : 1.0, true};
  }
  return {1.0, false};
}

namespace {

// A fee in plan units: the integer count of units when the scale is exact.
double fee_in_units(double fee, const FeeScale& scale) { return scale.exact ? std::round(fee / scale.unit) : fee; }

// The mean of `values` over the entries with in_set[i] (every entry when in_set is empty).
double mean_where(const std::vector<double>& values, const std::vector<uint8_t>& in_set) {
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (in_set.empty() || in_set[i]) sum += values[i], ++n;
  return n ? sum / static_cast<double>(n) : NAN;
}

// Programs concatenated: postfix pieces of one statistic's program.
std::vector<Op> join(std::initializer_list<std::vector<Op>> parts) {
  std::vector<Op> ops;
  for (const auto& part : parts) ops.insert(ops.end(), part.begin(), part.end());
  return ops;
}

}  // namespace

namespace {

// Builds one plan's statistics scope by scope: the pooled units, then each group's. A scope's
// columns are the pooled ones masked to its units, so every scope shares the replicates.
class CascadePlanBuilder {
 public:
  CascadePlanBuilder(const CascadePool& pool, const std::vector<CascadePolicy>& policies,
                     const CascadePlanOptions& options, CascadePlan& out, const std::vector<int32_t>& units)
      : pool_(pool), policies_(policies), options_(options), out_(out), plan_(out.plan), units_(units) {
    // A per-call fee (the same on every item, as --fee gives) needs no column of its own:
    // Σ fee = c·n (and below Σ a·fee_S = c·Σ a). Fewer columns, faster replicates, the same values.
    per_call_first_ = uniform_fee(pool.fee_first);
    per_call_fallback_ = uniform_fee(pool.fee_fallback);
  }

  // The scope of the units with in_scope(i); `group` names it (nullopt: pooled).
  template <typename InScope>
  CascadeScope add_scope(const std::optional<std::string>& group, InScope in_scope) {
    CascadeScope scope;
    scope.group = group;
    prefix_ = group ? "group " + *group + "/" : std::string();
    group_ = group;
    in_scope_ = [&](int32_t i) { return static_cast<bool>(in_scope(i)); };
    std::vector<uint8_t> cluster_seen(plan_.cluster_names.size(), 0);
    for (size_t u = 0; u < units_.size(); ++u)
      if (in_scope_(units_[u])) {
        ++scope.items;
        if (!cluster_seen[plan_.unit_cluster[u]]) cluster_seen[plan_.unit_cluster[u]] = 1, ++scope.clusters;
      }
    if (scope.items == 0) return scope;
    add_statistics(scope);
    return scope;
  }

 private:
  using O = OpCode;

  std::optional<double> uniform_fee(const std::vector<double>& fees) const {
    const double first_value = fee_in_units(fees[units_.front()], out_.fees);
    for (int32_t i : units_)
      if (fee_in_units(fees[i], out_.fees) != first_value) return std::nullopt;
    return first_value;
  }

  // A column of the scope: value_of(i) on its units, 0 elsewhere.
  template <typename ValueOf>
  int32_t column(const std::string& name, ValueOf value_of) {
    const int32_t k = plan_.add_column(prefix_ + name);
    for (size_t u = 0; u < units_.size(); ++u)
      if (in_scope_(units_[u])) plan_.columns[k].set(u, value_of(units_[u]));
    return k;
  }

  StatLabel label(const std::string& name, const std::optional<std::string>& threshold, int64_t count) const {
    StatLabel l;
    l.name = name;
    l.judge = pool_.first;
    l.reference = pool_.fallback;
    l.threshold = threshold;
    l.n = count;
    if (group_) (options_.groups->key == "condition" ? l.condition : l.benchmark) = group_;
    return l;
  }

  int32_t add(StatLabel l, std::vector<Op> program) {
    plan_.statistics.push_back({std::move(l), std::move(program)});
    return static_cast<int32_t>(plan_.statistics.size()) - 1;
  }

  // Σ of a fee over the scope's units as ops (nothing without fees).
  std::vector<Op> fee_sum(const std::string& name, const std::vector<double>& fees,
                          const std::optional<double>& per_call, int32_t k_n) {
    if (!options_.fees) return {};
    if (per_call) return {{O::kColumn, k_n}, {O::kConstant, 0, *per_call}, {O::kMul}};
    return {{O::kColumn, column(name, [&](int32_t i) { return fee_in_units(fees[i], out_.fees); })}};
  }

  void add_statistics(CascadeScope& scope);
  PolicyStatistics add_policy(const CascadePolicy& policy, int64_t n, int64_t first_errors);
  void add_split(const CascadePolicy& policy, PolicyStatistics& stats, bool compared);
  int32_t add_part_ratio(const std::string& name, const CascadePolicy& policy, int64_t count, int32_t k_value,
                         int32_t k_accepted_value, int32_t k_accepted, bool accepted);

  const CascadePool& pool_;
  const std::vector<CascadePolicy>& policies_;
  const CascadePlanOptions& options_;
  CascadePlan& out_;
  Plan& plan_;
  const std::vector<int32_t>& units_;
  std::optional<double> per_call_first_, per_call_fallback_;
  // The scope being built.
  std::string prefix_;
  std::optional<std::string> group_;
  std::function<bool(int32_t)> in_scope_;
  int32_t k_n_ = -1, k_c1_ = -1, k_c2_ = -1, k_err_ = -1, k_agree_ = -1;
  std::vector<Op> first_fee_, fallback_fee_;
};

void CascadePlanBuilder::add_statistics(CascadeScope& scope) {
  k_n_ = column("n", [](int32_t) { return 1.0; });
  k_c1_ = column("c1", [&](int32_t i) { return pool_.c1[i]; });
  k_c2_ = column("c2", [&](int32_t i) { return pool_.c2[i]; });
  k_err_ = column("first_errors", [&](int32_t i) { return pool_.c1[i] < 1.0 ? 1.0 : 0.0; });
  first_fee_ = fee_sum("fee_first", pool_.fee_first, per_call_first_, k_n_);
  fallback_fee_ = fee_sum("fee_fallback", pool_.fee_fallback, per_call_fallback_, k_n_);
  int64_t first_errors = 0;
  for (int32_t i : units_) first_errors += in_scope_(i) && pool_.c1[i] < 1.0;
  if (options_.split) k_agree_ = column("agree", [&](int32_t i) { return 1.0 - std::fabs(pool_.c1[i] - pool_.c2[i]); });
  for (size_t p = 0; p < policies_.size(); ++p) {
    scope.policies.push_back(add_policy(policies_[p], scope.items, first_errors));
    if (options_.split) add_split(policies_[p], scope.policies.back(), p == 0);
  }
  if (options_.oracle) {
    const int32_t k_best = column("oracle", [&](int32_t i) { return std::max(pool_.c1[i], pool_.c2[i]); });
    scope.oracle_acc = add(label("oracle_acc", std::nullopt, scope.items), ratio_program(k_best, k_n_));
  }
}

PolicyStatistics CascadePlanBuilder::add_policy(const CascadePolicy& policy, int64_t n, int64_t first_errors) {
  const std::string tag = "policy " + policy.threshold.value_or("per stratum") + "/";
  auto a = [&](int32_t i) { return policy.accepted[i] ? 1.0 : 0.0; };
  const int32_t k_a = column(tag + "accepted", a);
  const int32_t k_ad = column(tag + "accepted_delta", [&](int32_t i) { return a(i) * (pool_.c1[i] - pool_.c2[i]); });
  const int32_t k_aerr = column(tag + "accepted_errors", [&](int32_t i) { return a(i) * (pool_.c1[i] < 1.0); });
  PolicyStatistics stats;
  stats.cascade_acc = add(label("cascade_acc", policy.threshold, n),
                          {{O::kColumn, k_c2_}, {O::kColumn, k_ad}, {O::kAdd}, {O::kColumn, k_n_}, {O::kDiv}});
  stats.cascade_delta = add(label("cascade_delta", policy.threshold, n), ratio_program(k_ad, k_n_));
  stats.escalated = add(label("escalated", policy.threshold, n),
                        {{O::kColumn, k_n_}, {O::kColumn, k_a}, {O::kSub}, {O::kColumn, k_n_}, {O::kDiv}});
  if (first_errors > 0)
    stats.errors_escalated =
        add(label("errors_escalated", policy.threshold, first_errors),
            {{O::kColumn, k_err_}, {O::kColumn, k_aerr}, {O::kSub}, {O::kColumn, k_err_}, {O::kDiv}});
  if (!options_.fees) return stats;
  // Σ a·fee_S: the fallback fee the accepted items save.
  std::vector<Op> accepted_fallback_fee;
  if (per_call_fallback_) {
    accepted_fallback_fee = {{O::kColumn, k_a}, {O::kConstant, 0, *per_call_fallback_}, {O::kMul}};
  } else {
    accepted_fallback_fee = {{O::kColumn, column(tag + "accepted_fee_fallback", [&](int32_t i) {
                                return a(i) * fee_in_units(pool_.fee_fallback[i], out_.fees);
                              })}};
  }
  // Σ fee_S − Σ a·fee_S: the fallback fee of the escalated items.
  const std::vector<Op> escalated_fee = join({fallback_fee_, accepted_fallback_fee, {{O::kSub}}});
  stats.fee_ratio = add(label("fee_ratio", policy.threshold, n),
                        join({first_fee_, escalated_fee, {{O::kAdd}}, fallback_fee_, {{O::kDiv}}}));
  // p = escalated fallback fee / all fallback fee; expected accuracy c1 + p·(c2 − c1).
  stats.random_acc = add(label("random_acc", policy.threshold, n), join({escalated_fee,
                                                                         fallback_fee_,
                                                                         {{O::kDiv}},
                                                                         {{O::kColumn, k_c2_},
                                                                          {O::kColumn, k_c1_},
                                                                          {O::kSub},
                                                                          {O::kMul},
                                                                          {O::kColumn, k_c1_},
                                                                          {O::kAdd},
                                                                          {O::kColumn, k_n_},
                                                                          {O::kDiv}}}));
  return stats;
}

// Σ a·v / Σ a over the accepted items (accepted), or (Σ v − Σ a·v) / (n − Σ a) over the escalated ones.
int32_t CascadePlanBuilder::add_part_ratio(const std::string& name, const CascadePolicy& policy, int64_t count,
                                           int32_t k_value, int32_t k_accepted_value, int32_t k_accepted,
                                           bool accepted) {
  if (accepted) return add(label(name, policy.threshold, count), ratio_program(k_accepted_value, k_accepted));
  return add(label(name, policy.threshold, count), {{O::kColumn, k_value},
                                                    {O::kColumn, k_accepted_value},
                                                    {O::kSub},
                                                    {O::kColumn, k_n_},
                                                    {O::kColumn, k_accepted},
                                                    {O::kSub},
                                                    {O::kDiv}});
}

// JEV §7.1: both judges' accuracy and their agreement on the items the policy accepts and on those it
// escalates; with a compared run (JEV Table 36), the share of the common items both runs gate alike.
void CascadePlanBuilder::add_split(const CascadePolicy& policy, PolicyStatistics& stats, bool compared) {
  const std::string tag = "policy " + policy.threshold.value_or("per stratum") + "/split/";
  auto a = [&](int32_t i) { return policy.accepted[i] ? 1.0 : 0.0; };
  int64_t accepted = 0, escalated = 0;
  for (int32_t i : units_)
    if (in_scope_(i)) (policy.accepted[i] ? accepted : escalated) += 1;
  const int32_t k_a = column(tag + "accepted", a);
  const int32_t k_ac1 = column(tag + "accepted_c1", [&](int32_t i) { return a(i) * pool_.c1[i]; });
  const int32_t k_ac2 = column(tag + "accepted_c2", [&](int32_t i) { return a(i) * pool_.c2[i]; });
  const int32_t k_ag =
      column(tag + "accepted_agree", [&](int32_t i) { return a(i) * (1.0 - std::fabs(pool_.c1[i] - pool_.c2[i])); });
  for (const bool part : {true, false}) {
    const int64_t count = part ? accepted : escalated;
    if (count == 0) continue;
    const std::string where = part ? "accepted" : "escalated";
    (part ? stats.accepted_first_acc : stats.escalated_first_acc) =
        add_part_ratio(where + "_first_acc", policy, count, k_c1_, k_ac1, k_a, part);
    (part ? stats.accepted_fallback_acc : stats.escalated_fallback_acc) =
        add_part_ratio(where + "_fallback_acc", policy, count, k_c2_, k_ac2, k_a, part);
    (part ? stats.accepted_agree : stats.escalated_agree) =
        add_part_ratio(where + "_agree", policy, count, k_agree_, k_ag, k_a, part);
  }
  if (!compared || !options_.compare_accepted) return;
  const std::vector<int8_t>& there = *options_.compare_accepted;
  int64_t common = 0;
  for (int32_t i : units_) common += in_scope_(i) && there[i] >= 0;
  if (common == 0) return;
  const int32_t k_common = column(tag + "compared", [&](int32_t i) { return there[i] >= 0 ? 1.0 : 0.0; });
  const int32_t k_alike = column(
      tag + "gated_alike", [&](int32_t i) { return there[i] >= 0 && there[i] == policy.accepted[i] ? 1.0 : 0.0; });
  stats.gate_agreement = add(label("gate_agreement", policy.threshold, common), ratio_program(k_alike, k_common));
}

}  // namespace

CascadePlan build_cascade_plan(const CascadePool& pool, const PoolClusters& clusters,
                               const std::vector<CascadePolicy>& policies, const CascadePlanOptions& options) {
  CascadePlan out;
  Plan& plan = out.plan;
  if (clusters.stratum_offset.empty()) {
    plan.stratum_offset = {0, clusters.size()};
    plan.stratum_names = {"all"};
  } else {
    plan.stratum_offset = clusters.stratum_offset;
    plan.stratum_names = clusters.stratum_names;
  }
  plan.cluster_names = clusters.names;
  std::vector<int32_t> units;  // pool items in the plan
  for (int32_t i = 0; i < pool.size(); ++i)
    if (clusters.item_cluster[i] >= 0) {
      units.push_back(i);
      plan.unit_cluster.push_back(clusters.item_cluster[i]);
    }
  if (units.empty()) throw std::logic_error("cascade plan: no items");
  out.fees = fee_scale(pool);
  CascadePlanBuilder builder(pool, policies, options, out, units);
  out.scopes.push_back(builder.add_scope(std::nullopt, [](int32_t) { return true; }));
  if (options.groups) {
    const PoolGroups& groups = *options.groups;
    for (int32_t g = 0; g < groups.size(); ++g) {
      CascadeScope scope = builder.add_scope(groups.names[g], [&](int32_t i) { return groups.item_group[i] == g; });
      if (scope.items > 0) out.scopes.push_back(std::move(scope));
    }
  }
  return out;
}

void summarise_scope(const CascadePool& pool, const std::vector<CascadePolicy>& policies,
                     const std::vector<uint8_t>& in_set, const PoolGroups* groups, bool fees, CascadeScope& scope) {
  std::vector<uint8_t> mine(pool.size());
  int32_t group = -1;
  if (scope.group && groups)
    group = static_cast<int32_t>(std::find(groups->names.begin(), groups->names.end(), *scope.group) -
                                 groups->names.begin());
  double fee_first = 0, fee_fallback = 0;
  for (int32_t i = 0; i < pool.size(); ++i) {
    mine[i] = (in_set.empty() || in_set[i]) && (group < 0 || groups->item_group[i] == group);
    if (mine[i]) fee_first += pool.fee_first[i], fee_fallback += pool.fee_fallback[i];
  }
  scope.latencies.clear();
  scope.accepted_latencies.clear();
  scope.escalated_latencies.clear();
  for (const auto& policy : policies) {
    scope.latencies.push_back(cascade_latency(pool, policy.accepted, mine));
    std::vector<uint8_t> accepted_here(pool.size()), escalated_here(pool.size());
    for (int32_t i = 0; i < pool.size(); ++i)
      accepted_here[i] = mine[i] && policy.accepted[i], escalated_here[i] = mine[i] && !policy.accepted[i];
    scope.accepted_latencies.push_back(cascade_latency(pool, policy.accepted, accepted_here));
    scope.escalated_latencies.push_back(cascade_latency(pool, policy.accepted, escalated_here));
  }
  const std::vector<uint8_t> none_escalated(pool.size(), 1);  // "accepted everywhere": F's latency alone
  scope.first_latency = cascade_latency(pool, none_escalated, mine);
  scope.fallback_latency = fallback_latency(pool, mine);
  scope.first_alone = mean_where(pool.c1, mine);
  scope.fallback_alone = mean_where(pool.c2, mine);
  scope.first_fee_ratio = fees && fee_fallback > 0 ? fee_first / fee_fallback : NAN;
}

namespace {

LatencySummary summarise(std::vector<double> values) {
  LatencySummary out;
  if (values.empty()) return {NAN, NAN, NAN};
  std::sort(values.begin(), values.end());
  out.p50 = quantile_type7(values, 0.5);
  out.p95 = quantile_type7(values, 0.95);
  out.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return out;
}

}  // namespace

LatencySummary cascade_latency(const CascadePool& pool, const std::vector<uint8_t>& accepted,
                               const std::vector<uint8_t>& in_set) {
  std::vector<double> values;
  for (int32_t i = 0; i < pool.size(); ++i)
    if (in_set.empty() || in_set[i])
      values.push_back(pool.latency_first[i] + (accepted[i] ? 0.0 : pool.latency_fallback[i]));
  return summarise(std::move(values));
}

LatencySummary fallback_latency(const CascadePool& pool, const std::vector<uint8_t>& in_set) {
  std::vector<double> values;
  for (int32_t i = 0; i < pool.size(); ++i)
    if (in_set.empty() || in_set[i]) values.push_back(pool.latency_fallback[i]);
  return summarise(std::move(values));
}

std::vector<SelectionTrial> selection_trials(const CascadePool& pool, const ThresholdGrid& grid,
                                             const std::vector<uint8_t>& in_set, const RuleSettings& settings) {
  std::vector<SelectionTrial> trials(grid.size());
  RuleSettings point = settings, lower = settings;
  point.rule = ThresholdRule::kPoint;
  lower.rule = ThresholdRule::kLower;
  for (int32_t g = 0; g < grid.size(); ++g) {
    SelectionTrial& t = trials[g];
    for (int32_t i = 0; i < pool.size(); ++i) {
      if (!in_set[i]) continue;
      ++t.n;
      if (!(pool.gate_ok[i] && pool.q[i] >= grid.values[g])) continue;  // escalated: d = 0
      ++t.accepted;
      const int64_t twice_d = std::llround(2.0 * pool.c1[i]) - std::llround(2.0 * pool.c2[i]);
      t.sum_2d += twice_d;
      t.sum_4d2 += twice_d * twice_d;
    }
    if (t.n >= rule_min_labels(ThresholdRule::kPoint)) t.mean_delta = rule_mean_delta(t.sum_2d, t.n);
    if (t.n >= rule_min_labels(ThresholdRule::kLower))
      t.lower_bound = rule_lower_bound(settings.z, t.sum_2d, t.sum_4d2, t.n);
    t.point_passes = rule_passes(point, t.sum_2d, t.sum_4d2, t.n);
    t.lower_passes = rule_passes(lower, t.sum_2d, t.sum_4d2, t.n);
  }
  return trials;
}

int32_t choose_from_trials(const std::vector<SelectionTrial>& trials, const RuleSettings& settings) {
  const int32_t n_grid = static_cast<int32_t>(trials.size());
  std::vector<int64_t> sum_2d(n_grid), sum_4d2(n_grid), accepted(n_grid);
  for (int32_t g = 0; g < n_grid; ++g) {
    sum_2d[g] = trials[g].sum_2d;
    sum_4d2[g] = trials[g].sum_4d2;
    accepted[g] = trials[g].accepted;
  }
  const int64_t n = trials.empty() ? 0 : trials.front().n;
  return choose_threshold(settings, n_grid, sum_2d.data(), sum_4d2.data(), accepted.data(), n);
}

RuleChoice choose_rule(const CascadePool& pool, const ThresholdGrid& grid, const std::vector<uint8_t>& selection,
                       const RuleSettings& settings, bool per_stratum) {
  RuleChoice choice;
  choice.rule = settings.rule;
  choice.per_stratum = per_stratum;
  const int32_t strata = per_stratum ? pool.n_strata() : 1;
  for (int32_t h = 0; h < strata; ++h) {
    std::vector<uint8_t> in_set(pool.size(), 0);
    int64_t labelled = 0;
    for (int32_t i = 0; i < pool.size(); ++i) {
      in_set[i] = selection[i] && (!per_stratum || pool.stratum[i] == h);
      labelled += in_set[i];
    }
    choice.trials.push_back(selection_trials(pool, grid, in_set, settings));
    choice.chosen.push_back(choose_from_trials(choice.trials.back(), settings));
    choice.labelled.push_back(labelled);
  }
  return choice;
}

CascadePolicy rule_policy(const CascadePool& pool, const ThresholdGrid& grid, const RuleChoice& choice) {
  CascadePolicy policy;
  if (!choice.per_stratum) policy.threshold = grid.label(choice.chosen.front());
  policy.accepted.assign(pool.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i) {
    const int32_t chosen = choice.chosen[choice.per_stratum ? pool.stratum[i] : 0];
    policy.accepted[i] = chosen < grid.size() && pool.gate_ok[i] && pool.q[i] >= grid.values[chosen];
  }
  return policy;
}

namespace {

CalibrationSummary summary_of(const CalibrationScores& s) { return {s.n, s.nll, s.brier, s.ece}; }

TemperatureGroupResult group_result(const TemperatureGroup& g) {
  return {g.name,
          g.temperature,
          g.pooled_fallback,
          summary_of(g.fit_before),
          summary_of(g.fit_after),
          summary_of(g.heldout_before),
          summary_of(g.heldout_after)};
}

}  // namespace

TemperatureResult temperature_scaling(const ItemMatrix& m, const CascadePool& pool,
                                      const std::vector<uint8_t>& selection, bool per_benchmark) {
  const int32_t L = pool.n_labels;
  std::vector<double> fit_rows, test_rows;
  std::vector<int32_t> fit_gold, test_gold;
  for (int32_t i = 0; i < pool.size(); ++i) {
    if (!(pool.q[i] > 0)) continue;  // no valid first-stage output
    const double* row = pool.probs.data() + static_cast<size_t>(i) * L;
    auto& rows = selection[i] ? fit_rows : test_rows;
    (selection[i] ? fit_gold : test_gold).push_back(m.gold[pool.item[i]]);
    rows.insert(rows.end(), row, row + L);
  }
  auto nll_as_given = [&](const std::vector<double>& rows, const std::vector<int32_t>& gold) {
    if (gold.empty()) return static_cast<double>(NAN);
    double total = 0;
    for (size_t r = 0; r < gold.size(); ++r) total += score_probabilities(rows.data() + r * L, L, gold[r]).nll;
    return total / static_cast<double>(gold.size());
  };
  TemperatureResult out;
  out.selection_items = static_cast<int64_t>(fit_gold.size());
  out.heldout_items = static_cast<int64_t>(test_gold.size());
  out.temperature = fit_temperature(fit_rows, L, fit_gold);
  out.selection_nll_before = nll_as_given(fit_rows, fit_gold);
  out.heldout_nll_before = nll_as_given(test_rows, test_gold);
  if (!fit_gold.empty()) out.selection_nll_after = mean_nll_at_temperature(fit_rows, L, fit_gold, out.temperature);
  if (!test_gold.empty()) out.heldout_nll_after = mean_nll_at_temperature(test_rows, L, test_gold, out.temperature);
  const TemperatureScaling scaling =
      temperature_scaling_by_group(cascade_probability_rows(m, pool, selection), per_benchmark);
  out.per_benchmark = per_benchmark;
  out.all = group_result(scaling.all);
  for (const TemperatureGroup& g : scaling.groups) out.groups.push_back(group_result(g));
  return out;
}

CascadeSelective add_cascade_selective(const CascadePool& pool, Plan& plan, const PoolGroups* groups, int32_t group,
                                       bool tenths) {
  if (plan.n_units() != pool.size()) throw std::logic_error("cascade selective: plan units are not the pool items");
  SelectiveUnits units;
  units.q = pool.q;
  units.first_correct = pool.c1;
  units.fallback_correct = pool.c2;
  for (int32_t i = 0; i < pool.size(); ++i)
    units.mask.push_back(pool.q[i] > 0 && (group < 0 || groups->item_group[i] == group) ? 1.0 : 0.0);
  SelectiveLabels labels;
  labels.base.judge = pool.first;
  labels.base.reference = pool.fallback;
  labels.tag = "cascade_first";
  CascadeSelective out;
  if (group >= 0) {
    out.group = groups->names[group];
    (groups->key == "condition" ? labels.base.condition : labels.base.benchmark) = out.group;
    labels.tag += "/group " + *out.group;
  }
  RiskCoverageOptions options;
  options.curve = group < 0;
  const RiskCoverageStatistics rc = add_risk_coverage(units, labels, plan, options);
  out.n = rc.n;
  out.curve = rc.curve;
  out.curve_thresholds = rc.thresholds;
  if (options.curve)
    for (double t : rc.thresholds) {
      int64_t covered = 0;
      for (int32_t i = 0; i < pool.size(); ++i) covered += units.mask[i] != 0 && pool.q[i] >= t;
      out.curve_coverage.push_back(static_cast<double>(covered) / static_cast<double>(rc.n));
    }
  out.aurc = rc.aurc;
  out.aurc_tie_averaged = rc.aurc_tie_averaged;
  for (const SelectiveAtCoverage& a : rc.at)
    out.at.push_back({a.target, a.threshold, a.covered, a.accuracy, a.coverage});
  if (rc.n == 0 || !tenths) return out;
  for (const ConfidenceBinRows& b : add_confidence_bin_accuracy(units, labels, plan))
    out.bins.push_back({b.bin, b.n, b.mean_q, b.first, b.fallback});
  return out;
}

}  // namespace judgestat
