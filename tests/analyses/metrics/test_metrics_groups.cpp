// metrics per difficulty group and on the hard subset (docs/statistics.md §7.1), and position
// bias read in the canonical label order whatever label the file names first.
#include <gtest/gtest.h>

#include <map>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Three judges on four items in order 0: a all right (0 wrong), b one wrong, c two, d three.
const char* kDifficulty =
    "judge,item,gold,verdict\n"
    "J1,a,A,A\nJ2,a,A,A\nJ3,a,A,A\n"
    "J1,b,A,A\nJ2,b,A,A\nJ3,b,A,B\n"
    "J1,c,B,B\nJ2,c,B,A\nJ3,c,B,A\n"
    "J1,d,B,A\nJ2,d,B,A\nJ3,d,B,A\n";

std::map<std::string, double> acc_by_group(const MetricsPlan& built, const std::string& judge) {
  std::map<std::string, double> out;
  const std::vector<double> point = point_estimates(built.plan);
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.name == "acc" && l.judge == judge) out[l.condition ? *l.condition : "all"] = point[s];
  }
  return out;
}

}  // namespace

TEST(MetricsGroups, ByDifficultyReportsEachGroupAsCondition) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty.csv", kDifficulty));
  SelectionOptions select;
  select.strata = "difficulty";
  const MetricsPlan built = build_metrics_plan(m, select_records(m, select), MetricsOptions{});
  const auto acc = acc_by_group(built, "J1");
  // J1 is right on a (group 0), b (1), c (2), wrong on d (3).
  EXPECT_EQ(
      acc,
      (std::map<std::string, double>{
          {"all", 0.75}, {"difficulty=0", 1.0}, {"difficulty=1", 1.0}, {"difficulty=2", 1.0}, {"difficulty=3", 0.0}}));
  EXPECT_EQ(acc_by_group(built, "J3").at("difficulty=1"), 0.0);
}

TEST(MetricsGroups, HardSubsetDropsItemsEveryJudgeGetsRight) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty.csv", kDifficulty));
  MetricsOptions options;
  options.hard_only = true;
  options.bootstrap.replicates = 50;
  const MetricsReport report = run_metrics(m, options, ExecTarget{ExecTarget::Kind::kCpu, {}, 1, 0});
  for (size_t s = 0; s < report.statistics.labels.size(); ++s) {
    const StatLabel& l = report.statistics.labels[s];
    if (l.name != "acc" || l.judge != "J2") continue;
    EXPECT_EQ(l.n, 3);                                                   // b, c, d
    EXPECT_DOUBLE_EQ(report.statistics.intervals[s].estimate, 1.0 / 3);  // right on b only
  }
}

TEST(MetricsGroups, PositionsFollowTheCanonicalLabelOrder) {
  // The first gold label in the file is B, so B is label 0 by first appearance; positions still
  // read A as shown first in order 0. The judge always picks what is shown first: A in order 0,
  // B in order 1.
  const ItemMatrix m = load_item_matrix(write_temp("b_first.csv",
                                                   "judge,item,gold,verdict,order\n"
                                                   "J,a,B,A,0\nJ,a,B,B,1\nJ,b,A,A,0\nJ,b,A,B,1\n"
                                                   "J,c,B,A,0\nJ,c,B,B,1\n"));
  ASSERT_EQ(m.labels.front(), "B");
  const MetricsPlan built = build_metrics_plan(m, select_records(m, {}), MetricsOptions{});
  const std::vector<double> point = point_estimates(built.plan);
  std::map<std::string, double> value;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    value[l.name + (l.position ? std::to_string(*l.position) : "")] = point[s];
  }
  EXPECT_EQ(value.at("position_rate0"), 1.0);
  EXPECT_EQ(value.at("position_rate1"), 0.0);
  EXPECT_EQ(value.at("always_first"), 1.0);
  EXPECT_EQ(value.at("always_second"), 0.0);
}

TEST(MetricsGroups, OrderKappaOfOneCategoryIsLeftOutWithANote) {
  // J says A in both orders on every item: p_e = 1, κ = 0/0.
  const ItemMatrix m = load_item_matrix(
      write_temp("one_category.csv", "judge,item,gold,verdict,order\nJ,a,A,A,0\nJ,a,A,A,1\nJ,b,B,A,0\nJ,b,B,A,1\n"));
  const MetricsPlan built = build_metrics_plan(m, select_records(m, {}), MetricsOptions{});
  for (const auto& stat : built.plan.statistics) EXPECT_NE(stat.label.name, "kappa");
  bool noted = false;
  for (const auto& note : built.notes) noted = noted || note.find("kappa of J is left out") != std::string::npos;
  EXPECT_TRUE(noted);
}
