// Paired inference between judges (docs/statistics.md §7.2, §7.3): differences of any per-judge
// statistic, all pairs, complementarity and oracle accuracy, disputes under human adjudication,
// p-values and their Holm / BH adjustment — each against values worked out in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/paired.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Two judges with probabilities on six items in both orders, three clusters.
const char* kTwoJudges =
    "judge,item,cluster,gold,verdict,order,p.A,p.B\n"
    "X,a,c1,A,A,0,0.9,0.1\nX,a,c1,A,A,1,0.8,0.2\n"
    "X,b,c1,B,A,0,0.6,0.4\nX,b,c1,B,B,1,0.3,0.7\n"
    "X,c,c2,A,A,0,0.7,0.3\nX,c,c2,A,A,1,0.6,0.4\n"
    "X,d,c2,B,B,0,0.2,0.8\nX,d,c2,B,B,1,0.1,0.9\n"
    "X,e,c3,A,B,0,0.4,0.6\nX,e,c3,A,B,1,0.45,0.55\n"
    "X,f,c3,B,B,0,0.35,0.65\nX,f,c3,B,A,1,0.55,0.45\n"
    "R,a,c1,A,A,0,0.6,0.4\nR,a,c1,A,B,1,0.4,0.6\n"
    "R,b,c1,B,B,0,0.2,0.8\nR,b,c1,B,B,1,0.3,0.7\n"
    "R,c,c2,A,B,0,0.3,0.7\nR,c,c2,A,B,1,0.2,0.8\n"
    "R,d,c2,B,B,0,0.1,0.9\nR,d,c2,B,B,1,0.4,0.6\n"
    "R,e,c3,A,A,0,0.8,0.2\nR,e,c3,A,A,1,0.7,0.3\n"
    "R,f,c3,B,B,0,0.45,0.55\nR,f,c3,B,B,1,0.3,0.7\n";

size_t find(const Plan& plan, const std::string& name, const std::string& judge,
            const std::optional<std::string>& of = std::nullopt, const std::optional<int>& order = std::nullopt) {
  for (size_t s = 0; s < plan.statistics.size(); ++s) {
    const StatLabel& l = plan.statistics[s].label;
    if (l.name == name && l.judge == judge && l.of == of && (!order || l.order == order) && !l.benchmark &&
        !l.condition)
      return s;
  }
  ADD_FAILURE() << "no " << name << " of " << judge;
  return 0;
}

MetricsOptions options_with(std::vector<std::string> diff) {
  MetricsOptions options;
  options.diff = std::move(diff);
  options.reference = "R";
  options.bootstrap.replicates = 200;
  options.bootstrap.keep_replicates = true;
  return options;
}

}  // namespace

TEST(PairedDifferences, AnyPerJudgeStatisticOnTheSameReplicates) {
  const ItemMatrix m = load_item_matrix(write_temp("paired.csv", kTwoJudges));
  const MetricsOptions options = options_with({"acc", "brier", "auroc_err", "macro_f1"});
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  const std::vector<double> point = point_estimates(built.plan);
  for (const std::string name : {"brier", "auroc_err", "macro_f1"}) {
    SCOPED_TRACE(name);
    const std::optional<int> order = name == "macro_f1" ? std::optional<int>(0) : std::nullopt;
    const size_t x = find(built.plan, name, "X", std::nullopt, order),
                 r = find(built.plan, name, "R", std::nullopt, order);
    const size_t d = find(built.plan, "diff", "X", name, order);
    EXPECT_EQ(*built.plan.statistics[d].label.reference, "R");
    EXPECT_EQ(point[d], point[x] - point[r]);
  }
  // Brier in order 0 by hand (§3.2): the mean over the 6 order-0 records of Σ_k (p_k − 1[k = gold])².
  auto brier = [](std::vector<std::array<double, 3>> rows) {  // {p_A, p_B, gold is A}
    double sum = 0;
    for (const auto& r : rows) sum += std::pow(r[0] - r[2], 2) + std::pow(r[1] - (1 - r[2]), 2);
    return sum / rows.size();
  };
  const double bx = brier({{0.9, 0.1, 1}, {0.6, 0.4, 0}, {0.7, 0.3, 1}, {0.2, 0.8, 0}, {0.4, 0.6, 1}, {0.35, 0.65, 0}});
  const double br = brier({{0.6, 0.4, 1}, {0.2, 0.8, 0}, {0.3, 0.7, 1}, {0.1, 0.9, 0}, {0.8, 0.2, 1}, {0.45, 0.55, 0}});
  bool checked = false;
  for (size_t s = 0; s < built.plan.statistics.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.name == "diff" && l.of == std::optional<std::string>("brier") && l.order == std::optional<int>(0)) {
      EXPECT_NEAR(point[s], bx - br, 1e-12);
      checked = true;
    }
  }
  EXPECT_TRUE(checked);

  // Every replicate of a diff is the replicate of the judge minus that of the reference.
  const MetricsReport report = run_metrics(m, options, ExecTarget{ExecTarget::Kind::kCpu, {}, 2, 0});
  const auto& labels = report.statistics.labels;
  const size_t S = labels.size();
  auto index = [&](const std::string& name, const std::string& judge, const std::optional<std::string>& of) {
    for (size_t s = 0; s < S; ++s)
      if (labels[s].name == name && labels[s].judge == judge && labels[s].of == of && !labels[s].order) return s;
    return S;
  };
  const size_t d = index("diff", "X", "auroc_err"), x = index("auroc_err", "X", {}), r = index("auroc_err", "R", {});
  ASSERT_LT(d, S);
  for (size_t b = 0; b < 200; ++b) {
    const double* rep = report.statistics.replicates.data() + b * S;
    if (std::isnan(rep[x]) || std::isnan(rep[r])) {
      EXPECT_TRUE(std::isnan(rep[d]));
    } else {
      EXPECT_EQ(rep[d], rep[x] - rep[r]);
    }
  }
}

