// The cascade as JEV runs it (docs/statistics.md §7.5, SPEC §3.3): the user's own labelled set
// (a column or a list) equals the seeded split when it marks the same clusters; --select 1 and 0;
// gating on the orders each item has in a mixed single/double-order workload, worked by hand; a
// frozen τ equals the sweep's row at that τ (and the rule's held-out row when it is the rule's
// τ); per-benchmark rows equal separate runs on each benchmark's records drawn on the same
// stratum stream; domain estimation when a cluster spans benchmarks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/report.hpp"
#include "requests/text_lists.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

ExecTarget cpu2() { return cpu_target(2); }

CascadeOptions judgebench_options(uint64_t replicates = 400) {
  CascadeOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.fee = {{kFirst, 0.00002}, {kFallback, 0.012}};
  o.bootstrap.replicates = replicates;
  return o;
}

// A study of `items` items in clusters of three, clusters alternating between benchmarks a and
// b: F (both orders, probabilities) and S (order 0). `extra(i)` adds a `split` column.
std::string study_csv(int items, const std::function<std::string(int)>& extra = nullptr) {
  std::mt19937 rng(11);
  std::string csv =
      std::string("judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B") + (extra ? ",split" : "") + "\n";
  auto row = [&](const std::string& judge, int i, int order, const std::string& gold, double p_a) {
    const std::string verdict = p_a >= 0.5 ? "A" : "B";
    const int cluster = i / 3;
    csv += judge + ",it" + std::to_string(i) + ",c" + std::to_string(cluster) + "," + (cluster % 2 ? "b" : "a") + "," +
           std::to_string(order) + "," + gold + "," + verdict + "," +
           (judge == "F" ? std::to_string(p_a) + "," + std::to_string(1 - p_a) : std::string(",")) +
           (extra ? "," + extra(i) : "") + "\n";
  };
  for (int i = 0; i < items; ++i) {
    const std::string gold = rng() % 2 ? "A" : "B";
    const double sure = 0.5 + 0.5 * static_cast<double>(rng() % 1000) / 1000.0;  // F's confidence
    const bool right = rng() % 4 != 0;
    const double p_gold = right ? sure : 1 - sure;
    const double p_a = gold == "A" ? p_gold : 1 - p_gold;
    row("F", i, 0, gold, p_a);
    row("F", i, 1, gold, std::min(1.0, std::max(0.0, p_a + (rng() % 2 ? 0.01 : -0.01))));
    row("S", i, 0, gold, rng() % 5 != 0 ? (gold == "A" ? 1.0 : 0.0) : (gold == "A" ? 0.0 : 1.0));
  }
  return csv;
}

CascadeOptions study_options() {
  CascadeOptions o;
  o.first = "F";
  o.fallback = "S";
  o.bootstrap.replicates = 300;
  return o;
}

nlohmann::json json_of(const CascadeReport& report) { return nlohmann::json::parse(dump_json(to_json(report, {}))); }

void expect_same_interval(const Interval& a, const Interval& b, const std::string& what) {
  SCOPED_TRACE(what);
  if (std::isnan(a.estimate)) {
    EXPECT_TRUE(std::isnan(b.estimate));
    return;
  }
  EXPECT_EQ(a.estimate, b.estimate);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_EQ(a.se, b.se);
  EXPECT_EQ(a.undefined, b.undefined);
}

// Every statistic of policy `p` in scope `a` (of result ra) equals policy `q` in scope `b`.
void expect_same_policy(const BootstrapResult& ra, const PolicyStatistics& a, const BootstrapResult& rb,
                        const PolicyStatistics& b) {
  for (auto member :
       {&PolicyStatistics::cascade_acc, &PolicyStatistics::cascade_delta, &PolicyStatistics::escalated,
        &PolicyStatistics::errors_escalated, &PolicyStatistics::fee_ratio, &PolicyStatistics::random_acc}) {
    ASSERT_EQ(a.*member >= 0, b.*member >= 0);
    if (a.*member < 0) continue;
    expect_same_interval(ra.intervals[a.*member], rb.intervals[b.*member], ra.labels[a.*member].name);
    EXPECT_EQ(ra.labels[a.*member].n, rb.labels[b.*member].n);
  }
}

}  // namespace

