// `budget --compare` (docs/statistics.md §7.6): the interval test against a direct computation,
// Floyd's draws on stream 2^30 + 1 against an independent Philox, power on a tiny pool against
// every k-subset, identical per-draw outcomes on any thread count and the split engine, the
// analysis on the bundled JudgeBench split, the command's JSON, and bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyses/budget/budget_support.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/records.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::independent_philox;
using testing_support::kRoot;
using testing_support::thrown_message;
using testing_support::write_temp;

constexpr double kZ95 = 1.959963984540054;  // Φ⁻¹(0.975)

// docs/statistics.md §3.5's Floyd steps on §7.6's stream 2^30 + 1, with a plain list of picks.
std::vector<uint32_t> independent_floyd(uint64_t seed, uint32_t draw, uint32_t n, uint32_t k) {
  std::vector<uint32_t> picks;
  for (uint32_t i = 0; i < k; ++i) {
    const std::array<uint32_t, 4> words = independent_philox(
        {i / 4, draw, (1u << 30) + 1, 0}, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
    const uint32_t t = n - k + i;
    const uint32_t j = static_cast<uint32_t>((uint64_t{words[i % 4]} * (t + 1)) >> 32);
    picks.push_back(std::find(picks.begin(), picks.end(), j) == picks.end() ? j : t);
  }
  return picks;
}

// The z-interval of the mean of `d` (sd with divisor k − 1), in long double: +1 above 0, −1
// below, 0 across.
int reference_side(const std::vector<double>& d, double z) {
  const long double k = static_cast<long double>(d.size());
  long double sum = 0;
  for (double x : d) sum += x;
  const long double mean = sum / k;
  long double squares = 0;
  for (double x : d) squares += (x - mean) * (x - mean);
  const long double se = std::sqrt(squares / (k - 1)) / std::sqrt(k);
  if (mean - z * se > 0) return 1;
  if (mean + z * se < 0) return -1;
  return 0;
}

// Draw outcome from its picks, straight from the definition.
int reference_draw_side(const std::vector<double>& d, const std::vector<uint32_t>& picks, double z) {
  std::vector<double> labelled;
  for (uint32_t pick : picks) labelled.push_back(d[pick]);
  return reference_side(labelled, z);
}

// Twelve items' d = acc_B − acc_A or pa differences (halves): B ahead by 1/6 on the pool.
const std::vector<double> kTinyPool = {1, 0, 0.5, 0, -1, 1, 0, 0, 0.5, -0.5, 1, -0.5};

// ---- the interval test ----

TEST(BudgetCompareInterval, SideMatchesTheDirectInterval) {
  // (values of d, z): excluded above, below, across, a zero-width interval, all zero.
  const std::vector<std::pair<std::vector<double>, double>> cases = {{{1, 1, 1, 0, 1, 0.5, 1, 0}, kZ95},
                                                                     {{-1, -0.5, -1, 0, -1, -1}, kZ95},
                                                                     {{1, -1, 0, 0.5, -0.5}, kZ95},
                                                                     {{0.5, 0.5, 0.5}, kZ95},
                                                                     {{0, 0, 0, 0}, kZ95},
                                                                     {{1, 0, 1, 0, 1, 0, 1, 1, 1}, 2.5758},
                                                                     {{1, 0, 1, 0, 1, 0, 1, 1, 1}, 1.0},
                                                                     {{-0.5, 0}, 0.1}};
  for (const auto& [d, z] : cases) {
    int64_t sum = 0, sum_sq = 0;
    for (double x : d) {
      const int64_t scaled = std::lround(2 * x);
      sum += scaled;
      sum_sq += scaled * scaled;
    }
    const uint32_t k = static_cast<uint32_t>(d.size());
    EXPECT_EQ(compare_interval_side(sum, sum_sq, k, 2, z), reference_side(d, z)) << "first d " << d[0] << ", z " << z;
  }
  // By hand: d = (1, 1, 1, 0) → mean 0.75, sd 0.5, SE 0.25, 95 % interval (0.26, 1.24): above.
  EXPECT_EQ(compare_interval_side(6, 12, 4, 2, kZ95), 1);
  // z = 3: (0, 1.5) touches 0 and does not exclude it; z = 2.99 does.
  EXPECT_EQ(compare_interval_side(6, 12, 4, 2, 3.0), 0);
  EXPECT_EQ(compare_interval_side(6, 12, 4, 2, 2.99), 1);
}

// ---- the sampler ----

TEST(BudgetCompareDraws, FloydOnStream2To30Plus1LeavesTheBitmapClear) {
  // docs/statistics.md §7.6's example: seed 1, draw 0, N = 10, k = 3 labels items {3, 1, 2}.
  EXPECT_EQ(independent_floyd(1, 0, 10, 3), (std::vector<uint32_t>{3, 1, 2}));
  const std::vector<int8_t> marks = {0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
  std::vector<uint32_t> bitmap(1, 0);
  EXPECT_EQ(compare_draw(PhiloxKey(1), 0, marks.data(), 10, 3, bitmap.data(), 1).sum, 3);
  EXPECT_EQ(bitmap[0], 0u);

  std::mt19937 random(5);
  // A short bitmap (cleared word by word) and a long one (cleared by replaying the steps).
  for (uint32_t n : {40u, 3000u}) {
    std::vector<int8_t> scaled(n);
    for (auto& x : scaled) x = static_cast<int8_t>(static_cast<int>(random() % 5) - 2);
    std::vector<double> d(scaled.begin(), scaled.end());
    for (double& x : d) x /= 2;
    for (uint32_t k : {2u, 7u, n / 2, n}) {
      std::vector<uint32_t> taken(compare_bitmap_words(n), 0);
      for (uint32_t draw = 0; draw < 60; ++draw) {
        const uint64_t seed = (uint64_t{3} << 32) + 17;
        const CompareDraw got = compare_draw(PhiloxKey(seed), draw, scaled.data(), n, k, taken.data(), 1);
        const std::vector<uint32_t> picks = independent_floyd(seed, draw, n, k);
        int64_t sum = 0, sum_sq = 0;
        for (uint32_t pick : picks) {
          sum += scaled[pick];
          sum_sq += scaled[pick] * scaled[pick];
        }
        ASSERT_EQ(got.sum, sum) << "n " << n << " k " << k << " draw " << draw;
        ASSERT_EQ(got.sum_sq, sum_sq);
        ASSERT_TRUE(std::all_of(taken.begin(), taken.end(), [](uint32_t w) { return w == 0; }));
        ASSERT_EQ(compare_interval_side(got.sum, got.sum_sq, k, 2, kZ95), reference_draw_side(d, picks, kZ95));
      }
    }
  }
}

// ---- power against exact enumeration ----

// Every k-subset of the twelve items: the exact power, wrong-sign share and the mean and SD of
// the subsets' mean d.
struct Exact {
  double power = 0, wrong_sign = 0, mean = 0, sd = 0;
};

Exact enumerate_subsets(const std::vector<double>& d, uint32_t k, double z) {
  const uint32_t n = static_cast<uint32_t>(d.size());
  double pool = 0;
  for (double x : d) pool += x;
  int64_t subsets = 0, right = 0, wrong = 0;
  double sum = 0, sum2 = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<uint32_t>(__builtin_popcount(mask)) != k) continue;
    std::vector<double> labelled;
    for (uint32_t i = 0; i < n; ++i)
      if ((mask >> i) & 1u) labelled.push_back(d[i]);
    const int side = reference_side(labelled, z);
    ++subsets;
    right += side != 0 && (side > 0) == (pool > 0);
    wrong += side != 0 && (side > 0) != (pool > 0);
    double mean = 0;
    for (double x : labelled) mean += x / k;
    sum += mean;
    sum2 += mean * mean;
  }
  Exact exact;
  exact.power = static_cast<double>(right) / subsets;
  exact.wrong_sign = static_cast<double>(wrong) / subsets;
  exact.mean = sum / subsets;
  exact.sd = std::sqrt(std::max(0.0, sum2 / subsets - exact.mean * exact.mean));
  return exact;
}

