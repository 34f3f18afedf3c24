// `--tie-credit half` (JEV Tables 1 and 13, §4): a reward model's exact score tie on a pair earns
// half credit — the expected credit of a random pick — in acc and pa; the default keeps
// JudgeBench's 0 (docs/statistics.md §1, §3.1).
#include <gtest/gtest.h>

#include <map>
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

// Gold A throughout; each item's verdicts in orders 0 and 1 ("tie": the two scores were equal).
const std::vector<std::pair<const char*, const char*>> kVerdicts{
    {"A", "A"}, {"A", "tie"}, {"tie", "B"}, {"tie", "tie"}};

std::string records() {
  std::string csv = "judge,item,gold,verdict,order\n";
  for (size_t i = 0; i < kVerdicts.size(); ++i) {
    const std::string item = "RM,i" + std::to_string(i) + ",A,";
    csv += item + kVerdicts[i].first + ",0\n" + item + kVerdicts[i].second + ",1\n";
  }
  return csv;
}

// The rule by hand: right 1, tie `tie`, anything else 0.
double credit(const std::string& verdict, double tie) { return verdict == "A" ? 1.0 : verdict == "tie" ? tie : 0.0; }

// acc per order, pa and bc by the rule.
std::map<std::string, double> expected(double tie) {
  std::map<std::string, double> out{{"acc0", 0}, {"acc1", 0}, {"pa", 0}, {"bc", 0}};
  const double n = static_cast<double>(kVerdicts.size());
  for (const auto& [first, second] : kVerdicts) {
    out["acc0"] += credit(first, tie) / n;
    out["acc1"] += credit(second, tie) / n;
    out["pa"] += (credit(first, tie) + credit(second, tie)) / 2 / n;
    out["bc"] += (credit(first, 0) * credit(second, 0)) / n;  // both correct: a tie is not
  }
  return out;
}

std::map<std::string, double> estimates(const ItemMatrix& m, bool half) {
  MetricsOptions options;
  options.tie_half_credit = half;
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  const std::vector<double> point = point_estimates(built.plan);
  std::map<std::string, double> out;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.judge != "RM" || l.reference) continue;
    if (l.name == "acc") out["acc" + std::to_string(*l.order)] = point[s];
    if (l.name == "pa" || l.name == "bc") out[l.name] = point[s];
  }
  return out;
}

}  // namespace

TEST(TieCredit, HalfCreditEntersAccAndPaOnly) {
  const ItemMatrix m = load_item_matrix(write_temp("ties.csv", records()), LoadOptions{{"A", "B"}});
  for (bool half : {false, true}) {
    const std::map<std::string, double> want = expected(half ? 0.5 : 0.0), got = estimates(m, half);
    for (const auto& [name, value] : want) EXPECT_DOUBLE_EQ(got.at(name), value) << name << (half ? " half" : " zero");
  }
  // The audit's numbers: order 0 has two right and two ties, 0.50 by JudgeBench's rule, 0.75 by JEV's.
  EXPECT_DOUBLE_EQ(estimates(m, false).at("acc0"), 0.50);
  EXPECT_DOUBLE_EQ(estimates(m, true).at("acc0"), 0.75);
}

TEST(TieCredit, SettingsAndNoteNameTheRule) {
  const ItemMatrix m = load_item_matrix(write_temp("ties.csv", records()), LoadOptions{{"A", "B"}});
  MetricsOptions options;
  options.tie_half_credit = true;
  options.bootstrap.replicates = 50;
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  EXPECT_EQ(to_json(report, ReportHead{})["settings"]["tie_credit"], "half");
  EXPECT_TRUE(contains(tables(report, "text"), "--tie-credit half"));
  options.tie_half_credit = false;
  EXPECT_FALSE(to_json(run_metrics(m, options, cpu_target(1)), ReportHead{})["settings"].contains("tie_credit"));
}

TEST(TieCredit, HalfCreditIsBitIdenticalAcrossThreads) {
  const ItemMatrix m = load_item_matrix(write_temp("ties.csv", records()), LoadOptions{{"A", "B"}});
  MetricsOptions options;
  options.tie_half_credit = true;
  expect_replicates_identical_across_threads(build_metrics_run_plan(m, select_records(m, {}), options).plan);
}
