// `metrics --verdict-shares LABEL=SHARE,…` (docs/statistics.md §7.1; CAP App. C): each verdict's
// agreement with gold, Pr[gold = k | verdict = k], reweighted to another population's verdict shares.
// Checked on the paper's own validation sample: the evaluator e against the human h, (e=0,h=0) = 68,
// (e=0,h=1) = 10, (e=1,h=0) = 0, (e=1,h=1) = 42, reweighted to the deployment's Pr[e=1] = 622/700:
// "an implied deployment-distribution agreement of 98.6%".
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analyses/metrics/replicates_identical.hpp"
#include "analyses/metrics/report_notes.hpp"
#include "judgestat/metrics.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// The 120 rationales of CAP Table 11's confusion matrix; gold is the human's label.
std::string validation_csv() {
  std::string csv = "judge,item,gold,verdict\n";
  int item = 0;
  auto add = [&](int count, const char* human, const char* evaluator) {
    for (int i = 0; i < count; ++i)
      csv += "evaluator,r" + std::to_string(item++) + "," + human + "," + evaluator + "\n";
  };
  add(68, "unsupported", "unsupported");
  add(10, "supported", "unsupported");
  add(0, "unsupported", "supported");
  add(42, "supported", "supported");
  return csv;
}

MetricsReport run_on(MetricsOptions options, int threads = 1) {
  if (options.verdict_shares.empty()) options.verdict_shares = {{"supported", 622}, {"unsupported", 78}};
  options.bootstrap.replicates = 400;
  return run_metrics(load_item_matrix(write_temp("composition.csv", validation_csv())), options, cpu_target(threads));
}

const Interval& row(const MetricsReport& r, const std::string& name) {
  for (size_t s = 0; s < r.statistics.labels.size(); ++s)
    if (r.statistics.labels[s].name == name) return r.statistics.intervals[s];
  ADD_FAILURE() << "no row " << name;
  return r.statistics.intervals.front();
}

}  // namespace

TEST(CompositionAgreement, ReproducesCapAppendixC) {
  MetricsOptions kept;
  kept.bootstrap.keep_replicates = true;
  const MetricsReport r = run_on(kept);
  // The house rule for a new statistic: the same seed gives the same replicates on any thread count.
  expect_same_replicates(r.statistics.replicates, run_on(kept, 2).statistics.replicates);
  // Pr[agree | e=1] = 42/42, Pr[agree | e=0] = 68/78, weighted 622/700 and 78/700.
  const double expected = 622.0 / 700 * (42.0 / 42) + 78.0 / 700 * (68.0 / 78);
  EXPECT_NEAR(row(r, "composition_acc").estimate, expected, 1e-15);
  EXPECT_NEAR(std::round(row(r, "composition_acc").estimate * 1000) / 10, 98.6, 1e-9);  // the paper's figure
  EXPECT_NEAR(row(r, "acc").estimate, 110.0 / 120, 1e-15);  // the raw 91.7% on the enriched sample
  const Interval& ci = row(r, "composition_acc");
  EXPECT_LT(ci.lo, ci.estimate);
  // Only a replicate without any of the ten false negatives reaches 1 (chance about e^−10).
  EXPECT_LT(ci.hi, 1.0);
  EXPECT_TRUE(has_note(r, "verdict shares unsupported 0.1114, supported 0.8886"));
}

TEST(CompositionAgreement, SharesAreNormalisedAndZeroDropsALabel) {
  MetricsOptions shares;
  shares.verdict_shares = {{"supported", 0.25}, {"unsupported", 0.75}};
  EXPECT_NEAR(row(run_on(shares), "composition_acc").estimate, 0.25 * 1.0 + 0.75 * 68.0 / 78, 1e-15);
  MetricsOptions counts;
  counts.verdict_shares = {{"supported", 1}, {"unsupported", 3}};
  EXPECT_EQ(row(run_on(counts), "composition_acc").estimate, row(run_on(shares), "composition_acc").estimate);
  MetricsOptions only;
  only.verdict_shares = {{"supported", 0}, {"unsupported", 5}};
  EXPECT_NEAR(row(run_on(only), "composition_acc").estimate, 68.0 / 78, 1e-15);  // = precision unsupported
}

TEST(CompositionAgreement, BadCompositionsNameTheFlag) {
  MetricsOptions missing;
  missing.verdict_shares = {{"supported", 1}};
  EXPECT_TRUE(contains(thrown_message([&] { run_on(missing); }),
                       "--verdict-shares: give a share for every label; 'unsupported' has none"));
  MetricsOptions unknown;
  unknown.verdict_shares = {{"supported", 1}, {"yes", 1}};
  EXPECT_TRUE(contains(thrown_message([&] { run_on(unknown); }), "--verdict-shares: 'yes' is not a label of"));
  MetricsOptions twice;
  twice.verdict_shares = {{"supported", 1}, {"supported", 2}, {"unsupported", 1}};
  EXPECT_TRUE(contains(thrown_message([&] { run_on(twice); }), "the label 'supported' is given twice"));
  MetricsOptions zero;
  zero.verdict_shares = {{"supported", 0}, {"unsupported", 0}};
  EXPECT_TRUE(contains(thrown_message([&] { run_on(zero); }), "--verdict-shares: the shares sum to 0"));
  const std::string file = write_temp("composition_flag.csv", validation_csv());
  EXPECT_TRUE(contains(thrown_message([&] {
                         render_support::run_on(file, {"metrics", {"--verdict-shares", "supported=x,unsupported=1"}});
                       }),
                       "--verdict-shares: the share of 'supported' must be a finite number >= 0, got 'x'"));
  EXPECT_TRUE(contains(thrown_message([&] {
                         render_support::run_on(file, {"metrics", {"--verdict-shares", "supported"}});
                       }),
                       "--verdict-shares: expected LABEL=SHARE, got 'supported'"));
}

TEST(CompositionAgreement, AVerdictNeverGivenIsNotedNotGuessed) {
  // Only the 78 unsupported verdicts: no Pr[agree | e=1] to reweight.
  const std::string csv = "judge,item,gold,verdict\nE,a,supported,unsupported\nE,b,unsupported,unsupported\n";
  MetricsOptions options;
  options.verdict_shares = {{"supported", 1}, {"unsupported", 1}};
  options.bootstrap.replicates = 50;
  const MetricsReport r = run_metrics(load_item_matrix(write_temp("composition_one.csv", csv)), options, cpu_target(1));
  for (const StatLabel& label : r.statistics.labels) EXPECT_NE(label.name, "composition_acc");
  EXPECT_TRUE(has_note(r, "composition_acc of E is left out: no verdict 'supported' to condition on"));
}

TEST(CompositionAgreement, TheReportRendersAgainFromItsJson) {
  const AnalysisResult run = render_support::run_on(
      write_temp("composition_render.csv", validation_csv()),
      {"metrics", {"--verdict-shares", "supported=622,unsupported=78", "--full", "--replicates", "200"}});
  EXPECT_TRUE(contains(run.text, "composition_acc [order 0]")) << run.text;
  render_support::expect_renders_the_run("metrics", run);
}
