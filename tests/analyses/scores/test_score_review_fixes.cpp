// Score judges (docs/statistics.md §8.2), the review of issue 28's work: many distinct scores leave
// the rank statistics out before any column is built, moments far from 0 keep their precision, and
// the score flags name themselves.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/scores/score_judge.hpp"
#include "analyses/scores/scores_plan.hpp"
#include "judgestat/metrics.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Twelve items on a 1–5 scale: gold and a judge.
const std::vector<double> kGold{1, 2, 3, 4, 5, 3, 2, 4, 5, 1, 3, 4};
const std::vector<double> kJ{2, 3, 3, 5, 5, 4, 1, 4, 5, 2, 2, 5};

std::string text_of(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// judge,item,cluster,gold,verdict: items i1…, each its own cluster; an empty gold when `gold` is empty.
std::string scores_csv(const std::vector<std::pair<std::string, std::vector<double>>>& judges,
                       const std::vector<double>& gold) {
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict\n";
  for (const auto& [judge, scores] : judges)
    for (size_t i = 0; i < scores.size(); ++i)
      csv << judge << ",i" << i + 1 << ",c" << i << "," << (gold.empty() ? "" : text_of(gold[i])) << ","
          << text_of(scores[i]) << "\n";
  return csv.str();
}

ItemMatrix scored_matrix(const std::string& csv, double low, double high) {
  LoadOptions load;
  load.scale = ScoreScale{low, high};
  return load_item_matrix(write_temp("review_scores.csv", csv), load);
}

MetricsReport scores_report(const std::string& csv, double low, double high, MetricsOptions options = {}) {
  options.bootstrap.replicates = 300;
  return run_metrics(scored_matrix(csv, low, high), options, cpu_target(2));
}

const Interval* interval_of(const MetricsReport& report, const std::string& name, const std::string& judge) {
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == name && labels[s].judge == judge && !labels[s].of) return &report.statistics.intervals[s];
  return nullptr;
}