// Own set = the seeded split: a `split` column (and a list of items) marking exactly the clusters
// that --select 0.4 draws chooses the same thresholds from the same trials and scores them on the
// same held-out part with the same replicates.
TEST(CascadeOwnSet, ColumnAndListEqualTheRandomSplitOnTheSameClusters) {
  const std::string plain = write_temp("study.csv", study_csv(90));
  const ItemMatrix m = load_item_matrix(plain);
  const CascadePool pool = build_cascade_pool(m, "F", "S");
  const std::vector<uint8_t> split = split_selection(number_pool_clusters(m, pool), pool, 0.4, 1);
  std::vector<std::string> value(m.n_items(), "heldout");
  std::string listed;
  int selected = 0;
  for (int32_t i = 0; i < pool.size(); ++i)
    if (split[i]) value[pool.item[i]] = "select", listed += m.items[pool.item[i]] + "\n", ++selected;
  ASSERT_GT(selected, 10);
  ASSERT_LT(selected, 80);
  // Several items per cluster: whole clusters are marked.
  EXPECT_EQ(selected % 3, 0);

  CascadeOptions random = study_options();
  const CascadeReport by_split = run_cascade(m, random, cpu2());

  LoadOptions load;
  load.item_column = "split";
  const ItemMatrix marked =
      load_item_matrix(write_temp("marked.csv", study_csv(90, [&](int i) { return value[i]; })), load);
  ASSERT_EQ(marked.items, m.items);
  CascadeOptions column = study_options();
  column.select_column = "split";
  const CascadeReport by_column = run_cascade(marked, column, cpu2());

  CascadeOptions items = study_options();
  items.select_items = write_temp("labelled.txt", "\n" + listed + "  \n");
  const CascadeReport by_list = run_cascade(m, items, cpu2());

  const auto expected = json_of(by_split);
  for (const CascadeReport* own : {&by_column, &by_list}) {
    const auto got = json_of(*own);
    for (const char* key : {"statistics", "selection_trials", "rules", "temperature"})
      EXPECT_EQ(got[key], expected[key]) << key;
    EXPECT_EQ(got["split"]["selection"], expected["split"]["selection"]);
    EXPECT_EQ(got["split"]["heldout"], expected["split"]["heldout"]);
    EXPECT_EQ(got["split"]["straddling_clusters"], 0);
  }
  EXPECT_EQ(by_column.rules->source.kind, "column");
  EXPECT_EQ(by_list.rules->source.kind, "items");
  EXPECT_EQ(by_list.rules->source.listed, selected);
  EXPECT_EQ(json_of(by_split)["split"]["source"], "random");
}

// An own set that cuts a cluster says so: the held-out part is then not independent.
TEST(CascadeOwnSet, StraddlingClustersAreCountedInANote) {
  const ItemMatrix m = load_item_matrix(write_temp("study.csv", study_csv(30)));
  CascadeOptions o = study_options();
  // Clusters of three: c0 = it0..it2 and c2 = it6..it8 are cut, c1 is whole.
  o.select_items = write_temp("labelled.txt", "it0\nit1\nit3\nit4\nit5\nit6\n");
  const CascadeReport r = run_cascade(m, o, cpu2());
  EXPECT_EQ(r.rules->source.straddling_clusters, 2);
  EXPECT_EQ(r.rules->selection_items, 6);
  EXPECT_EQ(r.rules->selection_clusters, 3);  // c0, c1, c2
  EXPECT_EQ(r.rules->heldout_clusters, 9);    // c0, c2 and c3..c9
  bool noted = false;
  for (const auto& note : r.notes) noted |= note.find("2 clusters have items in both") != std::string::npos;
  EXPECT_TRUE(noted);
}

