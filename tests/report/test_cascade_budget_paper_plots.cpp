// JEV Fig. 9 and issue 31's figure fixes for cascade and budget: the accuracy–latency panel beside
// accuracy–fee with the frozen τ and the rules' τ ringed and named (no legend line for a circle), its CSV
// equal to the statistics, its axes holding every CI end; the label budget's Δ histograms on one x and
// y range; JEV Table 31's budget text in points with P(loss > 2 pp); budget CSVs one numeric table.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/cascade.hpp"
#include "judgestat/label_budget.hpp"
#include "report/cascade_report.hpp"
#include "report/plot_axes.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

const PlotFile* named(const std::vector<PlotFile>& figures, const std::string& name) {
  for (const PlotFile& f : figures)
    if (f.name == name) return &f;
  return nullptr;
}

// The numbers a figure writes as text: its tick labels (titles and legends hold words).
std::set<std::string> numeric_texts(const std::string& svg) {
  static const std::regex text(R"(>(-?[0-9]+(\.[0-9]+)?)</text>)");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

TEST(CascadePaperPlots, AccuracyLatencyPanelRingsTheFrozenTau) {
  CascadeOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.fee = {{kFirst, 0.0}, {kFallback, 0.0076}};
  o.latency = {{kFirst, 0.4}, {kFallback, 2.5}};
  o.tau = parse_frozen_tau({"0.9"});
  o.bootstrap.replicates = 200;
  const CascadeReport r = run_cascade(load_item_matrix(kJudgeBench), o, cpu_target(2));
  const std::vector<PlotFile> figures = plot_files(r);
  const PlotFile* latency = named(figures, "cascade_accuracy_latency");
  const PlotFile* fee = named(figures, "cascade_accuracy_fee");
  ASSERT_NE(latency, nullptr);
  ASSERT_NE(fee, nullptr);
  for (const PlotFile* f : {latency, fee}) {
    EXPECT_TRUE(contains(f->svg, "frozen τ = 0.9")) << f->name;
    EXPECT_FALSE(contains(f->svg, "rule's τ (chosen on the selection part)")) << "a legend line for a ring";
    EXPECT_TRUE(contains(f->csv, "\nfrozen,0.9,")) << f->csv;
  }
  // Per τ: x = the cascade's mean latency (F's 0.4 s, plus S's 2.5 s when escalated), y = cascade_acc.
  const auto& iv = r.sweep.result.intervals;
  const CascadeScope& pooled = r.sweep.pooled();
  for (int32_t g = 0; g < r.options.grid.size(); ++g) {
    const double escalated = iv[pooled.policies[g].escalated].estimate;
    const double mean_latency = 0.4 + 2.5 * escalated;
    EXPECT_NEAR(pooled.latencies[g].mean, mean_latency, 1e-9);
    const std::string row = "\ncascade," + r.options.grid.labels[g] + "," + csv_number(pooled.latencies[g].mean) +
                            ",nan,nan," + csv_number(iv[pooled.policies[g].cascade_acc].estimate) + ",";
    EXPECT_TRUE(contains(latency->csv, row)) << row << latency->csv;
  }
}

TEST(BudgetPaperPlots, DeltaHistogramsShareTheirAxesAndTheTableIsJevTable31) {
  BudgetOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.ks = {24, 96};
  o.draws = 2000;
  o.fee_per_call = {{kFirst, 0.0}, {kFallback, 0.0076}};
  const BudgetReport r = run_budget(load_item_matrix(kJudgeBench), o, cpu_target(2));
  std::vector<std::set<std::string>> ticks;
  for (const PlotFile& f : plot_files(r))
    if (f.name.rfind("budget_delta_", 0) == 0) ticks.push_back(numeric_texts(f.svg));
  ASSERT_EQ(ticks.size(), 4u);
  for (const auto& t : ticks) EXPECT_EQ(t, ticks.front());  // the same tick labels on both axes

  const std::string text = tables(r, "text");
  EXPECT_TRUE(contains(text, "P(loss > 2 pp) (%)")) << text;
  EXPECT_TRUE(contains(text, "median Δ (pp)")) << text;
  for (const BudgetSummary& s : r.summaries) {
    EXPECT_TRUE(contains(text, fixed(100 * s.loss_share, 2))) << text;
    EXPECT_TRUE(contains(text, fixed(100 * s.delta_q[1], 2) + " (" + fixed(100 * s.delta_q[0], 2) + ", ")) << text;
    EXPECT_TRUE(contains(text, fixed(100 * s.delta_p10, 2))) << text;
  }
  const std::string csv = tables(r, "csv");
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("table,k,rule,draws,P(loss > 2 pp) (%),median Δ (pp) (2.5–97.5 % range),", 0), 0u) << header;
  EXPECT_TRUE(contains(header, ",median Δ (pp) (2.5–97.5 % range)_lo,")) << header;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    ++rows;
    EXPECT_EQ(line.rfind("budget,", 0), 0u) << line;
  }
  EXPECT_EQ(rows, static_cast<int>(r.summaries.size()));
}

}  // namespace
