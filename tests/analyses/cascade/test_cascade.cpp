// The confidence cascade (docs/statistics.md §3.3, §3.4): the rules reproduce rows of JEV Table 33 on
// constructed selection sets; ties go to the stricter threshold and `all` only when nothing
// passes; invalid first-stage outputs escalate; the sweep's statistics equal their direct
// formulas; the seeded split; latency quantiles; clear errors from the CLI; CUDA = CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/report.hpp"
#include "requests/text_lists.hpp"
#include "test_support.hpp"

using namespace judgestat;

namespace {

using namespace judgestat::testing_support;

// A band of items at one confidence with given counts of d = c1 − c2 ∈ {0, −1, +1, −½}.
struct Band {
  double q;
  int zero, minus, plus, minus_half;
};

void add_band(CascadePool& pool, const Band& band, int32_t stratum) {
  auto item = [&](double c1, double c2) {
    pool.item.push_back(pool.size());
    pool.c1.push_back(c1);
    pool.c2.push_back(c2);
    pool.q.push_back(band.q);
    pool.gate_ok.push_back(1);
    pool.fee_first.push_back(0.0001);
    pool.fee_fallback.push_back(0.01);
    pool.latency_first.push_back(0.2);
    pool.latency_fallback.push_back(2.0);
    pool.stratum.push_back(stratum);
  };
  for (int k = 0; k < band.zero; ++k) item(1, 1);
  for (int k = 0; k < band.minus; ++k) item(0, 1);
  for (int k = 0; k < band.plus; ++k) item(1, 0);
  for (int k = 0; k < band.minus_half; ++k) item(0.5, 1);
}

// JEV Table 33's two selection sets of 100 pairs, rebuilt from their rows: per threshold the
// accepted count and the sums Σd, Σd² that give the published mean Δ and lower bound.
void add_ppe(CascadePool& pool, int32_t stratum) {
  for (const Band& band :
       {Band{0.995, 13, 0, 0, 0}, Band{0.97, 11, 0, 0, 0}, Band{0.92, 12, 2, 0, 0}, Band{0.85, 14, 2, 0, 0},
        Band{0.75, 10, 4, 0, 0}, Band{0.65, 11, 5, 1, 0}, Band{0.55, 10, 2, 2, 1}})
    add_band(pool, band, stratum);
}
void add_judgebench_claude(CascadePool& pool, int32_t stratum) {
  for (const Band& band :
       {Band{0.995, 8, 0, 0, 0}, Band{0.97, 9, 1, 0, 0}, Band{0.92, 14, 1, 0, 0}, Band{0.85, 14, 3, 0, 0},
        Band{0.75, 13, 4, 0, 0}, Band{0.65, 11, 3, 1, 0}, Band{0.55, 12, 6, 0, 0}})
    add_band(pool, band, stratum);
}

CascadePool named_pool(std::vector<std::string> strata) {
  CascadePool pool;
  pool.first = "F";
  pool.fallback = "S";
  pool.strata_names = std::move(strata);
  return pool;
}

const ThresholdGrid kTable33Grid = parse_grid("0.5,0.6,0.7,0.8,0.9,0.95,0.99");

struct PaperRow {
  double accepted_percent, mean_pp, lower_pp;
  bool point, lower;
};

void expect_rows(const std::vector<SelectionTrial>& trials, const std::vector<PaperRow>& rows) {
  ASSERT_EQ(trials.size(), rows.size());
  for (size_t g = 0; g < rows.size(); ++g) {
    SCOPED_TRACE("τ = " + kTable33Grid.labels[g]);
    EXPECT_EQ(100.0 * static_cast<double>(trials[g].accepted) / static_cast<double>(trials[g].n),
              rows[g].accepted_percent);
    EXPECT_NEAR(100.0 * trials[g].mean_delta, rows[g].mean_pp, 0.005);
    EXPECT_NEAR(100.0 * trials[g].lower_bound, rows[g].lower_pp, 0.005);
    EXPECT_EQ(trials[g].point_passes, rows[g].point);
    EXPECT_EQ(trials[g].lower_passes, rows[g].lower);
  }
}

RuleSettings rule(ThresholdRule which) {
  RuleSettings settings;
  settings.rule = which;
  return settings;  // tol 0.02, z 1.645
}

}  // namespace