// --select 1: every item chooses τ (the trials run on all 350), nothing is held out, the rules
// are reported without held-out scores; --select 0: the sweep alone.
TEST(CascadeOwnSet, SelectOneChoosesOnEveryItemAndScoresNothing) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options(200);
  o.select = 1;
  const CascadeReport r = run_cascade(m, o, cpu2());
  ASSERT_TRUE(r.rules.has_value());
  EXPECT_EQ(r.rules->selection_items, 350);
  EXPECT_EQ(r.rules->heldout_items, 0);
  EXPECT_FALSE(r.rules->scored());
  const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "", o.fee);
  RuleSettings lower;
  const std::vector<SelectionTrial> direct = selection_trials(pool, o.grid, std::vector<uint8_t>(350, 1), lower);
  for (int32_t g = 0; g < o.grid.size(); ++g) {
    EXPECT_EQ(r.rules->choices[1].trials[0][g].n, 350);
    EXPECT_EQ(r.rules->choices[1].trials[0][g].sum_2d, direct[g].sum_2d);
    EXPECT_EQ(r.rules->choices[1].trials[0][g].accepted, direct[g].accepted);
  }
  EXPECT_EQ(r.rules->choices[1].chosen[0], choose_from_trials(direct, lower));
  const auto j = json_of(r);
  for (const auto& rule : j["rules"]) EXPECT_TRUE(rule["heldout"].is_null());
  EXPECT_EQ(j["temperature"]["heldout"]["items"], 0);
  bool noted = false;
  for (const auto& note : r.notes) noted |= note.find("nothing is held out") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(tables(r, "text").find("nothing held out"), std::string::npos);

  o.select = 0;
  const CascadeReport sweep_only = run_cascade(m, o, cpu2());
  EXPECT_FALSE(sweep_only.rules.has_value());
  EXPECT_TRUE(json_of(sweep_only)["rules"].is_null());
}