TEST(BudgetCompareSimulation, PowerMatchesEveryKSubset) {
  const CompareProblem problem = make_compare_problem(kTinyPool, 2);
  ASSERT_EQ(problem.pool_scaled_sum, 4);  // Σ d = 2, so B is ahead: power counts intervals above 0
  auto engine = make_cpu_compare_engine(problem, 2);
  for (uint32_t k : {4u, 8u}) {
    const Exact exact = enumerate_subsets(kTinyPool, k, kZ95);
    // docs/statistics.md §7.6's example: 45 and 4 of the 495 four-item subsets lie above and
    // below 0, 21 and 0 of the eight-item ones.
    EXPECT_DOUBLE_EQ(exact.power, (k == 4 ? 45.0 : 21.0) / 495);
    EXPECT_DOUBLE_EQ(exact.wrong_sign, (k == 4 ? 4.0 : 0.0) / 495);
    ASSERT_GT(exact.power, 0.02) << "the pool should make both outcomes possible";
    ASSERT_LT(exact.power, 0.98);
    // Three items favour A: four labels can come out on the wrong side, eight cannot.
    if (k == 4) {
      ASSERT_GT(exact.wrong_sign, 0.0);
    } else {
      ASSERT_EQ(exact.wrong_sign, 0.0);
    }
    CompareRun run;
    run.k = k;
    run.seed = 20261201;
    const uint64_t draws = 200000;
    const CompareSummary s = simulate_compare(*engine, problem, run, draws);
    EXPECT_EQ(s.draws, draws);
    EXPECT_NEAR(s.power, exact.power, 4 * std::sqrt(exact.power * (1 - exact.power) / draws)) << "k " << k;
    EXPECT_NEAR(s.wrong_sign, exact.wrong_sign, 4 * std::sqrt(exact.wrong_sign * (1 - exact.wrong_sign) / draws));
    EXPECT_DOUBLE_EQ(s.pool_diff, 2.0 / 12);
    // The draws' mean d from the histogram of Σ 2d: unbiased for the pool's mean.
    double mean = 0;
    for (size_t x = 0; x < s.sum_hist.size(); ++x)
      mean += s.sum_hist[x] * ((static_cast<double>(x) - 2.0 * k) / (2.0 * k));
    mean /= draws;
    EXPECT_NEAR(exact.mean, 2.0 / 12, 1e-12);
    EXPECT_NEAR(mean, exact.mean, 4 * exact.sd / std::sqrt(static_cast<double>(draws)));
    EXPECT_LE(s.d_q[0], s.d_median);
    EXPECT_LE(s.d_median, s.d_q[1]);
  }
}

