// JEV's figures from a metrics report (report/paper_plots.hpp): on a report whose numbers the
// test sets, each figure draws one point per estimate, its axis holds every CI end, its CSV holds
// the values (counts and shares recomputed here from the report's counts by the papers' rules),
// its caption is its <title> and its text lies on the canvas; on the bundled JudgeBench file the
// figures the report can carry are the ones written.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "paper_plot_checks.hpp"
#include "report/paper_plots.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::paper_plot_checks;

namespace {

void add_stat(MetricsReport& r, const std::string& name, const std::string& judge, double est, double lo, double hi,
              std::optional<int> order = std::nullopt, std::optional<std::string> condition = std::nullopt) {
  StatLabel label;
  label.name = name, label.judge = judge, label.order = order, label.condition = condition, label.n = 100;
  Interval ci;
  ci.estimate = est, ci.lo = lo, ci.hi = hi;
  r.statistics.labels.push_back(label);
  r.statistics.intervals.push_back(ci);
}

void add_point(MetricsReport& r, const std::string& name, const std::string& judge, double value) {
  StatLabel label;
  label.name = name, label.judge = judge, label.n = 120;
  r.point_statistics.push_back({label, value});
}

// Reliability bins: (bin, n, mean q, accuracy) as given, the rest empty.
ReliabilityTable table(const std::vector<std::tuple<int, int64_t, double, double>>& bins) {
  ReliabilityTable t;
  t.bins.assign(kConfidenceBins, ReliabilityBin{0, NAN, NAN});
  for (const auto& [b, n, q, acc] : bins) t.bins[b] = {n, q, acc}, t.n += n;
  return t;
}

ProbabilitySummary summary(const std::string& judge, std::optional<std::string> group, ReliabilityTable t) {
  ProbabilitySummary s;
  s.judge = judge, s.group = std::move(group), s.order = 0, s.reliability = std::move(t);
  s.risk_coverage.points = {{0.99, 0.25, 0.0}, {0.9, 0.5, 0.1}, {0.7, 1.0, 0.2}};
  s.risk_coverage.aurc = 0.1;
  return s;
}

FlipTable flips(std::vector<int64_t> items, std::vector<int64_t> flipped, int64_t high) {
  FlipTable t;
  t.items = std::move(items), t.flips = std::move(flipped), t.flips_high = high;
  for (size_t b = 0; b < t.items.size(); ++b) t.total_items += t.items[b], t.total_flips += t.flips[b];
  return t;
}

// Judges A (JEV-like: cheap, fast) and B (GPT-6-like), two-factor conditions, probabilities.
MetricsReport hand_report() {
  MetricsReport r;
  r.statistics.level = 0.95;
  r.validity = {{"A", 200, 0, ""}, {"B", 200, 0, ""}};
  add_stat(r, "acc", "A", 0.80, 0.70, 0.90, 0), add_stat(r, "acc", "B", 0.60, 0.50, 0.72, 0);
  add_stat(r, "pa", "A", 0.81, 0.71, 0.91);
  add_stat(r, "fee_per_1k", "A", 0.044, 0.040, 0.050), add_stat(r, "fee_per_1k", "B", 12.2, 10.5, 14.1);
  add_stat(r, "brier", "A", 0.21, 0.17, 0.26, 0), add_stat(r, "brier", "B", 0.32, 0.27, 0.40, 0);
  add_stat(r, "nll", "A", 0.45, 0.38, 0.53, 0), add_stat(r, "nll", "B", 1.40, 1.10, 1.75, 0);
  add_stat(r, "ece", "A", 0.05, 0.03, 0.09, 0), add_stat(r, "ece", "B", 0.12, 0.08, 0.17, 0);
  const std::vector<std::string> conditions{"chat/concise", "chat/detailed", "math/concise", "math/detailed"};
  for (size_t c = 0; c < conditions.size(); ++c) {
    add_stat(r, "acc", "A", 0.70 + 0.05 * c, 0.60 + 0.05 * c, 0.80 + 0.05 * c, 0, conditions[c]);
    add_stat(r, "acc", "B", 0.50 + 0.04 * c, 0.42 + 0.04 * c, 0.58 + 0.04 * c, 0, conditions[c]);
  }
  r.strata = "condition";
  add_point(r, "latency_p50", "A", 0.15), add_point(r, "latency_p95", "A", 0.24);
  add_point(r, "latency_p50", "B", 1.89), add_point(r, "latency_p95", "B", 3.86);
  r.probability.summaries.push_back(
      summary("A", std::nullopt, table({{5, 4, 0.55, 0.5}, {7, 20, 0.74, 0.75}, {9, 80, 0.97, 0.95}})));
  r.probability.summaries.push_back(summary("B", std::nullopt, table({{6, 10, 0.66, 0.6}, {8, 40, 0.85, 0.8}})));
  r.probability.summaries.push_back(summary("A", "chat/concise", table({{8, 10, 0.85, 0.9}, {9, 30, 0.96, 1.0}})));
  r.probability.summaries.push_back(summary("A", "math/detailed", table({{6, 20, 0.65, 0.5}, {9, 20, 0.95, 0.9}})));
  r.probability.strata = "condition";
  r.probability.flips.push_back(
      {"A", std::nullopt, flips({0, 0, 0, 0, 0, 10, 20, 30, 40, 400}, {0, 0, 0, 0, 0, 5, 6, 6, 4, 16}, 16)});
  Complementarity c;  // JEV Fig. 22's JudgeBench counts: B right on 60 of A's 75 errors, A on 9 of B's 24
  c.judge = "B", c.reference = "A", c.n = 350, c.judge_only = 60, c.both_wrong = 15, c.reference_only = 9;
  c.both_right = 350 - 60 - 15 - 9;
  r.complementarity.push_back(c);
  return r;
}

// The figures of hand_report(), made once, and one of them by name (an empty figure, and a
// failure, when absent).
const std::vector<PlotFile>& hand_plots() {
  static const std::vector<PlotFile> plots = paper_plot_files(hand_report());
  return plots;
}
const PlotFile* hand_figure(const std::string& name) {
  static const PlotFile none;
  const PlotFile* p = find_plot(hand_plots(), name);
  return p ? p : &none;
}

std::set<std::string> names_of(const std::vector<PlotFile>& plots) {
  std::set<std::string> names;
  for (const PlotFile& p : plots) names.insert(p.name);
  return names;
}

}  // namespace