// SPEC §3.3 on a mixed workload, by hand. i1: both orders (q = (0.9 + 0.8)/2 = 0.85, right);
// i2: order 0 only (q 0.95, right); i3: order 1 only (q 0.7, wrong); i4: order 0 only and
// invalid (verdict B, top label A). S is wrong on i1, i2 and right on i3, i4.
TEST(CascadeGate, MixedSingleAndDoubleOrderItemsByHand) {
  const ItemMatrix m = load_item_matrix(write_temp("mixed.csv",
                                                   "judge,item,order,gold,verdict,p.A,p.B\n"
                                                   "F,i1,0,A,A,0.9,0.1\nF,i1,1,A,A,0.8,0.2\nS,i1,0,A,B,,\n"
                                                   "F,i2,0,A,A,0.95,0.05\nS,i2,0,A,B,,\n"
                                                   "F,i3,1,B,A,0.7,0.3\nS,i3,0,B,B,,\n"
                                                   "F,i4,0,A,B,0.99,0.01\nS,i4,0,A,A,,\n"));
  const CascadePool present = build_cascade_pool(m, "F", "S");
  EXPECT_EQ(present.gate_ok, (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_DOUBLE_EQ(present.q[0], 0.85);
  EXPECT_EQ(present.q[1], 0.95);
  EXPECT_EQ(present.q[2], 0.7);
  EXPECT_EQ(present.c1, (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(present.fewer_orders, 3);
  EXPECT_EQ(present.escalated_for_missing_orders, 0);

  const CascadePool two = build_cascade_pool(m, "F", "S", 2);
  EXPECT_EQ(two.gate_ok, (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(two.fewer_orders, 3);
  EXPECT_EQ(two.escalated_for_missing_orders, 2);  // i2 and i3; i4 escalates for its invalid output anyway

  const CascadePool order0 = build_cascade_pool(m, "F", "S", 1);
  EXPECT_EQ(order0.size(), 3);  // i3 has no order-0 record of F
  EXPECT_EQ(order0.gate_ok, (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(order0.q[0], 0.9);
  EXPECT_EQ(order0.fewer_orders, 0);

  // Cascade accuracy at τ = 0.8 and 0.6: gated on present orders i1 and i2 keep F's right
  // answers (4/4, then i3's wrong one at 0.6: 3/4); under --gate-orders 2 only i1 does (3/4).
  CascadeOptions o;
  o.first = "F";
  o.fallback = "S";
  o.grid = parse_grid("0.6,0.8");
  o.select = 0;
  o.bootstrap.replicates = 50;
  const CascadeReport r = run_cascade(m, o, cpu2());
  const auto& iv = r.sweep.result.intervals;
  EXPECT_EQ(iv[r.sweep.pooled().policies[0].cascade_acc].estimate, 0.75);
  EXPECT_EQ(iv[r.sweep.pooled().policies[1].cascade_acc].estimate, 1.0);
  EXPECT_EQ(iv[r.sweep.pooled().policies[1].escalated].estimate, 0.5);
  EXPECT_EQ(r.fewer_orders, 3);
  o.gate_orders = 2;
  const CascadeReport strict = run_cascade(m, o, cpu2());
  EXPECT_EQ(strict.sweep.result.intervals[strict.sweep.pooled().policies[1].cascade_acc].estimate, 0.75);
  EXPECT_EQ(strict.escalated_for_missing_orders, 2);
  EXPECT_NE(tables(strict, "text").find("2 of them only because an order is missing"), std::string::npos);
  EXPECT_NE(tables(r, "text").find("3 items have fewer than 2 orders"), std::string::npos);
}

TEST(CascadeFrozen, ParsesOneOrPerBenchmarkThresholds) {
  const FrozenTau one = parse_frozen_tau({"0.9"});
  ASSERT_TRUE(one.every.has_value());
  EXPECT_EQ(one.every->value, 0.9);
  EXPECT_TRUE(one.per_benchmark.empty());
  const FrozenTau per = parse_frozen_tau({"mmlu=0.9", "livebench=all", "0.95"});
  ASSERT_EQ(per.per_benchmark.size(), 2u);
  EXPECT_EQ(per.per_benchmark[0].first, "mmlu");
  EXPECT_EQ(per.per_benchmark[0].second.value, 0.9);
  EXPECT_TRUE(std::isnan(per.per_benchmark[1].second.value));
  EXPECT_EQ(per.every->label, "0.95");
  auto message = [](std::vector<std::string> entries) {
    try {
      parse_frozen_tau(entries);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({"1.5"}).find("tau: 1.5 in '1.5' is outside [0, 1]"), std::string::npos);
  EXPECT_NE(message({"mmlu=-0.1"}).find("outside [0, 1]"), std::string::npos);
  EXPECT_NE(message({"mmlu=high"}).find("is not a threshold"), std::string::npos);
  EXPECT_NE(message({"0.9", "0.8"}).find("two thresholds"), std::string::npos);
  EXPECT_NE(message({"a=0.9", "a=0.8"}).find("'a' is given twice"), std::string::npos);
  EXPECT_NE(message({"=0.9"}).find("names no benchmark"), std::string::npos);
  EXPECT_NE(message({}).find("give a threshold"), std::string::npos);
}

// A frozen τ on every item is the sweep's row at that τ, statistic for statistic and bit for
// bit (the same clusters, seed and B, hence the same replicates), beside the fallback alone
// (the sweep's `all`). A τ off the grid equals the row of a sweep whose grid has it.
TEST(CascadeFrozen, EqualsTheSweepRowAtThatThreshold) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  for (const std::string tau : {"0.9", "0.93"}) {
    SCOPED_TRACE(tau);
    CascadeOptions o = judgebench_options();
    o.select = 0;
    o.grid = parse_grid(tau == "0.9" ? "0.5,0.6,0.7,0.8,0.85,0.9,0.95,0.99,1" : "0.5,0.93,1");
    o.tau = parse_frozen_tau({tau});
    const CascadeReport r = run_cascade(m, o, cpu2());
    ASSERT_TRUE(r.frozen.has_value());
    EXPECT_FALSE(r.frozen->heldout);
    const int32_t g = tau == "0.9" ? 5 : 1;
    ASSERT_EQ(o.grid.labels[g], tau);
    const CascadeScope& frozen = r.frozen->scopes.front();
    EXPECT_EQ(frozen.items, 350);
    expect_same_policy(r.frozen->result, frozen.policies[0], r.sweep.result, r.sweep.pooled().policies[g]);
    expect_same_policy(r.frozen->result, frozen.policies[1], r.sweep.result, r.sweep.pooled().policies.back());
    EXPECT_EQ(*r.frozen->result.labels[frozen.policies[0].cascade_acc].threshold, tau);
    EXPECT_DOUBLE_EQ(r.frozen->result.intervals[frozen.policies[1].cascade_acc].estimate, 248.0 / 350.0);
    EXPECT_EQ(frozen.latencies[0].mean, r.sweep.pooled().latencies[g].mean);
  }
}

// Per benchmark: each item is gated at its benchmark's τ (livecodebench escalates everything);
// the pooled cascade accuracy equals the direct count; an unknown or missing benchmark is an error.
TEST(CascadeFrozen, PerBenchmarkThresholdsGateEachItemAtItsOwn) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options(200);
  o.select = 0;
  o.tau = parse_frozen_tau({"mmlu=0.9", "livebench=0.99", "livecodebench=all"});
  const CascadeReport r = run_cascade(m, o, cpu2());
  const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "", o.fee);
  double correct = 0, accepted = 0;
  for (int32_t i = 0; i < pool.size(); ++i) {
    const std::string& benchmark = m.benchmarks[m.item_benchmark[pool.item[i]]];
    const double tau = benchmark == "mmlu" ? 0.9 : benchmark == "livebench" ? 0.99 : 2.0;
    const bool a = pool.gate_ok[i] && pool.q[i] >= tau;
    correct += a ? pool.c1[i] : pool.c2[i];
    accepted += a;
  }
  const CascadeScope& pooled = r.frozen->scopes.front();
  EXPECT_DOUBLE_EQ(r.frozen->result.intervals[pooled.policies[0].cascade_acc].estimate, correct / 350);
  EXPECT_DOUBLE_EQ(r.frozen->result.intervals[pooled.policies[0].escalated].estimate, 1 - accepted / 350);
  EXPECT_FALSE(r.frozen->result.labels[pooled.policies[0].cascade_acc].threshold.has_value());
  ASSERT_EQ(r.frozen->applied.size(), 3u);
  EXPECT_EQ(r.frozen->applied[2].second.label, "all");

  auto error = [&](std::vector<std::string> entries) {
    CascadeOptions bad = o;
    bad.tau = parse_frozen_tau(entries);
    try {
      run_cascade(m, bad, cpu2());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error({"mmlu=0.9", "halueval=0.9", "0.9"})
                .find("tau: benchmark 'halueval' is not among the analysed items' benchmarks (mmlu, livebench, "
                      "livecodebench)"),
            std::string::npos);
  EXPECT_NE(error({"mmlu=0.9"}).find("tau: no threshold for benchmark 'livebench'"), std::string::npos);
  o.benchmarks = {"mmlu"};
  o.tau = parse_frozen_tau({"livebench=0.9", "0.9"});
  EXPECT_THROW(run_cascade(m, o, cpu2()), std::invalid_argument);  // filtered out: not analysed
}

// A frozen τ with a selection is scored on the held-out part; at the rule's own τ it is the
// rule's held-out row (same held-out clusters, seed and B).
TEST(CascadeFrozen, OnTheHeldOutPartEqualsTheRuleAtItsThreshold) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options();
  const CascadeReport chosen = run_cascade(m, o, cpu2());
  const std::string point_tau = o.grid.label(chosen.rules->choices[0].chosen[0]);
  ASSERT_EQ(point_tau, "0.95");  // README: the point rule's choice on the seed-1 split
  o.tau = parse_frozen_tau({point_tau});
  const CascadeReport r = run_cascade(m, o, cpu2());
  ASSERT_TRUE(r.frozen->heldout);
  EXPECT_EQ(r.frozen->scopes.front().items, r.rules->heldout_items);
  expect_same_policy(r.frozen->result, r.frozen->scopes.front().policies[0], r.rules->heldout,
                     r.rules->heldout_scopes.front().policies[0]);
  EXPECT_EQ(json_of(r)["frozen"]["scored_on"], "heldout");
}

// --by benchmark: per group the sweep's rows equal a separate run on that benchmark's records.
// SPEC §2 draws stratum h on stream h, and a separate run's one stratum on stream 0; so the
// first benchmark (mmlu, h = 0) is equal bit for bit, and every benchmark h equals its separate
// run's plan when that plan's clusters are placed in stratum h (empty strata before it): the
// same stream, the same draws. Point estimates and n are equal for all.
TEST(CascadeByBenchmark, GroupRowsEqualSeparateRunsOnTheSameStratumStream) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options();
  o.select = 0;
  o.by = "benchmark";
  const CascadeReport by = run_cascade(m, o, cpu2());
  ASSERT_TRUE(by.grouping.has_value());
  EXPECT_FALSE(by.grouping->domain);
  ASSERT_EQ(by.sweep.scopes.size(), 4u);
  EXPECT_EQ(json_of(by)["settings"]["strata"], "benchmark");
  const std::vector<std::string> names = {"mmlu", "livebench", "livecodebench"};
  EXPECT_EQ(by.grouping->names, names);
  int64_t items = 0;
  for (size_t h = 0; h < names.size(); ++h) {
    SCOPED_TRACE(names[h]);
    const CascadeScope& group = by.sweep.scopes[h + 1];
    EXPECT_EQ(*group.group, names[h]);
    items += group.items;
    CascadeOptions alone = judgebench_options();
    alone.select = 0;
    alone.benchmarks = {names[h]};
    const CascadeReport separate = run_cascade(m, alone, cpu2());
    EXPECT_EQ(group.items, separate.items);
    EXPECT_EQ(group.fallback_alone, separate.sweep.pooled().fallback_alone);
    for (size_t p = 0; p < group.policies.size(); ++p) {
      const PolicyStatistics& a = group.policies[p];
      const PolicyStatistics& b = separate.sweep.pooled().policies[p];
      EXPECT_EQ(by.sweep.result.intervals[a.cascade_acc].estimate,
                separate.sweep.result.intervals[b.cascade_acc].estimate);
      EXPECT_EQ(*by.sweep.result.labels[a.cascade_acc].benchmark, names[h]);
      if (h == 0) expect_same_policy(by.sweep.result, a, separate.sweep.result, b);
    }
    // The separate run's plan in stratum h.
    std::vector<uint8_t> keep(m.n_items());
    for (int32_t i = 0; i < m.n_items(); ++i) keep[i] = m.benchmarks[m.item_benchmark[i]] == names[h];
    const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "", o.fee, {}, keep);
    PoolClusters clusters = number_pool_clusters(m, pool);
    clusters.stratum_offset.assign(h + 1, 0);
    clusters.stratum_offset.push_back(clusters.size());
    clusters.stratum_names.assign(h + 1, "empty");
    const CascadePlan plan = build_cascade_plan(pool, clusters, sweep_policies(pool, o.grid), {true, true});
    auto backend = make_cpu_backend(2);
    const BootstrapResult placed = run_bootstrap(plan.plan, *backend, o.bootstrap);
    for (size_t p = 0; p < group.policies.size(); ++p)
      expect_same_policy(by.sweep.result, group.policies[p], placed, plan.pooled().policies[p]);
    expect_same_interval(by.sweep.result.intervals[group.oracle_acc], placed.intervals[plan.pooled().oracle_acc],
                         "oracle");
  }
  EXPECT_EQ(items, 350);
  // The pooled rows come from the stratified replicates: same estimates as without --by.
  o.by = "";
  const CascadeReport pooled = run_cascade(m, o, cpu2());
  for (size_t p = 0; p < pooled.sweep.pooled().policies.size(); ++p)
    EXPECT_EQ(by.sweep.result.intervals[by.sweep.pooled().policies[p].cascade_acc].estimate,
              pooled.sweep.result.intervals[pooled.sweep.pooled().policies[p].cascade_acc].estimate);
}

// --by benchmark with rules and a frozen τ: held-out and frozen rows per group; a group's rule
// rows are the pooled policy restricted to it; frozen rows per group equal the sweep's group rows.
TEST(CascadeByBenchmark, RulesAndFrozenThresholdPerGroup) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options();
  o.by = "benchmark";
  const CascadeReport r = run_cascade(m, o, cpu2());
  ASSERT_TRUE(r.rules->scored());
  ASSERT_EQ(r.rules->heldout_scopes.size(), 4u);
  int64_t heldout = 0;
  for (size_t k = 1; k < 4; ++k) heldout += r.rules->heldout_scopes[k].items;
  EXPECT_EQ(heldout, r.rules->heldout_items);
  const auto j = json_of(r);
  ASSERT_EQ(j["rules"][0]["heldout"]["groups"].size(), 3u);
  EXPECT_EQ(j["rules"][0]["heldout"]["groups"][0]["benchmark"], "mmlu");
  EXPECT_EQ(j["rules"][0]["heldout"]["groups"][0]["statistics"][0]["benchmark"], "mmlu");
  EXPECT_EQ(j["baselines"]["groups"].size(), 3u);

  o.select = 0;
  o.tau = parse_frozen_tau({"0.99"});
  const CascadeReport f = run_cascade(m, o, cpu2());
  ASSERT_EQ(f.frozen->scopes.size(), 4u);
  for (size_t k = 0; k < 4; ++k)
    expect_same_policy(f.frozen->result, f.frozen->scopes[k].policies[0], f.sweep.result,
                       f.sweep.scopes[k].policies[7]);  // τ = 0.99
  EXPECT_NE(tables(f, "text").find("livecodebench  0.99"), std::string::npos) << tables(f, "text");
}

// A cluster spanning two benchmarks: domain estimation (one stratum); the note names the cluster
// and comes first; the pooled rows equal the run without --by bit for bit.
TEST(CascadeByBenchmark, DomainEstimationWhenAClusterSpansBenchmarks) {
  std::string csv = "judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 24; ++i) {
    const std::string item = "it" + std::to_string(i), cluster = "c" + std::to_string(i / 2);
    const std::string benchmark = i < 12 ? "a" : (i == 12 ? "a" : "b");  // c6 = it12, it13 spans a and b
    const double p = 0.55 + 0.018 * i;
    const std::string gold = i % 3 ? "A" : "B";
    csv += "F," + item + "," + cluster + "," + benchmark + ",0," + gold + ",A," + std::to_string(p) + "," +
           std::to_string(1 - p) + "\n";
    csv += "S," + item + "," + cluster + "," + benchmark + ",0," + gold + "," + (i % 4 ? gold : "B") + ",,\n";
  }
  const ItemMatrix m = load_item_matrix(write_temp("span.csv", csv));
  CascadeOptions o = study_options();
  o.select = 0;
  o.by = "benchmark";
  const CascadeReport by = run_cascade(m, o, cpu2());
  ASSERT_TRUE(by.grouping->domain);
  ASSERT_FALSE(by.notes.empty());
  EXPECT_EQ(by.notes.front().rfind("cluster 'c6' has items in two benchmark groups ('a' and 'b')", 0), 0u)
      << by.notes.front();
  EXPECT_EQ(json_of(by)["settings"]["strata"], "none");
  o.by = "";
  const CascadeReport plain = run_cascade(m, o, cpu2());
  for (size_t p = 0; p < plain.sweep.pooled().policies.size(); ++p)
    expect_same_policy(by.sweep.result, by.sweep.pooled().policies[p], plain.sweep.result,
                       plain.sweep.pooled().policies[p]);
  // Group rows are domain estimates: ratios of the group's own sums.
  EXPECT_EQ(by.sweep.scopes[1].items, 13);
  EXPECT_EQ(by.sweep.scopes[2].items, 11);
}
