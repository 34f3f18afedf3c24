// report/report_from_json.hpp for cascade: the report read back from its JSON and render state
// renders the same bytes as the run (tables in text, csv and md, every figure's SVG and CSV) on
// the bundled JudgeBench outputs: the sweep alone, the sweep with the seeded selection part and
// held-out rules per benchmark, per-stratum rules, and a frozen τ per benchmark; a document its
// writer would not give, or a render state whose indices leave their bootstrap, is refused by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/cascade.hpp"
#include "render_support.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using render_support::expect_same_outputs;
using render_support::run_on;
using render_support::stored;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

AnalysisResult run_cascade_with(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--first",     kFirst,  "--fallback",          kFallback,      "--fee",
                                kFirst + "=0", "--fee", kFallback + "=0.0076", "--replicates", "200"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_on(kJudgeBench, {"cascade", args});
}

void expect_renders_the_run(const AnalysisResult& run) {
  ASSERT_TRUE(run.render.is_object());
  render_support::expect_renders_the_run("cascade", run);
}

TEST(CascadeFromJson, SweepAloneRendersTheSameBytesAsTheRun) {
  const AnalysisResult run = run_cascade_with({"--select", "0"});
  ASSERT_TRUE(run.json["rules"].is_null());
  expect_renders_the_run(run);
}

// The seeded selection part: trials, the rules' held-out scores per benchmark, temperature; with
// latencies given, the latency columns and quantiles too.
TEST(CascadeFromJson, RulesByBenchmarkRenderTheSameBytesAsTheRun) {
  const AnalysisResult run = run_cascade_with({"--select", "0.4", "--by", "benchmark"});
  ASSERT_TRUE(run.json["rules"].is_array());
  ASSERT_TRUE(run.json["groups"].is_object());
  expect_renders_the_run(run);
  const AnalysisResult timed = run_cascade_with(
      {"--by", "benchmark", "--latency", kFirst + "=0.4", "--latency", kFallback + "=2.5", "--tau", "0.95"});
  ASSERT_TRUE(timed.json["latency"].is_object());
  expect_renders_the_run(timed);
}

TEST(CascadeFromJson, PerStratumRulesRenderTheSameBytesAsTheRun) {
  expect_renders_the_run(run_cascade_with({"--per-stratum"}));
}

// A frozen τ per benchmark (labels as written, "0.90" not 0.9) scored on the held-out part.
TEST(CascadeFromJson, FrozenThresholdRendersTheSameBytesAsTheRun) {
  const AnalysisResult run = run_cascade_with({"--tau", "0.90", "--by", "benchmark"});
  ASSERT_TRUE(run.json["frozen"].is_object());
  expect_renders_the_run(run);
  EXPECT_NE(run.text.find("0.90"), std::string::npos);
}

// JEV Fig. 5's bins (--bins paper), the frozen τ's accepted / escalated split with latencies and the
// gate against a second run (here the same file: every common item gated alike) read back.
TEST(CascadeFromJson, PaperBinsSplitAndGateComparisonRenderTheSameBytesAsTheRun) {
  const AnalysisResult run =
      run_cascade_with({"--bins", "paper", "--tau", "0.9", "--compare-gate", kJudgeBench, "--latency", kFirst + "=0.4",
                        "--latency", kFallback + "=2.5", "--by", "benchmark"});
  ASSERT_TRUE(run.json["confidence_bins"].is_array());
  ASSERT_TRUE(run.json["frozen"]["gate_comparison"].is_object());
  EXPECT_EQ(run.json["frozen"]["gate_comparison"]["common"], run.json["frozen"]["items"]);
  EXPECT_FALSE(run.json["frozen"]["split_statistics"].empty());
  expect_renders_the_run(run);
}

// An edited estimate reads back and shows in the tables: what they print is the JSON.
TEST(CascadeFromJson, AnEditedEstimateShowsInTheTables) {
  const AnalysisResult run = run_cascade_with({"--select", "0"});
  Json json = stored(run.json);
  size_t row = 0;
  for (; row < json["statistics"].size(); ++row)
    if (json["statistics"][row]["name"] == "oracle_acc") break;
  ASSERT_LT(row, json["statistics"].size());
  json["statistics"][row]["estimate"] = 0.123456;
  const RenderedReport rendered = render_from_json("cascade", json, stored(run.render));
  EXPECT_NE(rendered.text.find("12.3 ["), std::string::npos);
  EXPECT_EQ(run.text.find("12.3 ["), std::string::npos);
}

