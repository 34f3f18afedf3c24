// `metrics --native-confidence x.NAME` (docs/statistics.md §3.2; JEV §4 and App. I): a second
// confidence score per record, its error-detection AUROC with a CI and its Spearman ρ with q, checked
// against counts and ranks computed here, by hand, and against scipy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analyses/metrics/replicates_identical.hpp"
#include "judgestat/metrics.hpp"
#include "plain_correlations.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Eight records of J in one order: four right (i1, i2, i5, i6), three wrong (i3, i4, i7), one with
// no native value (i8). K has probabilities and no native confidence.
const char* kNativeCsv =
    "judge,item,gold,verdict,p.A,p.B,x.native\n"
    "J,i1,A,A,0.9,0.1,0.95\n"
    "J,i2,A,A,0.8,0.2,0.70\n"
    "J,i3,A,B,0.3,0.7,0.60\n"
    "J,i4,A,B,0.45,0.55,0.70\n"
    "J,i5,B,B,0.2,0.8,0.85\n"
    "J,i6,B,B,0.35,0.65,0.80\n"
    "J,i7,B,A,0.6,0.4,0.55\n"
    "J,i8,B,B,0.1,0.9,\n"
    "K,i1,A,A,0.7,0.3,\n"
    "K,i2,A,B,0.4,0.6,\n";

MetricsReport run_on(const std::string& csv, MetricsOptions options = {}, int threads = 1) {
  if (options.native_confidence.empty()) options.native_confidence = "x.native";
  options.bootstrap.replicates = 300;
  return run_metrics(load_item_matrix(write_temp("native.csv", csv)), options, cpu_target(threads));
}

const Interval* interval_of(const MetricsReport& r, const std::string& name, const std::string& judge) {
  for (size_t s = 0; s < r.statistics.labels.size(); ++s)
    if (r.statistics.labels[s].name == name && r.statistics.labels[s].judge == judge) return &r.statistics.intervals[s];
  return nullptr;
}

const std::pair<StatLabel, double>* point_of(const MetricsReport& r, const std::string& name) {
  for (const auto& point : r.point_statistics)
    if (point.first.name == name) return &point;
  return nullptr;
}

}  // namespace

TEST(NativeConfidence, AurocAndSpearmanMatchCountsAndRanks) {
  const MetricsReport r = run_on(kNativeCsv);
  // AUROC by pairs: errors {0.60, 0.70, 0.55} against right outputs {0.95, 0.70, 0.85, 0.80}; an
  // error scores 1 − native, so a pair counts 1 when the error's native is lower, ½ when equal.
  const std::vector<double> errors{0.60, 0.70, 0.55}, right{0.95, 0.70, 0.85, 0.80};
  double pairs = 0;
  for (double e : errors)
    for (double c : right) pairs += e < c ? 1.0 : e == c ? 0.5 : 0.0;
  const Interval* auroc = interval_of(r, "native_auroc_err", "J");
  ASSERT_NE(auroc, nullptr);
  EXPECT_DOUBLE_EQ(auroc->estimate, pairs / 12);  // 11.5 / 12
  // scipy 1.17.1: stats.mannwhitneyu(1 − native of errors, 1 − native of the others).statistic / 12
  EXPECT_NEAR(auroc->estimate, 0.9583333333333334, 1e-15);
  // Spearman's ρ over the seven records with a native value: q = max(p), ranks by counting.
  const std::vector<double> q{0.9, 0.8, 0.7, 0.55, 0.8, 0.65, 0.6}, native{0.95, 0.70, 0.60, 0.70, 0.85, 0.80, 0.55};
  const auto* rho = point_of(r, "native_q_rho");
  ASSERT_NE(rho, nullptr);
  EXPECT_EQ(rho->first.judge, "J");
  EXPECT_EQ(rho->first.n, 7);
  EXPECT_NEAR(rho->second, plain_formulas::spearman(native, q), 1e-14);
  EXPECT_NEAR(rho->second, 0.6454545454545455, 1e-14);  // scipy 1.17.1: stats.spearmanr(native, q)
  // One record without a value, one judge without any: both said.
  const auto said = [&](const std::string& part) {
    return std::any_of(r.probability.notes.begin(), r.probability.notes.end(),
                       [&](const std::string& note) { return contains(note, part); });
  };
  EXPECT_TRUE(said("leave out 1 of 8 records with probabilities")) << testing::PrintToString(r.probability.notes);
  EXPECT_TRUE(said("left out for K: no x.native value"));
  EXPECT_EQ(interval_of(r, "native_auroc_err", "K"), nullptr);
}

