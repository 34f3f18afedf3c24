// Label-budget simulation (docs/statistics.md §3.4, §3.5): Floyd's sampler, the threshold rules, exact
// enumeration on a small pool, per-stratum rules, determinism across threads and backends,
// agreement with the numpy peer on W2, the cascade pool and bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyses/budget/budget_support.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/records.hpp"
#include "judgestat/rules.hpp"
#include "requests/text_lists.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::independent_philox;
using testing_support::thrown_message;
using testing_support::write_temp;

// ---- helpers ----

struct PoolItem {
  double q, c1, c2;
  bool gate_ok = true;
  double fee_first = 0.001, fee_fallback = 0.01;
  int32_t stratum = 0;
};

CascadePool make_pool(const std::vector<PoolItem>& items, int32_t n_strata = 1) {
  CascadePool pool;
  pool.first = "F";
  pool.fallback = "S";
  for (int32_t h = 0; h < n_strata; ++h) pool.strata_names.push_back("s" + std::to_string(h));
  pool.strata_key = n_strata > 1 ? "benchmark" : "";
  for (size_t i = 0; i < items.size(); ++i) {
    const PoolItem& it = items[i];
    pool.item.push_back(static_cast<int32_t>(i));
    pool.c1.push_back(it.c1);
    pool.c2.push_back(it.c2);
    pool.q.push_back(it.q);
    pool.gate_ok.push_back(it.gate_ok ? 1 : 0);
    pool.fee_first.push_back(it.fee_first);
    pool.fee_fallback.push_back(it.fee_fallback);
    pool.latency_first.push_back(0.1);
    pool.latency_fallback.push_back(1.0);
    pool.stratum.push_back(it.stratum);
  }
  return pool;
}

// tests/data/w2_pool.csv: the W2 pool (see tests/data/README.md), strata = benchmark.
CascadePool load_w2_pool() {
  const std::string path = judgestat::testing_support::kRoot + "/tests/data/w2_pool.csv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "item,benchmark,c1,c2,q,gate_ok,fee_first,fee_fallback");
  std::vector<PoolItem> items;
  std::vector<std::string> strata;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string item, benchmark, c1, c2, q, gate, fee1, fee2;
    std::getline(fields, item, ',');
    std::getline(fields, benchmark, ',');
    std::getline(fields, c1, ',');
    std::getline(fields, c2, ',');
    std::getline(fields, q, ',');
    std::getline(fields, gate, ',');
    std::getline(fields, fee1, ',');
    std::getline(fields, fee2, ',');
    auto found = std::find(strata.begin(), strata.end(), benchmark);
    if (found == strata.end()) found = strata.insert(strata.end(), benchmark);
    PoolItem it{std::stod(q),
                std::stod(c1),
                std::stod(c2),
                gate == "1",
                std::stod(fee1),
                std::stod(fee2),
                static_cast<int32_t>(found - strata.begin())};
    items.push_back(it);
  }
  CascadePool pool = make_pool(items, static_cast<int32_t>(strata.size()));
  pool.strata_names = strata;
  return pool;
}

// Brute-force outcome of one selection set, straight from docs/statistics.md §3.4/§3.5 on the pool's
// (q, c1, c2): per stratum the rule on the labelled items, then Σ 2d over the held-out items.
struct ReferenceOutcome {
  int64_t heldout_2d = 0;
  int64_t heldout_escalated = 0;  // held-out items not accepted under the chosen policy
  std::vector<int32_t> chosen;    // per stratum
};

ReferenceOutcome reference_outcome(const CascadePool& pool, const ThresholdGrid& grid, const RuleSettings& rule,
                                   const std::vector<bool>& labelled, bool per_stratum) {
  const int32_t n_strata = per_stratum ? pool.n_strata() : 1, n_grid = grid.size();
  auto accepted_at = [&](int32_t i, int32_t g) { return g < n_grid && pool.gate_ok[i] && pool.q[i] >= grid.values[g]; };
  auto twice_d = [&](int32_t i, int32_t g) {
    return accepted_at(i, g) ? static_cast<int64_t>(std::lround(2 * (pool.c1[i] - pool.c2[i]))) : 0;
  };
  ReferenceOutcome out;
  for (int32_t h = 0; h < n_strata; ++h) {
    std::vector<int64_t> s1(n_grid, 0), s2(n_grid, 0), accepted(n_grid, 0);
    int64_t n = 0;
    for (int32_t i = 0; i < pool.size(); ++i) {
      if (!labelled[i] || (per_stratum && pool.stratum[i] != h)) continue;
      ++n;
      for (int32_t g = 0; g < n_grid; ++g) {
        s1[g] += twice_d(i, g);
        s2[g] += twice_d(i, g) * twice_d(i, g);
        accepted[g] += accepted_at(i, g) ? 1 : 0;
      }
    }
    out.chosen.push_back(choose_threshold(rule, n_grid, s1.data(), s2.data(), accepted.data(), n));
  }
  for (int32_t i = 0; i < pool.size(); ++i) {
    if (labelled[i]) continue;
    const int32_t c = out.chosen[per_stratum ? pool.stratum[i] : 0];
    out.heldout_2d += twice_d(i, c);
    out.heldout_escalated += accepted_at(i, c) ? 0 : 1;
  }
  return out;
}

// Twelve items with mixed confidence and correctness, one with a failed gate.
std::vector<PoolItem> small_pool_items() {
  return {{0.97, 1, 1}, {0.92, 1, 0}, {0.90, 0, 1},        {0.86, 0, 1},
          {0.81, 1, 1}, {0.75, 0, 1}, {0.72, 0.5, 1},      {0.65, 1, 0, true, 0.002, 0.02},
          {0.60, 0, 1}, {0.55, 1, 1}, {0.99, 1, 1, false}, {0.52, 0, 0, true, 0.001, 0.005}};
}

// ---- Floyd's sampler ----