TEST(CascadeRules, ReproducesTable33Ppe) {
  CascadePool pool = named_pool({"ppe"});
  add_ppe(pool, 0);
  const std::vector<uint8_t> all(pool.size(), 1);
  const auto trials = selection_trials(pool, kTable33Grid, all, rule(ThresholdRule::kLower));
  expect_rows(trials, {{100, -12.50, -19.25, false, false},
                       {85, -12.00, -17.86, false, false},
                       {68, -8.00, -12.49, false, false},
                       {54, -4.00, -7.24, false, false},
                       {38, -2.00, -4.31, true, false},
                       {24, 0.00, 0.00, true, true},
                       {13, 0.00, 0.00, true, true}});
  // The point rule picks 0.9 where the lower-bound rule picks 0.95 (the deployed threshold).
  EXPECT_EQ(kTable33Grid.label(choose_from_trials(trials, rule(ThresholdRule::kPoint))), "0.9");
  EXPECT_EQ(kTable33Grid.label(choose_from_trials(trials, rule(ThresholdRule::kLower))), "0.95");
}

TEST(CascadeRules, ReproducesTable33JudgeBenchClaude) {
  CascadePool pool = named_pool({"judgebench"});
  add_judgebench_claude(pool, 0);
  const std::vector<uint8_t> all(pool.size(), 1);
  const auto trials = selection_trials(pool, kTable33Grid, all, rule(ThresholdRule::kLower));
  expect_rows(trials, {{100, -17.00, -23.64, false, false},
                       {82, -11.00, -16.68, false, false},
                       {67, -9.00, -13.73, false, false},
                       {50, -5.00, -8.60, false, false},
                       {33, -2.00, -4.31, true, false},
                       {18, -1.00, -2.64, true, false},
                       {8, 0.00, 0.00, true, true}});
  EXPECT_EQ(kTable33Grid.label(choose_from_trials(trials, rule(ThresholdRule::kPoint))), "0.9");
  EXPECT_EQ(kTable33Grid.label(choose_from_trials(trials, rule(ThresholdRule::kLower))), "0.99");
}

// Table 33's caption: the point rule chooses 0.9 on both workloads, and one pooled threshold
// under the lower-bound rule would have been 0.95; per workload the lower rule deploys 0.95 and
// 0.99.
TEST(CascadeRules, Table33PooledAndPerStratum) {
  CascadePool pool = named_pool({"ppe", "judgebench"});
  add_ppe(pool, 0);
  add_judgebench_claude(pool, 1);
  const std::vector<uint8_t> all(pool.size(), 1);
  const RuleChoice pooled_lower = choose_rule(pool, kTable33Grid, all, rule(ThresholdRule::kLower), false);
  EXPECT_EQ(kTable33Grid.label(pooled_lower.chosen.at(0)), "0.95");
  const RuleChoice pooled_point = choose_rule(pool, kTable33Grid, all, rule(ThresholdRule::kPoint), false);
  EXPECT_EQ(kTable33Grid.label(pooled_point.chosen.at(0)), "0.9");
  const RuleChoice per_lower = choose_rule(pool, kTable33Grid, all, rule(ThresholdRule::kLower), true);
  ASSERT_EQ(per_lower.chosen.size(), 2u);
  EXPECT_EQ(kTable33Grid.label(per_lower.chosen[0]), "0.95");
  EXPECT_EQ(kTable33Grid.label(per_lower.chosen[1]), "0.99");
  EXPECT_EQ(per_lower.labelled, (std::vector<int64_t>{100, 100}));
  const RuleChoice per_point = choose_rule(pool, kTable33Grid, all, rule(ThresholdRule::kPoint), true);
  EXPECT_EQ(kTable33Grid.label(per_point.chosen[0]), "0.9");
  EXPECT_EQ(kTable33Grid.label(per_point.chosen[1]), "0.9");
  // Each item is gated at its own stratum's threshold: 24 PPE items at q ≥ 0.95, 8 JudgeBench
  // items at q ≥ 0.99.
  const CascadePolicy policy = rule_policy(pool, kTable33Grid, per_lower);
  EXPECT_FALSE(policy.threshold.has_value());
  int accepted = 0;
  for (uint8_t a : policy.accepted) accepted += a;
  EXPECT_EQ(accepted, 24 + 8);
}