bool has_note(const MetricsReport& report, const std::string& text) {
  for (const std::string& note : report.notes)
    if (note == text) return true;
  return false;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / double(y.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

// n distinct decimal scores 10.5, 12, 13.5, … and a judge that swaps neighbours pairwise.
std::vector<double> spread_scores(int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(10.5 + 1.5 * i);
  return out;
}
std::vector<double> swapped_pairs(std::vector<double> v) {
  for (size_t i = 0; i + 1 < v.size(); i += 2) std::swap(v[i], v[i + 1]);
  return v;
}

}  // namespace

TEST(ScoreLevelCap, RankStatisticsPastTheCapAreLeftOutWithANoteAndPearsonStays) {
  const int n = kMaxRankLevels + 8;
  const std::vector<double> gold = spread_scores(n), judge = swapped_pairs(gold);
  const MetricsReport report = scores_report(scores_csv({{"J", judge}}, gold), 0, 1000);
  EXPECT_EQ(interval_of(report, "spearman", "J"), nullptr);
  EXPECT_EQ(interval_of(report, "kendall_tau_b", "J"), nullptr);
  EXPECT_TRUE(has_note(report, "spearman and kendall_tau_b of J are left out: gold takes " + std::to_string(n) +
                                   " distinct values, more than the " + std::to_string(kMaxRankLevels) +
                                   " a rank statistic is built for (§8.2)"));
  ASSERT_NE(interval_of(report, "pearson", "J"), nullptr);
  EXPECT_NEAR(interval_of(report, "pearson", "J")->estimate, pearson(gold, judge), 1e-12);
}

TEST(ScoreLevelCap, AtTheCapTheRankStatisticsStay) {
  const double n = kMaxRankLevels;
  const std::vector<double> gold = spread_scores(kMaxRankLevels), judge = swapped_pairs(gold);
  const MetricsReport report = scores_report(scores_csv({{"J", judge}}, gold), 0, 1000);
  // n/2 swapped pairs of n distinct values: P − Q = C(n, 2) − 2·n/2, no ties.
  ASSERT_NE(interval_of(report, "kendall_tau_b", "J"), nullptr);
  EXPECT_NEAR(interval_of(report, "kendall_tau_b", "J")->estimate, (n * (n - 1) / 2 - n) / (n * (n - 1) / 2), 1e-12);
  // Ranks are the scores' own order here: Spearman is Pearson's r of the scores.
  ASSERT_NE(interval_of(report, "spearman", "J"), nullptr);
  EXPECT_NEAR(interval_of(report, "spearman", "J")->estimate, pearson(gold, judge), 1e-12);
}

TEST(ScoreLevelCap, RatersPastTheCapLeaveNoColumnBehind) {
  const int n = kMaxRankLevels + 8;
  const std::vector<double> x = spread_scores(n), y = swapped_pairs(x);
  const ItemMatrix m = scored_matrix(scores_csv({{"X", x}, {"Y", y}}, {}), 0, 1000);
  MetricsOptions options;
  options.raters = {"X", "Y"};
  options.scores.alpha_level = AlphaLevel::kOrdinal;
  const MetricsPlan built = build_scores_run_plan(m, select_records(m, SelectionOptions{}), options);
  for (const std::string& name : built.plan.column_names) EXPECT_NE(name.rfind("scores/raters", 0), 0u) << name;
  for (const auto& statistic : built.plan.statistics) {
    EXPECT_NE(statistic.label.name, "krippendorff_alpha");
    EXPECT_NE(statistic.label.name, "kendall_w");
  }
  const std::string why = std::to_string(n) + " distinct values, more than the " + std::to_string(kMaxRankLevels) +
                          " it is built for (§8.2)";
  int noted = 0;
  for (const std::string& note : built.notes)
    noted += note == "krippendorff_alpha is left out: the raters' scores take " + why ||
             note == "kendall_w is left out: a rater's scores take " + why;
  EXPECT_EQ(noted, 2);
}

TEST(ScoreMoments, StatisticsAreUnchangedByAShiftOfABillion) {
  const double shift = 1e9;
  std::vector<double> gold = kGold, judge = kJ;
  for (double& v : gold) v += shift;
  for (double& v : judge) v += shift;
  const MetricsReport near = scores_report(scores_csv({{"J", kJ}}, kGold), 1, 5);
  const MetricsReport far = scores_report(scores_csv({{"J", judge}}, gold), 0, 2 * shift);
  for (const char* name : {"pearson", "qwk", "mae", "rmse", "spearman"}) {
    ASSERT_NE(interval_of(far, name, "J"), nullptr) << name;
    EXPECT_NEAR(interval_of(far, name, "J")->estimate, interval_of(near, name, "J")->estimate, 1e-12) << name;
  }
  EXPECT_NEAR(interval_of(far, "pearson", "J")->estimate, pearson(kGold, kJ), 1e-12);
  EXPECT_LE(interval_of(far, "qwk", "J")->hi, 1.0);
}

TEST(ScoreFlagsReview, AlphaLevelWithoutScaleIsAUsageErrorNamingTheFlag) {
  const std::string path = write_temp("alpha_no_scale.csv", "judge,item,gold,verdict\nJ,i1,A,A\nK,i1,A,B\n");
  const CliRun run = run_cli("metrics " + path + " --alpha-level ordinal --quiet");
  EXPECT_NE(run.status, 0);
  EXPECT_TRUE(contains(run.out, "--alpha-level: the level of the score raters' alpha needs --scale LOW:HIGH"))
      << run.out;
}

TEST(ScoreFlagsReview, TieMarginIsQuotedAsANumberAndRatersHelpSaysTwoUnderScale) {
  const std::string path = write_temp("tie_margin.csv", scores_csv({{"J", kJ}}, kGold));
  const CliRun margin = run_cli("metrics --scale 1:5 " + path + " --tie-margin=-1.5");
  EXPECT_NE(margin.status, 0);
  EXPECT_TRUE(contains(margin.out, "--tie-margin: expected a number >= 0, got -1.5\n")) << margin.out;
  // The help wraps its descriptions: compare with runs of white space as one space.
  std::string help;
  for (char c : run_cli("metrics --help").out)
    if (!std::isspace(static_cast<unsigned char>(c)) || (!help.empty() && help.back() != ' '))
      help += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  EXPECT_TRUE(contains(help,
                       "judges as raters, comma-separated, two or more: Fleiss' kappa and Krippendorff's alpha; "
                       "with --scale, alpha and Kendall's W"))
      << help;
  EXPECT_FALSE(contains(help, "three or more judges as raters")) << help;
}
