// The score-judge calibration panel (docs/statistics.md §8.2, issue 28): per gold level the judge's
// mean score as a plan statistic, against a direct computation written here on hand-built scores;
// bins of gold when it takes more than 12 values; the figure's CSV rows are the JSON rows.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/scores/score_calibration.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// judge,item,cluster,gold,verdict: item i in cluster c(i / 2).
std::string scores_csv(const std::vector<std::pair<std::string, std::vector<double>>>& judges,
                       const std::vector<double>& gold) {
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict\n";
  for (const auto& [judge, scores] : judges)
    for (size_t i = 0; i < scores.size(); ++i)
      csv << judge << ",i" << i << ",c" << i / 2 << "," << number_text(gold[i]) << "," << number_text(scores[i])
          << "\n";
  return csv.str();
}

MetricsReport scores_report(const std::string& csv, double low, double high) {
  MetricsOptions options;
  options.bootstrap.replicates = 300;
  LoadOptions load;
  load.scale = ScoreScale{low, high};
  return run_metrics(load_item_matrix(write_temp("calibration.csv", csv), load), options, cpu_target(2));
}

struct Row {
  double estimate = NAN, lo = NAN, hi = NAN;
  int64_t n = -1;
};

// The pooled rows `name` of `judge` by label.
std::map<std::string, Row> rows_of(const MetricsReport& r, const std::string& name, const std::string& judge) {
  std::map<std::string, Row> out;
  for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
    const StatLabel& l = r.statistics.labels[s];
    if (l.name != name || l.judge != judge || l.benchmark || l.condition || !l.label) continue;
    const Interval& v = r.statistics.intervals[s];
    out[*l.label] = {v.estimate, v.lo, v.hi, l.n};
  }
  return out;
}

// Direct: per key of `group` (a gold level or a bin) the mean of `values` and the count.
std::map<std::string, std::pair<double, int64_t>> means_by(const std::vector<std::string>& group,
                                                           const std::vector<double>& values) {
  std::map<std::string, std::pair<double, int64_t>> sums;
  for (size_t i = 0; i < values.size(); ++i) {
    sums[group[i]].first += values[i];
    ++sums[group[i]].second;
  }
  for (auto& [key, sum] : sums) sum.first /= double(sum.second);
  return sums;
}

const std::vector<double> kGold{1, 2, 3, 4, 5, 3, 2, 4, 5, 1, 3, 4};
const std::vector<double> kJ{2, 3, 3, 5, 5, 4, 1, 4, 5, 2, 2, 5};
const std::vector<double> kK{1, 2, 4, 4, 5, 3, 3, 4, 4, 1, 3, 5};

TEST(ScoreCalibration, MeansPerGoldLevelMatchTheDirectComputation) {
  const MetricsReport r = scores_report(scores_csv({{"J", kJ}, {"K", kK}}, kGold), 1, 5);
  std::vector<std::string> level;
  for (double g : kGold) level.push_back(number_text(g));
  for (const auto& [judge, scores] : {std::pair{"J", kJ}, std::pair{"K", kK}}) {
    const auto expected = means_by(level, scores);
    const auto rows = rows_of(r, "mean_score", judge);
    ASSERT_EQ(rows.size(), 5u) << judge;  // gold takes 1..5
    for (const auto& [key, mean_n] : expected) {
      const Row& row = rows.at(key);
      EXPECT_NEAR(row.estimate, mean_n.first, 1e-12) << judge << " at " << key;
      EXPECT_EQ(row.n, mean_n.second) << judge << " at " << key;
      EXPECT_LE(row.lo, row.estimate);
      EXPECT_GE(row.hi, row.estimate);
    }
  }
  // By hand for J at gold 3 (items 2, 5, 10: scores 3, 4, 2): 3.
  EXPECT_DOUBLE_EQ(rows_of(r, "mean_score", "J").at("3").estimate, 3.0);
  EXPECT_TRUE(rows_of(r, "mean_gold", "J").empty());  // levels, not bins: no mean_gold
}