TEST(BudgetCompareSimulation, SummaryQuantilesAreType7OfTheDraws) {
  const CompareProblem problem = make_compare_problem(kTinyPool, 2);
  auto engine = make_cpu_compare_engine(problem, 1);
  CompareRun run;
  run.k = 5;
  CompareOutcomes outcomes;
  const uint32_t draws = 3001;
  engine->run(run, 0, draws, outcomes);
  std::vector<double> means;
  uint64_t above = 0, below = 0;
  for (uint32_t r = 0; r < draws; ++r) {
    means.push_back(outcomes.sum[r] / 10.0);
    above += outcomes.side[r] > 0;
    below += outcomes.side[r] < 0;
  }
  std::sort(means.begin(), means.end());
  auto type7 = [&](double p) {
    const double h = (means.size() - 1) * p;
    const size_t lo = static_cast<size_t>(std::floor(h));
    return means[lo] + (h - lo) * (means[std::min(lo + 1, means.size() - 1)] - means[lo]);
  };
  const CompareSummary s = simulate_compare(*engine, problem, run, draws);
  EXPECT_NEAR(s.d_median, type7(0.5), 1e-15);
  EXPECT_NEAR(s.d_q[0], type7(0.025), 1e-15);
  EXPECT_NEAR(s.d_q[1], type7(0.975), 1e-15);
  EXPECT_EQ(s.power, static_cast<double>(above) / draws);
  EXPECT_EQ(s.wrong_sign, static_cast<double>(below) / draws);
  // With no difference on the pool, every exclusion is on a wrong side.
  const CompareProblem tie = make_compare_problem({1, -1, 0.5, -0.5, 0, 0, 1, -1}, 2);
  auto tie_engine = make_cpu_compare_engine(tie, 1);
  run.k = 4;
  tie_engine->run(run, 0, draws, outcomes);
  uint64_t excluded = 0;
  for (uint32_t r = 0; r < draws; ++r) excluded += outcomes.side[r] != 0;
  const CompareSummary t = simulate_compare(*tie_engine, tie, run, draws);
  EXPECT_EQ(t.power, 0.0);
  EXPECT_EQ(t.wrong_sign, static_cast<double>(excluded) / draws);
  EXPECT_GT(excluded, 0u);
}