TEST(CascadeRules, TiesGoToTheStricterThreshold) {
  CascadePool pool = named_pool({"all"});
  add_band(pool, {0.95, 10, 0, 0, 0}, 0);
  add_band(pool, {0.5, 0, 5, 0, 0}, 0);
  const ThresholdGrid grid = parse_grid("0.8,0.9,0.99");
  const std::vector<uint8_t> all(pool.size(), 1);
  const auto trials = selection_trials(pool, grid, all, rule(ThresholdRule::kLower));
  // 0.8 and 0.9 accept the same ten items and both pass: the stricter 0.9 is chosen.
  EXPECT_EQ(trials[0].accepted, trials[1].accepted);
  EXPECT_TRUE(trials[0].lower_passes && trials[1].lower_passes);
  EXPECT_EQ(grid.label(choose_from_trials(trials, rule(ThresholdRule::kLower))), "0.9");
  EXPECT_EQ(grid.label(choose_from_trials(trials, rule(ThresholdRule::kPoint))), "0.9");
}

TEST(CascadeRules, AllOnlyWhenNothingPasses) {
  CascadePool pool = named_pool({"all"});
  add_band(pool, {0.995, 7, 3, 0, 0}, 0);  // every threshold accepts all ten; mean Δ −30 points
  const std::vector<uint8_t> all(pool.size(), 1);
  const ThresholdGrid grid = parse_grid("0.5,0.9,0.99");
  for (ThresholdRule which : {ThresholdRule::kPoint, ThresholdRule::kLower})
    EXPECT_EQ(grid.label(choose_from_trials(selection_trials(pool, grid, all, rule(which)), rule(which))), "all");
  // A grid threshold that accepts nothing passes (Δ = 0), so it is chosen rather than `all`.
  const ThresholdGrid with_one = parse_grid("0.5,1");
  EXPECT_EQ(with_one.label(choose_from_trials(selection_trials(pool, with_one, all, rule(ThresholdRule::kLower)),
                                              rule(ThresholdRule::kLower))),
            "1");
  // Too few labels for the lower-bound rule (n = 1): nothing passes.
  std::vector<uint8_t> one(pool.size(), 0);
  one[0] = 1;
  EXPECT_EQ(with_one.label(choose_from_trials(selection_trials(pool, with_one, one, rule(ThresholdRule::kLower)),
                                              rule(ThresholdRule::kLower))),
            "all");
}