TEST(BudgetFloyd, NeverRepeatsAnItem) {
  for (uint32_t n : {1u, 5u, 37u, 200u}) {
    for (uint32_t k : {1u, 2u, n / 2, n - 1, n}) {
      if (k == 0 || k > n) continue;
      for (uint32_t draw = 0; draw < 300; ++draw) {
        const std::vector<uint32_t> picks = floyd_sample(7, draw, n, k);
        ASSERT_EQ(picks.size(), k);
        const std::set<uint32_t> distinct(picks.begin(), picks.end());
        ASSERT_EQ(distinct.size(), k) << "n " << n << " k " << k << " draw " << draw;
        ASSERT_LT(*distinct.rbegin(), n);
      }
    }
  }
}

TEST(BudgetFloyd, InclusionFrequencyIsUniform) {
  const uint32_t n = 40, k = 7, draws = 40000;
  std::vector<uint32_t> included(n, 0);
  for (uint32_t draw = 0; draw < draws; ++draw)
    for (uint32_t pick : floyd_sample(3, draw, n, k)) ++included[pick];
  const double p = static_cast<double>(k) / n, se = std::sqrt(p * (1 - p) / draws);
  for (uint32_t i = 0; i < n; ++i) EXPECT_NEAR(static_cast<double>(included[i]) / draws, p, 4 * se) << "item " << i;
}