TEST(ScoreCalibration, MoreThanTwelveGoldLevelsAreBinnedByEqualWidth) {
  // 40 items on 0..100: gold 0, 2.5, …, 97.5 (40 levels); the judge says gold + 10 capped at 100.
  std::vector<double> gold, judge;
  for (int i = 0; i < 40; ++i) {
    gold.push_back(2.5 * i);
    judge.push_back(std::min(100.0, 2.5 * i + 10));
  }
  const MetricsReport r = scores_report(scores_csv({{"J", judge}}, gold), 0, 100);
  // Ten bins of width 9.75 over [0, 97.5]; each named by its lowest and highest gold.
  std::vector<int> bin(40);
  std::map<int, std::pair<double, double>> bounds;
  for (int i = 0; i < 40; ++i) {
    bin[i] = std::min(9, int(std::floor(gold[i] / 9.75)));
    if (!bounds.count(bin[i])) bounds[bin[i]] = {gold[i], gold[i]};
    bounds[bin[i]].second = gold[i];
  }
  std::vector<std::string> name;
  for (int i = 0; i < 40; ++i)
    name.push_back(number_text(bounds[bin[i]].first) + " to " + number_text(bounds[bin[i]].second));
  const auto judge_means = means_by(name, judge), gold_means = means_by(name, gold);
  const auto rows = rows_of(r, "mean_score", "J"), x = rows_of(r, "mean_gold", "J");
  ASSERT_EQ(rows.size(), 10u);
  ASSERT_EQ(x.size(), 10u);
  for (const auto& [key, mean_n] : judge_means) {
    EXPECT_NEAR(rows.at(key).estimate, mean_n.first, 1e-12) << key;
    EXPECT_EQ(rows.at(key).n, mean_n.second) << key;
    EXPECT_NEAR(x.at(key).estimate, gold_means.at(key).first, 1e-12) << key;
  }
  EXPECT_EQ(rows.count("0 to 7.5"), 1u);  // 0, 2.5, 5, 7.5 < 9.75
  EXPECT_EQ(calibration_bin(97.5, 0, 97.5), 9);
  EXPECT_EQ(calibration_bin(3, 3, 3), 0);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ScoreCalibration, TheFiguresCsvRowsAreTheJsonRows) {
  const std::string path = write_temp("calibration_cli.csv", scores_csv({{"J", kJ}, {"K", kK}}, kGold));
  const std::string dir = temp_path("calibration_plots"), json_path = temp_path("calibration.json");
  const CliRun run =
      run_cli("metrics --scale 1:5 " + path + " --replicates 200 --quiet --json " + json_path + " --plots " + dir);
  ASSERT_EQ(run.status, 0) << run.out;
  const Json json = Json::parse(read_all(json_path));
  std::vector<std::string> expected{"judge,label,gold_score,estimate,ci_lo,ci_hi,n"};
  for (const Json& row : json["statistics"]) {
    if (row["name"] != "mean_score" || !row["benchmark"].is_null() || !row["condition"].is_null()) continue;
    std::ostringstream line;
    const auto number = [](const Json& v) {
      std::ostringstream out;
      out.precision(17);
      out << v.get<double>();
      return out.str();
    };
    const std::string label = row["label"].get<std::string>();
    line << row["judge"].get<std::string>() << "," << label << "," << label << "," << number(row["estimate"]) << ","
         << number(row["ci"][0]) << "," << number(row["ci"][1]) << "," << row["n"].get<int64_t>();
    expected.push_back(line.str());
  }
  ASSERT_EQ(expected.size(), 11u);  // two judges × five gold levels
  const std::vector<std::string> csv = lines_of(read_all(dir + "/metrics_score_calibration.csv"));
  ASSERT_EQ(csv.size(), expected.size());
  // csv_number writes the shortest round-trip text; compare the numbers, not their spelling.
  for (size_t k = 1; k < csv.size(); ++k) {
    std::istringstream a(csv[k]), b(expected[k]);
    for (std::string x, y; std::getline(a, x, ',') && std::getline(b, y, ',');)
      EXPECT_TRUE(x == y || std::stod(x) == std::stod(y)) << csv[k] << " vs " << expected[k];
  }
  const std::string svg = read_all(dir + "/metrics_score_calibration.svg");
  EXPECT_TRUE(contains(svg, "identity (judge = human)"));
  EXPECT_TRUE(contains(svg, "J at gold 3: 3.0000"));
}

}  // namespace
