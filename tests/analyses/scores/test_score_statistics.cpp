// Score judges (issue 28 item 2; docs/statistics.md §8.2): `metrics` on a scored matrix. Each
// statistic against a direct computation written here on hand-built scores, and against quoted
// references: sklearn's cohen_kappa_score(weights="quadratic"), scipy's pearsonr / spearmanr /
// kendalltau, and Krippendorff (2011)'s 4 coders × 12 units example.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/metrics.hpp"
#include "plain_correlations.hpp"
#include "support/text.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Twelve items on a 1–5 scale: gold and two judges.
const std::vector<double> kGold{1, 2, 3, 4, 5, 3, 2, 4, 5, 1, 3, 4};
const std::vector<double> kJ{2, 3, 3, 5, 5, 4, 1, 4, 5, 2, 2, 5};
const std::vector<double> kK{1, 2, 4, 4, 5, 3, 3, 4, 4, 1, 3, 5};

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// judge,item,cluster,gold,verdict; items i1…, each its own cluster unless `clusters` says.
std::string scores_csv(const std::vector<std::pair<std::string, std::vector<double>>>& judges,
                       const std::vector<double>& gold, int items_per_cluster = 1) {
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict\n";
  for (const auto& [judge, scores] : judges)
    for (size_t i = 0; i < scores.size(); ++i)
      csv << judge << ",i" << i + 1 << ",c" << i / items_per_cluster << "," << number_text(gold[i]) << ","
          << number_text(scores[i]) << "\n";
  return csv.str();
}

MetricsReport scores_report(const std::string& csv, double low, double high, MetricsOptions options = {},
                            int threads = 2) {
  options.bootstrap.replicates = 300;
  LoadOptions load;
  load.scale = ScoreScale{low, high};
  return run_metrics(load_item_matrix(write_temp("scores.csv", csv), load), options, cpu_target(threads));
}

std::optional<double> estimate(const MetricsReport& report, const std::string& name, const std::string& judge,
                               std::optional<std::string> of = std::nullopt) {
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == name && labels[s].judge == judge && labels[s].of == of)
      return report.statistics.intervals[s].estimate;
  return std::nullopt;
}

// ---- Direct computations ----

using plain_formulas::pearson;
const auto& ranks = plain_formulas::average_ranks;

double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, tied_x = 0, tied_y = 0, pairs = 0;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) {
      const double s = (x[i] - x[j]) * (y[i] - y[j]);
      concordant += s > 0, discordant += s < 0, tied_x += x[i] == x[j], tied_y += y[i] == y[j], ++pairs;
    }
  return (concordant - discordant) / std::sqrt((pairs - tied_x) * (pairs - tied_y));
}

// sklearn's algorithm: confusion O over the labels seen, E = outer(row sums, column sums) / n,
// weights (i − j)² over the labels' indices.
double quadratic_kappa(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> labels = x;
  labels.insert(labels.end(), y.begin(), y.end());
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  const size_t K = labels.size();
  auto index = [&](double v) { return size_t(std::find(labels.begin(), labels.end(), v) - labels.begin()); };
  std::vector<double> observed(K * K, 0), rows(K, 0), columns(K, 0);
  for (size_t i = 0; i < x.size(); ++i)
    ++observed[index(x[i]) * K + index(y[i])], ++rows[index(x[i])], ++columns[index(y[i])];
  double wo = 0, we = 0;
  for (size_t a = 0; a < K; ++a)
    for (size_t b = 0; b < K; ++b) {
      const double w = (double(a) - double(b)) * (double(a) - double(b));
      wo += w * observed[a * K + b];
      we += w * rows[a] * columns[b] / double(x.size());
    }
  return 1 - wo / we;
}

}  // namespace