TEST(PaperPlots, EveryFigureOfAHandBuiltReport) {
  const std::vector<PlotFile>& plots = hand_plots();
  const std::set<std::string> expected{"metrics_paper_f3_latency",
                                       "metrics_paper_f3_fee",
                                       "metrics_paper_f12_accuracy_fee",
                                       "metrics_paper_f12_accuracy_latency",
                                       "metrics_paper_f20_brier",
                                       "metrics_paper_f20_nll",
                                       "metrics_paper_f20_ece",
                                       "metrics_paper_f21_risk_coverage",
                                       "metrics_paper_f6_confidence_A",
                                       "metrics_paper_f6_confidence_B",
                                       "metrics_paper_f6_reliability",
                                       "metrics_paper_f7a_flip_share",
                                       "metrics_paper_f7b_confident_flips",
                                       "metrics_paper_f13_by_group",
                                       "metrics_paper_f14_heatmap_A",
                                       "metrics_paper_f14_heatmap_B",
                                       "metrics_paper_f16_confidence_A",
                                       "metrics_paper_f22_error_correction"};
  EXPECT_EQ(names_of(plots), expected);
  for (const PlotFile& p : plots) {
    SCOPED_TRACE(p.name);
    EXPECT_NE(p.svg.find("<title>"), std::string::npos);  // the caption
    EXPECT_FALSE(p.csv.empty());
    expect_text_inside(p.svg);
  }
}