TEST(BudgetFloyd, PhiloxKnownAnswerAndFirstStep) {
  // docs/statistics.md §2's Random123 known answers, by the independent implementation.
  EXPECT_EQ(independent_philox({0, 0, 0, 0}, 0, 0),
            (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(independent_philox({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u),
            (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
  // Draw 5's first step under seed 2^32 + 9: word 0 of counter (0, 5, 2^30, 0), key (9, 1).
  const uint64_t seed = (uint64_t{1} << 32) + 9;
  const std::array<uint32_t, 4> words = independent_philox({0, 5, 1u << 30, 0}, 9, 1);
  const Words4 library = draw_block(PhiloxKey(seed), 0, 5, kBudgetStream);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(library.w[w], words[w]);
  const uint32_t n = 1850, k = 96;
  const uint32_t expected_first = static_cast<uint32_t>((uint64_t{words[0]} * (n - k + 1)) >> 32);
  const std::vector<uint32_t> picks = floyd_sample(seed, 5, n, k);
  EXPECT_EQ(picks[0], expected_first);
  // Step 1 uses word 1 against t = n − k + 1.
  const uint32_t candidate = static_cast<uint32_t>((uint64_t{words[1]} * (n - k + 2)) >> 32);
  EXPECT_EQ(picks[1], candidate == picks[0] ? n - k + 1 : candidate);
}

// ---- rules ----

// Sums of a constructed selection set per grid threshold.
struct SelectionSums {
  std::vector<int64_t> s1, s2, accepted;
  int64_t n = 0;
};

SelectionSums sums_of(const std::vector<PoolItem>& labelled, const ThresholdGrid& grid) {
  SelectionSums sums;
  sums.s1.assign(grid.size(), 0);
  sums.s2.assign(grid.size(), 0);
  sums.accepted.assign(grid.size(), 0);
  for (const PoolItem& it : labelled) {
    ++sums.n;
    for (int32_t g = 0; g < grid.size(); ++g) {
      if (!(it.gate_ok && it.q >= grid.values[g])) continue;
      const int64_t twice_d = std::lround(2 * (it.c1 - it.c2));
      sums.s1[g] += twice_d;
      sums.s2[g] += twice_d * twice_d;
      ++sums.accepted[g];
    }
  }
  return sums;
}

int32_t choose(const std::vector<PoolItem>& labelled, const ThresholdGrid& grid, ThresholdRule rule) {
  const SelectionSums s = sums_of(labelled, grid);
  RuleSettings settings;
  settings.rule = rule;
  return choose_threshold(settings, grid.size(), s.s1.data(), s.s2.data(), s.accepted.data(), s.n);
}

TEST(BudgetRules, PointRuleLooserThanLowerBound) {
  const ThresholdGrid grid = parse_grid("0.6,0.8,0.95");
  // Below 0.8 one loss and one gain cancel: mean 0 passes the point rule, but the spread
  // (sd ≈ 0.47 over 10 items) sinks the lower bound. From 0.8 up every d is 0.
  std::vector<PoolItem> labelled = {{0.7, 0, 1},  {0.65, 1, 0}, {0.9, 1, 1}, {0.85, 1, 1}, {0.82, 0, 0},
                                    {0.81, 1, 1}, {0.5, 1, 0},  {0.4, 0, 1}, {0.3, 1, 1},  {0.2, 0, 1}};
  EXPECT_EQ(choose(labelled, grid, ThresholdRule::kPoint), 0);
  EXPECT_EQ(choose(labelled, grid, ThresholdRule::kLower), 1);
  // The lower bound by hand: mean 0, sd = sqrt(2/9), bound = −1.645·sd/√10 < −0.02.
  EXPECT_FALSE(rule_passes(RuleSettings{ThresholdRule::kLower, 0.02, 1.645}, 0, 8, 10));
  EXPECT_TRUE(rule_passes(RuleSettings{ThresholdRule::kPoint, 0.02, 1.645}, 0, 8, 10));
  EXPECT_TRUE(rule_passes(RuleSettings{ThresholdRule::kLower, 0.25, 1.645}, 0, 8, 10));  // bound ≈ −0.2452
  EXPECT_FALSE(rule_passes(RuleSettings{ThresholdRule::kLower, 0.24, 1.645}, 0, 8, 10));
}

TEST(BudgetRules, TiesGoToTheStricterThreshold) {
  const ThresholdGrid grid = parse_grid("0.5,0.6,0.7,0.9");
  // Every labelled item has q = 0.8: 0.5, 0.6 and 0.7 accept all of them, 0.9 none.
  const std::vector<PoolItem> labelled = {{0.8, 1, 1}, {0.8, 1, 1}, {0.8, 0, 0}, {0.8, 1, 1}};
  EXPECT_EQ(choose(labelled, grid, ThresholdRule::kPoint), 2);
  EXPECT_EQ(choose(labelled, grid, ThresholdRule::kLower), 2);
  // The order in which candidates are offered does not matter.
  ThresholdChoice choice;
  choice.offer(2, 4);
  choice.offer(0, 4);
  choice.offer(3, 0);
  choice.offer(1, 4);
  EXPECT_EQ(choice.chosen(4), 2);
}

TEST(BudgetRules, AllOnlyWhenNothingPasses) {
  const ThresholdGrid grid = parse_grid("0.5,0.9");
  // Every accepted item loses: 0.5 and 0.9 fail, so `all` (index 2).
  const std::vector<PoolItem> losing = {{0.95, 0, 1}, {0.92, 0, 1}, {0.7, 0, 1}};
  EXPECT_EQ(choose(losing, grid, ThresholdRule::kPoint), 2);
  EXPECT_EQ(choose(losing, grid, ThresholdRule::kLower), 2);
  // A threshold that accepts nothing passes (mean 0) and beats `all`.
  const std::vector<PoolItem> low = {{0.7, 0, 1}, {0.6, 0, 1}};
  EXPECT_EQ(choose(low, grid, ThresholdRule::kPoint), 1);
  EXPECT_EQ(choose(low, grid, ThresholdRule::kLower), 1);
  // Too few labels for the rule: nothing passes.
  EXPECT_EQ(choose({{0.7, 1, 1}}, grid, ThresholdRule::kLower), 2);
  EXPECT_EQ(choose({{0.7, 1, 1}}, grid, ThresholdRule::kPoint), 0);
  EXPECT_EQ(choose({}, grid, ThresholdRule::kPoint), 2);
}

// ---- the simulation against exact enumeration ----

void check_against_enumeration(ThresholdRule rule_kind, bool per_stratum) {
  std::vector<PoolItem> items = small_pool_items();
  if (per_stratum)
    for (size_t i = 0; i < items.size(); ++i) items[i].stratum = i % 3 == 0 ? 1 : 0;
  const CascadePool pool = make_pool(items, per_stratum ? 2 : 1);
  const ThresholdGrid grid = default_grid();
  const uint32_t n = 12, k = 4;
  RuleSettings rule;
  rule.rule = rule_kind;
  const int64_t heldout = n - k;

  // Exact distribution over all C(12, 4) = 495 selection sets.
  int64_t subsets = 0, losing = 0;
  double sum_delta = 0, sum_delta2 = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != static_cast<int>(k)) continue;
    std::vector<bool> labelled(n);
    for (uint32_t i = 0; i < n; ++i) labelled[i] = (mask >> i) & 1u;
    const double delta = heldout_delta(reference_outcome(pool, grid, rule, labelled, per_stratum).heldout_2d, heldout);
    ++subsets;
    losing += delta < -rule.tol ? 1 : 0;
    sum_delta += delta;
    sum_delta2 += delta * delta;
  }
  ASSERT_EQ(subsets, 495);
  const double p_loss = static_cast<double>(losing) / subsets, mean = sum_delta / subsets;
  const double sd = std::sqrt(sum_delta2 / subsets - mean * mean);
  ASSERT_GT(p_loss, 0.02) << "the pool should make losses possible";
  ASSERT_LT(p_loss, 0.98);

  const BudgetProblem problem = make_budget_problem(pool, grid, per_stratum);
  auto engine = make_cpu_budget_engine(problem, 2);
  BudgetRun run;
  run.k = k;
  run.rule = rule;
  run.seed = 20240611;
  const uint64_t draws = 100000;
  const BudgetSummary summary = simulate_budget(*engine, problem, run, draws);
  EXPECT_NEAR(summary.loss_share, p_loss, 4 * std::sqrt(p_loss * (1 - p_loss) / draws));
  EXPECT_NEAR(summary.delta_mean, mean, 4 * sd / std::sqrt(static_cast<double>(draws)));

  // Draw by draw, the engine's outcome is the reference outcome of the draw's selection set.
  DrawOutcomes outcomes;
  engine->run(run, 0, 500, outcomes);
  for (uint32_t draw = 0; draw < 500; ++draw) {
    std::vector<bool> labelled(n, false);
    for (uint32_t pick : floyd_sample(run.seed, draw, n, k)) labelled[pick] = true;
    const ReferenceOutcome expected = reference_outcome(pool, grid, rule, labelled, per_stratum);
    ASSERT_EQ(outcomes.heldout_2d[draw], expected.heldout_2d) << "draw " << draw;
    ASSERT_EQ(outcomes.heldout_escalated[draw], expected.heldout_escalated) << "draw " << draw;
    for (int32_t h = 0; h < problem.n_strata; ++h)
      ASSERT_EQ(outcomes.chosen[static_cast<size_t>(draw) * problem.n_strata + h], expected.chosen[h]);
  }
}

TEST(BudgetSimulation, MatchesEnumerationPointRule) { check_against_enumeration(ThresholdRule::kPoint, false); }
TEST(BudgetSimulation, MatchesEnumerationLowerRule) { check_against_enumeration(ThresholdRule::kLower, false); }
TEST(BudgetSimulation, MatchesEnumerationPerStratum) { check_against_enumeration(ThresholdRule::kLower, true); }

TEST(BudgetSimulation, FeeRatioFromHeldOutItems) {
  const std::vector<PoolItem> items = small_pool_items();
  const CascadePool pool = make_pool(items);
  const ThresholdGrid grid = default_grid();
  const BudgetProblem problem = make_budget_problem(pool, grid, false);
  auto engine = make_cpu_budget_engine(problem, 1);
  BudgetRun run;
  run.k = 3;
  run.rule.rule = ThresholdRule::kPoint;
  DrawOutcomes outcomes;
  engine->run(run, 0, 200, outcomes);
  for (uint32_t draw = 0; draw < 200; ++draw) {
    std::vector<bool> labelled(items.size(), false);
    for (uint32_t pick : floyd_sample(run.seed, draw, static_cast<uint32_t>(items.size()), run.k))
      labelled[pick] = true;
    const int32_t c = outcomes.chosen[draw];
    double cascade = 0, fallback = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (labelled[i]) continue;
      const bool accepted = c < grid.size() && items[i].gate_ok && items[i].q >= grid.values[c];
      cascade += items[i].fee_first + (accepted ? 0 : items[i].fee_fallback);
      fallback += items[i].fee_fallback;
    }
    EXPECT_NEAR(outcomes.fee_ratio[draw], cascade / fallback, 1e-12) << "draw " << draw;
  }
}

TEST(BudgetSimulation, StratumWithTooFewLabelsEscalates) {
  // Stratum 1 holds 3 of 30 items, so with k = 6 it often gets 0 or 1 labels.
  std::vector<PoolItem> items;
  for (int i = 0; i < 30; ++i)
    items.push_back({0.55 + 0.015 * i, 1, i % 4 == 0 ? 0.0 : 1.0, true, 0.001, 0.01, i < 3 ? 1 : 0});
  const CascadePool pool = make_pool(items, 2);
  const ThresholdGrid grid = default_grid();
  const BudgetProblem problem = make_budget_problem(pool, grid, true);
  auto engine = make_cpu_budget_engine(problem, 1);
  BudgetRun run;
  run.k = 6;
  run.rule.rule = ThresholdRule::kLower;
  DrawOutcomes outcomes;
  const uint32_t draws = 3000;
  engine->run(run, 0, draws, outcomes);
  int few = 0, enough = 0;
  for (uint32_t draw = 0; draw < draws; ++draw) {
    int labels_in_small = 0;
    for (uint32_t pick : floyd_sample(run.seed, draw, 30, run.k)) labels_in_small += pick < 3 ? 1 : 0;
    const int32_t chosen_small = outcomes.chosen[2 * draw + 1];
    if (labels_in_small < 2) {
      ++few;
      ASSERT_EQ(chosen_small, grid.size()) << "draw " << draw << ": " << labels_in_small << " labels";
    } else {
      ++enough;
      // All of the small stratum's items agree with the fallback or gain: some grid τ passes.
      ASSERT_LT(chosen_small, grid.size()) << "draw " << draw;
    }
  }
  EXPECT_GT(few, 100);
  EXPECT_GT(enough, 100);
}

// ---- determinism ----

TEST(BudgetDeterminism, CpuOutcomesIndependentOfThreads) {
  const CascadePool pool = load_w2_pool();
  for (bool per_stratum : {false, true}) {
    const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
    BudgetRun run;
    run.k = 96;
    run.rule.rule = ThresholdRule::kLower;
    DrawOutcomes reference;
    make_cpu_budget_engine(problem, 1)->run(run, 1000, 4000, reference);
    for (int threads : {2, 5}) {
      DrawOutcomes outcomes;
      make_cpu_budget_engine(problem, threads)->run(run, 1000, 4000, outcomes);
      EXPECT_EQ(outcomes.heldout_2d, reference.heldout_2d) << threads << " threads";
      EXPECT_EQ(outcomes.heldout_escalated, reference.heldout_escalated) << threads << " threads";
      EXPECT_EQ(outcomes.chosen, reference.chosen) << threads << " threads";
      EXPECT_EQ(0, std::memcmp(outcomes.fee_ratio.data(), reference.fee_ratio.data(),
                               reference.fee_ratio.size() * sizeof(double)));
    }
    // Nor does splitting the draws between engines (the split engine copies every outcome).
    std::vector<std::unique_ptr<BudgetEngine>> parts;
    for (int p = 0; p < 3; ++p) parts.push_back(make_cpu_budget_engine(problem, 1));
    DrawOutcomes split;
    make_split_budget_engine(problem, std::move(parts))->run(run, 1000, 4000, split);
    EXPECT_EQ(split.heldout_2d, reference.heldout_2d);
    EXPECT_EQ(split.heldout_escalated, reference.heldout_escalated);
    EXPECT_EQ(split.chosen, reference.chosen);
    // A chunk boundary changes nothing either.
    DrawOutcomes tail;
    make_cpu_budget_engine(problem, 2)->run(run, 3000, 2000, tail);
    EXPECT_TRUE(std::equal(tail.heldout_2d.begin(), tail.heldout_2d.end(), reference.heldout_2d.begin() + 2000));
  }
}

TEST(BudgetDeterminism, CudaMatchesCpuPerDraw) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const CascadePool pool = load_w2_pool();
  // Both kernel variants (kernels/budget/cuda_budget_engine.cu), on the default grid and a fine one (O(grid) vs
  // O(grid²) rule step), pooled and per stratum.
  ThresholdGrid fine;
  for (int g = 0; g < 60; ++g) {
    fine.values.push_back(0.5 + g / 118.0);
    fine.labels.push_back(std::to_string(fine.values.back()));
  }
  for (const char* variant : {"1", "2"})
    for (const ThresholdGrid& grid : {default_grid(), fine})
      for (bool per_stratum : {false, true}) {
        const BudgetProblem problem = make_budget_problem(pool, grid, per_stratum);
        auto cpu = make_cpu_budget_engine(problem, 0);
        setenv("JUDGESTAT_BUDGET_KERNEL", variant, 1);
        auto cuda = make_cuda_budget_engine(problem, 0);
        unsetenv("JUDGESTAT_BUDGET_KERNEL");
        for (uint32_t k : {2u, 7u, 96u, 130u, 384u, 1849u}) {
          for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
            BudgetRun run;
            run.k = k;
            run.rule.rule = rule;
            run.seed = 99;
            const uint32_t draws = k > 1000 ? 2000 : 20000;
            DrawOutcomes expected, got;
            cpu->run(run, 12345, draws, expected);
            cuda->run(run, 12345, draws, got);
            SCOPED_TRACE(std::string("kernel ") + variant + ", grid " + std::to_string(grid.size()) + ", k " +
                         std::to_string(k) + " " + rule_name(rule) + (per_stratum ? " per stratum" : ""));
            EXPECT_EQ(got.heldout_2d, expected.heldout_2d);
            EXPECT_EQ(got.heldout_escalated, expected.heldout_escalated);
            EXPECT_EQ(got.chosen, expected.chosen);
            EXPECT_EQ(0, std::memcmp(got.fee_ratio.data(), expected.fee_ratio.data(), draws * sizeof(double)));
          }
        }
      }
  setenv("JUDGESTAT_BUDGET_KERNEL", "3", 1);
  const BudgetProblem problem = make_budget_problem(pool, default_grid(), false);
  EXPECT_THROW(make_cuda_budget_engine(problem, 0), std::runtime_error);
  unsetenv("JUDGESTAT_BUDGET_KERNEL");
}