// ---- determinism ----

// d on the 350 JudgeBench pairs, as the analysis builds it (o1-mini minus Skywork-Gemma-27B, order 0).
std::vector<double> judgebench_d() {
  std::ifstream in(kRoot + "/data/judgebench/gpt4o_split.csv");
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::pair<int, int>> correct;  // item → (Skywork, o1-mini)
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    if (f[5] != "0") continue;
    if (!correct.count(f[1])) order.push_back(f[1]);
    auto& pair = correct[f[1]];
    if (f[0] == "Skywork_Skywork-Reward-Gemma-2-27B") pair.first = f[6] == f[7];
    if (f[0] == "o1-mini-2024-09-12") pair.second = f[6] == f[7];
  }
  std::vector<double> d;
  for (const std::string& item : order) d.push_back(correct[item].second - correct[item].first);
  return d;
}

TEST(BudgetCompareDeterminism, SameOutcomesOnAnyThreadsAndSplit) {
  const std::vector<double> d = judgebench_d();
  ASSERT_EQ(d.size(), 350u);
  const CompareProblem problem = make_compare_problem(d, 2);
  for (uint32_t k : {2u, 50u, 333u, 350u}) {
    CompareRun run;
    run.k = k;
    run.seed = 77;
    CompareOutcomes reference;
    make_cpu_compare_engine(problem, 1)->run(run, 1000, 3000, reference);
    std::vector<std::unique_ptr<CompareEngine>> parts;
    for (int p = 0; p < 3; ++p) parts.push_back(make_cpu_compare_engine(problem, 1 + p % 2));
    auto split = make_split_compare_engine(problem, std::move(parts));
    EXPECT_EQ(split->device(), "1 thread + 2 threads + 1 thread");
    for (int threads : {2, 3}) {
      CompareOutcomes got;
      make_cpu_compare_engine(problem, threads)->run(run, 1000, 3000, got);
      EXPECT_EQ(got.sum, reference.sum) << threads << " threads, k " << k;
      EXPECT_EQ(got.sum_sq, reference.sum_sq);
      EXPECT_EQ(got.side, reference.side);
    }
    CompareOutcomes got;
    split->run(run, 1000, 3000, got);
    EXPECT_EQ(got.sum, reference.sum) << "split, k " << k;
    EXPECT_EQ(got.sum_sq, reference.sum_sq);
    EXPECT_EQ(got.side, reference.side);
    // A chunk boundary changes nothing; the draws are those of the independent sampler.
    CompareOutcomes tail;
    make_cpu_compare_engine(problem, 2)->run(run, 2500, 1500, tail);
    EXPECT_TRUE(std::equal(tail.side.begin(), tail.side.end(), reference.side.begin() + 1500));
    for (uint32_t r : {0u, 1777u, 2999u})
      EXPECT_EQ(reference.side[r], reference_draw_side(d, independent_floyd(77, 1000 + r, 350, k), kZ95));
  }
  // Whole summaries: one engine, the split engine and small chunks agree exactly.
  CompareRun run;
  run.k = 100;
  std::vector<std::unique_ptr<CompareEngine>> parts;
  for (int p = 0; p < 2; ++p) parts.push_back(make_cpu_compare_engine(problem, 1));
  auto split = make_split_compare_engine(problem, std::move(parts));
  const CompareSummary a = simulate_compare(*make_cpu_compare_engine(problem, 3), problem, run, 20001);
  const CompareSummary b = simulate_compare(*split, problem, run, 20001);
  EXPECT_EQ(a.sum_hist, b.sum_hist);
  EXPECT_EQ(a.above, b.above);
  EXPECT_EQ(a.below, b.below);
}

// ---- the analysis ----

ExecTarget two_cpu_threads() {
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  return target;
}

BudgetCompareOptions judgebench_compare() {
  BudgetCompareOptions options;
  options.a = "Skywork_Skywork-Reward-Gemma-2-27B";
  options.b = "o1-mini-2024-09-12";
  options.ks = {50, 100, 200, 300};
  options.draws = 20000;
  return options;
}