TEST(ScoreStatistics, EachStatisticMatchesItsDirectComputation) {
  const MetricsReport report = scores_report(scores_csv({{"J", kJ}, {"K", kK}}, kGold), 1, 5);
  for (const auto& [judge, scores] : {std::pair{"J", kJ}, std::pair{"K", kK}}) {
    SCOPED_TRACE(judge);
    double abs_sum = 0, squares = 0, exact = 0, within = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      const double e = kGold[i] - scores[i];
      abs_sum += std::fabs(e), squares += e * e, exact += e == 0, within += std::fabs(e) <= 1;
    }
    const double n = double(scores.size());
    EXPECT_NEAR(*estimate(report, "pearson", judge), pearson(kGold, scores), 1e-12);
    EXPECT_NEAR(*estimate(report, "spearman", judge), pearson(ranks(kGold), ranks(scores)), 1e-12);
    EXPECT_NEAR(*estimate(report, "kendall_tau_b", judge), kendall_tau_b(kGold, scores), 1e-12);
    EXPECT_NEAR(*estimate(report, "mae", judge), abs_sum / n, 1e-12);
    EXPECT_NEAR(*estimate(report, "rmse", judge), std::sqrt(squares / n), 1e-12);
    EXPECT_NEAR(*estimate(report, "exact", judge), exact / n, 1e-12);
    EXPECT_NEAR(*estimate(report, "within_one", judge), within / n, 1e-12);
    EXPECT_NEAR(*estimate(report, "qwk", judge), quadratic_kappa(kGold, scores), 1e-12);
  }
}

// The same data in Python (scikit-learn 1.x, scipy 1.x):
//   cohen_kappa_score(gold, J, weights="quadratic") = 0.8228782287822878 (K: 0.9036144578313253)
//   pearsonr = 0.8487927383291799, spearmanr = 0.8715963140583687, kendalltau = 0.7679795983467751
TEST(ScoreStatistics, MatchesScikitLearnAndScipyOnTheSameScores) {
  const MetricsReport report = scores_report(scores_csv({{"J", kJ}, {"K", kK}}, kGold), 1, 5);
  EXPECT_NEAR(*estimate(report, "qwk", "J"), 0.8228782287822878, 1e-12);
  EXPECT_NEAR(*estimate(report, "qwk", "K"), 0.9036144578313253, 1e-12);
  EXPECT_NEAR(*estimate(report, "pearson", "J"), 0.8487927383291799, 1e-12);
  EXPECT_NEAR(*estimate(report, "spearman", "J"), 0.8715963140583687, 1e-12);
  EXPECT_NEAR(*estimate(report, "kendall_tau_b", "J"), 0.7679795983467751, 1e-12);
  EXPECT_NEAR(*estimate(report, "mae", "K"), 4.0 / 12, 1e-12);
}

TEST(ScoreStatistics, IntervalsHoldTheirEstimateAndDiffIsTheDifference) {
  MetricsOptions options;
  options.diff = {"mae", "spearman", "qwk"};
  const MetricsReport report = scores_report(scores_csv({{"J", kJ}, {"K", kK}}, kGold, 2), 1, 5, options);
  for (const std::string name : {"mae", "spearman", "qwk"})
    EXPECT_NEAR(*estimate(report, "diff", "K", name), *estimate(report, name, "K") - *estimate(report, name, "J"),
                1e-12)
        << name;
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s) {
    const Interval& v = report.statistics.intervals[s];
    EXPECT_LE(v.lo, v.estimate) << labels[s].name;
    EXPECT_GE(v.hi, v.estimate) << labels[s].name;
  }
}

TEST(ScoreStatistics, SameSeedGivesTheSameReplicatesOnOneAndTwoThreads) {
  MetricsOptions options;
  options.bootstrap.keep_replicates = true;
  const std::string csv = scores_csv({{"J", kJ}, {"K", kK}}, kGold, 3);
  const MetricsReport one = scores_report(csv, 1, 5, options, 1), two = scores_report(csv, 1, 5, options, 2),
                      again = scores_report(csv, 1, 5, options, 2);
  ASSERT_FALSE(two.statistics.replicates.empty());
  EXPECT_EQ(0, std::memcmp(one.statistics.replicates.data(), two.statistics.replicates.data(),
                           two.statistics.replicates.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(again.statistics.replicates.data(), two.statistics.replicates.data(),
                           two.statistics.replicates.size() * sizeof(double)));
}

TEST(ScoreStatistics, ConstantGoldLeavesTheCorrelationsOutWithANote) {
  const std::vector<double> flat(12, 3.0);
  const MetricsReport report = scores_report(scores_csv({{"J", kJ}}, flat), 1, 5);
  EXPECT_FALSE(estimate(report, "pearson", "J"));
  EXPECT_FALSE(estimate(report, "kendall_tau_b", "J"));
  EXPECT_TRUE(estimate(report, "mae", "J"));
  bool noted = false;
  for (const std::string& note : report.notes) noted = noted || contains(note, "gold take one value");
  EXPECT_TRUE(noted);
}

namespace {

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §C: coders A–D × units 1–12,
// 0 = no value. α: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797 (the paper); the
// `krippendorff` package (PyPI, 0.8) gives 0.743421052631579, 0.8153875037548814,
// 0.8491071428571428 and 0.7974027747116121.
const std::vector<std::vector<double>> kCoders{{1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0},
                                               {1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3},
                                               {0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0},
                                               {1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0}};

// Raters' scores without gold: judge,item,gold,verdict with an empty gold; a 0 writes no record.
std::string raters_csv(const std::vector<std::string>& names, const std::vector<std::vector<double>>& scores) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict\n";
  for (size_t r = 0; r < names.size(); ++r)
    for (size_t u = 0; u < scores[r].size(); ++u)
      if (scores[r][u] != 0) csv << names[r] << ",u" << u + 1 << ",," << number_text(scores[r][u]) << "\n";
  return csv.str();
}

double alpha_at(const std::string& csv, const std::vector<std::string>& raters, AlphaLevel level, double low = 1,
                double high = 5) {
  MetricsOptions options;
  options.raters = raters;
  options.scores.alpha_level = level;
  const MetricsReport report = scores_report(csv, low, high, options);
  return estimate(report, "krippendorff_alpha", join(raters, ",")).value_or(NAN);
}

}  // namespace