TEST(PairedDifferences, AllPairsInSelectionOrderAndUnknownNames) {
  std::string csv = "judge,item,gold,verdict\n";
  for (const char* judge : {"J1", "J2", "J3"})
    for (int i = 0; i < 6; ++i)
      csv += std::string(judge) + ",i" + std::to_string(i) + ",A," + ((i + judge[1]) % 3 ? "A" : "B") + "\n";
  const ItemMatrix m = load_item_matrix(write_temp("pairs.csv", csv));
  MetricsOptions options = options_with({"acc"});
  options.reference.clear();
  options.all_pairs = true;
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& stat : built.plan.statistics)
    if (stat.label.name == "diff") pairs.push_back({stat.label.judge, *stat.label.reference});
  EXPECT_EQ(pairs, (std::vector<std::pair<std::string, std::string>>{{"J2", "J1"}, {"J3", "J1"}, {"J3", "J2"}}));

  options.diff = {"acc", "accuracy"};
  try {
    build_metrics_run_plan(m, select_records(m, {}), options);
    FAIL() << "an unknown statistic must be an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("diff: 'accuracy' is not a per-judge statistic"), std::string::npos);
  }
}

TEST(PairedDifferences, ComplementarityAndOracleAccuracy) {
  const ItemMatrix m = load_item_matrix(write_temp("paired.csv", kTwoJudges));
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options_with({"acc"}));
  // Order 0 by hand: X right on a, c, d, f; R right on a, b, d, e, f.
  ASSERT_EQ(built.complementarity.size(), 1u);
  const Complementarity& c = built.complementarity[0];
  EXPECT_EQ(c.judge, "X");
  EXPECT_EQ(c.reference, "R");
  EXPECT_EQ(c.n, 6);
  EXPECT_EQ(c.both_right, 3);      // a, d, f
  EXPECT_EQ(c.judge_only, 1);      // c
  EXPECT_EQ(c.reference_only, 2);  // b, e
  EXPECT_EQ(c.both_wrong, 0);
  const std::vector<double> point = point_estimates(built.plan);
  for (size_t s = 0; s < point.size(); ++s)
    if (built.plan.statistics[s].label.name == "oracle_acc") {
      EXPECT_EQ(point[s], 1.0);
      EXPECT_EQ(*built.plan.statistics[s].label.reference, "R");
    }
  // acc in order 0 has equal denominators: its difference carries a sign-flip test on the
  // per-unit differences (X − R: a 0, b −1, c +1, d 0, e −1, f 0).
  const size_t d = find(built.plan, "diff", "X", std::string("acc"), 0);
  bool tested = false;
  for (const SignFlipTest& test : built.plan.sign_flip_tests)
    if (test.statistic == static_cast<int32_t>(d)) {
      // The accuracy units come first; probability quality's record units follow, with 0 here.
      const std::vector<double> column = built.plan.columns[test.column].values();
      EXPECT_EQ(std::vector<double>(column.begin(), column.begin() + 6), (std::vector<double>{0, -1, 1, 0, -1, 0}));
      EXPECT_EQ(std::count(column.begin() + 6, column.end(), 0.0), static_cast<long>(column.size() - 6));
      tested = true;
    }
  EXPECT_TRUE(tested);
}