TEST(RunBudgetCompare, JudgeBenchPowerGrowsWithK) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/judgebench/gpt4o_split.csv");
  const BudgetCompareReport report = run_budget_compare(matrix, judgebench_compare(), two_cpu_threads());
  EXPECT_EQ(report.items, 350);
  EXPECT_EQ(report.variant, "plain");
  // Order-0 accuracies counted straight from the file (ties are wrong): 225 and 248 of 350.
  EXPECT_DOUBLE_EQ(report.value_a, 225.0 / 350);
  EXPECT_DOUBLE_EQ(report.value_b, 248.0 / 350);
  EXPECT_DOUBLE_EQ(report.pool_diff, 23.0 / 350);
  EXPECT_DOUBLE_EQ(report.z, kZ95);
  EXPECT_EQ(report.backend, "cpu");
  ASSERT_EQ(report.summaries.size(), 4u);
  for (size_t n = 0; n < 4; ++n) {
    const CompareSummary& s = report.summaries[n];
    EXPECT_EQ(s.draws, 20000u);
    EXPECT_DOUBLE_EQ(s.pool_diff, report.pool_diff);
    if (n > 0) {
      EXPECT_GT(s.power, report.summaries[n - 1].power) << "k " << s.k;
    }
    EXPECT_LT(s.wrong_sign, 0.01);
    EXPECT_NEAR(s.d_median, report.pool_diff, 0.03);
  }
  // The analysis's draws are the engine's on the independently built pool.
  const CompareProblem problem = make_compare_problem(judgebench_d(), 2);
  CompareRun run;
  run.k = 100;
  run.z = report.z;
  const CompareSummary direct = simulate_compare(*make_cpu_compare_engine(problem, 1), problem, run, 20000);
  EXPECT_EQ(direct.sum_hist, report.summaries[1].sum_hist);
  EXPECT_EQ(direct.power, report.summaries[1].power);

  // The JSON keys of docs/statistics.md §7.6.
  ReportHead head;
  head.envelope = {{"tool", "judgestat"}};
  const Json json = to_json(report, head);
  ASSERT_EQ(json["budget"].size(), 4u);
  std::vector<std::string> keys;
  for (auto it = json["budget"][0].begin(); it != json["budget"][0].end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"compare", "d_median", "d_q", "draws", "k", "pool_diff", "power",
                                            "statistic", "wrong_sign"}));
  EXPECT_EQ(json["budget"][0]["compare"], (Json{"Skywork_Skywork-Reward-Gemma-2-27B", "o1-mini-2024-09-12"}));
  EXPECT_EQ(json["budget"][2]["k"], 200);
  EXPECT_EQ(json["budget"][0]["d_q"].size(), 2u);
  EXPECT_EQ(json["settings"]["stream"], (1u << 30) + 1);
  const std::string table = tables(report, "text");
  EXPECT_NE(table.find("wrong sign"), std::string::npos) << table;

  // pa: every item has both orders, so each judge's pa is its correct records over 700
  // (509 and 453, counted from the file; `metrics` prints 0.7271 and 0.6471).
  BudgetCompareOptions pa = judgebench_compare();
  pa.statistic = "pa";
  pa.ks = {100};
  pa.draws = 2000;
  const BudgetCompareReport by_pa = run_budget_compare(matrix, pa, two_cpu_threads());
  std::ifstream in(kRoot + "/data/judgebench/gpt4o_split.csv");
  std::string line;
  int correct_a = 0, correct_b = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    correct_a += f[0] == pa.a && f[6] == f[7];
    correct_b += f[0] == pa.b && f[6] == f[7];
  }
  EXPECT_EQ(correct_a, 453);
  EXPECT_EQ(correct_b, 509);
  EXPECT_DOUBLE_EQ(by_pa.value_a, correct_a / 700.0);
  EXPECT_DOUBLE_EQ(by_pa.value_b, correct_b / 700.0);
}

