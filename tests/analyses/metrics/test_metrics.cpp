// The accuracy family on real data: LLMBar's own published counts reproduced exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;

namespace {

using namespace judgestat::testing_support;

std::vector<std::vector<std::string>> read_simple_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

// Count = estimate × n for each (name, judge, order) statistic of a plan.
std::map<std::string, double> counts(const MetricsPlan& built) {
  std::map<std::string, double> out;
  const auto estimates = point_estimates(built.plan);
  for (size_t s = 0; s < estimates.size(); ++s) {
    const StatLabel& label = built.plan.statistics[s].label;
    if (label.name == "diff") continue;
    const std::string key =
        label.judge + "|" + label.name + (label.order && label.name == "acc" ? std::to_string(*label.order) : "");
    out[key] = estimates[s] * static_cast<double>(label.n);
    out[key + "|n"] = static_cast<double>(label.n);
  }
  return out;
}

}  // namespace

TEST(MetricsLLMBar, ReproducesAllPublishedCounts) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/llmbar/natural_neighbor.csv");
  const auto published = read_simple_csv(kRoot + "/data/llmbar/statistics_natural_neighbor.csv");
  ASSERT_EQ(published.size(), 131u);  // header + 130 rows
  ASSERT_EQ(published[0], (std::vector<std::string>{"benchmark", "condition", "judge", "n", "correct_order0",
                                                    "correct_order1", "correct_both", "equal"}));
  std::map<std::string, std::map<std::string, double>> by_condition;
  for (const std::string condition : {"Natural", "Neighbor"}) {
    SelectionOptions select;
    select.conditions = {condition};
    const Selection selection = select_records(matrix, select);
    MetricsOptions options;
    options.invalid_match = true;
    by_condition[condition] = counts(build_metrics_plan(matrix, selection, options));
  }
  int checked = 0;
  for (size_t row = 1; row < published.size(); ++row) {
    const auto& f = published[row];
    const auto& c = by_condition.at(f[1]);
    const std::string judge = f[2];
    SCOPED_TRACE(f[1] + " " + judge);
    EXPECT_EQ(c.at(judge + "|acc0|n"), std::stod(f[3]));
    EXPECT_EQ(std::lround(c.at(judge + "|acc0")), std::stol(f[4]));
    EXPECT_EQ(std::lround(c.at(judge + "|acc1")), std::stol(f[5]));
    EXPECT_EQ(std::lround(c.at(judge + "|bc")), std::stol(f[6]));
    EXPECT_EQ(std::lround(c.at(judge + "|cons")), std::stol(f[7]));
    // Counts are exact, not rounded: estimate × n is an integer.
    EXPECT_NEAR(c.at(judge + "|acc0"), std::lround(c.at(judge + "|acc0")), 1e-9);
    ++checked;
  }
  EXPECT_EQ(checked, 130);
}

TEST(MetricsLLMBar, InvalidVerdictsMatchNothingByDefault) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/llmbar/natural_neighbor.csv");
  SelectionOptions select;
  select.conditions = {"Natural"};
  const Selection selection = select_records(matrix, select);
  const auto strict = counts(build_metrics_plan(matrix, selection, MetricsOptions{}));
  MetricsOptions lenient_options;
  lenient_options.invalid_match = true;
  const auto lenient = counts(build_metrics_plan(matrix, selection, lenient_options));
  // Some evaluator has invalid outputs in both orders of an item: cons differs there, never bc.
  bool any_difference = false;
  for (const auto& [key, value] : strict) {
    if (key.find("|cons") != std::string::npos && key.find("|n") == std::string::npos) {
      EXPECT_LE(value, lenient.at(key));
      any_difference = any_difference || value < lenient.at(key);
    }
    if (key.find("|bc") != std::string::npos) {
      EXPECT_EQ(value, lenient.at(key));
    }
  }
  EXPECT_TRUE(any_difference);
}

TEST(MetricsJudgeBench, PositionAveragedIsMeanOfOrders) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/judgebench/gpt4o_split.csv");
  const Selection selection = select_records(matrix, SelectionOptions{});
  const MetricsPlan built = build_metrics_plan(matrix, selection, MetricsOptions{});
  const auto c = counts(built);
  for (const auto& judge : matrix.judges) {
    // Every judge covers all 350 pairs in both orders here, so pa = (acc0 + acc1) / 2.
    EXPECT_EQ(c.at(judge + "|acc0|n"), 350);
    EXPECT_NEAR(c.at(judge + "|pa"), (c.at(judge + "|acc0") + c.at(judge + "|acc1")) / 2, 1e-9);
    EXPECT_LE(c.at(judge + "|bc"), std::min(c.at(judge + "|acc0"), c.at(judge + "|acc1")));
    EXPECT_GE(c.at(judge + "|cons"), c.at(judge + "|bc"));
  }
}

