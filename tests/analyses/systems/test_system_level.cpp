// System-level rank agreement (docs/statistics.md §8.4, issue 28 item 3): the τ-b and ρ finishing
// programs against direct computations, and the systems analysis on pointwise score judges and on
// pairwise records with gold.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/profile/spearman.hpp"
#include "analyses/systems/systems_plan.hpp"
#include "analyses/systems/systems_test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;
using namespace judgestat::systems_testing;

namespace {

// Kendall's τ-b straight from its definition: (concordant − discordant) / √((n0 − n1)(n0 − n2)).
double direct_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, untied_x = 0, untied_y = 0;
  for (size_t s = 0; s < x.size(); ++s)
    for (size_t t = s + 1; t < x.size(); ++t) {
      const double dx = x[s] - x[t], dy = y[s] - y[t];
      if (dx != 0) ++untied_x;
      if (dy != 0) ++untied_y;
      if (dx * dy > 0) ++concordant;
      if (dx * dy < 0) ++discordant;
    }
  return (concordant - discordant) / std::sqrt(untied_x * untied_y);
}

// Pearson's r of the average ranks.
double direct_rho(const std::vector<double>& x, const std::vector<double>& y) {
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  const double mean = (x.size() + 1) / 2.0;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t s = 0; s < x.size(); ++s) {
    sxy += (rx[s] - mean) * (ry[s] - mean);
    sxx += (rx[s] - mean) * (rx[s] - mean);
    syy += (ry[s] - mean) * (ry[s] - mean);
  }
  return sxy / std::sqrt(sxx * syy);
}

// A plan of one unit per system whose columns hold x_s and y_s as sums over den_s units.
struct RankPlan {
  Plan plan;
  std::vector<std::vector<Op>> x, y;
};
RankPlan rank_plan(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& den) {
  RankPlan r;
  const size_t S = x.size();
  r.plan.stratum_offset = {0, static_cast<int64_t>(S)};
  for (size_t s = 0; s < S; ++s) {
    r.plan.unit_cluster.push_back(static_cast<int32_t>(s));
    r.plan.cluster_names.push_back("c" + std::to_string(s));
  }
  for (size_t s = 0; s < S; ++s) {
    std::vector<double> xs(S, 0.0), ys(S, 0.0), n(S, 0.0);
    xs[s] = x[s] * den[s];
    ys[s] = y[s] * den[s];
    n[s] = den[s];
    const int32_t kn = add_values(r.plan, "n" + std::to_string(s), n);
    r.x.push_back(ratio_program(add_values(r.plan, "x" + std::to_string(s), xs), kn));
    r.y.push_back(ratio_program(add_values(r.plan, "y" + std::to_string(s), ys), kn));
  }
  return r;
}

TEST(SystemsRankPrograms, TauAndRhoMatchDirectComputationWithTies) {
  // Seven systems, ties on both sides (means of 4 units each: quarters are exact in fixed point).
  const std::vector<double> x{0.25, 0.5, 0.5, 0.75, 1.0, 0.0, 0.5}, y{0.5, 0.25, 0.75, 0.75, 1.0, 0.25, 0.0};
  RankPlan r = rank_plan(x, y, std::vector<double>(7, 4.0));
  r.plan.statistics.push_back({StatLabel{"tau"}, kendall_tau_b_program(r.x, r.y)});
  r.plan.statistics.push_back({StatLabel{"rho"}, spearman_rho_program(r.x, r.y)});
  const std::vector<double> got = point_estimates(r.plan);
  EXPECT_NEAR(got[0], direct_tau_b(x, y), 1e-15);
  EXPECT_NEAR(got[1], direct_rho(x, y), 1e-15);
  // profile's Spearman (scipy.stats.spearmanr's definition), an implementation of its own.
  EXPECT_NEAR(got[1], spearman(x, y).rho, 1e-15);
}

TEST(SystemsRankPrograms, ReversedAndConstantRankings) {
  const std::vector<double> x{0.1, 0.2, 0.3, 0.4}, reversed{0.4, 0.3, 0.2, 0.1}, flat{0.5, 0.5, 0.5, 0.5};
  RankPlan r = rank_plan(x, reversed, std::vector<double>(4, 1.0));
  RankPlan f = rank_plan(x, flat, std::vector<double>(4, 1.0));
  r.plan.statistics.push_back({StatLabel{"tau"}, kendall_tau_b_program(r.x, r.y)});
  r.plan.statistics.push_back({StatLabel{"rho"}, spearman_rho_program(r.x, r.y)});
  f.plan.statistics.push_back({StatLabel{"tau"}, kendall_tau_b_program(f.x, f.y)});
  f.plan.statistics.push_back({StatLabel{"rho"}, spearman_rho_program(f.x, f.y)});
  const std::vector<double> got = point_estimates(r.plan), undefined = point_estimates(f.plan);
  EXPECT_EQ(got[0], -1.0);
  EXPECT_EQ(got[1], -1.0);
  EXPECT_TRUE(std::isnan(undefined[0]));  // one ranking is constant: 0/0
  EXPECT_TRUE(std::isnan(undefined[1]));
}