TEST(ScoreAlpha, KrippendorffsWorkedExampleAtEveryLevel) {
  const std::vector<std::string> raters{"A", "B", "C", "D"};
  const std::string csv = raters_csv(raters, kCoders);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kNominal), 0.743421052631579, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kOrdinal), 0.8153875037548814, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kInterval), 0.8491071428571428, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kRatio), 0.7974027747116121, 1e-12);
}

// Two raters over ten units; the `krippendorff` package gives nominal 0.632258064516129, ordinal
// 0.8982142857142857, interval 0.91350531107739, ratio 0.8651177952734228.
TEST(ScoreAlpha, TwoRaters) {
  const std::vector<std::string> raters{"X", "Y"};
  const std::string csv = raters_csv(raters, {{1, 2, 3, 3, 2, 1, 4, 1, 2, 5}, {1, 2, 3, 4, 2, 2, 4, 1, 3, 5}});
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kNominal), 0.632258064516129, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kOrdinal), 0.8982142857142857, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kInterval), 0.91350531107739, 1e-12);
  EXPECT_NEAR(alpha_at(csv, raters, AlphaLevel::kRatio), 0.8651177952734228, 1e-12);
}

TEST(ScoreAlpha, RatioWithANegativeScoreNamesTheFlag) {
  const std::vector<std::string> raters{"X", "Y"};
  const std::string csv = raters_csv(raters, {{-2, 1, 2, 1}, {-1, 1, 2, 2}});
  try {
    alpha_at(csv, raters, AlphaLevel::kRatio, -2, 2);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_TRUE(contains(error.what(), "--alpha-level ratio")) << error.what();
  }
  EXPECT_TRUE(std::isfinite(alpha_at(csv, raters, AlphaLevel::kInterval, -2, 2)));
}

TEST(ScoreAlpha, ParsesItsLevelsAndNamesTheFlagOtherwise) {
  EXPECT_EQ(parse_alpha_level("ordinal"), AlphaLevel::kOrdinal);
  EXPECT_EQ(to_string(AlphaLevel::kRatio), "ratio");
  try {
    parse_alpha_level("metric");
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_TRUE(contains(error.what(), "--alpha-level")) << error.what();
  }
}

// Kendall's W = 12 S / (m²(n³ − n) − m Σ (t³ − t)) computed here from each rater's average ranks.
TEST(ScoreKendallW, MatchesTheTieCorrectedFormula) {
  const std::vector<std::string> raters{"P", "Q", "R"};
  const std::vector<std::vector<double>> scores{{1, 2, 2, 4, 5, 3}, {2, 1, 3, 4, 5, 5}, {1, 3, 2, 5, 4, 4}};
  const double m = 3, n = 6;
  std::vector<double> rank_sums(6, 0.0);
  double ties = 0;
  for (const auto& rater : scores) {
    const std::vector<double> r = ranks(rater);
    for (size_t i = 0; i < 6; ++i) rank_sums[i] += r[i];
    for (double value = 1; value <= 5; ++value) {
      const double t = double(std::count(rater.begin(), rater.end(), value));
      ties += t * t * t - t;
    }
  }
  const double mean_sum = m * (n + 1) / 2;
  double s = 0;
  for (double r : rank_sums) s += (r - mean_sum) * (r - mean_sum);
  const double expected = 12 * s / (m * m * (n * n * n - n) - m * ties);
  MetricsOptions options;
  options.raters = raters;
  const MetricsReport report = scores_report(raters_csv(raters, scores), 1, 5, options);
  EXPECT_NEAR(*estimate(report, "kendall_w", "P,Q,R"), expected, 1e-12);
}

