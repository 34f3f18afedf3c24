// JEV App. C's rules for human adjudication (docs/statistics.md §7.2), on a file built from the
// paper's JudgeBench counts: the human-adjudicated difference with an indecisive item scored 0
// (`--indecisive zero`) or by its gold (the default), and Table 9's S2/S3 strata.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/replicates_identical.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// One JudgeBench item of the adjudication subset: gold A; the two judges' verdicts and the
// human's decision ("" = not adjudicated).
struct Item {
  const char *jev, *gpt, *human;
  int count;
};

// JEV App. C, JudgeBench (350 items): 69 disagreements — of the 60 the label scores for GPT-6 the
// human agrees on 56 and is indecisive on 4; of the 9 it scores for JEV the human agrees on 1,
// sides with GPT-6 on 1 and is indecisive on 7. S2: 15 both-wrong items, 4 confirm the label, 1
// the judges, 10 indecisive. S3: 7 controls, 5 = label, 2 indecisive. The rest both right.
const std::vector<Item> kJudgeBench{
    {"B", "A", "A", 56},         {"B", "A", "indecisive", 4}, {"A", "B", "A", 1},  {"A", "B", "B", 1},
    {"A", "B", "indecisive", 7}, {"B", "B", "A", 4},          {"B", "B", "B", 1},  {"B", "B", "indecisive", 10},
    {"A", "A", "A", 5},          {"A", "A", "indecisive", 2}, {"A", "A", "", 259},
};

std::string judgebench_csv() {
  std::string csv = "judge,item,gold,verdict,adjudicated\n";
  int n = 0;
  for (const Item& item : kJudgeBench)
    for (int k = 0; k < item.count; ++k, ++n) {
      const std::string id = "i" + std::to_string(n);
      csv += "JEV," + id + ",A," + item.jev + "," + item.human + "\n";
      csv += "GPT6," + id + ",A," + item.gpt + "," + item.human + "\n";
    }
  return csv;
}

// The paper's rule, item by item: a disagreement contributes +1 when the human sides with JEV,
// −1 with GPT-6, 0 when indecisive; an agreement 0. `indecisive_by_gold` scores indecisive
// items by the label instead (judgestat's default).
double judgebench_difference(bool indecisive_by_gold) {
  double sum = 0;
  int n = 0;
  for (const Item& item : kJudgeBench) {
    n += item.count;
    std::string truth = item.human;
    if (truth.empty() || (truth == "indecisive" && indecisive_by_gold)) truth = "A";
    if (truth == "indecisive") continue;
    sum += item.count * ((truth == item.jev) - (truth == item.gpt));
  }
  return sum / n;
}

MetricsOptions jev_minus_gpt(bool indecisive_zero) {
  MetricsOptions options;
  options.diff = {"acc"};
  options.reference = "GPT6";
  options.indecisive_zero = indecisive_zero;
  options.bootstrap.replicates = 200;
  return options;
}

double adjudicated_difference(const MetricsPlan& built, int64_t* n) {
  const std::vector<double> point = point_estimates(built.plan);
  for (size_t s = 0; s < built.plan.statistics.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.name == "diff" && l.of == std::optional<std::string>("acc_adjudicated") && l.judge == "JEV") {
      *n = l.n;
      return point[s];
    }
  }
  ADD_FAILURE() << "no diff acc_adjudicated";
  return NAN;
}

}  // namespace

TEST(AdjudicationRules, IndecisiveZeroGivesThePapersJudgeBenchDifference) {
  const ItemMatrix m =
      load_item_matrix(write_temp("jev_judgebench_adjudicated.csv", judgebench_csv()), LoadOptions{{"A", "B"}});
  int64_t n = 0;
  const double paper =
      adjudicated_difference(build_metrics_run_plan(m, select_records(m, {}), jev_minus_gpt(true)), &n);
  EXPECT_EQ(n, 350);
  EXPECT_NEAR(paper, judgebench_difference(false), 1e-15);
  EXPECT_NEAR(100 * paper, -16.0, 1e-12);  // JEV App. C: −16.0 points
  const double label =
      adjudicated_difference(build_metrics_run_plan(m, select_records(m, {}), jev_minus_gpt(false)), &n);
  EXPECT_NEAR(label, judgebench_difference(true), 1e-15);
  EXPECT_NEAR(label, -53.0 / 350, 1e-15);  // the audit's −15.1
}

TEST(AdjudicationRules, IndecisiveZeroAlsoUnderAdjudicatedGold) {
  // --gold adjudicated makes `diff acc` the label-substitution difference; the paper's rule
  // still differs from it, so its row stays.
  const ItemMatrix m =
      load_item_matrix(write_temp("jev_judgebench_adjudicated.csv", judgebench_csv()), LoadOptions{{"A", "B"}});
  MetricsOptions options = jev_minus_gpt(true);
  options.adjudicated_gold = true;
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  EXPECT_TRUE(report.indecisive_zero);
  bool found = false;
  for (size_t s = 0; s < report.statistics.labels.size(); ++s)
    if (report.statistics.labels[s].of == std::optional<std::string>("acc_adjudicated")) {
      EXPECT_NEAR(report.statistics.intervals[s].estimate, -0.16, 1e-12);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(to_json(report, ReportHead{})["settings"]["indecisive"], "zero");
}

TEST(AdjudicationRules, TableNineStrataCountTheAgreedItems) {
  const ItemMatrix m =
      load_item_matrix(write_temp("jev_judgebench_adjudicated.csv", judgebench_csv()), LoadOptions{{"A", "B"}});
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), jev_minus_gpt(false));
  ASSERT_EQ(built.disputes.size(), 1u);
  const Disputes& d = built.disputes[0];
  EXPECT_EQ(d.adjudicated, 69 + 15 + 7);
  EXPECT_EQ(d.disputed, 69);
  EXPECT_EQ(d.sides_with_judge, 1);
  EXPECT_EQ(d.sides_with_reference, 57);
  EXPECT_EQ(d.sides_with_neither, 11);
  EXPECT_EQ(d.both_wrong, 15);
  EXPECT_EQ(d.both_wrong_confirms_label, 4);
  EXPECT_EQ(d.both_wrong_sides_with_judges, 1);
  EXPECT_EQ(d.both_wrong_neither, 10);
  EXPECT_EQ(d.controls, 7);
  EXPECT_EQ(d.controls_confirm_label, 5);
  const MetricsReport report = run_metrics(m, jev_minus_gpt(false), cpu_target(1));
  ASSERT_EQ(report.disputes.size(), 1u);
  EXPECT_EQ(report.disputes[0].both_wrong_neither, 10);
  const Json row = to_json(report, ReportHead{})["disputes"][0];
  EXPECT_EQ(row["both_wrong_neither"], 10);
  EXPECT_EQ(row["controls_confirm_label"], 5);
  EXPECT_TRUE(contains(tables(report, "text"), "JEV Table 9 S2/S3"));
}

// Same seed, one or three threads and a small chunk: the paper's-rule row's replicates are
// bit-identical.
TEST(AdjudicationRules, IndecisiveZeroIsBitIdenticalAcrossThreads) {
  const ItemMatrix m =
      load_item_matrix(write_temp("jev_judgebench_adjudicated.csv", judgebench_csv()), LoadOptions{{"A", "B"}});
  expect_replicates_identical_across_threads(
      build_metrics_run_plan(m, select_records(m, {}), jev_minus_gpt(true)).plan);
}