TEST(HumanAdjudication, DisputesAndTheAdjudicatedDifference) {
  // Order 0 only. X and R disagree on b, c, d, e; the human decides b for X, c for R, d
  // indecisive, e a third label C; a is adjudicated but not disputed, f not adjudicated.
  const ItemMatrix m = load_item_matrix(write_temp("adjudicated.csv",
                                                   "judge,item,gold,verdict,adjudicated\n"
                                                   "X,a,A,A,A\nR,a,A,A,A\n"
                                                   "X,b,A,B,B\nR,b,A,A,B\n"
                                                   "X,c,A,B,A\nR,c,A,A,A\n"
                                                   "X,d,B,A,indecisive\nR,d,B,B,indecisive\n"
                                                   "X,e,A,B,C\nR,e,A,A,C\n"
                                                   "X,f,B,B,\nR,f,B,A,\n"),
                                        LoadOptions{{"A", "B", "C"}});
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options_with({"acc"}));
  ASSERT_EQ(built.disputes.size(), 1u);
  const Disputes& d = built.disputes[0];
  EXPECT_EQ(d.adjudicated, 5);
  EXPECT_EQ(d.disputed, 4);
  EXPECT_EQ(d.sides_with_judge, 1);
  EXPECT_EQ(d.sides_with_reference, 1);
  EXPECT_EQ(d.sides_with_neither, 2);
  // Under adjudicated labels (gold where indecisive or absent): truth a A, b B, c A, d B, e C,
  // f B. X right on a, b, f → 3/6; R right on a, c, d → 3/6; per unit X − R: a 0, b +1,
  // c −1, d −1, e 0, f +1, difference 0.
  const std::vector<double> point = point_estimates(built.plan);
  const size_t s = find(built.plan, "diff", "X", std::string("acc_adjudicated"));
  EXPECT_EQ(point[s], 0.0);
  EXPECT_EQ(built.plan.statistics[s].label.n, 6);
  // Plain gold: X right on a and f (2/6); R on a, b, c, d, e (5/6).
  const size_t plain = find(built.plan, "diff", "X", std::string("acc"), 0);
  EXPECT_NEAR(point[plain], 2.0 / 6 - 5.0 / 6, 1e-15);

  // --gold adjudicated: every statistic under the substituted labels.
  MetricsOptions adjudicated = options_with({"acc"});
  adjudicated.adjudicated_gold = true;
  const MetricsReport report = run_metrics(m, adjudicated, ExecTarget{ExecTarget::Kind::kCpu, {}, 1, 0});
  EXPECT_EQ(report.gold_substituted, 2);  // b A → B and e A → C; a and c agree with gold
  for (size_t k = 0; k < report.statistics.labels.size(); ++k) {
    const StatLabel& l = report.statistics.labels[k];
    if (l.name == "acc" && (l.judge == "X" || l.judge == "R")) {
      EXPECT_NEAR(report.statistics.intervals[k].estimate, 0.5, 1e-15);
    }
  }
}

TEST(HumanAdjudication, NoAdjudicatedDifferenceWithoutADecision) {
  // The column exists but decides nothing (empty or indecisive): the row would repeat diff acc.
  const ItemMatrix m = load_item_matrix(write_temp("undecided.csv",
                                                   "judge,item,gold,verdict,adjudicated\n"
                                                   "X,a,A,A,indecisive\nR,a,A,B,indecisive\nX,b,B,B,\nR,b,B,B,\n"));
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options_with({"acc"}));
  for (const auto& stat : built.plan.statistics)
    EXPECT_NE(stat.label.of, std::optional<std::string>("acc_adjudicated"));
  ASSERT_EQ(built.disputes.size(), 1u);
  EXPECT_EQ(built.disputes[0].disputed, 1);
  EXPECT_EQ(built.disputes[0].sides_with_neither, 1);
}

TEST(PairedDifferences, NotesPairsThatShareUnderHalfTheirUnits) {
  // R rates six items in three clusters; X rates the first `n` of them. The diff of acc reads
  // the units each judge rated (its numerator and denominator columns).
  auto notes_with = [](int n) {
    std::string csv = "judge,item,cluster,gold,verdict\n";
    const char* items[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; ++i) {
      const std::string row = std::string(items[i]) + ",c" + std::to_string(1 + i / 2) + ",A,A\n";
      csv += "R," + row;
      if (i < n) csv += "X," + row;
    }
    const ItemMatrix m = load_item_matrix(write_temp("shared.csv", csv));
    MetricsOptions options = options_with({"acc"});
    return build_metrics_run_plan(m, select_records(m, {}), options).notes;
  };
  auto few_note = [](const std::vector<std::string>& notes) {
    for (const auto& note : notes)
      if (note.find("compares mostly different items") != std::string::npos) return note;
    return std::string();
  };
  // 3 of 6 is half: no note. 2 of 6 (one cluster) and 1 of 6 are under half.
  EXPECT_EQ(few_note(notes_with(3)), "");
  EXPECT_EQ(few_note(notes_with(6)), "");
  EXPECT_EQ(few_note(notes_with(2)),
            "diff of acc between X and R compares mostly different items: they share 2 of X's 2 and R's 6 units "
            "(1 clusters), under half of either's");
  EXPECT_EQ(few_note(notes_with(1)),
            "diff of acc between X and R compares mostly different items: they share 1 of X's 1 and R's 6 units "
            "(1 clusters), under half of either's");
}