// Pairs by x.pair: A is the first item of a pair. Margin 1: J decides A when a − b > 1.
//   pair  gold a,b → gold decision   J a,b → J decision
//   p1    5,1 → A                    5,2 → A   agree
//   p2    2,4 → B                    3,3 → tie
//   p3    3,3 → tie                  4,3 → tie agree
//   p4    1,5 → B                    2,5 → B   agree
//   p5    4,2 → A                    2,4 → B
// pair_acc = 3/5, pair_tie_rate = 2/5.
TEST(ScorePairs, DecisionsFromTwoScoresMatchAHandCount) {
  const double gold[5][2] = {{5, 1}, {2, 4}, {3, 3}, {1, 5}, {4, 2}};
  const double judge[5][2] = {{5, 2}, {3, 3}, {4, 3}, {2, 5}, {2, 4}};
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.pair\n";
  for (int p = 0; p < 5; ++p)
    for (int side = 0; side < 2; ++side)
      csv << "J,p" << p << (side ? "b" : "a") << "," << gold[p][side] << "," << judge[p][side] << ",p" << p << "\n";
  MetricsOptions options;
  options.scores.pair_covariate = "x.pair";
  options.scores.tie_margin = 1;
  const MetricsReport report = scores_report(csv.str(), 1, 5, options);
  EXPECT_NEAR(*estimate(report, "pair_acc", "J"), 3.0 / 5, 1e-12);
  EXPECT_NEAR(*estimate(report, "pair_tie_rate", "J"), 2.0 / 5, 1e-12);
}

TEST(ScorePairs, AValueOfThreeItemsNamesTheFlagAndTheItems) {
  const std::string csv = "judge,item,gold,verdict,x.pair\nJ,a,1,2,p\nJ,b,2,2,p\nJ,c,3,3,p\nJ,d,4,4,q\nJ,e,5,5,q\n";
  MetricsOptions options;
  options.scores.pair_covariate = "x.pair";
  try {
    scores_report(csv, 1, 5, options);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_TRUE(contains(error.what(), "--score-pairs x.pair")) << error.what();
    EXPECT_TRUE(contains(error.what(), "'a', 'b', 'c'")) << error.what();
  }
}

TEST(ScoreFlags, ANegativeTieMarginOrAnUnknownLevelNamesTheFlag) {
  const std::string path = write_temp("scores.csv", scores_csv({{"J", kJ}}, kGold));
  const CliRun margin = run_cli("metrics " + path + " --tie-margin=-1");
  EXPECT_NE(margin.status, 0);
  EXPECT_TRUE(contains(margin.out, "--tie-margin: expected a number >= 0")) << margin.out;
  const CliRun level = run_cli("metrics " + path + " --alpha-level metric");
  EXPECT_NE(level.status, 0);
  EXPECT_TRUE(contains(level.out, "--alpha-level: expected nominal, ordinal, interval or ratio")) << level.out;
}

// kSqrt, the plan op correlations and RMSE finish with: √x, NaN below 0 (undefined replicate).
TEST(ScorePlanOps, SqrtIsTheSquareRootAndUndefinedBelowZero) {
  const double unscale = 1.0, none = 0.0;
  const int64_t sums[1] = {0};
  const std::vector<Op> root = {{OpCode::kConstant, 0, 2.25}, {OpCode::kSqrt}};
  EXPECT_EQ(evaluate(root.data(), 2, sums, &unscale, &none), 1.5);
  const std::vector<Op> negative = {{OpCode::kConstant, 0, -1.0}, {OpCode::kSqrt}};
  EXPECT_TRUE(std::isnan(evaluate(negative.data(), 2, sums, &unscale, &none)));
  Plan plan;
  plan.stratum_offset = {0, 1};
  plan.unit_cluster = {0};
  plan.statistics.push_back({{"bad"}, {{OpCode::kSqrt}}});
  EXPECT_THROW(compile(plan), std::logic_error);  // sqrt of an empty stack is a builder's bug
}