// ---- agreement with the numpy peer on W2 ----

TEST(BudgetPeer, AgreesWithNumpyOnW2) {
  // Produced on this project's 2-core build machine by
  //   /usr/bin/python3 shared/anchors/gen_workload.py --items 1850 --clusters 1850 --judges 8 --seed 1 --out w2.csv
  //   /usr/bin/python3 shared/anchors/numpy_budget.py w2.csv --draws 20000 --k 96
  // (first judge0, fallback judge7, lower rule, default grid, tol 0.02, z 1.645, numpy seed 11).
  const double peer_p_loss = 0.0262, peer_mean_loss = -0.004317559863169898, peer_median_fee_ratio = 0.8905815279361455;
  const double peer_draws = 20000;

  const CascadePool pool = load_w2_pool();
  ASSERT_EQ(pool.size(), 1850);
  const BudgetProblem problem = make_budget_problem(pool, default_grid(), false);
  auto engine = make_cpu_budget_engine(problem, 0);
  BudgetRun run;
  run.k = 96;
  run.rule.rule = ThresholdRule::kLower;
  const uint64_t draws = 200000;
  const BudgetSummary summary = simulate_budget(*engine, problem, run, draws);

  const double p = summary.loss_share;
  const double se_share = std::sqrt(p * (1 - p) * (1.0 / draws + 1.0 / peer_draws));
  EXPECT_NEAR(summary.loss_share, peer_p_loss, 4 * se_share);
  // SD of Δ from the simulated distribution.
  double sum2 = 0;
  for (size_t x = 0; x < summary.delta_hist.size(); ++x) {
    const double delta = heldout_delta(static_cast<int64_t>(x) - 2 * summary.heldout_items, summary.heldout_items);
    sum2 += summary.delta_hist[x] * (delta - summary.delta_mean) * (delta - summary.delta_mean);
  }
  const double sd = std::sqrt(sum2 / (draws - 1));
  EXPECT_NEAR(summary.delta_mean, peer_mean_loss, 4 * sd * std::sqrt(1.0 / draws + 1.0 / peer_draws));
  // The fee ratio takes few distinct values near the median: the medians coincide closely.
  EXPECT_NEAR(summary.fee_ratio_median, peer_median_fee_ratio, 0.005);
  EXPECT_EQ(summary.escalate_all_share, 0.0);
}