TEST(PaperPlots, ForestsDrawEachEstimateWithItsIntervalInsideTheAxis) {
  const MetricsReport r = hand_report();
  for (const std::string name : {"brier", "nll", "ece", "fee_per_1k"}) {
    SCOPED_TRACE(name);
    const PlotFile* p =
        hand_figure(name == "fee_per_1k" ? "metrics_paper_f3_fee" : "metrics_paper_f20_" + std::string(name));
    const Csv csv = parse_csv(p->csv);
    const Range axis = axis_range(p->svg, true);
    size_t estimates = 0;
    for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
      if (r.statistics.labels[s].name != name || r.statistics.labels[s].condition) continue;
      ++estimates;
      const Interval& v = r.statistics.intervals[s];
      const size_t row = csv.find("judge", r.statistics.labels[s].judge);
      ASSERT_LT(row, csv.rows.size());
      EXPECT_EQ(csv.number(row, "estimate"), v.estimate);
      EXPECT_EQ(csv.number(row, "ci_lo"), v.lo);
      EXPECT_EQ(csv.number(row, "ci_hi"), v.hi);
      EXPECT_TRUE(axis.holds(v.lo) && axis.holds(v.hi)) << axis.lo << " " << axis.hi;
    }
    EXPECT_EQ(points_drawn(p->svg), estimates);
    // A whisker and two caps per estimate, and the three lines of the legend's sample.
    EXPECT_EQ(count_of(p->svg, "stroke-width:1.5\"/>"), 3 * estimates + 3);
  }
}

TEST(PaperPlots, LatencyMediansAndTailsOnALogAxis) {
  const PlotFile* p = hand_figure("metrics_paper_f3_latency");
  EXPECT_EQ(points_drawn(p->svg), 2u);                       // a median per judge
  EXPECT_EQ(count_of(p->svg, "fill=\"white\" stroke"), 3u);  // a p95 diamond per judge and the key's
  const Range axis = axis_range(p->svg, true);
  for (double v : {0.15, 0.24, 1.89, 3.86}) EXPECT_TRUE(axis.holds(v)) << v;
  EXPECT_NE(p->svg.find("log scale"), std::string::npos);  // 0.15 to 3.86 spans more than ten times
  const Csv csv = parse_csv(p->csv);
  EXPECT_EQ(csv.number(csv.find("judge", "B"), "latency_p95"), 3.86);
}

TEST(PaperPlots, AccuracyAgainstFeeAndLatencyWithBothIntervals) {
  const PlotFile* fee = hand_figure("metrics_paper_f12_accuracy_fee");
  const PlotFile* latency = hand_figure("metrics_paper_f12_accuracy_latency");
  EXPECT_EQ(points_drawn(fee->svg), 2u);
  EXPECT_EQ(points_drawn(latency->svg), 2u);
  const Range x = axis_range(fee->svg, true), y = axis_range(fee->svg, false);
  for (double v : {0.040, 0.050, 10.5, 14.1}) EXPECT_TRUE(x.holds(v)) << v;
  for (double v : {0.50, 0.72, 0.70, 0.90}) EXPECT_TRUE(y.holds(v)) << v;
  const Csv csv = parse_csv(fee->csv);
  const size_t b = csv.find("judge", "B");
  EXPECT_EQ(csv.cell(b, "accuracy_statistic"), "acc [order 0]");  // base accuracy, not pa
  EXPECT_EQ(csv.number(b, "accuracy_ci_hi"), 0.72);
  EXPECT_EQ(csv.number(b, "x_ci_lo"), 10.5);
}

TEST(PaperPlots, ErrorCorrectionMatrixFromComplementarityCounts) {
  const PlotFile* p = hand_figure("metrics_paper_f22_error_correction");
  const Csv csv = parse_csv(p->csv);
  ASSERT_EQ(csv.rows.size(), 2u);
  const size_t a = csv.find("errors_of", "A"), b = csv.find("errors_of", "B");
  EXPECT_EQ(csv.cell(a, "corrected_by"), "B");
  EXPECT_EQ(csv.number(a, "errors"), 75);  // judge_only + both_wrong: A's errors
  EXPECT_EQ(csv.number(a, "corrected"), 60);
  EXPECT_EQ(csv.number(a, "share"), 60.0 / 75);
  EXPECT_EQ(csv.number(b, "errors"), 24);  // reference_only + both_wrong: B's errors
  EXPECT_EQ(csv.number(b, "share"), 9.0 / 24);
  EXPECT_NE(p->svg.find(">60 of 75<"), std::string::npos);
  EXPECT_NE(p->svg.find(">9 of 24<"), std::string::npos);
  EXPECT_EQ(count_of(p->svg, "fill=\"#e8e8e8\""), 2u);  // the diagonal: no cell
}