// 7.3 − 6.3 is 1.0000000000000009 in binary: still within one point, and a tie at margin 1.
TEST(ScoreStatistics, DecimalScoresCompareAsWritten) {
  const MetricsReport within = scores_report(scores_csv({{"J", {7.3, 2.5, 4}}}, {6.3, 2.5, 5.5}), 0, 10);
  EXPECT_NEAR(*estimate(within, "within_one", "J"), 2.0 / 3, 1e-12);  // 1.0 (decimal) and 0 in; 1.5 out
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.pair\nJ,a,6.3,7.3,p\nJ,b,7.3,6.3,p\n";
  MetricsOptions options;
  options.scores.pair_covariate = "x.pair";
  options.scores.tie_margin = 1;
  const MetricsReport pairs = scores_report(csv.str(), 0, 10, options);
  EXPECT_NEAR(*estimate(pairs, "pair_tie_rate", "J"), 1.0, 1e-12);
  EXPECT_NEAR(*estimate(pairs, "pair_acc", "J"), 1.0, 1e-12);  // gold ties too
}

TEST(ScoreFlags, TheCommandLineReadsTheScaleAndNamesABadOne) {
  const std::string path = write_temp("scores.csv", scores_csv({{"J", kJ}, {"K", kK}}, kGold));
  const CliRun run = run_cli("metrics --scale 1:5 " + path + " --replicates 200 --quiet --format csv");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_TRUE(contains(run.out, "kendall_tau_b,,J,")) << run.out;
  const CliRun reversed = run_cli("metrics --scale 5:1 " + path);
  EXPECT_NE(reversed.status, 0);
  EXPECT_TRUE(contains(reversed.out, "--scale: expected LOW:HIGH with LOW < HIGH")) << reversed.out;
  const std::string negative = write_temp("negative.csv", raters_csv({"X", "Y"}, {{-2, 1, 2, 1}, {-1, 1, 2, 2}}));
  const CliRun ratio = run_cli("metrics --scale=-2:2 " + negative + " --raters X,Y --alpha-level ratio --quiet");
  EXPECT_NE(ratio.status, 0);
  EXPECT_TRUE(contains(ratio.out, "--alpha-level ratio: the ratio metric needs scores >= 0")) << ratio.out;
}

// A study file or Python gives the same options as typed values, read by the same flags.
TEST(ScoreFlags, TypedValuesReadAsTheFlags) {
  const TypedAnalysisRequest typed = parse_analysis_values(
      {"metrics", {{"scale", "1:10"}, {"alpha_level", "ordinal"}, {"tie_margin", 0.5}, {"score_pairs", "x.pair"}}});
  const auto& metrics = std::get<MetricsOptions>(typed.options);
  EXPECT_EQ(metrics.scores.alpha_level, AlphaLevel::kOrdinal);
  EXPECT_EQ(metrics.scores.tie_margin, 0.5);
  EXPECT_EQ(metrics.scores.pair_covariate, "x.pair");
  ASSERT_TRUE(typed.load.scale.has_value());
  EXPECT_EQ(typed.load.scale->low, 1);
  EXPECT_EQ(typed.load.scale->high, 10);
}

// --by benchmark: each group's statistics are the direct computation on its items.
TEST(ScoreStatistics, PerGroupRowsAreTheGroupsOwn) {
  std::ostringstream csv;
  csv << "judge,item,benchmark,gold,verdict\n";
  for (size_t i = 0; i < kJ.size(); ++i)
    csv << "J,i" << i << "," << (i < 6 ? "b1" : "b2") << "," << kGold[i] << "," << kJ[i] << "\n";
  MetricsOptions options;
  options.by = "benchmark";
  const MetricsReport report = scores_report(csv.str(), 1, 5, options);
  const std::vector<double> gold2(kGold.begin() + 6, kGold.end()), judge2(kJ.begin() + 6, kJ.end());
  bool found = false;
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == "spearman" && labels[s].benchmark == std::optional<std::string>("b2")) {
      EXPECT_NEAR(report.statistics.intervals[s].estimate, pearson(ranks(gold2), ranks(judge2)), 1e-12);
      EXPECT_EQ(labels[s].n, 6);
      found = true;
    }
  EXPECT_TRUE(found);
}