// ---- summaries ----

TEST(BudgetSummary, HistogramQuantileIsType7) {
  // Values 3, 3, 5, 8 (offset −2: hist index x holds value x − 2).
  std::vector<uint64_t> hist(11, 0);
  hist[5] = 2;
  hist[7] = 1;
  hist[10] = 1;
  std::vector<double> values = {3, 3, 5, 8};
  for (double p : {0.0, 0.025, 0.3, 0.5, 0.9, 0.975, 1.0}) {
    const double h = 3 * p;
    const size_t lo = static_cast<size_t>(std::floor(h));
    const double expected = values[lo] + (h - lo) * (values[std::min<size_t>(lo + 1, 3)] - values[lo]);
    EXPECT_DOUBLE_EQ(histogram_quantile(hist, -2, p), expected) << p;
  }
}

// delta_p10 and escalated_median (docs/statistics.md §7.5) are type-7 quantiles of the draws' own
// Δ and escalated shares, computed here by sorting the per-draw outcomes; per stratum too.
TEST(BudgetSummary, DeltaP10AndEscalatedMedianOfTheDraws) {
  const CascadePool pool = load_w2_pool();
  for (bool per_stratum : {false, true}) {
    const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
    auto engine = make_cpu_budget_engine(problem, 2);
    BudgetRun run;
    run.k = 48;
    run.rule.rule = ThresholdRule::kPoint;
    const uint32_t draws = 4001;
    DrawOutcomes outcomes;
    engine->run(run, 0, draws, outcomes);
    const double heldout = pool.size() - run.k;
    std::vector<double> deltas, escalated;
    for (uint32_t r = 0; r < draws; ++r) {
      deltas.push_back(outcomes.heldout_2d[r] / (2 * heldout));
      escalated.push_back(outcomes.heldout_escalated[r] / heldout);
      ASSERT_GE(outcomes.heldout_escalated[r], 0);
      ASSERT_LE(outcomes.heldout_escalated[r], heldout);
    }
    auto type7 = [](std::vector<double> values, double p) {
      std::sort(values.begin(), values.end());
      const double h = (values.size() - 1) * p;
      const size_t lo = static_cast<size_t>(std::floor(h));
      return values[lo] + (h - lo) * (values[std::min(lo + 1, values.size() - 1)] - values[lo]);
    };
    const BudgetSummary summary = simulate_budget(*engine, problem, run, draws);
    EXPECT_NEAR(summary.delta_p10, type7(deltas, 0.10), 1e-15) << (per_stratum ? "per stratum" : "pooled");
    EXPECT_NEAR(summary.escalated_median, type7(escalated, 0.5), 1e-15);
    EXPECT_LE(summary.delta_q[0], summary.delta_p10);
    EXPECT_LE(summary.delta_p10, summary.delta_q[1]);
    EXPECT_GT(summary.escalated_median, 0.0);
    EXPECT_LT(summary.escalated_median, 1.0);
  }
}

