#include "analyses/cascade.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "analyses/probability.hpp"
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
  return out;
}

std::vector<uint8_t> split_selection(const PoolClusters& clusters, const CascadePool& pool, double fraction,
                                     uint64_t seed) {
  if (!(fraction >= 0.0 && fraction < 1.0))
    throw std::invalid_argument("select: expected a fraction in [0, 1) of the clusters for the selection part");
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

// Programs concatenated: postfix pieces of one statistic's program.
std::vector<Op> join(std::initializer_list<std::vector<Op>> parts) {
  std::vector<Op> ops;
  for (const auto& part : parts) ops.insert(ops.end(), part.begin(), part.end());
  return ops;
}

}  // namespace

CascadePlan build_cascade_plan(const CascadePool& pool, const PoolClusters& clusters,
                               const std::vector<CascadePolicy>& policies, const CascadePlanOptions& options) {
  CascadePlan out;
  Plan& plan = out.plan;
  plan.stratum_offset = {0, clusters.size()};
  plan.stratum_names = {"all"};
  plan.cluster_names = clusters.names;
  std::vector<int32_t> units;  // pool items in the plan
  for (int32_t i = 0; i < pool.size(); ++i)
    if (clusters.item_cluster[i] >= 0) {
      units.push_back(i);
      plan.unit_cluster.push_back(clusters.item_cluster[i]);
    }
  if (units.empty()) throw std::logic_error("cascade plan: no items");
  out.fees = fee_scale(pool);

  auto column = [&](const std::string& name, auto value_of) {
    const int32_t k = plan.add_column(name);
    for (size_t u = 0; u < units.size(); ++u) plan.columns[k][u] = value_of(units[u]);
    return k;
  };
  const int32_t k_n = column("n", [](int32_t) { return 1.0; });
  const int32_t k_c1 = column("c1", [&](int32_t i) { return pool.c1[i]; });
  const int32_t k_c2 = column("c2", [&](int32_t i) { return pool.c2[i]; });
  const int32_t k_err = column("first_errors", [&](int32_t i) { return pool.c1[i] < 1.0 ? 1.0 : 0.0; });
  using O = OpCode;
  // Σ of a fee over the units as ops. A per-call fee (the same on every item, as --fee gives)
  // needs no column of its own: Σ fee = c·n (and below Σ a·fee_S = c·Σ a). Fewer columns,
  // faster replicates, the same values.
  auto uniform_fee = [&](const std::vector<double>& fees) -> std::optional<double> {
    const double first_value = fee_in_units(fees[units.front()], out.fees);
    for (int32_t i : units)
      if (fee_in_units(fees[i], out.fees) != first_value) return std::nullopt;
    return first_value;
  };
  auto fee_sum = [&](const std::string& name, const std::vector<double>& fees,
                     const std::optional<double>& per_call) -> std::vector<Op> {
    if (!options.fees) return {};
    if (per_call) return {{O::kColumn, k_n}, {O::kConstant, 0, *per_call}, {O::kMul}};
    return {{O::kColumn, column(name, [&](int32_t i) { return fee_in_units(fees[i], out.fees); })}};
  };
  const std::optional<double> per_call_first = uniform_fee(pool.fee_first),
                              per_call_fallback = uniform_fee(pool.fee_fallback);
  const std::vector<Op> first_fee = fee_sum("fee_first", pool.fee_first, per_call_first);
  const std::vector<Op> fallback_fee = fee_sum("fee_fallback", pool.fee_fallback, per_call_fallback);
  const int64_t n = static_cast<int64_t>(units.size());
  int64_t first_errors = 0;
  for (int32_t i : units) first_errors += pool.c1[i] < 1.0;

  auto label = [&](const std::string& name, const std::optional<std::string>& threshold, int64_t count) {
    StatLabel l;
    l.name = name;
    l.judge = pool.first;
    l.reference = pool.fallback;
    l.threshold = threshold;
    l.n = count;
    return l;
  };
  auto add = [&](StatLabel l, std::vector<Op> program) {
    plan.statistics.push_back({std::move(l), std::move(program)});
    return static_cast<int32_t>(plan.statistics.size()) - 1;
  };
  for (const CascadePolicy& policy : policies) {
    const std::string tag = "policy " + policy.threshold.value_or("per stratum") + "/";
    auto a = [&](int32_t i) { return policy.accepted[i] ? 1.0 : 0.0; };
    const int32_t k_a = column(tag + "accepted", a);
    const int32_t k_ad = column(tag + "accepted_delta", [&](int32_t i) { return a(i) * (pool.c1[i] - pool.c2[i]); });
    const int32_t k_aerr = column(tag + "accepted_errors", [&](int32_t i) { return a(i) * (pool.c1[i] < 1.0); });
    PolicyStatistics stats;
    stats.cascade_acc = add(label("cascade_acc", policy.threshold, n),
                            {{O::kColumn, k_c2}, {O::kColumn, k_ad}, {O::kAdd}, {O::kColumn, k_n}, {O::kDiv}});
    stats.cascade_delta = add(label("cascade_delta", policy.threshold, n), ratio_program(k_ad, k_n));
    stats.escalated = add(label("escalated", policy.threshold, n),
                          {{O::kColumn, k_n}, {O::kColumn, k_a}, {O::kSub}, {O::kColumn, k_n}, {O::kDiv}});
    if (first_errors > 0)
      stats.errors_escalated =
          add(label("errors_escalated", policy.threshold, first_errors),
              {{O::kColumn, k_err}, {O::kColumn, k_aerr}, {O::kSub}, {O::kColumn, k_err}, {O::kDiv}});
    if (options.fees) {
      // Σ a·fee_S: the fallback fee the accepted items save.
      std::vector<Op> accepted_fallback_fee;
      if (per_call_fallback) {
        accepted_fallback_fee = {{O::kColumn, k_a}, {O::kConstant, 0, *per_call_fallback}, {O::kMul}};
      } else {
        accepted_fallback_fee = {{O::kColumn, column(tag + "accepted_fee_fallback", [&](int32_t i) {
                                    return a(i) * fee_in_units(pool.fee_fallback[i], out.fees);
                                  })}};
      }
      // Σ fee_S − Σ a·fee_S: the fallback fee of the escalated items.
      const std::vector<Op> escalated_fee = join({fallback_fee, accepted_fallback_fee, {{O::kSub}}});
      stats.fee_ratio = add(label("fee_ratio", policy.threshold, n),
                            join({first_fee, escalated_fee, {{O::kAdd}}, fallback_fee, {{O::kDiv}}}));
      // p = escalated fallback fee / all fallback fee; expected accuracy c1 + p·(c2 − c1).
      stats.random_acc = add(label("random_acc", policy.threshold, n), join({escalated_fee,
                                                                             fallback_fee,
                                                                             {{O::kDiv}},
                                                                             {{O::kColumn, k_c2},
                                                                              {O::kColumn, k_c1},
                                                                              {O::kSub},
                                                                              {O::kMul},
                                                                              {O::kColumn, k_c1},
                                                                              {O::kAdd},
                                                                              {O::kColumn, k_n},
                                                                              {O::kDiv}}}));
    }
    out.policies.push_back(stats);
  }
  if (options.oracle) {
    const int32_t k_best = column("oracle", [&](int32_t i) { return std::max(pool.c1[i], pool.c2[i]); });
    out.oracle_acc = add(label("oracle_acc", std::nullopt, n), ratio_program(k_best, k_n));
  }
  return out;
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

TemperatureResult temperature_scaling(const ItemMatrix& m, const CascadePool& pool,
                                      const std::vector<uint8_t>& selection) {
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
  return out;
}

// ---- run_cascade: pool → sweep → split → rules → held-out → temperature ----

namespace {

double mean_of(const std::vector<double>& values, const std::vector<uint8_t>& in_set) {
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (in_set.empty() || in_set[i]) sum += values[i], ++n;
  return n ? sum / static_cast<double>(n) : NAN;
}

double sum_of(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

std::string fixed3(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

}  // namespace

void check_cascade_options(const CascadeOptions& o) {
  if (o.grid.size() == 0) throw std::invalid_argument("grid: give at least one threshold");
  if (o.first == o.fallback)
    throw std::invalid_argument("fallback: the same judge as the first stage, '" + o.first + "'");
  if (!(std::isfinite(o.tol) && o.tol >= 0)) throw std::invalid_argument("tol: expected a number >= 0");
  if (!(std::isfinite(o.z) && o.z >= 0)) throw std::invalid_argument("z: expected a number >= 0");
  if (!(o.select >= 0.0 && o.select < 1.0))
    throw std::invalid_argument("select: expected a fraction in [0, 1) of the clusters (0 = sweep only, no rules)");
  if (o.strata != "benchmark" && o.strata != "condition")
    throw std::invalid_argument("strata: expected benchmark or condition, got '" + o.strata + "'");
}

namespace {

// Where one judge's fees (or latencies) come from: the per-call option, the file, or nowhere.
ValueSource value_source(const ItemMatrix& m, const CascadePool& pool, const std::vector<double>& column,
                         const std::map<std::string, double>& overrides, const std::string& judge, int orders,
                         const char* option) {
  ValueSource source;
  if (overrides.count(judge)) {
    source.from = std::string("--") + option;  // the JSON's name of the per-call override
    return source;
  }
  const int32_t j = m.judge_index(judge);
  int64_t given = 0;
  for (int32_t i = 0; i < pool.size(); ++i)
    for (int o = 0; o < orders; ++o) {
      const size_t cell = m.cell(j, pool.item[i], o, pool.variant);
      if (!m.present(cell)) continue;
      const bool has = cell < column.size() && !std::isnan(column[cell]);
      given += has;
      source.missing += !has;
    }
  if (given > 0) source.from = "file";
  return source;
}

// Step 1: the pool's fee and latency sources, which of them the report can use, and the notes
// saying what is left out.
void describe_values(const ItemMatrix& m, const CascadePool& pool, const CascadeOptions& o, CascadeReport& r) {
  const ValueSource not_given;
  r.fee_first = value_source(m, pool, m.fee, o.fee, o.first, pool.first_orders, "fee");
  r.fee_fallback = value_source(m, pool, m.fee, o.fee, o.fallback, 1, "fee");
  r.latency_first = value_source(m, pool, m.latency, o.latency, o.first, pool.first_orders, "latency");
  r.latency_fallback = value_source(m, pool, m.latency, o.latency, o.fallback, 1, "latency");
  for (int32_t i = 0; i < pool.size(); ++i)
    if (!(pool.fee_first[i] >= 0 && pool.fee_fallback[i] >= 0 &&
          std::isfinite(pool.fee_first[i] + pool.fee_fallback[i])))
      throw UsageError("fees must be finite and non-negative; item '" + m.items[pool.item[i]] + "' has another");
  const bool first_fee = r.fee_first.from != not_given.from, fallback_fee = r.fee_fallback.from != not_given.from;
  r.fees = first_fee && fallback_fee && sum_of(pool.fee_fallback) > 0;
  r.latency = r.latency_first.from != not_given.from && r.latency_fallback.from != not_given.from;
  if (!r.fees) {
    if (!first_fee || !fallback_fee)
      r.notes.push_back("fees not given for " + std::string(!first_fee ? o.first : "") +
                        (!first_fee && !fallback_fee ? " and " : "") + (!fallback_fee ? o.fallback : "") +
                        ": fee_ratio and random_acc are left out; give --fee JUDGE=USD per call (0 for a local model)");
    else
      r.notes.push_back("the fallback's fees sum to 0: fee_ratio and random_acc are left out");
  }
  if (!r.latency) r.notes.push_back("latencies not given: give --latency JUDGE=SECONDS per call for latency quantiles");
  for (const auto& [source, judge, what] :
       {std::make_tuple(r.fee_first, o.first, "fee"), std::make_tuple(r.fee_fallback, o.fallback, "fee"),
        std::make_tuple(r.latency_first, o.first, "latency"),
        std::make_tuple(r.latency_fallback, o.fallback, "latency")})
    if (source.from == "file" && source.missing > 0)
      r.notes.push_back(std::to_string(source.missing) + " calls of " + judge + " have no " + what +
                        " in the file and count 0");
}

// Step 2: the point summaries of the sweep (accuracies, fee ratio and latencies on the data).
void summarise_sweep(const CascadePool& pool, const std::vector<CascadePolicy>& policies, bool fees,
                     CascadeSweep& sweep) {
  for (const auto& policy : policies) sweep.latencies.push_back(cascade_latency(pool, policy.accepted));
  const std::vector<uint8_t> none_escalated(pool.size(), 1);  // "accepted everywhere": F's latency alone
  sweep.first_latency = cascade_latency(pool, none_escalated);
  sweep.fallback_latency = fallback_latency(pool);
  sweep.first_alone = mean_of(pool.c1, {});
  sweep.fallback_alone = mean_of(pool.c2, {});
  sweep.first_fee_ratio = fees ? sum_of(pool.fee_first) / sum_of(pool.fee_fallback) : NAN;
}

// Step 3: the selection / held-out split and the rules chosen on the selection part; returns
// the held-out plan of the rules' policies (rules.heldout is filled by the bootstrap later).
CascadePlan choose_rules(const ItemMatrix& m, const CascadePool& pool, const PoolClusters& clusters,
                         const CascadeOptions& o, bool fees, CascadeRules& rules) {
  const std::vector<uint8_t> selection = split_selection(clusters, pool, o.select, o.bootstrap.seed);
  std::vector<uint8_t> heldout(pool.size()), seen(clusters.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i) {
    heldout[i] = !selection[i];
    rules.selection_items += selection[i];
    rules.heldout_items += heldout[i];
    if (selection[i] && !seen[clusters.item_cluster[i]]) seen[clusters.item_cluster[i]] = 1, ++rules.selection_clusters;
  }
  if (rules.selection_items == 0)
    throw std::invalid_argument("select: " + fixed3(o.select) + " puts no cluster into the selection part (" +
                                std::to_string(clusters.size()) +
                                " clusters); raise it, or set it to 0 for the sweep only");
  if (rules.heldout_items == 0)
    throw std::invalid_argument("select: " + fixed3(o.select) + " leaves no held-out clusters; lower it");
  std::vector<CascadePolicy> policies;
  for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
    RuleSettings settings;
    settings.rule = rule;
    settings.tol = o.tol;
    settings.z = o.z;
    rules.choices.push_back(choose_rule(pool, o.grid, selection, settings, o.per_stratum));
    policies.push_back(rule_policy(pool, o.grid, rules.choices.back()));
  }
  const PoolClusters heldout_clusters = number_pool_clusters(m, pool, heldout);
  rules.heldout_clusters = heldout_clusters.size();
  CascadePlan plan = build_cascade_plan(pool, heldout_clusters, policies, {fees, false});
  for (size_t r = 0; r < policies.size(); ++r)
    rules.rules.push_back({plan.policies[r], cascade_latency(pool, policies[r].accepted, heldout)});
  rules.first_alone = mean_of(pool.c1, heldout);
  rules.fallback_alone = mean_of(pool.c2, heldout);
  rules.fallback_latency = fallback_latency(pool, heldout);
  rules.temperature = temperature_scaling(m, pool, selection);
  return plan;
}

}  // namespace

CascadeReport run_cascade(const ItemMatrix& matrix, const CascadeOptions& options, const ExecTarget& target) {
  check_cascade_options(options);
  CascadeReport report;
  report.options = options;
  report.options.progress = nullptr;
  report.options.bootstrap.progress = nullptr;
  matrix.judge_index(options.first);
  matrix.judge_index(options.fallback);
  const CascadePool pool = build_cascade_pool(matrix, options.first, options.fallback, options.gate_orders,
                                              options.strata, options.fee, options.latency);
  report.items = pool.size();
  report.first_orders = pool.first_orders;
  report.strata_names = pool.strata_names;
  for (uint8_t ok : pool.gate_ok) report.gate_ok += ok;
  describe_values(matrix, pool, options, report);

  const PoolClusters clusters = number_pool_clusters(matrix, pool);
  report.clusters = clusters.size();
  const std::vector<CascadePolicy> policies = sweep_policies(pool, options.grid);
  const CascadePlan sweep = build_cascade_plan(pool, clusters, policies, {report.fees, true});
  report.fee_scale = sweep.fees;
  report.sweep.policies = sweep.policies;
  report.sweep.oracle_acc = sweep.oracle_acc;
  CascadePlan heldout_plan;
  if (options.select > 0) {
    report.rules.emplace();
    heldout_plan = choose_rules(matrix, pool, clusters, options, report.fees, *report.rules);
  }

  // Resampling: the sweep, then the rules' policies on the held-out part.
  auto backend = make_backend(target);
  BootstrapOptions boot = options.bootstrap;
  const uint64_t replicates = boot.replicates, total = replicates * (report.rules ? 2 : 1);
  const auto& progress = options.progress;
  boot.progress = [&](uint64_t done, uint64_t) {
    if (progress) progress(done, total);
  };
  report.sweep.result = run_bootstrap(sweep.plan, *backend, boot);
  if (report.rules) {
    boot.keep_replicates = false;
    boot.progress = [&](uint64_t done, uint64_t) {
      if (progress) progress(replicates + done, total);
    };
    report.rules->heldout = run_bootstrap(heldout_plan.plan, *backend, boot);
  }

  summarise_sweep(pool, policies, report.fees, report.sweep);
  for (int32_t i = 0; i < pool.size(); ++i)
    if (pool.q[i] > 0) report.gate_q.push_back(pool.q[i]), report.gate_correct.push_back(pool.c1[i]);
  return report;
}

}  // namespace judgestat