TEST(PaperPlots, ReliabilityCurvesLeaveOutSparseBins) {
  const MetricsReport r = hand_report();
  const PlotFile* p = hand_figure("metrics_paper_f6_reliability");
  const Csv csv = parse_csv(p->csv);
  ASSERT_EQ(csv.rows.size(), 4u);  // A's bin of 4 records is left out (fewer than 5)
  EXPECT_NE(p->svg.find("1 sparser bins left out"), std::string::npos);
  const size_t row = csv.find("n", "20");
  const auto [lo, hi] = wilson(15, 20);  // A's bin 7: accuracy 0.75 of 20
  EXPECT_NEAR(csv.number(row, "ci_lo"), lo, 1e-12);
  EXPECT_NEAR(csv.number(row, "ci_hi"), hi, 1e-12);
  EXPECT_EQ(points_drawn(p->svg), 4u);
  const Range y = axis_range(p->svg, false);
  for (size_t k = 0; k < csv.rows.size(); ++k)
    EXPECT_TRUE(y.holds(csv.number(k, "ci_lo")) && y.holds(csv.number(k, "ci_hi")));
  PaperPlotOptions every_bin;
  every_bin.min_bin_count = 1;
  const std::vector<PlotFile> all = paper_plot_files(r, every_bin);
  EXPECT_EQ(parse_csv(find_plot(all, "metrics_paper_f6_reliability")->csv).rows.size(), 5u);
  every_bin.judges = {"B"};
  EXPECT_EQ(parse_csv(find_plot(paper_plot_files(r, every_bin), "metrics_paper_f6_reliability")->csv).rows.size(), 2u);
}

TEST(PaperPlots, ConfidenceHistogramsSplitEachBinByCorrectness) {
  const PlotFile* p = hand_figure("metrics_paper_f6_confidence_A");
  const Csv csv = parse_csv(p->csv);
  ASSERT_EQ(csv.rows.size(), 5u);  // bins 5 to 9, the empty ones inside the range included
  // Correct outputs: 0.5·4 + 0.75·20 + 0.95·80 = 93; wrong: 104 − 93 = 11.
  const size_t top = csv.find_number("bin_lo", 0.9);
  EXPECT_NEAR(csv.number(top, "correct"), 76, 1e-9);
  EXPECT_NEAR(csv.number(top, "correct_share"), 76.0 / 93, 1e-12);
  EXPECT_NEAR(csv.number(top, "wrong_share"), 4.0 / 11, 1e-12);
  EXPECT_NE(p->svg.find("correct (93 outputs)"), std::string::npos);
}

TEST(PaperPlots, FlipSharesWithWilsonIntervals) {
  const PlotFile* share = hand_figure("metrics_paper_f7a_flip_share");
  const PlotFile* confident = hand_figure("metrics_paper_f7b_confident_flips");
  const Csv csv = parse_csv(share->csv);
  ASSERT_EQ(csv.rows.size(), 5u);
  EXPECT_EQ(points_drawn(share->svg), 5u);
  const size_t row = csv.find("items", "400");
  EXPECT_EQ(csv.number(row, "share"), 16.0 / 400);
  EXPECT_NEAR(csv.number(row, "ci_hi"), wilson(16, 400).second, 1e-12);
  const Range y = axis_range(share->svg, false);
  EXPECT_TRUE(y.holds(wilson(5, 10).second) && y.holds(wilson(16, 400).first));
  const Csv high = parse_csv(confident->csv);
  EXPECT_EQ(high.number(0, "flips"), 37);
  EXPECT_EQ(high.number(0, "share"), 16.0 / 37);
  EXPECT_NE(confident->svg.find("A (16 of 37)"), std::string::npos);
}

