// run_cascade (docs/statistics.md §3.3, §3.4, §7.5): pool → sweep → selection part and rules →
// held-out scores → frozen threshold, each resampled by its own clustered bootstrap (the same
// seed and B), every statistic pooled and, with `by`, per group.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/common/judge_validity.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "records/memory.hpp"

namespace judgestat {
namespace {

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
  if (!(o.select >= 0.0 && o.select <= 1.0))
    throw std::invalid_argument(
        "select: expected a fraction in [0, 1] of the clusters (0 = sweep only, no rules; 1 = every item chooses τ)");
  if (!o.select_column.empty() && !o.select_items.empty())
    throw std::invalid_argument("select_column: give the labelled items by a column or by a list of items, not both");
  if (o.strata != "benchmark" && o.strata != "condition")
    throw std::invalid_argument("strata: expected benchmark or condition, got '" + o.strata + "'");
  if (!o.by.empty() && o.by != "benchmark" && o.by != "condition")
    throw std::invalid_argument("by: expected benchmark or condition, got '" + o.by + "'");
  if (o.gate_orders != kGatePresentOrders && o.gate_orders != 1 && o.gate_orders != 2)
    throw std::invalid_argument("gate_orders: expected present (the orders each item has), 1 or 2, got " +
                                std::to_string(o.gate_orders));
  if (o.other_gate_orders != 0 && o.other_gate_orders != 1 && o.other_gate_orders != 2)
    throw std::invalid_argument(
        "other_gate_orders: expected 1 (order 0) or 2 (every order), the gate to compare with; got " +
        std::to_string(o.other_gate_orders));
  if (o.other_gate_orders != 0 && o.other_gate_orders == o.gate_orders)
    throw std::invalid_argument("other_gate_orders: " + std::to_string(o.other_gate_orders) +
                                " is the run's own gate (--gate-orders); compare with the other one");
  if (o.temperature != "pooled" && o.temperature != "per-benchmark")
    throw std::invalid_argument("temperature: expected pooled or per-benchmark, got '" + o.temperature + "'");
  if (o.tau && o.tau->empty()) throw std::invalid_argument("tau: give a threshold, e.g. 0.9 or mmlu=0.9");
  for (size_t e = 0; e < o.bin_edges.size(); ++e)
    if (!(o.bin_edges[e] > 0.0 && o.bin_edges[e] <= 1.0) || (e > 0 && !(o.bin_edges[e] > o.bin_edges[e - 1])))
      throw std::invalid_argument("bin_edges: expected ascending edges in (0, 1], e.g. 0.6,0.9,1 (or bins paper)");
  if ((!o.compare_gate.empty() || !o.compare_gate_items.empty()) && !o.tau)
    throw std::invalid_argument("compare_gate: compares the gate at a frozen threshold; give tau (--tau 0.9)");
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

// The pool's fee and latency sources, which of them the report can use, and the notes saying
// what is left out.
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

// Per matrix item, whether the benchmark filter keeps it (empty: no filter).
std::vector<uint8_t> kept_items(const ItemMatrix& m, const std::vector<std::string>& benchmarks) {
  if (benchmarks.empty()) return {};
  std::vector<uint8_t> benchmark_ok(m.benchmarks.size(), 0);
  for (const std::string& name : benchmarks) {
    const auto it = std::find(m.benchmarks.begin(), m.benchmarks.end(), name);
    if (it == m.benchmarks.end()) {
      std::string known;
      for (const auto& b : m.benchmarks) known += (known.empty() ? "" : ", ") + b;
      throw std::invalid_argument("benchmarks: '" + name + "' does not occur in the data (it has: " + known + ")");
    }
    benchmark_ok[it - m.benchmarks.begin()] = 1;
  }
  std::vector<uint8_t> keep(m.n_items());
  for (int32_t i = 0; i < m.n_items(); ++i) keep[i] = benchmark_ok[m.item_benchmark[i]];
  return keep;
}

// The selection part per pool item from the options (empty when there is none: select = 0 and
// no own set), with its source.
std::vector<uint8_t> selection_part(const ItemMatrix& m, const CascadePool& pool, const PoolClusters& clusters,
                                    const CascadeOptions& o, SelectionSource& source) {
  if (!o.select_column.empty()) {
    source.kind = "column";
    source.column = o.select_column;
    return selection_from_column(m, pool, o.select_column);
  }
  if (!o.select_items.empty()) {
    source.kind = "items";
    source.file = o.select_items;
    return selection_from_items(m, pool, o.select_items, source);
  }
  if (o.select == 0) return {};
  source.kind = "random";
  source.fraction = o.select;
  return split_selection(clusters, pool, o.select, o.bootstrap.seed);
}

// A part's size in items and clusters, and the checks on it; `notes` says what is unusual.
void count_parts(const CascadePool& pool, const PoolClusters& clusters, const std::vector<uint8_t>& selection,
                 const CascadeOptions& o, CascadeRules& rules, std::vector<std::string>& notes) {
  std::vector<uint8_t> seen(clusters.size(), 0);  // bit 0: selection, bit 1: held out
  for (int32_t i = 0; i < pool.size(); ++i) {
    rules.selection_items += selection[i];
    rules.heldout_items += !selection[i];
    seen[clusters.item_cluster[i]] |= selection[i] ? 1 : 2;
  }
  for (uint8_t parts : seen) rules.selection_clusters += (parts & 1) != 0, rules.heldout_clusters += (parts & 2) != 0;
  const SelectionSource& source = rules.source;
  if (rules.selection_items == 0) {
    if (source.kind == "column")
      throw std::invalid_argument("select_column: no analysed item is marked select in column '" + source.column +
                                  "'; mark the labelled items select");
    if (source.kind == "items")
      throw std::invalid_argument("select_items: none of the " + std::to_string(source.listed) + " items listed in " +
                                  source.file + " is an analysed item (" + std::to_string(pool.size()) +
                                  " items); list items the first stage covers");
    throw std::invalid_argument("select: " + fixed3(o.select) + " puts no cluster into the selection part (" +
                                std::to_string(clusters.size()) +
                                " clusters); raise it, or set it to 0 for the sweep only");
  }
  if (rules.heldout_items == 0 && source.kind == "random" && o.select < 1)
    throw std::invalid_argument("select: " + fixed3(o.select) + " leaves no held-out clusters; lower it");
  if (rules.heldout_items == 0)
    notes.push_back(
        "every analysed item is in the selection part: the rules choose τ on all of them and nothing is held out to "
        "score them (score a frozen threshold on new items with --tau)");
  if (source.kind == "items" && source.listed_outside > 0)
    notes.push_back(std::to_string(source.listed_outside) + " of the " + std::to_string(source.listed) +
                    " items listed in " + source.file + " are not analysed (filtered out, or not covered by " +
                    pool.first + ") and are ignored");
  if (source.kind != "random") {
    rules.source.straddling_clusters = straddling_clusters(clusters, selection);
    if (rules.source.straddling_clusters > 0)
      notes.push_back(std::to_string(rules.source.straddling_clusters) +
                      " clusters have items in both the selection and the held-out part, so the held-out scores are "
                      "not independent of the choice; label whole clusters to avoid it");
  }
}

}  // namespace

CascadePlanSize minimum_sweep_size(const CascadePool& pool, const CascadeOptions& options) {
  CascadePlanSize size;
  size.items = pool.size();
  size.policies = options.grid.size() + 1;  // the grid's thresholds, then `all`
  // The pooled scope's n, c1, c2 and first_errors, and per policy accepted, accepted_delta and
  // accepted_errors (CascadePlanBuilder::add_statistics, add_policy).
  size.columns = 4 + 3 * size.policies;
  return size;
}

void check_cascade_fits(const std::vector<const ItemMatrix*>& matrices, const CascadePool& pool,
                        const CascadeOptions& options) {
  const CascadePlanSize size = minimum_sweep_size(pool, options);
  const double items = static_cast<double>(size.items);
  const std::string per_items = " x " + std::to_string(size.items) + " items x 1 byte";
  double held = 0;  // the input's matrix, and its copy of the items with gold when there is one
  for (const ItemMatrix* m : matrices) held += loading::matrix_bytes(*m);
  loading::check_analysis_fits("cascade", held, static_cast<double>(size.columns + size.policies) * items,
                               "at least " + std::to_string(size.policies) + " policies" + per_items + " + " +
                                   std::to_string(size.columns) + " count columns" + per_items,
                               loading::memory_budget());
}

namespace {

/// run_bootstrap on a plan given up: compiled, its columns freed as they are read.
BootstrapResult resample_plan(Plan&& plan, Backend& backend, const BootstrapOptions& options) {
  std::vector<StatLabel> labels;
  for (const StatisticDef& stat : plan.statistics) labels.push_back(stat.label);
  const CompiledPlan compiled = compile(std::move(plan));
  return run_bootstrap(compiled, labels, backend, options);
}

// The rules chosen on the selection part, their policies and the held-out items. The held-out
// plan is built later (resample_cascade), once the sweep's is resampled and freed; rules.heldout is
// filled by its bootstrap.
void choose_rules(const ItemMatrix& m, const CascadePool& pool, const std::vector<uint8_t>& selection,
                  const CascadeOptions& o, CascadeRules& rules, std::vector<uint8_t>& heldout,
                  std::vector<CascadePolicy>& policies) {
  heldout.assign(pool.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i) heldout[i] = !selection[i];
  for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
    RuleSettings settings;
    settings.rule = rule;
    settings.tol = o.tol;
    settings.z = o.z;
    rules.choices.push_back(choose_rule(pool, o.grid, selection, settings, o.per_stratum));
    policies.push_back(rule_policy(pool, o.grid, rules.choices.back()));
  }
  rules.temperature = temperature_scaling(m, pool, selection, o.temperature == "per-benchmark");
}

// The frozen policy (then `all`) and the items it is scored on; its plan is built later
// (resample_cascade), after the plans before it are resampled and freed.
void freeze(const ItemMatrix& m, const CascadePool& pool, const CascadeOptions& o, const std::vector<uint8_t>& heldout,
            CascadeFrozen& frozen, std::vector<CascadePolicy>& policies, std::vector<uint8_t>& scored) {
  frozen.tau = *o.tau;
  policies.push_back(frozen_policy(m, pool, frozen.tau, frozen.applied));
  policies.push_back({std::string("all"), std::vector<uint8_t>(pool.size(), 0)});
  frozen.heldout = std::find(heldout.begin(), heldout.end(), 1) != heldout.end();
  scored = frozen.heldout ? heldout : std::vector<uint8_t>(pool.size(), 1);
}

// The clusters of the items with scored[i] (the held-out part, or the frozen policy's items), numbered from the
// matrix before the resampling so that nothing reads the matrix after it (run_cascade(ItemMatrix&&) frees it).
PoolClusters scored_clusters(const ItemMatrix& m, const CascadePool& pool, const PoolGroups* groups,
                             const std::vector<uint8_t>& scored) {
  return stratify(number_pool_clusters(m, pool, scored), groups);
}

void summarise_scopes(const CascadePool& pool, const std::vector<CascadePolicy>& policies,
                      const std::vector<uint8_t>& in_set, const PoolGroups* groups, bool fees,
                      std::vector<CascadeScope>& scopes) {
  for (CascadeScope& scope : scopes) summarise_scope(pool, policies, in_set, groups, fees, scope);
}

// What the resampling needs, all of it read from the matrix before the first plan is resampled
// (issue 26 part 7: a matrix given up is freed then, and the copy of the items with gold always is).
// `--by`'s groups when asked for, else nullptr (what the plan builders take).
const PoolGroups* groups_or_null(const std::optional<PoolGroups>& groups) { return groups ? &*groups : nullptr; }

struct CascadeWork {
  CascadePool pool;
  std::optional<PoolGroups> groups;
  CascadePlan sweep;
  std::vector<uint8_t> heldout;  // empty when nothing is held out to score the rules on
  std::vector<CascadePolicy> rule_policies, frozen_policies;
  std::vector<uint8_t> frozen_items;
  std::vector<int8_t> compare_accepted;  // --compare-gate: the second run's gate per pool item (−1 absent)
  PoolClusters heldout_clusters, frozen_clusters;
  const PoolGroups* by() const { return groups_or_null(groups); }
  // --other-gate-orders: the other gate's pool, groups and (stratified) clusters; its plan is built
  // once the sweep's is resampled and freed.
  struct OtherGate {
    CascadePool pool;
    std::optional<PoolGroups> groups;
    PoolClusters clusters;
    const PoolGroups* by() const { return groups_or_null(groups); }
  };
  std::optional<OtherGate> other_gate;
};

// --other-gate-orders N: the pool under gate N (the sweep a run with --gate-orders N would resample),
// numbered and grouped as the run's own.
void read_other_gate(const ItemMatrix& matrix, const CascadeOptions& options, CascadeReport& report,
                     CascadeWork& work) {
  const int gate = options.other_gate_orders;
  if (gate == 0) return;
  const std::string flag = "--other-gate-orders " + std::to_string(gate);  // what the notes and errors name
  CascadeWork::OtherGate other;
  try {
    other.pool = build_cascade_pool(matrix, options.first, options.fallback, gate, options.strata, options.fee,
                                    options.latency, kept_items(matrix, options.benchmarks));
  } catch (const UsageError& e) {
    throw UsageError(flag + ": " + e.what());
  }
  const PoolClusters clusters = number_pool_clusters(matrix, other.pool);
  if (!options.by.empty()) other.groups = pool_groups(matrix, other.pool, clusters, options.by);
  other.clusters = stratify(clusters, other.by());
  OtherGateSweep& sweep = report.other_gate.emplace();
  sweep.gate_orders = gate;
  sweep.items = other.pool.size();
  sweep.clusters = clusters.size();
  sweep.first_orders = other.pool.first_orders;
  sweep.fewer_orders = other.pool.fewer_orders;
  for (uint8_t ok : other.pool.gate_ok) sweep.gate_ok += ok;
  if (sweep.items != report.items)  // JEV Fig. 9 compares the gates on the same items: say where they are not
    report.notes.push_back(flag + ": the first stage covers " + std::to_string(sweep.items) +
                           " items under that gate and " + std::to_string(report.items) +
                           " under the run's (gate 1 leaves out items without order 0), so the two sweeps are not on "
                           "the same items; the tables and figures give each gate's count");
  // Gates that read the same orders on every item give the same sweep: one order in the file, or
  // "present" against 2 when no item lacks an order.
  const bool neither_reads_order_0_alone = gate != 1 && options.gate_orders != 1;
  if (sweep.items == report.items &&
      (report.first_orders == 1 || (neither_reads_order_0_alone && report.fewer_orders == 0)))
    report.notes.push_back(flag + ": both gates read the same orders on every item (" +
                           (report.first_orders == 1 ? "the first stage has one order" : "no item lacks an order") +
                           "), so the two sweeps are the same");
  if (other.pool.escalated_for_missing_orders > 0)
    report.notes.push_back(flag + ": " + std::to_string(other.pool.escalated_for_missing_orders) +
                           " items always escalate under that gate only because an order is missing");
  work.other_gate = std::move(other);
}

// The pool, the sweep's plan (its policies are made again for its summaries at the end rather
// than held through the resampling) and the report's facts of the data.
void read_pool_and_sweep(const ItemMatrix& input, const ItemMatrix& matrix, bool gold_copy,
                         const CascadeOptions& options, CascadeReport& report, CascadeWork& work,
                         PoolClusters& clusters) {
  matrix.judge_index(options.first);
  matrix.judge_index(options.fallback);
  work.pool = build_cascade_pool(matrix, options.first, options.fallback, options.gate_orders, options.strata,
                                 options.fee, options.latency, kept_items(matrix, options.benchmarks));
  const CascadePool& pool = work.pool;
  report.items = pool.size();
  report.validity = judge_validity(matrix, {matrix.judge_index(options.first), matrix.judge_index(options.fallback)});
  report.first_orders = pool.first_orders;
  report.fewer_orders = pool.fewer_orders;
  report.escalated_for_missing_orders = pool.escalated_for_missing_orders;
  report.strata_names = pool.strata_names;
  for (uint8_t ok : pool.gate_ok) report.gate_ok += ok;
  describe_values(matrix, pool, options, report);
  if (gold_copy)
    check_cascade_fits({&input, &matrix}, pool, options);
  else
    check_cascade_fits({&input}, pool, options);
  clusters = number_pool_clusters(matrix, pool);
  report.clusters = clusters.size();
  if (!options.by.empty()) {
    work.groups = pool_groups(matrix, pool, clusters, options.by);
    const PoolGroups& groups = *work.groups;
    report.grouping = CascadeGrouping{groups.key, groups.names, groups.domain, groups.note};
    if (groups.domain) report.notes.insert(report.notes.begin(), groups.note);  // docs/statistics.md §2: first
  }
  const PoolGroups* by = work.by();
  work.sweep =
      build_cascade_plan(pool, stratify(clusters, by), sweep_policies(pool, options.grid), {report.fees, true, by});
  report.fee_scale = work.sweep.fees;
  report.sweep.scopes = work.sweep.scopes;
  // --bins: the bins with edges (and the judges' agreement in each) replace the 10 equal ones.
  const std::vector<double>& edges = options.bin_edges;
  report.sweep.selective = add_cascade_selective(pool, work.sweep.plan, nullptr, -1, edges.empty());
  if (!edges.empty() && report.sweep.selective.n > 0)
    report.sweep.selective.bins = add_edge_bins(pool, work.sweep.plan, edges);
  if (by)  // each group's risk–coverage rows after the pooled ones, on the same replicates
    for (int32_t g = 0; g < by->size(); ++g) {
      CascadeSelective group = add_cascade_selective(pool, work.sweep.plan, by, g, edges.empty());
      if (group.n == 0) continue;
      if (!edges.empty()) group.bins = add_edge_bins(pool, work.sweep.plan, edges, by, g);
      report.sweep.group_selective.push_back(std::move(group));
    }
}

// --compare-gate: the second run's gate at the frozen τ per pool item, counted on the scored items.
void compare_gates(const ItemMatrix& m, const CascadeOptions& options, CascadeReport& report, CascadeWork& work) {
  if (options.compare_gate.empty() && options.compare_gate_items.empty()) return;
  if (!report.frozen)
    throw std::invalid_argument("compare_gate: compares the gate at a frozen threshold; give tau (--tau 0.9)");
  GateComparison comparison;
  comparison.file = options.compare_gate;
  const std::vector<double> item_tau = frozen_item_tau(m, work.pool, report.frozen->tau);
  work.compare_accepted = compared_gate(m, work.pool, options.compare_gate_items, item_tau,
                                        work.frozen_policies.front().accepted, work.frozen_items, comparison);
  if (comparison.common == 0)
    report.notes.push_back("compare_gate: no analysed item is in " + options.compare_gate + "; no gate agreement");
  report.frozen->gate_comparison = comparison;
}

// Everything the cascade reads from `input`: the pool and sweep, the selection part, the rules
// and the held-out part, the frozen threshold, and the clusters of the plans built later.
void read_cascade_inputs(const ItemMatrix& input, const CascadeOptions& options, CascadeReport& report,
                         CascadeWork& work) {
  // docs/statistics.md §8.1: the cascade needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "cascade", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  PoolClusters clusters;
  read_pool_and_sweep(input, matrix, gold_only.has_value(), options, report, work, clusters);
  read_other_gate(matrix, options, report, work);
  set_gold_counts(report.validity, items_analysed, without_gold, "");
  const CascadePool& pool = work.pool;
  SelectionSource source;
  const std::vector<uint8_t> selection = selection_part(matrix, pool, clusters, options, source);
  if (!selection.empty()) {
    report.rules.emplace();
    report.rules->source = source;
    count_parts(pool, clusters, selection, options, *report.rules, report.notes);
    choose_rules(matrix, pool, selection, options, *report.rules, work.heldout, work.rule_policies);
  }
  if (!(report.rules && report.rules->heldout_items > 0)) work.heldout.clear();
  if (!work.heldout.empty()) work.heldout_clusters = scored_clusters(matrix, pool, work.by(), work.heldout);
  // A frozen threshold: on the held-out part when there is one, else on every item.
  if (options.tau) {
    report.frozen.emplace();
    freeze(matrix, pool, options, work.heldout, *report.frozen, work.frozen_policies, work.frozen_items);
    work.frozen_clusters = scored_clusters(matrix, pool, work.by(), work.frozen_items);
  }
  compare_gates(matrix, options, report, work);
}

// --other-gate-orders: the other gate's sweep, built as the run's own (the same policies per grid
// threshold, oracle and groups) and resampled with the sweep's bootstrap settings.
void resample_other_gate(const CascadeWork::OtherGate& other, const ThresholdGrid& grid, bool fees, Backend& backend,
                         const BootstrapOptions& boot, OtherGateSweep& out) {
  const std::vector<CascadePolicy> policies = sweep_policies(other.pool, grid);
  CascadePlan plan = build_cascade_plan(other.pool, other.clusters, policies, {fees, true, other.by()});
  out.scopes = plan.scopes;
  out.result = resample_plan(std::move(plan.plan), backend, boot);
  summarise_scopes(other.pool, policies, {}, other.by(), fees, out.scopes);
}

// Resampling: the sweep, the rules' policies on the held-out part, the frozen policy. One plan
// at a time (issue 26 part 7): each is built after the one before it is resampled and freed, and
// given up to compile(), which frees its columns as it compiles them.
void resample_cascade(CascadeWork& work, const CascadeOptions& options, const ExecTarget& target,
                      CascadeReport& report) {
  const CascadePool& pool = work.pool;
  const PoolGroups* by = work.by();
  const bool scored = !work.heldout.empty();
  auto backend = make_backend(target);
  BootstrapOptions boot = options.bootstrap;
  const uint64_t replicates = boot.replicates;
  const uint64_t total = replicates * (1 + (work.other_gate ? 1 : 0) + (scored ? 1 : 0) + (report.frozen ? 1 : 0));
  const auto& progress = options.progress;
  uint64_t before = 0;
  boot.progress = [&](uint64_t done, uint64_t) {
    if (progress) progress(before + done, total);
  };
  report.sweep.result = resample_plan(std::move(work.sweep.plan), *backend, boot);
  work.sweep = {};
  if (work.other_gate) {  // the same bootstrap settings as the sweep's: a --gate-orders N run's sweep rows
    before += replicates;
    resample_other_gate(*work.other_gate, options.grid, report.fees, *backend, boot, *report.other_gate);
    work.other_gate.reset();
  }
  boot.keep_replicates = false;
  const auto resample_scored = [&](const PoolClusters& clusters, const std::vector<uint8_t>& items,
                                   const std::vector<CascadePolicy>& policies, std::vector<CascadeScope>& scopes,
                                   bool split) {
    before += replicates;
    CascadePlanOptions plan_options{report.fees, false, by};
    plan_options.split = split;
    if (split && !work.compare_accepted.empty()) plan_options.compare_accepted = &work.compare_accepted;
    CascadePlan plan = build_cascade_plan(pool, clusters, policies, plan_options);
    BootstrapResult result = resample_plan(std::move(plan.plan), *backend, boot);
    scopes = plan.scopes;
    summarise_scopes(pool, policies, items, by, report.fees, scopes);
    return result;
  };
  if (scored)
    report.rules->heldout =
        resample_scored(work.heldout_clusters, work.heldout, work.rule_policies, report.rules->heldout_scopes, false);
  if (report.frozen)
    report.frozen->result =
        resample_scored(work.frozen_clusters, work.frozen_items, work.frozen_policies, report.frozen->scopes, true);
  summarise_scopes(pool, sweep_policies(pool, options.grid), {}, by, report.fees, report.sweep.scopes);
}

// run_cascade of `input`; `given_up` (the same matrix, or nullptr) is emptied once nothing reads it.
CascadeReport run_cascade_of(const ItemMatrix& input, ItemMatrix* given_up, const CascadeOptions& options,
                             const ExecTarget& target) {
  check_cascade_options(options);
  CascadeReport report;
  report.options = options;  // the settings; the run's bootstrap settings are its results'
  CascadeWork work;
  read_cascade_inputs(input, options, report, work);
  if (given_up) *given_up = ItemMatrix{};  // `input` is not read again
  resample_cascade(work, options, target, report);
  for (int32_t i = 0; i < work.pool.size(); ++i)
    if (work.pool.q[i] > 0) report.gate_q.push_back(work.pool.q[i]), report.gate_correct.push_back(work.pool.c1[i]);
  return report;
}

}  // namespace

CascadeReport run_cascade(const ItemMatrix& input, const CascadeOptions& options, const ExecTarget& target) {
  return run_cascade_of(input, nullptr, options, target);
}

CascadeReport run_cascade(ItemMatrix&& input, const CascadeOptions& options, const ExecTarget& target) {
  return run_cascade_of(input, &input, options, target);
}

}  // namespace judgestat