// Pointwise score judge: 4 systems × 3 responses (items), gold scores and J's scores on 1..5.
//   system  gold            J
//   m1      5 4 5 (4.667)   4 4 5 (4.333)
//   m2      3 3 4 (3.333)   5 4 4 (4.333)
//   m3      2 3 2 (2.333)   3 3 3 (3)
//   m4      1 2 1 (1.333)   2 1 1 (1.333)
const int kGold[4][3] = {{5, 4, 5}, {3, 3, 4}, {2, 3, 2}, {1, 2, 1}};
const int kJudge[4][3] = {{4, 4, 5}, {5, 4, 4}, {3, 3, 3}, {2, 1, 1}};

std::string pointwise_csv() {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.model\n";
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < 3; ++k)
      csv << "J,q" << s << k << "," << kGold[s][k] << "," << kJudge[s][k] << ",m" << s + 1 << "\n";
  return csv.str();
}

TEST(SystemsLevel, PointwiseScoreJudgeRanksSystemsAgainstGold) {
  std::vector<double> judge_means, gold_means;
  for (int s = 0; s < 4; ++s) {
    double j = 0, g = 0;
    for (int k = 0; k < 3; ++k) {
      j += kJudge[s][k];
      g += kGold[s][k];
    }
    judge_means.push_back(j / 3);
    gold_means.push_back(g / 3);
  }
  SystemsOptions options;
  options.systems = {"x.model"};
  LoadOptions load;
  load.scale = ScoreScale{1, 5};
  const SystemsReport report = systems_of("pointwise.csv", pointwise_csv(), options, load);
  for (int s = 0; s < 4; ++s) {
    const std::string system = "m" + std::to_string(s + 1);
    EXPECT_NEAR(estimate(report, "system_score", "J", system, std::nullopt, "judge"), judge_means[s], 1e-15);
    EXPECT_NEAR(estimate(report, "system_score", "J", system, std::nullopt, "gold"), gold_means[s], 1e-15);
  }
  // m1 and m2 tie by the judge: τ-b = (5 − 0) / √(5 · 6), ρ from the average ranks.
  EXPECT_NEAR(estimate(report, "kendall_tau", "J"), direct_tau_b(judge_means, gold_means), 1e-15);
  EXPECT_NEAR(estimate(report, "kendall_tau", "J"), 5.0 / std::sqrt(30.0), 1e-15);
  EXPECT_NEAR(estimate(report, "spearman_rho", "J"), direct_rho(judge_means, gold_means), 1e-15);
  EXPECT_EQ(row(report, "kendall_tau", "J")->n, 12);
  // A replicate that draws no response of some system leaves τ undefined there, counted.
  const auto tau = row(report, "kendall_tau", "J");
  EXPECT_LE(tau->interval.lo, tau->interval.hi);
}

TEST(SystemsLevel, PointwiseWithoutScoresIsLeftOutWithANote) {
  SystemsOptions options;
  options.systems = {"x.model"};
  options.self = {"x.model"};
  options.family = {{"J", "m1"}};
  const SystemsReport report = systems_of("categorical.csv", pointwise_csv(), options);
  EXPECT_FALSE(row(report, "kendall_tau", "J"));
  bool noted = false;
  for (const std::string& note : report.notes) noted = noted || contains(note, "needs score judges (--scale");
  EXPECT_TRUE(noted);
}

// Pairwise with gold: the systems ranked by overall win rate, by the judge and by gold.
TEST(SystemsLevel, PairwiseRanksByWinRate) {
  // Items: (A, B, gold, J's verdict).
  const std::vector<std::vector<std::string>> items{
      {"s1", "s2", "A", "A"}, {"s1", "s3", "A", "A"}, {"s1", "s4", "A", "B"}, {"s2", "s3", "A", "B"},
      {"s2", "s4", "A", "A"}, {"s3", "s4", "A", "A"}, {"s4", "s1", "B", "B"}, {"s3", "s2", "B", "A"}};
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.A,x.B\n";
  std::map<std::string, double> judge_wins, gold_wins, count;
  for (size_t k = 0; k < items.size(); ++k) {
    const auto& it = items[k];
    csv << "J,p" << k << "," << it[2] << "," << it[3] << "," << it[0] << "," << it[1] << "\n";
    judge_wins[it[3] == "A" ? it[0] : it[1]] += 1;
    gold_wins[it[2] == "A" ? it[0] : it[1]] += 1;
    count[it[0]] += 1;
    count[it[1]] += 1;
  }
  std::vector<double> by_judge, by_gold;
  for (const std::string s : {"s1", "s2", "s3", "s4"}) {
    by_judge.push_back(judge_wins[s] / count[s]);
    by_gold.push_back(gold_wins[s] / count[s]);
  }
  SystemsOptions options;
  options.systems = {"x.A", "x.B"};
  const SystemsReport report = systems_of("pairwise_gold.csv", csv.str(), options);
  for (size_t s = 0; s < 4; ++s) {
    const std::string system = "s" + std::to_string(s + 1);
    EXPECT_DOUBLE_EQ(estimate(report, "system_score", "J", system, std::nullopt, "judge"), by_judge[s]);
    EXPECT_DOUBLE_EQ(estimate(report, "system_score", "J", system, std::nullopt, "gold"), by_gold[s]);
  }
  EXPECT_NEAR(estimate(report, "kendall_tau", "J"), direct_tau_b(by_judge, by_gold), 1e-15);
  EXPECT_NEAR(estimate(report, "spearman_rho", "J"), direct_rho(by_judge, by_gold), 1e-15);
  EXPECT_EQ(row(report, "kendall_tau", "J")->n, 8);
}

}  // namespace