// i1: F's order 1 is invalid (its verdict is not the top label) although order 0 is sure and
// right; the gate escalates it to S, which is wrong. i2: a plain accepted item.
TEST(CascadeSweep, InvalidFirstStageOutputsEscalate) {
  const ItemMatrix m = load_item_matrix(write_temp("invalid.csv",
                                                   "judge,item,order,gold,verdict,p.A,p.B\n"
                                                   "F,i1,0,A,A,0.99,0.01\nF,i1,1,A,B,0.99,0.01\nS,i1,0,A,B,,\n"
                                                   "F,i2,0,A,A,0.9,0.1\nF,i2,1,A,A,0.9,0.1\nS,i2,0,A,A,,\n"));
  const CascadePool pool = build_cascade_pool(m, "F", "S");
  ASSERT_EQ(pool.gate_ok, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(pool.c1[0], 1.0);
  const ThresholdGrid grid = parse_grid("0.5,0.95");
  const auto policies = sweep_policies(pool, grid);
  EXPECT_EQ(policies[0].accepted, (std::vector<uint8_t>{0, 1}));
  const CascadePlan plan = build_cascade_plan(pool, number_pool_clusters(m, pool), policies, {false, true});
  const std::vector<double> estimates = point_estimates(plan.plan);
  EXPECT_EQ(estimates[plan.pooled().policies[0].cascade_acc], 0.5);  // i1 takes S's wrong verdict
  EXPECT_EQ(estimates[plan.pooled().policies[0].escalated], 0.5);
  EXPECT_EQ(plan.pooled().policies[0].fee_ratio, -1);  // no fees: left out
}

namespace {

// Every sweep statistic equals its direct formula on a random pool with decimal fees; the
// fallback's fee varies per item, or is one per-call fee (which the plan folds into constants).
void check_sweep_against_direct_formulas(bool per_call_fallback_fee) {
  std::mt19937 rng(3);
  CascadePool pool = named_pool({"all"});
  PoolClusters clusters;
  for (int c = 0; c < 13; ++c) {
    clusters.names.push_back("c" + std::to_string(c));
    clusters.cluster_benchmark.push_back(0);
  }
  for (int i = 0; i < 80; ++i) {
    pool.item.push_back(i);
    pool.c1.push_back(0.5 * static_cast<double>(rng() % 3));
    pool.c2.push_back(static_cast<double>(rng() % 4 != 0));
    pool.q.push_back(0.5 + 0.5 * static_cast<double>(rng() % 1000) / 999.0);
    pool.gate_ok.push_back(rng() % 10 != 0);
    pool.fee_first.push_back(0.000040 * 2);
    pool.fee_fallback.push_back(per_call_fallback_fee ? 0.004 : 0.001 * static_cast<double>(1 + rng() % 7));
    pool.latency_first.push_back(0.1);
    pool.latency_fallback.push_back(1.0);
    pool.stratum.push_back(0);
    clusters.item_cluster.push_back(i % 13);
  }
  const FeeScale scale = fee_scale(pool);
  EXPECT_TRUE(scale.exact);
  // Whole at 10^-5 USD: 8 and 100·k units, gcd 4 (per call: 8 and 400, gcd 8).
  EXPECT_NEAR(scale.unit, per_call_fallback_fee ? 0.00008 : 0.00004, 1e-18);
  const ThresholdGrid grid = default_grid();
  const auto policies = sweep_policies(pool, grid);
  const CascadePlan plan = build_cascade_plan(pool, clusters, policies, {true, true});
  const std::vector<double> est = point_estimates(plan.plan);
  const double n = pool.size();
  double sum_c1 = 0, sum_c2 = 0, best = 0, errors = 0, fee_first = 0, fee_fallback = 0;
  for (int i = 0; i < pool.size(); ++i) {
    sum_c1 += pool.c1[i];
    sum_c2 += pool.c2[i];
    best += std::max(pool.c1[i], pool.c2[i]);
    errors += pool.c1[i] < 1;
    fee_first += pool.fee_first[i];
    fee_fallback += pool.fee_fallback[i];
  }
  for (size_t p = 0; p < policies.size(); ++p) {
    double cascade = 0, accepted = 0, caught = 0, escalated_fee = 0;
    for (int i = 0; i < pool.size(); ++i) {
      const bool a = policies[p].accepted[i];
      EXPECT_EQ(a, p < static_cast<size_t>(grid.size()) && pool.gate_ok[i] && pool.q[i] >= grid.values[p]);
      cascade += a ? pool.c1[i] : pool.c2[i];
      accepted += a;
      caught += !a && pool.c1[i] < 1;
      escalated_fee += a ? 0 : pool.fee_fallback[i];
    }
    const PolicyStatistics& s = plan.pooled().policies[p];
    EXPECT_DOUBLE_EQ(est[s.cascade_acc], cascade / n);
    EXPECT_NEAR(est[s.cascade_delta], (cascade - sum_c2) / n, 1e-15);
    EXPECT_DOUBLE_EQ(est[s.escalated], (n - accepted) / n);
    EXPECT_DOUBLE_EQ(est[s.errors_escalated], caught / errors);
    EXPECT_NEAR(est[s.fee_ratio], (fee_first + escalated_fee) / fee_fallback, 1e-13);
    const double share = escalated_fee / fee_fallback;
    EXPECT_NEAR(est[s.random_acc], (sum_c1 + share * (sum_c2 - sum_c1)) / n, 1e-13);
    EXPECT_EQ(plan.plan.statistics[s.cascade_acc].label.threshold, policies[p].threshold);
  }
  EXPECT_EQ(*plan.plan.statistics[plan.pooled().policies.back().cascade_acc].label.threshold, "all");
  EXPECT_DOUBLE_EQ(est[plan.pooled().policies.back().cascade_acc], sum_c2 / n);
  EXPECT_DOUBLE_EQ(est[plan.pooled().oracle_acc], best / n);
  // Fee columns are whole units: the compiled plan sums them exactly.
  for (size_t k = 0; k < plan.plan.columns.size(); ++k)
    for (double v : plan.plan.columns[k].values()) ASSERT_EQ(v, std::round(2 * v) / 2) << plan.plan.column_names[k];
  // A per-call fallback fee adds no fee columns of its own.
  size_t fee_columns = 0;
  for (const auto& name : plan.plan.column_names) fee_columns += name.find("fee_fallback") != std::string::npos;
  EXPECT_EQ(fee_columns, per_call_fallback_fee ? 0u : policies.size() + 1);
}

}  // namespace

TEST(CascadeSweep, StatisticsEqualDirectFormulas) { check_sweep_against_direct_formulas(false); }
TEST(CascadeSweep, PerCallFallbackFeeGivesTheSameStatistics) { check_sweep_against_direct_formulas(true); }

TEST(CascadeSweep, FeeScaleFallsBackToRealsForNonDecimalFees) {
  CascadePool pool = named_pool({"all"});
  add_band(pool, {0.9, 3, 0, 0, 0}, 0);
  pool.fee_fallback[1] = 1.0 / 3.0;
  EXPECT_FALSE(fee_scale(pool).exact);
  pool.fee_fallback[1] = 0.02;
  const FeeScale scale = fee_scale(pool);
  EXPECT_TRUE(scale.exact);
  EXPECT_NEAR(scale.unit, 0.0001, 1e-18);  // whole at 10^-4 USD: 1, 100 and 200 units, gcd 1
}

TEST(CascadeSweep, LatencyQuantilesType7) {
  CascadePool pool = named_pool({"all"});
  add_band(pool, {0.9, 4, 0, 0, 0}, 0);
  pool.latency_first = {0.1, 0.2, 0.3, 0.4};
  pool.latency_fallback = {1, 1, 1, 1};
  const LatencySummary l = cascade_latency(pool, {1, 0, 1, 0});  // 0.1, 1.2, 0.3, 1.4
  EXPECT_DOUBLE_EQ(l.p50, 0.75);
  EXPECT_NEAR(l.p95, 1.37, 1e-12);
  EXPECT_NEAR(l.mean, 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(fallback_latency(pool).p95, 1.0);
  EXPECT_NEAR(cascade_latency(pool, {1, 1, 1, 1}, {0, 1, 1, 0}).p50, 0.25, 1e-12);
}

// --select: per benchmark, round(f·C_h) whole clusters with the smallest Philox words of
// stream 2^30 + 1; the same seed gives the same split.
TEST(CascadeSplit, SeededStratifiedByBenchmarkAndWholeClusters) {
  CascadePool pool = named_pool({"all"});
  PoolClusters clusters;
  for (int c = 0; c < 41; ++c) {
    clusters.names.push_back("c" + std::to_string(c));
    clusters.cluster_benchmark.push_back(c % 4 == 3 ? 7 : 2);  // 31 and 10 clusters
  }
  add_band(pool, {0.9, 120, 0, 0, 0}, 0);
  for (int i = 0; i < pool.size(); ++i) clusters.item_cluster.push_back((i * 17) % 41);
  const std::vector<uint8_t> a = split_selection(clusters, pool, 0.4, 5), b = split_selection(clusters, pool, 0.4, 5);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, split_selection(clusters, pool, 0.4, 6));
  std::vector<int> state(41, -1);
  for (int i = 0; i < pool.size(); ++i) {
    const int c = clusters.item_cluster[i];
    if (state[c] >= 0) {
      EXPECT_EQ(state[c], a[i]) << "cluster " << c << " split";
    }
    state[c] = a[i];
  }
  int first = 0, second = 0;
  for (int c = 0; c < 41; ++c) (c % 4 == 3 ? second : first) += state[c] == 1;
  EXPECT_EQ(first, 12);  // round(0.4 · 31)
  EXPECT_EQ(second, 4);  // round(0.4 · 10)
  // Independent recomputation for the first benchmark (h = 0).
  std::vector<std::pair<uint32_t, int>> words;
  int position = 0;
  for (int c = 0; c < 41; ++c)
    if (c % 4 != 3) words.push_back({draw_word(PhiloxKey(5), position++, 0, (1u << 30) + 1), c});
  std::sort(words.begin(), words.end());
  for (size_t r = 0; r < words.size(); ++r) EXPECT_EQ(state[words[r].second], r < 12 ? 1 : 0);
}

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

}  // namespace