TEST(CascadeFromJson, FieldsItsWriterWouldNotGiveAreRefusedByName) {
  const AnalysisResult run = run_cascade_with({"--tau", "0.9"});
  const Json json = stored(run.json), render = stored(run.render);
  auto refused = [&](Json j, Json r) {
    return thrown_message<std::invalid_argument>([&] { render_from_json("cascade", j, r); });
  };
  Json no_pool_items = json;
  no_pool_items["pool"].erase("items");
  EXPECT_EQ(refused(no_pool_items, render), "result.pool.items: missing");
  Json text_estimate = json;
  text_estimate["statistics"][0]["estimate"] = "high";
  EXPECT_EQ(refused(text_estimate, render), "result.statistics[0].estimate: expected a number or null");
  Json edited_baseline = json;
  edited_baseline["baselines"]["first_alone"]["acc"] = 0.5;
  EXPECT_EQ(refused(edited_baseline, render).rfind("result.baselines: does not read back", 0), 0u);
  Json outside = render;
  outside["sweep_scopes"][0]["policies"][0][0] = 1000000;
  EXPECT_EQ(refused(json, outside), "render.sweep_scopes[0].policies[0]: not a statistic of its bootstrap");
  Json short_gate = render;
  short_gate["gate_q"].erase(0);
  EXPECT_EQ(refused(json, short_gate), "render.gate_correct: expected one value per gate_q");
  Json no_frozen = render;
  no_frozen.erase("frozen");
  EXPECT_EQ(refused(json, no_frozen), "render.frozen: missing");
  EXPECT_EQ(thrown_message<std::invalid_argument>([&] { render_from_json("cascade", json, nullptr); }),
            "render: expected an object");
}

// A forged gate confidence (null reads as NaN, or 1e300) would stall risk_coverage's tie loop and
// cast out of range in confidence_bin: refused by name before any writer sees it, as are a
// correctness the writer never gives and more pairs than pool items.
TEST(CascadeFromJson, ForgedGatePairsAreRefusedByName) {
  const AnalysisResult run = run_cascade_with({"--select", "0"});
  const Json json = stored(run.json), render = stored(run.render);
  ASSERT_FALSE(render["gate_q"].empty());
  auto refused = [&](const Json& r) {
    return thrown_message<std::invalid_argument>([&] { render_from_json("cascade", json, r); });
  };
  for (const Json& forged : {Json(nullptr), Json(1e300), Json(0.0), Json(-0.5)}) {
    Json gate = render;
    gate["gate_q"][0] = forged;
    EXPECT_EQ(refused(gate), "render.gate_q[0]: expected a confidence in (0, 1]") << forged.dump();
  }
  Json correct = render;
  correct["gate_correct"][0] = 0.25;
  EXPECT_EQ(refused(correct), "render.gate_correct[0]: expected 0, 0.5 or 1");
  Json extra = render;
  const size_t items = json["pool"]["items"].get<size_t>();
  while (extra["gate_q"].size() <= items) {
    extra["gate_q"].push_back(0.9);
    extra["gate_correct"].push_back(1.0);
  }
  EXPECT_EQ(refused(extra), "render.gate_q: expected at most one value per pool item (pool.items)");
}

// The text writer reads a group's AURC and each bin's fallback accuracy whenever the pooled AURC
// is there: -1 for either is refused, not followed to intervals[-1].
TEST(CascadeFromJson, ForgedMissingSelectiveRowsAreRefusedByName) {
  const AnalysisResult run = run_cascade_with({"--select", "0", "--by", "benchmark"});
  const Json json = stored(run.json), render = stored(run.render);
  ASSERT_GE(render["selective"]["aurc"].get<int>(), 0);
  ASSERT_FALSE(render["group_selective"].empty());
  ASSERT_FALSE(render["selective"]["bins"].empty());
  auto refused = [&](const Json& r) {
    return thrown_message<std::invalid_argument>([&] { render_from_json("cascade", json, r); });
  };
  Json group_aurc = render;
  group_aurc["group_selective"][0]["aurc"] = -1;
  EXPECT_EQ(refused(group_aurc), "render.group_selective[0].aurc: not a statistic of the sweep");
  Json bin_fallback = render;
  bin_fallback["selective"]["bins"][0][4] = -1;
  EXPECT_EQ(refused(bin_fallback), "render.selective.bins[0]: not a statistic of the sweep");
}

}  // namespace
}  // namespace judgestat