TEST(RunBudgetCompare, PositionAveragedDifferences) {
  // Two orders: A right in both on i1, in one on i2 (pa ½); B right in one on i1, wrong on i2;
  // i3 presented once (pa from its one order).
  const std::string csv =
      "judge,item,order,gold,verdict\n"
      "A,i1,0,A,A\nA,i1,1,A,A\nA,i2,0,B,B\nA,i2,1,B,A\nA,i3,0,A,B\n"
      "B,i1,0,A,B\nB,i1,1,A,A\nB,i2,0,B,A\nB,i2,1,B,A\nB,i3,0,A,A\n";
  const ItemMatrix matrix = load_item_matrix(write_temp("pa.csv", csv));
  BudgetCompareOptions options;
  options.a = "A";
  options.b = "B";
  options.statistic = "pa";
  options.ks = {2, 3};
  options.draws = 500;
  const BudgetCompareReport report = run_budget_compare(matrix, options, two_cpu_threads());
  // d = (½ − 1, 0 − ½, 1 − 0) = (−½, −½, 1): mean 0 = the pool difference.
  EXPECT_DOUBLE_EQ(report.value_a, 0.5);
  EXPECT_DOUBLE_EQ(report.value_b, 0.5);
  EXPECT_EQ(report.pool_diff, 0.0);
  EXPECT_EQ(report.scale, 2);
  // k = 3 labels the whole pool: d = (−½, −½, 1) every time, mean 0, interval across 0.
  EXPECT_EQ(report.summaries[1].d_median, 0.0);
  EXPECT_EQ(report.summaries[1].wrong_sign, 0.0);
  // k = 2: {−½, −½} (mean −½, zero width: excludes 0) in a third of the draws, else across.
  EXPECT_NEAR(report.summaries[0].wrong_sign, 1.0 / 3, 4 * std::sqrt(2.0 / 9 / 500));
  EXPECT_EQ(report.summaries[0].power, 0.0);
  // acc reads order 0 only: d = (0 − 1, 0 − 1, 1 − 0).
  options.statistic = "acc";
  const BudgetCompareReport acc = run_budget_compare(matrix, options, two_cpu_threads());
  EXPECT_DOUBLE_EQ(acc.pool_diff, -1.0 / 3);
}

// ---- bad input ----

template <class Call>
std::string message_of(Call call) {
  return thrown_message(call);
}

TEST(BudgetCompareErrors, JudgeMissingOnSomeItems) {
  std::string csv = "judge,item,benchmark,order,gold,verdict\n";
  for (int i = 0; i < 10; ++i) {
    const std::string item = "q" + std::to_string(i), bench = i < 7 ? "x" : "y";
    csv += "A," + item + "," + bench + ",0,A,A\n";
    if (i < 7) csv += "B," + item + "," + bench + ",0,A," + (i % 2 ? "A" : "B") + "\n";
  }
  csv += "B,q8,y,1,A,A\n";  // an order-1 record does not count
  const ItemMatrix matrix = load_item_matrix(write_temp("missing.csv", csv));
  BudgetCompareOptions options;
  options.a = "A";
  options.b = "B";
  options.ks = {3};
  options.draws = 100;
  const std::string missing = message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); });
  EXPECT_NE(missing.find("judge 'B' has no order-0 record on 3 of the 10 analysed items (q7, q8, q9)"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find("--benchmark"), std::string::npos) << missing;
  EXPECT_NE(missing.find("--common-items"), std::string::npos) << missing;
  EXPECT_THROW(run_budget_compare(matrix, options, two_cpu_threads()), UsageError);
  // Filtering them out, or keeping the common items, runs.
  options.benchmarks = {"x"};
  EXPECT_EQ(run_budget_compare(matrix, options, two_cpu_threads()).items, 7);
  options.benchmarks.clear();
  options.common_items = true;
  const BudgetCompareReport common = run_budget_compare(matrix, options, two_cpu_threads());
  EXPECT_EQ(common.items, 7);
  EXPECT_EQ(common.dropped, 3);
  EXPECT_DOUBLE_EQ(common.pool_diff, 3.0 / 7 - 1.0);
}