TEST(CascadeCli, JudgeBenchJsonCarriesSweepRulesAndBaselines) {
  const CliRun r =
      run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback +
              " --replicates 300 --quiet --format json --fee " + kFirst + "=0.00002 --fee " + kFallback + "=0.012");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "cascade");
  const std::set<std::string> first_stage = {
      "aurc",    "selective_acc",    "selective_coverage",
      "bin_acc", "fallback_bin_acc", "selective_risk"};  // risk–coverage of F, after the sweep
  std::set<std::string> names;
  std::set<std::string> thresholds;
  for (const auto& row : j["statistics"]) {
    names.insert(row["name"].get<std::string>());
    EXPECT_EQ(row["judge"], kFirst);
    EXPECT_EQ(row["reference"], kFallback);
    if (first_stage.count(row["name"])) continue;
    if (row["threshold"].is_string()) thresholds.insert(row["threshold"].get<std::string>());
    if (row["threshold"].is_number()) thresholds.insert(std::to_string(row["threshold"].get<double>()));
  }
  std::set<std::string> expected = {"cascade_acc", "cascade_delta", "escalated", "errors_escalated",
                                    "fee_ratio",   "oracle_acc",    "random_acc"};
  expected.insert(first_stage.begin(), first_stage.end());
  EXPECT_EQ(names, expected);
  EXPECT_EQ(thresholds.size(), 10u);  // nine grid values and "all"
  EXPECT_TRUE(thresholds.count("all"));
  ASSERT_EQ(j["rules"].size(), 2u);
  EXPECT_EQ(j["rules"][0]["rule"], "point");
  EXPECT_EQ(j["rules"][1]["rule"], "lower");
  EXPECT_FALSE(j["rules"][0]["heldout"]["statistics"].empty());
  EXPECT_EQ(j["split"]["selection"]["items"].get<int>() + j["split"]["heldout"]["items"].get<int>(), 350);
  EXPECT_TRUE(j["temperature"]["temperature"].is_number());
  EXPECT_EQ(j["reliability"]["n"], 350);
  // The fallback alone: `all` escalates everything; its accuracy is o1-mini's order-0 248 / 350.
  for (const auto& row : j["statistics"])
    if (row["name"] == "cascade_acc" && row["threshold"] == "all") {
      EXPECT_DOUBLE_EQ(row["estimate"].get<double>(), 248.0 / 350.0);
    }
}