TEST(NativeConfidence, OrderAveragedIsTheMeanOfTheOrdersNativeValues) {
  // Two orders; the averaged presentation's native value is the mean over the orders.
  const std::string csv =
      "judge,item,gold,verdict,order,p.A,p.B,x.native\n"
      "J,i1,A,A,0,0.9,0.1,0.9\nJ,i1,A,A,1,0.7,0.3,0.7\n"    // averaged 0.8, right
      "J,i2,A,B,0,0.4,0.6,0.6\nJ,i2,A,A,1,0.55,0.45,0.9\n"  // averaged 0.75, q (0.475, 0.525): wrong
      "J,i3,B,B,0,0.2,0.8,0.7\nJ,i3,B,B,1,0.3,0.7,0.9\n"    // averaged 0.8, right
      "J,i4,B,A,0,0.6,0.4,0.5\nJ,i4,B,A,1,0.7,0.3,0.6\n";   // averaged 0.55, wrong
  const MetricsReport r = run_on(csv);
  for (const auto& [label, value] : r.point_statistics) {
    if (label.name != "native_q_rho" || label.order) continue;
    // averaged: native (0.8, 0.75, 0.8, 0.55), q (0.8, 0.525, 0.75, 0.65)
    EXPECT_NEAR(value, plain_formulas::spearman({0.8, 0.75, 0.8, 0.55}, {0.8, 0.525, 0.75, 0.65}), 1e-14);
  }
  for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
    const StatLabel& label = r.statistics.labels[s];
    if (label.name != "native_auroc_err" || label.order) continue;
    // errors {0.75, 0.55} against right {0.8, 0.8}: every pair ranked, AUROC 1
    EXPECT_DOUBLE_EQ(r.statistics.intervals[s].estimate, 1.0);
  }
  EXPECT_EQ(std::count_if(r.point_statistics.begin(), r.point_statistics.end(),
                          [](const auto& p) { return p.first.name == "native_q_rho"; }),
            3);  // order 0, order 1, averaged
}

TEST(NativeConfidence, SameSeedSameReplicatesOnAnyThreadCount) {
  MetricsOptions options;
  options.bootstrap.seed = 5;
  options.bootstrap.keep_replicates = true;
  const MetricsReport one = run_on(kNativeCsv, options, 1), two = run_on(kNativeCsv, options, 2);
  ASSERT_NE(interval_of(one, "native_auroc_err", "J"), nullptr);
  expect_same_replicates(one.statistics.replicates, two.statistics.replicates);
}

TEST(NativeConfidence, BadColumnsNameTheFlag) {
  MetricsOptions missing;
  missing.native_confidence = "x.conf";
  EXPECT_TRUE(contains(thrown_message([&] { run_on(kNativeCsv, missing); }), "--native-confidence"));
  std::string text = kNativeCsv;
  text.replace(text.find("0.95\n"), 4, "high");
  const std::string message = thrown_message([&] { run_on(text); });
  EXPECT_TRUE(contains(message, "--native-confidence: x.native has the value 'high'")) << message;
}

TEST(NativeConfidence, TheReportRendersAgainFromItsJson) {
  const AnalysisResult run =
      render_support::run_on(write_temp("native_render.csv", kNativeCsv),
                             {"metrics", {"--native-confidence", "x.native", "--replicates", "200"}});
  EXPECT_TRUE(contains(run.text, "native_auroc_err")) << run.text;
  EXPECT_TRUE(contains(run.text, "native_q_rho")) << run.text;
  render_support::expect_renders_the_run("metrics", run);
}