// With a free first stage and one fallback fee per call, the held-out fee ratio is the escalated
// share: two outcomes of the engine, computed apart, must agree draw by draw (on the README's
// JudgeBench pool, per benchmark).
TEST(BudgetSummary, EscalatedShareIsTheFeeRatioWhenOnlyTheFallbackCosts) {
  const ItemMatrix matrix = load_item_matrix(testing_support::kRoot + "/data/judgebench/gpt4o_split.csv");
  const CascadePool pool =
      build_cascade_pool(matrix, "Skywork_Skywork-Reward-Llama-3.1-8B", "o1-mini-2024-09-12", 2, "benchmark",
                         {{"Skywork_Skywork-Reward-Llama-3.1-8B", 0.0}, {"o1-mini-2024-09-12", 0.0076}});
  const BudgetProblem problem = make_budget_problem(pool, default_grid(), true);
  auto engine = make_cpu_budget_engine(problem, 2);
  BudgetRun run;
  run.k = 96;
  run.rule.rule = ThresholdRule::kLower;
  DrawOutcomes outcomes;
  engine->run(run, 0, 2000, outcomes);
  for (uint32_t r = 0; r < 2000; ++r)
    ASSERT_NEAR(outcomes.fee_ratio[r], outcomes.heldout_escalated[r] / 254.0, 1e-12) << "draw " << r;
  const BudgetSummary summary = simulate_budget(*engine, problem, run, 2000);
  EXPECT_NEAR(summary.escalated_median, summary.fee_ratio_median, 1e-12);
}

// ---- the cascade pool from records ----

const char* kPoolCsv =
    "judge,item,benchmark,order,gold,verdict,p.A,p.B,fee_usd,latency_s\n"
    // i1: orders agree on A (gold A) -> c1 1, q 0.8
    "F,i1,x,0,A,A,0.9,0.1,0.001,0.2\n"
    "F,i1,x,1,A,A,0.7,0.3,0.002,0.4\n"
    // i2: averaged p.A = 0.5 exactly -> tie, c1 ½
    "F,i2,y,0,B,A,0.75,0.25,0.001,0.2\n"
    "F,i2,y,1,B,B,0.25,0.75,0.001,0.2\n"
    // i3: order 1 invalid (verdict not the top label) -> gate fails; c1 from order 0 only
    "F,i3,x,0,B,B,0.2,0.8,0.001,0.2\n"
    "F,i3,x,1,B,A,0.1,0.9,0.001,0.2\n"
    // i4: only order 0 -> gate fails with two orders, passes with one
    "F,i4,y,0,A,B,0.4,0.6,0.001,0.2\n"
    "S,i1,x,0,A,A,,,0.01,1.0\n"
    "S,i2,y,0,B,B,,,0.01,1.0\n"
    "S,i3,x,0,B,A,,,0.02,1.5\n"
    "S,i4,y,0,A,A,,,0.01,1.0\n";