// The library call the command makes: run_cascade on the bundled JudgeBench split gives the
// CLI's JSON (every key but the envelope and timing) and the known baselines.
TEST(CascadeLibrary, RunCascadeEqualsTheCli) {
  const std::string fees = " --fee " + kFirst + "=0.00002 --fee " + kFallback + "=0.012";
  const CliRun r = run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback +
                           " --replicates 300 --quiet --format json --backend cpu --threads 2 --per-stratum" + fees);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto cli = nlohmann::json::parse(r.out);

  CascadeOptions options;
  options.first = kFirst;
  options.fallback = kFallback;
  options.fee = {{kFirst, 0.00002}, {kFallback, 0.012}};
  options.per_stratum = true;
  options.bootstrap.replicates = 300;
  uint64_t last_done = 0, last_total = 0;
  options.progress = [&](uint64_t done, uint64_t total) { last_done = done, last_total = total; };
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  const CascadeReport report = run_cascade(load_item_matrix(kJudgeBench), options, target);
  EXPECT_EQ(last_done, 600u);  // the sweep's 300 replicates, then the held-out part's
  EXPECT_EQ(last_total, 600u);
  EXPECT_EQ(report.items, 350);
  EXPECT_DOUBLE_EQ(report.sweep.pooled().fallback_alone, 248.0 / 350.0);  // o1-mini's order-0 accuracy
  EXPECT_DOUBLE_EQ(report.sweep.result.intervals[report.sweep.pooled().policies.back().cascade_acc].estimate,
                   248.0 / 350.0);
  ASSERT_TRUE(report.rules.has_value());
  EXPECT_EQ(report.rules->selection_items + report.rules->heldout_items, 350);
  EXPECT_EQ(report.fee_first.from, "--fee");

  const auto mine = nlohmann::json::parse(dump_json(to_json(report, {})));
  for (const char* key : {"settings", "pool", "statistics", "baselines", "latency", "split", "selection_trials",
                          "rules", "temperature", "reliability", "risk_coverage", "notes"})
    EXPECT_EQ(mine[key], cli[key]) << key;
  EXPECT_NE(tables(report, "text").find("Threshold sweep"), std::string::npos);

  options.select = 1.5;
  try {
    run_cascade(load_item_matrix(kJudgeBench), options, target);
    FAIL() << "select = 1.5 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("select: ", 0), 0u) << e.what();
  }
}