TEST(BudgetCompareErrors, OptionsAndBudgets) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/judgebench/gpt4o_split.csv");
  BudgetCompareOptions options = judgebench_compare();
  options.b = options.a;
  EXPECT_EQ(message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); }).rfind("compare: ", 0), 0u);
  options = judgebench_compare();
  options.ks = {400};
  const std::string too_big = message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); });
  EXPECT_EQ(too_big.rfind("k: 400 exceeds the 350 items", 0), 0u) << too_big;
  options.ks = {1};
  EXPECT_NE(message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); }).find("at least 2"),
            std::string::npos);
  options = judgebench_compare();
  options.statistic = "bc";
  EXPECT_EQ(message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); }).rfind("statistic: ", 0), 0u);
  options = judgebench_compare();
  options.level = 1.0;
  EXPECT_EQ(message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); }).rfind("level: ", 0), 0u);
  options = judgebench_compare();
  options.b = "nobody";
  EXPECT_THROW(run_budget_compare(matrix, options, two_cpu_threads()), UsageError);
  options = judgebench_compare();
  options.draws = 0;
  EXPECT_EQ(message_of([&] { run_budget_compare(matrix, options, two_cpu_threads()); }).rfind("draws: ", 0), 0u);
  // No budgets given: the defaults that fit the 350 items, with a note for 400.
  options = judgebench_compare();
  options.ks.clear();
  options.draws = 200;
  const BudgetCompareReport report = run_budget_compare(matrix, options, two_cpu_threads());
  ASSERT_EQ(report.summaries.size(), 3u);
  EXPECT_EQ(report.summaries.back().k, 200u);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes[0].find("k = 400"), std::string::npos) << report.notes[0];
  EXPECT_THROW(make_compare_problem({0.25}, 2), std::invalid_argument);
  EXPECT_THROW(check_compare_k(make_compare_problem({1, 0}, 2), 3), std::invalid_argument);
}

// ---- the command ----

TEST(BudgetCompareCommand, JsonAndErrors) {
  const std::string data = kRoot + "/data/judgebench/gpt4o_split.csv";
  const std::string json_path = ::testing::TempDir() + "judgestat_budget_compare.json";
  const auto run = testing_support::run_cli(
      "budget " + data +
      " --compare Skywork_Skywork-Reward-Gemma-2-27B,o1-mini-2024-09-12 --k 50,100 --draws 2000 --backend cpu "
      "--threads 2 --quiet --json " +
      json_path);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("power"), std::string::npos) << run.out;
  std::ifstream in(json_path);
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json["command"], "budget");
  ASSERT_EQ(json["budget"].size(), 2u);
  EXPECT_EQ(json["budget"][1]["k"], 100);
  EXPECT_EQ(json["budget"][1]["statistic"], "acc");
  EXPECT_EQ(json["settings"]["level"], 0.95);
  for (const char* key : {"load_s", "resample_s", "draws_per_s"}) EXPECT_TRUE(json["timing"].contains(key)) << key;

  const std::string pair = " --compare Skywork_Skywork-Reward-Gemma-2-27B,o1-mini-2024-09-12 --backend cpu --quiet";
  const auto too_big = testing_support::run_cli("budget " + data + pair + " --k 400");
  EXPECT_EQ(too_big.status, 2) << too_big.out;
  EXPECT_NE(too_big.out.find("--k: 400 exceeds the 350 items"), std::string::npos) << too_big.out;
  const auto same = testing_support::run_cli("budget " + data + " --compare o1-mini-2024-09-12,o1-mini-2024-09-12");
  EXPECT_EQ(same.status, 2);
  EXPECT_NE(same.out.find("--compare: 'o1-mini-2024-09-12' twice"), std::string::npos) << same.out;
  const auto one = testing_support::run_cli("budget " + data + " --compare o1-mini-2024-09-12");
  EXPECT_EQ(one.status, 2);
  EXPECT_NE(one.out.find("expected two judges"), std::string::npos) << one.out;
  const auto cascade_flag = testing_support::run_cli("budget " + data + pair + " --rule lower");
  EXPECT_EQ(cascade_flag.status, 2);
  EXPECT_NE(cascade_flag.out.find("--rule goes with the cascade"), std::string::npos) << cascade_flag.out;
  const auto level = testing_support::run_cli("budget " + data + pair + " --level 95");
  EXPECT_EQ(level.status, 2);
  EXPECT_NE(level.out.find("--level: "), std::string::npos) << level.out;
  const auto filter = testing_support::run_cli("budget " + data + pair + " --benchmark nope");
  EXPECT_EQ(filter.status, 2);
  EXPECT_NE(filter.out.find("--benchmark: 'nope' does not occur"), std::string::npos) << filter.out;
  const auto without = testing_support::run_cli("budget " + data +
                                                " --first Skywork_Skywork-Reward-Llama-3.1-8B "
                                                "--fallback o1-mini-2024-09-12 --statistic pa --backend cpu --quiet");
  EXPECT_EQ(without.status, 2);
  EXPECT_NE(without.out.find("--statistic goes with --compare"), std::string::npos) << without.out;
}

}  // namespace
}  // namespace judgestat