TEST(PaperPlots, AccuracyByConditionWithMeanConfidenceAndTheFactorHeatmap) {
  const PlotFile* bars = hand_figure("metrics_paper_f13_by_group");
  const Csv csv = parse_csv(bars->csv);
  ASSERT_EQ(csv.rows.size(), 8u);
  EXPECT_EQ(count_of(bars->svg, "fill-opacity=\"0.75\"><title>"), 8u);  // a bar per estimate
  size_t a_chat = csv.rows.size();
  for (size_t k = 0; k < csv.rows.size(); ++k)
    if (csv.cell(k, "group") == "chat/concise" && csv.cell(k, "judge") == "A") a_chat = k;
  ASSERT_LT(a_chat, csv.rows.size());
  EXPECT_NEAR(csv.number(a_chat, "mean_q"), (10 * 0.85 + 30 * 0.96) / 40, 1e-12);
  EXPECT_EQ(csv.number(a_chat, "ci_hi"), 0.80);
  EXPECT_TRUE(axis_range(bars->svg, true).holds(0.80 + 0.05 * 3));
  const PlotFile* heat = hand_figure("metrics_paper_f14_heatmap_B");
  EXPECT_EQ(parse_csv(heat->csv).rows.size(), 4u);
  EXPECT_NE(heat->svg.find(">0.620<"), std::string::npos);  // B on math/detailed: 0.50 + 0.04 · 3
  EXPECT_NE(heat->svg.find(">(0.540, 0.700)<"), std::string::npos);
}

TEST(PaperPlots, NoHeatmapWhenConditionsAreNotTwoFactors) {
  MetricsReport r = hand_report();
  for (StatLabel& label : r.statistics.labels)
    if (label.condition) label.condition = "c" + std::to_string(label.condition->size());
  for (const PlotFile& p : paper_plot_files(r)) EXPECT_EQ(p.name.find("heatmap"), std::string::npos) << p.name;
}

TEST(PaperPlots, RiskCoverageCurveKeepsEveryPoint) {
  const PlotFile* p = hand_figure("metrics_paper_f21_risk_coverage");
  const Csv csv = parse_csv(p->csv);
  EXPECT_EQ(csv.rows.size(), 6u);
  EXPECT_EQ(count_of(p->svg, "<polyline"), 2u);
  EXPECT_TRUE(axis_range(p->svg, false).holds(0.2));
}

TEST(PaperPlots, BundledJudgeBenchGivesTheFiguresItsColumnsCarry) {
  const ItemMatrix m = load_item_matrix(testing_support::kRoot + "/data/judgebench/gpt4o_split.csv");
  MetricsOptions o;
  o.bootstrap.replicates = 50;
  const MetricsReport r = run_metrics(m, o, testing_support::cpu_target(2));
  std::set<std::string> expected{"metrics_paper_f20_brier",
                                 "metrics_paper_f20_nll",
                                 "metrics_paper_f20_ece",
                                 "metrics_paper_f21_risk_coverage",
                                 "metrics_paper_f6_reliability",
                                 "metrics_paper_f7a_flip_share",
                                 "metrics_paper_f7b_confident_flips",
                                 "metrics_paper_f22_error_correction"};
  for (const std::string judge :
       {"Ray2333_GRM-Gemma-2B-rewardmodel-ft", "Skywork_Skywork-Reward-Gemma-2-27B",
        "Skywork_Skywork-Reward-Llama-3.1-8B", "internlm_internlm2-20b-reward", "internlm_internlm2-7b-reward"})
    expected.insert("metrics_paper_f6_confidence_" + safe_plot_name(judge));
  EXPECT_EQ(names_of(paper_plot_files(r)), expected);  // no fees or latencies, no --by: no Figs. 3, 12, 13–16
  o.by = "condition";
  const std::set<std::string> by_condition =
      names_of(paper_plot_files(run_metrics(m, o, testing_support::cpu_target(2))));
  EXPECT_EQ(by_condition.count("metrics_paper_f13_by_group"), 1u);
  EXPECT_EQ(by_condition.count("metrics_paper_f16_confidence_internlm_internlm2-7b-reward"), 1u);
  for (const std::string& name : by_condition) EXPECT_EQ(name.find("heatmap"), std::string::npos);  // "mmlu-pro-law"
}