TEST(MetricsLLMBar, OrderKappaMatchesPublishedAgreement) {
  // LLMBar's statistics.json `kappa_agreement` (Cohen's κ between the two orders' verdicts) for
  // Natural/GPT-4/Vanilla and Natural/LLaMA2/Swap (raw files of the LLMBar repository).
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/llmbar/natural_neighbor.csv");
  SelectionOptions select;
  select.conditions = {"Natural"};
  select.judges = {"GPT-4/Vanilla", "LLaMA2/Swap"};
  const MetricsPlan built = build_metrics_plan(matrix, select_records(matrix, select), MetricsOptions{});
  const auto estimates = point_estimates(built.plan);
  std::map<std::string, double> kappa;
  for (size_t s = 0; s < estimates.size(); ++s)
    if (built.plan.statistics[s].label.name == "kappa") kappa[built.plan.statistics[s].label.judge] = estimates[s];
  ASSERT_EQ(kappa.size(), 2u);
  EXPECT_NEAR(kappa.at("GPT-4/Vanilla"), 0.897708674304419, 1e-12);
  EXPECT_NEAR(kappa.at("LLaMA2/Swap"), 0.4330651060716899, 1e-12);
}

// run_metrics, the library entry point: LLMBar's published counts from the report's intervals.
TEST(RunMetrics, ReproducesPublishedCountsOnLLMBar) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/llmbar/natural_neighbor.csv");
  MetricsOptions options;
  options.conditions = {"Natural"};
  options.judges = {"ChatGPT-0301/CoT"};
  options.invalid_match = true;
  options.bootstrap.replicates = 200;
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  const MetricsReport report = run_metrics(matrix, options, target);
  ASSERT_EQ(report.statistics.labels.size(), report.statistics.intervals.size());
  std::map<std::string, double> count;
  for (size_t s = 0; s < report.statistics.labels.size(); ++s) {
    const StatLabel& label = report.statistics.labels[s];
    const std::string key = label.name + (label.order && label.name == "acc" ? std::to_string(*label.order) : "");
    count[key] = report.statistics.intervals[s].estimate * static_cast<double>(label.n);
    if (key == "acc0") {
      EXPECT_EQ(label.n, 100);
    }
  }
  // statistics_natural_neighbor.csv: LLMBar,Natural,ChatGPT-0301/CoT,100,81,83,69,74
  EXPECT_NEAR(count.at("acc0"), 81, 1e-9);
  EXPECT_NEAR(count.at("acc1"), 83, 1e-9);
  EXPECT_NEAR(count.at("bc"), 69, 1e-9);
  EXPECT_NEAR(count.at("cons"), 74, 1e-9);
  ASSERT_EQ(report.validity.size(), 1u);
  EXPECT_EQ(report.validity[0].judge, "ChatGPT-0301/CoT");
  EXPECT_EQ(report.validity[0].records, 200);
  EXPECT_TRUE(report.probability.empty());  // LLMBar has no probabilities
  EXPECT_EQ(report.strata, "");
  EXPECT_EQ(report.statistics.replicates_run, 200u);
}

// run_metrics + to_json give the CLI's JSON, key for key (the envelope and timing aside), on
// data with probabilities (reliability, risk_coverage, flip_by_confidence) and strata.
TEST(RunMetrics, ToJsonMatchesTheCli) {
  const std::string file = kRoot + "/data/judgebench/gpt4o_split.csv";
  const CliRun cli = run_cli("metrics " + file + " --by benchmark --replicates 300 --seed 7 --ci bca " +
                             "--backend cpu --threads 2 --quiet --format json");
  ASSERT_EQ(cli.status, 0) << cli.out;
  const Json expected = Json::parse(cli.out);
  const ItemMatrix matrix = load_item_matrix(file);
  MetricsOptions options;
  options.by = "benchmark";
  options.bootstrap.replicates = 300;
  options.bootstrap.seed = 7;
  options.bootstrap.ci = CiMethod::kBca;
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  const MetricsReport report = run_metrics(matrix, options, target);
  EXPECT_FALSE(report.probability.empty());
  const Json mine = to_json(report, ReportHead{});
  std::vector<std::string> keys;
  for (const auto& [key, value] : mine.items())
    if (key != "timing") keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"settings", "statistics", "validity", "notes", "confusion",
                                            "complementarity", "reliability", "risk_coverage", "flip_by_confidence"}));
  for (const std::string& key : keys) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(expected.contains(key));
    // Through text, as the CLI's JSON went (NaN as the writer spells it).
    EXPECT_EQ(dump_json(Json::parse(dump_json(mine[key]))), dump_json(expected[key]));
  }
  EXPECT_TRUE(mine["timing"].contains("load_s"));
  // The tables: the statistics table's rows then the probability-quality tables.
  const std::string text = tables(report, "text");
  EXPECT_NE(text.find("Probability quality, point estimates (no CI):"), std::string::npos);
  EXPECT_NE(text.find("stratified by benchmark"), std::string::npos);
}

// Library errors name the options' fields; the CLI names the flags.
TEST(RunMetrics, UnknownJudgeIsAUsageError) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/llmbar/natural_neighbor.csv");
  MetricsOptions options;
  options.judges = {"nobody"};
  options.bootstrap.replicates = 10;
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  EXPECT_THROW(run_metrics(matrix, options, target), UsageError);
}