TEST(CascadeCli, FeesAndLatencyNotGivenSaySo) {
  const CliRun r = run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback +
                           " --replicates 200 --quiet --select 0");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("not given"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--fee JUDGE=USD"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Selection part"), std::string::npos) << r.out;  // --select 0: sweep only
}

TEST(CascadeCli, ClearErrorsForBadInput) {
  // A first stage without probabilities.
  CliRun r = run_cli("cascade " + kJudgeBench + " --first " + kFallback + " --fallback " + kFirst + " --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("without probabilities"), std::string::npos) << r.out;
  // A fallback missing on some items.
  std::string csv = "judge,item,order,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 6; ++i) {
    csv += "F,it" + std::to_string(i) + ",0,A,A,0.8,0.2\n";
    if (i < 4) csv += "S,it" + std::to_string(i) + ",0,A,A,,\n";
  }
  r = run_cli("cascade " + write_temp("missing.csv", csv) + " --first F --fallback S --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no order-0 record on 2 of the 6 items"), std::string::npos) << r.out;
  // A grid value outside [0, 1].
  r = run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback + " --grid 0.5,1.5 --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("outside [0, 1]"), std::string::npos) << r.out;
  r = run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback + " --fee nobody=1 --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("neither the first stage"), std::string::npos) << r.out;
  r = run_cli("cascade " + kJudgeBench + " --first " + kFirst + " --fallback " + kFallback + " --select 1.5 --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--select"), std::string::npos) << r.out;
}