TEST(BudgetCascadePool, OrderAveragedFirstStage) {
  const ItemMatrix matrix = load_item_matrix(write_temp("pool.csv", kPoolCsv));
  const CascadePool pool = build_cascade_pool(matrix, "F", "S", 2, "benchmark");
  ASSERT_EQ(pool.size(), 4);
  EXPECT_EQ(pool.c1, (std::vector<double>{1.0, 0.5, 1.0, 0.0}));
  EXPECT_DOUBLE_EQ(pool.q[0], 0.8);
  EXPECT_DOUBLE_EQ(pool.q[1], 0.5);
  EXPECT_DOUBLE_EQ(pool.q[2], 0.8);
  EXPECT_EQ(pool.gate_ok, (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(pool.c2, (std::vector<double>{1, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(pool.fee_first[0], 0.003);
  EXPECT_DOUBLE_EQ(pool.latency_first[0], 0.4);
  EXPECT_DOUBLE_EQ(pool.fee_fallback[2], 0.02);
  EXPECT_EQ(pool.strata_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(pool.stratum, (std::vector<int32_t>{0, 1, 0, 1}));

  const CascadePool single = build_cascade_pool(matrix, "F", "S", 1, "", {{"F", 0.5}}, {});
  EXPECT_EQ(single.gate_ok, (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(single.c1, (std::vector<double>{1.0, 0.0, 1.0, 0.0}));
  EXPECT_DOUBLE_EQ(single.fee_first[0], 0.5);
  EXPECT_EQ(single.strata_names, (std::vector<std::string>{"all"}));
}

// ---- bad input ----

template <class Call>
std::string usage_error_of(Call call) {
  return thrown_message<UsageError>(call);
}

template <class Call>
std::string invalid_argument_of(Call call) {
  return thrown_message<std::invalid_argument>(call);
}

TEST(BudgetErrors, FallbackMissingOnSomeItems) {
  std::string csv = "judge,item,order,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 9; ++i) {
    csv += "F,it" + std::to_string(i) + ",0,A,A,0.8,0.2\n";
    if (i < 2) csv += "S,it" + std::to_string(i) + ",0,A,A,,\n";
  }
  csv += "S,it3,1,A,A,,\n";  // order 1 only does not count
  const ItemMatrix matrix = load_item_matrix(write_temp("missing.csv", csv));
  const std::string message = usage_error_of([&] { build_cascade_pool(matrix, "F", "S"); });
  EXPECT_NE(message.find("no order-0 record on 7 of the 9 items"), std::string::npos) << message;
  EXPECT_NE(message.find("it2, it3, it4, it5, it6 and 2 more"), std::string::npos) << message;
}

TEST(BudgetErrors, UnknownJudgeAndNoProbabilities) {
  const ItemMatrix matrix = load_item_matrix(write_temp("judges.csv", kPoolCsv));
  const std::string unknown = usage_error_of([&] { build_cascade_pool(matrix, "G", "S"); });
  EXPECT_NE(unknown.find("unknown first-stage judge 'G'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("F, S"), std::string::npos) << unknown;
  EXPECT_NE(usage_error_of([&] { build_cascade_pool(matrix, "F", "T"); }).find("unknown fallback judge 'T'"),
            std::string::npos);
  // S has no probabilities: it cannot be the first stage.
  const std::string no_probs = usage_error_of([&] { build_cascade_pool(matrix, "S", "F"); });
  EXPECT_NE(no_probs.find("without probabilities"), std::string::npos) << no_probs;
  const ItemMatrix bare = load_item_matrix(write_temp("bare.csv", "judge,item,gold,verdict\nF,a,A,A\nS,a,A,B\n"));
  EXPECT_NE(usage_error_of([&] { build_cascade_pool(bare, "F", "S"); }).find("has no probabilities"),
            std::string::npos);
}

TEST(BudgetErrors, GridAndK) {
  EXPECT_NE(usage_error_of([] { parse_grid("0.5,1.2"); }).find("outside [0, 1]"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_grid("-0.1,0.5"); }).find("outside [0, 1]"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_grid("0.5,abc"); }).find("not a number"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_grid("0.8,0.6"); }).find("strictly ascend"), std::string::npos);
  EXPECT_EQ(parse_grid(" 0.5, 0.85 ,1").labels, (std::vector<std::string>{"0.5", "0.85", "1"}));
  EXPECT_NE(usage_error_of([] { parse_k_list("48,x"); }).find("--k"), std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_k_list("0"); }).find("--k"), std::string::npos);
  EXPECT_EQ(parse_k_list("48,96"), (std::vector<uint32_t>{48, 96}));

  const BudgetProblem problem = make_budget_problem(make_pool(small_pool_items()), default_grid(), false);
  // The library names its own field (k); the CLI says --k.
  const std::string too_big = invalid_argument_of([&] { check_budget_k(problem, 12, ThresholdRule::kLower); });
  EXPECT_EQ(too_big.rfind("k: 12 ", 0), 0u) << too_big;
  EXPECT_NE(too_big.find("k must be below 12"), std::string::npos) << too_big;
  EXPECT_NE(invalid_argument_of([&] { check_budget_k(problem, 1, ThresholdRule::kLower); }).find("at least 2"),
            std::string::npos);
  check_budget_k(problem, 1, ThresholdRule::kPoint);
  check_budget_k(problem, 11, ThresholdRule::kLower);
}

// ---- the command ----

std::string run_command(const std::string& arguments, int* status) {
  const std::string log = ::testing::TempDir() + "judgestat_budget_cli.log";
  const std::string command = judgestat::testing_support::kBinary + " budget " + arguments + " > " + log + " 2>&1";
  const int raw = std::system(command.c_str());
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(log);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(BudgetCommand, JsonHasSpecNames) {
  std::string csv = "judge,item,benchmark,order,gold,verdict,p.A,p.B,fee_usd\n";
  for (int i = 0; i < 60; ++i) {
    const std::string item = "q" + std::to_string(i), bench = i % 3 ? "easy" : "hard";
    const double p = 0.5 + 0.008 * i;
    const bool right = i % 7 != 0;
    for (int o = 0; o < 2; ++o) {
      char row[200];
      std::snprintf(row, sizeof row, "F,%s,%s,%d,A,%s,%.3f,%.3f,0.0001\n", item.c_str(), bench.c_str(), o,
                    right ? "A" : "B", right ? p : 1 - p, right ? 1 - p : p);
      csv += row;
    }
    csv += "S," + item + "," + bench + ",0,A," + (i % 11 ? "A" : "B") + ",,,0.002\n";
  }
  const std::string input = write_temp("cli.csv", csv);
  const std::string json_path = ::testing::TempDir() + "judgestat_budget_cli.json";
  int status = 0;
  const std::string output = run_command(input + " --first F --fallback S --k 5,10 --draws 3000 --backend cpu " +
                                             "--grid 0.5,0.7,0.9 --quiet --json " + json_path,
                                         &status);
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("P(loss > 2 pp) (%)"), std::string::npos) << output;
  std::ifstream in(json_path);
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json["command"], "budget");
  ASSERT_EQ(json["budget"].size(), 4u);  // 2 k × 2 rules
  const std::vector<std::string> names = {"k",
                                          "rule",
                                          "per_stratum",
                                          "draws",
                                          "loss_share",
                                          "delta_mean",
                                          "delta_q",
                                          "delta_p10",
                                          "fee_ratio_median",
                                          "fee_ratio_q",
                                          "tau_hist",
                                          "escalate_all_share",
                                          "escalated_median"};
  for (const auto& row : json["budget"]) {
    std::vector<std::string> keys;
    for (auto it = row.begin(); it != row.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    std::vector<std::string> expected = names;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(row["delta_q"].size(), 3u);
    EXPECT_TRUE(row["tau_hist"].contains("0.7"));
    EXPECT_TRUE(row["tau_hist"].contains("all"));
    EXPECT_EQ(row["draws"], 3000);
  }
  for (const char* key : {"seed", "draws", "backend", "device", "first", "fallback", "grid", "tol", "z", "strata"})
    EXPECT_TRUE(json["settings"].contains(key)) << key;
  for (const char* key : {"load_s", "resample_s", "draws_per_s"}) EXPECT_TRUE(json["timing"].contains(key)) << key;

  const std::string too_big = run_command(input + " --first F --fallback S --k 60 --backend cpu --quiet", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(too_big.find("k must be below 60"), std::string::npos) << too_big;
  const std::string too_small =
      run_command(input + " --first F --fallback S --k 1 --rule lower --backend cpu --quiet", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(too_small.find("at least 2"), std::string::npos) << too_small;
  const std::string bad_grid =
      run_command(input + " --first F --fallback S --grid 0.5,2 --backend cpu --quiet", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(bad_grid.find("outside [0, 1]"), std::string::npos) << bad_grid;
  const std::string bad_judge = run_command(input + " --first X --fallback S --backend cpu --quiet", &status);
  EXPECT_EQ(status, 2);
  EXPECT_NE(bad_judge.find("unknown first-stage judge 'X'"), std::string::npos) << bad_judge;
}

// ---- the analysis as a library function ----

BudgetOptions judgebench_options() {
  BudgetOptions options;
  options.first = "Skywork_Skywork-Reward-Llama-3.1-8B";
  options.fallback = "o1-mini-2024-09-12";
  options.ks = {48, 96};
  options.per_stratum = true;
  options.fee_per_call = {{"Skywork_Skywork-Reward-Llama-3.1-8B", 0.0}, {"o1-mini-2024-09-12", 0.0076}};
  options.draws = 5000;
  return options;
}

ExecTarget two_cpu_threads() {
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  return target;
}

// run_budget on the bundled JudgeBench split gives what `judgestat budget … --k 48,96 --per-stratum
// --fee … --draws 5000` printed before the analysis left the command (numbers from its JSON).
TEST(RunBudget, MatchesTheCommandOnJudgeBench) {
  const ItemMatrix matrix = load_item_matrix(testing_support::kRoot + "/data/judgebench/gpt4o_split.csv");
  std::vector<uint64_t> seen;
  BudgetOptions options = judgebench_options();
  options.progress = [&](uint64_t done, uint64_t total) {
    seen.push_back(done);
    EXPECT_EQ(total, 20000u);
  };
  const BudgetReport report = run_budget(matrix, options, two_cpu_threads());
  EXPECT_EQ(report.pool_items, 350);
  EXPECT_EQ(report.gate_ok, 350);
  EXPECT_EQ(report.pool_strata, (std::vector<std::string>{"mmlu", "livebench", "livecodebench"}));
  EXPECT_EQ(report.strata, "benchmark");
  EXPECT_EQ(report.backend, "cpu");
  EXPECT_EQ(report.device, "2 threads");
  EXPECT_EQ(report.total_draws, 20000u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 20000u);
  ASSERT_EQ(report.summaries.size(), 4u);  // k-major: (48, point), (48, lower), (96, point), (96, lower)
  const double loss[4] = {0.7846, 0.2528, 0.6646, 0.1144};
  const double escalate_all[4] = {0.004, 0.0576, 0.0108, 0.1264};
  for (size_t n = 0; n < 4; ++n) {
    const BudgetSummary& s = report.summaries[n];
    EXPECT_EQ(s.k, n < 2 ? 48u : 96u);
    EXPECT_EQ(s.rule, n % 2 ? ThresholdRule::kLower : ThresholdRule::kPoint);
    EXPECT_EQ(s.draws, 5000u);
    EXPECT_DOUBLE_EQ(s.loss_share, loss[n]);
    EXPECT_DOUBLE_EQ(s.escalate_all_share, escalate_all[n]);
  }
  EXPECT_DOUBLE_EQ(report.summaries[0].delta_mean, -0.04390496688741722);
  EXPECT_DOUBLE_EQ(report.summaries[1].fee_ratio_median, 0.814569536423841);
  EXPECT_EQ(report.summaries[1].tau_hist.back(), 5812u);  // `all`, summed over the three strata
  EXPECT_EQ(report.summaries[3].tau_hist[0], 66u);        // 0.5

  ReportHead head;
  head.envelope = {{"tool", "judgestat"}};
  head.load_s = 1.5;
  const Json json = to_json(report, head);
  std::vector<std::string> keys;
  for (auto it = json.begin(); it != json.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"tool", "settings", "pool", "budget", "timing"}));
  EXPECT_GE(json["timing"]["load_s"].get<double>(), 1.5);
  EXPECT_EQ(json["budget"][2]["loss_share"].get<double>(), 0.6646);
  EXPECT_EQ(json["budget"][0]["tau_hist"]["1"], 3855);
  EXPECT_EQ(json["settings"]["strata"], "benchmark");
  const std::string table = tables(report, "csv");
  EXPECT_NE(table.find(",78.46,"), std::string::npos) << table;  // the share in percent, its unit in the header
}

TEST(RunBudget, ErrorsNameTheFields) {
  const ItemMatrix matrix = load_item_matrix(testing_support::kRoot + "/data/judgebench/gpt4o_split.csv");
  BudgetOptions options = judgebench_options();
  options.tol = -1;
  EXPECT_EQ(invalid_argument_of([&] { run_budget(matrix, options, two_cpu_threads()); }).rfind("tol: ", 0), 0u);
  options = judgebench_options();
  options.ks = {400};
  EXPECT_EQ(invalid_argument_of([&] { run_budget(matrix, options, two_cpu_threads()); }).rfind("k: 400 ", 0), 0u);
  options = judgebench_options();
  for (uint64_t draws : {uint64_t{0}, (uint64_t{1} << 32) + 1}) {
    options.draws = draws;
    EXPECT_EQ(invalid_argument_of([&] { run_budget(matrix, options, two_cpu_threads()); }).rfind("draws: ", 0), 0u);
  }
}

}  // namespace
}  // namespace judgestat