TEST(CascadeCuda, CudaEqualsCpu) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  const CascadePool pool =
      build_cascade_pool(m, kFirst, kFallback, 2, "benchmark", {{kFirst, 0.00002}, {kFallback, 0.012}});
  const CascadePlan plan =
      build_cascade_plan(pool, number_pool_clusters(m, pool), sweep_policies(pool, default_grid()), {true, true});
  const CompiledPlan compiled = compile(plan.plan);
  const uint64_t count = 5000;
  std::vector<double> cpu(count * compiled.n_statistics), cuda(count * compiled.n_statistics);
  make_cpu_backend(2)->run_replicates(compiled, 9, 0, count, cpu.data());
  make_cuda_backend()->run_replicates(compiled, 9, 0, count, cuda.data());
  // Counts and exact fee units: bit for bit.
  for (size_t k = 0; k < cpu.size(); ++k) {
    if (std::isnan(cpu[k])) {
      EXPECT_TRUE(std::isnan(cuda[k])) << k;
    } else {
      EXPECT_EQ(cpu[k], cuda[k]) << "value " << k;
    }
  }
}

// JEV App. K's alternative first stages break a coverage tie by the lower selection-set fee and then
// the higher threshold; judgestat's rule by the higher threshold alone (§3.4). The gate is nested in τ
// (accepted at τ' > τ ⇒ accepted at τ), so equal coverage means the same accepted items and the same
// fee: the paper's rule, computed here from the pool item by item, chooses what the library does.
TEST(CascadeRules, CoverageTiesBrokenByFeeChooseAsTheStricterThreshold) {
  // JEV App. K's grid; its 1.01 (escalate every pair) is the choice `all`.
  const ThresholdGrid grid = parse_grid("0,0.5,0.6,0.7,0.8,0.9,0.95,0.99,1");
  std::mt19937 random(20261203);
  int coverage_ties = 0;
  for (int trial = 0; trial < 200; ++trial) {
    CascadePool pool = named_pool({"all"});
    const int n = 20 + trial % 60;
    for (int i = 0; i < n; ++i) {
      pool.item.push_back(i);
      // Few distinct q, so that neighbouring thresholds often accept the same items.
      pool.q.push_back(std::array<double, 4>{0.55, 0.75, 0.92, 1.0}[random() % 4]);
      pool.gate_ok.push_back(random() % 10 != 0);  // an invalid order always escalates
      const int outcome = static_cast<int>(random() % 8);
      pool.c1.push_back(outcome == 0 ? 0.0 : outcome == 1 ? 0.5 : 1.0);
      pool.c2.push_back(outcome == 2 ? 0.0 : 1.0);
      pool.fee_first.push_back(1e-4 * static_cast<double>(1 + random() % 5));
      pool.fee_fallback.push_back(1e-2 * static_cast<double>(1 + random() % 7));
      pool.latency_first.push_back(0.2);
      pool.latency_fallback.push_back(2.0);
      pool.stratum.push_back(0);
    }
    const std::vector<uint8_t> all(pool.size(), 1);
    for (ThresholdRule which : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
      const auto trials = selection_trials(pool, grid, all, rule(which));
      // The paper's order: coverage descending, then selection-set fee ascending, then τ descending.
      int32_t best = grid.size();
      int64_t best_coverage = -1;
      double best_fee = 0;
      for (int32_t g = 0; g < grid.size(); ++g) {
        if (!(which == ThresholdRule::kPoint ? trials[g].point_passes : trials[g].lower_passes)) continue;
        int64_t coverage = 0;
        double fee = 0;
        for (int i = 0; i < n; ++i) {
          const bool accepted = pool.gate_ok[i] && pool.q[i] >= grid.values[g];
          coverage += accepted;
          fee += pool.fee_first[i] + (accepted ? 0.0 : pool.fee_fallback[i]);
        }
        coverage_ties += coverage == best_coverage;
        if (coverage > best_coverage || (coverage == best_coverage && (fee < best_fee || fee == best_fee))) {
          best = g;
          best_coverage = coverage;
          best_fee = fee;
        }
      }
      EXPECT_EQ(choose_from_trials(trials, rule(which)), best) << "trial " << trial;
    }
  }
  EXPECT_GT(coverage_ties, 100);  // the tie-break was exercised
}
