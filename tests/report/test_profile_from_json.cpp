// report/report_from_json.hpp for profile: the report read back from its JSON and render state
// renders the same bytes as the run (tables in text, csv and md, every radar and forest figure)
// on the bundled LLMBar and JudgeBench outputs with their configs, and on synthetic judgerEva
// records (flagged items for the leave-out rows, bias correction, variant cells); a document its
// writer would not give, or one naming a judge, benchmark or condition the report lacks, is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/profile.hpp"
#include "render_support.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "sources/synth.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using render_support::expect_same_outputs;
using render_support::run_on;
using render_support::stored;
using testing_support::contains;
using testing_support::kRoot;
using testing_support::thrown_message;
using testing_support::write_temp;

const std::string kLlmbar = kRoot + "/data/llmbar/natural_neighbor.csv";
const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kVanilla =
    "ChatGPT-0301/Vanilla,ChatGPT/Vanilla,Falcon/Vanilla,GPT-4/Vanilla,LLaMA2/Vanilla,PaLM2/Vanilla";

AnalysisResult run_profile_on(const std::string& records, const std::vector<std::string>& args) {
  return run_on(records, {"profile", args});
}

AnalysisResult llmbar_profile(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"--config", kRoot + "/configs/llmbar.json", "--judges", kVanilla};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_profile_on(kLlmbar, args);
}

// `judgestat synth cap` records (judgerEva: every condition direct, flagged items, A/B labels in
// two orders) profiled with configs/judgereva.json.
AnalysisResult synthetic_profile() {
  SynthOptions options;
  options.items_per_type = 40;
  std::ostringstream records;
  write_synth_cap(records, options);
  return run_profile_on(write_temp("judgereva.csv", records.str()),
                        {"--config", kRoot + "/configs/judgereva.json", "--replicates", "150"});
}

void expect_renders_the_run(const AnalysisResult& run) { render_support::expect_renders_the_run("profile", run); }

// LLMBar: three benchmarks, Natural → Neighbor stress, families (L1), Spearman between benchmarks.
TEST(ProfileFromJson, LlmbarRendersTheSameBytesAsTheRun) {
  const AnalysisResult run = llmbar_profile({"--replicates", "200"});
  ASSERT_FALSE(run.json["stress"].empty());
  ASSERT_FALSE(run.json["stress"][0]["deltas"].empty());
  ASSERT_FALSE(run.json["l1"]["means"].empty());
  ASSERT_FALSE(run.json["spearman"]["between_benchmarks"].empty());
  EXPECT_EQ(run.plots.size(), 2 * run.json["coverage"]["benchmarks"].size());  // a radar and a forest each
  expect_renders_the_run(run);
}

// --ci studentized: stress means and L1 distances are no ratios, so their intervals are null
// with a note, which the JSON's stress and l1 rows do not carry; the notes under the tables name them.
TEST(ProfileFromJson, StudentizedNotesComeFromTheRenderState) {
  const AnalysisResult run = llmbar_profile({"--replicates", "150", "--ci", "studentized"});
  ASSERT_TRUE(contains(run.text, "note: no studentized interval for ")) << run.text;
  ASSERT_TRUE(contains(run.text, "stress_mean")) << run.text;
  bool noted = false;
  for (const Json& state : run.render["intervals"])
    noted = noted || (state["row"] != "statistics" && !state["note"].get<std::string>().empty());
  EXPECT_TRUE(noted);
  expect_renders_the_run(run);
}

TEST(ProfileFromJson, JudgeBenchRendersTheSameBytesAsTheRun) {
  expect_renders_the_run(
      run_profile_on(kJudgeBench, {"--config", kRoot + "/configs/judgebench.json", "--replicates", "150"}));
}

// Flagged items (leave-out rows interleaved with the cells in the plan), bias correction (q0, q1
// and the corrected values) and the variant cells C5, C6.
TEST(ProfileFromJson, SyntheticJudgerEvaRendersTheSameBytesAsTheRun) {
  const AnalysisResult run = synthetic_profile();
  ASSERT_FALSE(run.json["leave_out"].empty());
  ASSERT_FALSE(run.json["bias_correction"].empty());
  ASSERT_TRUE(contains(run.text, "Leave-out sensitivity")) << run.text;
  ASSERT_TRUE(contains(run.text, "Bias-corrected values")) << run.text;
  expect_renders_the_run(run);
}

TEST(ProfileFromJson, ReadsBackThePlanAndWhatTheJsonLacks) {
  const AnalysisResult run = synthetic_profile();
  const ProfileReport read = profile_report_from_json(stored(run.json), stored(run.render));
  EXPECT_EQ(read.plan.judges, run.render["judges"].get<std::vector<std::string>>());
  EXPECT_EQ(read.plan.judges.size(), 7u);  // synth cap's seven built-in judges
  ASSERT_EQ(read.plan.stats.size(), run.render["intervals"].size());
  ASSERT_EQ(read.plan.benchmarks.size(), 1u);
  EXPECT_EQ(read.plan.benchmarks[0].spec.name, "judgerEva");
  EXPECT_EQ(read.plan.benchmarks[0].items, 4 * 40);  // four failure types × 40 items
  EXPECT_TRUE(read.plan.benchmarks[0].has_flagged);
  EXPECT_EQ(read.result.replicates_run, 150u);
  // A leave-out row sits right after its cell's rows in the plan, with its clusters from the render state.
  const int32_t cell = read.plan.find(ProfileStat::Kind::kCell, 0, 0, "C1");
  const int32_t shift = read.plan.find(ProfileStat::Kind::kLeaveOut, 0, 0, "C1");
  ASSERT_GE(cell, 0);
  ASSERT_GT(shift, cell);
  EXPECT_EQ(read.result.labels[shift].name, "leave_out");
  EXPECT_EQ(read.result.intervals[shift].clusters, run.render["intervals"][shift]["clusters"].get<int64_t>());
  EXPECT_GT(read.result.intervals[shift].clusters, 0);
  EXPECT_EQ(dump_json(to_json(read, ReportHead{{}, run.json["timing"]["load_s"].get<double>()})), dump_json(run.json));
  // An all-invalid judge's note comes back as its validity and a WARNING above the tables.
  ProfileReport warned = read;
  warned.validity = {{read.plan.judges[2], 640, 640, "a verdict that is no label"}};
  const ProfileReport back = profile_report_from_json(stored(to_json(warned, {})), run.render);
  ASSERT_EQ(back.validity.size(), 1u);
  EXPECT_EQ(back.validity[0].invalid_reason, "a verdict that is no label");
  EXPECT_EQ(back.plan.notes, read.plan.notes);
  for (const char* format : {"text", "csv", "md"}) EXPECT_EQ(tables(back, format), tables(warned, format)) << format;
  EXPECT_TRUE(contains(tables(back, "text"), "WARNING: every record of judge " + read.plan.judges[2]));
}

// An edited estimate reads back as edited: the profile table's cell and the forest figure show it.
TEST(ProfileFromJson, AnEditedEstimateIsWhatTheTablesShow) {
  const AnalysisResult run = llmbar_profile({"--replicates", "100"});
  Json json = stored(run.json);
  size_t row = 0;
  while (row < json["statistics"].size() &&
         !(json["statistics"][row]["name"] == "C7" && json["statistics"][row]["main_table"] == true))
    ++row;
  ASSERT_LT(row, json["statistics"].size());
  json["statistics"][row]["estimate"] = 0.987654;
  const Json& ci = json["statistics"][row]["ci"];
  const std::string cell = "98.8 (" + std::to_string(std::lround(100 * ci[0].get<double>())) + "," +
                           std::to_string(std::lround(100 * ci[1].get<double>())) + ")";
  ASSERT_FALSE(contains(run.text, cell));
  const RenderedReport rendered = render_from_json("profile", json, stored(run.render));
  EXPECT_TRUE(contains(rendered.text, cell)) << cell;
  bool plotted = false;
  for (const PlotFile& plot : rendered.plots) plotted = plotted || contains(plot.csv, ",0.98765400000000003,");
  EXPECT_TRUE(plotted);
}

TEST(ProfileFromJson, AProfileResultItsReportDoesNotWriteAgainIsRefused) {
  const AnalysisResult run = llmbar_profile({"--replicates", "100"});
  const Json json = stored(run.json), render = stored(run.render);
  struct Case {
    const char* why;
    void (*edit)(Json& json, Json& render);
  };
  const Case cases[] = {
      {"result.statistics[0].name: not a statistic a profile writes: 'C9'",
       [](Json& j, Json&) { j["statistics"][0]["name"] = "C9"; }},
      {"result.statistics[0].judge: 'nobody' is not a judge of the render state",
       [](Json& j, Json&) { j["statistics"][0]["judge"] = "nobody"; }},
      {"result.statistics[0].coverage: not a coverage status: 'partial'",
       [](Json& j, Json&) { j["statistics"][0]["coverage"] = "partial"; }},
      {"result.statistics: does not read back", [](Json& j, Json&) { j["statistics"][0]["saturated"] = true; }},
      {"result.coverage.cells[1]: expected LLMBar's C2",
       [](Json& j, Json&) { j["coverage"]["cells"][1]["condition"] = "C3"; }},
      {"result.coverage.cells: expected ", [](Json& j, Json&) { j["coverage"]["cells"].erase(0); }},
      {"result.stress[0].from: 'Nowhere' is not a benchmark of result.coverage",
       [](Json& j, Json&) { j["stress"][0]["from"] = "Nowhere"; }},
      {"result.stress[0].deltas[0].condition: 'C9' is not a condition",
       [](Json& j, Json&) { j["stress"][0]["deltas"][0]["condition"] = "C9"; }},
      {"result.l1: does not read back", [](Json& j, Json&) { j["l1"]["means"][0]["within_family"] = nullptr; }},
      {"result.spearman: does not read back", [](Json& j, Json&) { j["spearman"]["note"] = "edited"; }},
      {"result.timing: does not read back", [](Json& j, Json&) { j["timing"]["replicates_per_s"] = 1.0; }},
      {"result.settings.exact_max_n: expected a whole number from 0 to 10",
       [](Json& j, Json&) { j["settings"]["exact_max_n"] = 11; }},
      {"result.bias_correction[0]: expected an object", [](Json& j, Json&) { j["bias_correction"].push_back(0); }},
      {"render: expected an object", [](Json&, Json& r) { r = nullptr; }},
      {"render.judges: missing", [](Json&, Json& r) { r.erase("judges"); }},
      {"render.benchmarks: expected one element per result.coverage.benchmarks",
       [](Json&, Json& r) { r["benchmarks"].erase(0); }},
      {"render.intervals: expected one element per statistic of the result",
       [](Json&, Json& r) { r["intervals"].erase(r["intervals"].size() - 1); }},
      {"index: not a row of result.statistics that no other element places",
       [](Json&, Json& r) { r["intervals"].push_back(r["intervals"][0]); }},
      {"render.intervals[0].row: expected statistics, stress, l1, leave_out or across_judges",
       [](Json&, Json& r) { r["intervals"][0]["row"] = "elsewhere"; }},
      {"render.intervals[0].size_cv: expected a number or null",
       [](Json&, Json& r) { r["intervals"][0]["size_cv"] = "wide"; }},
      // replicates_run is the settings' replicates: another count does not give the stored settings.
      {"result.settings: does not read back", [](Json&, Json& r) { r["replicates_run"] = uint64_t{101}; }},
  };
  ASSERT_NO_THROW((void)render_from_json("profile", json, render));
  for (const Case& c : cases) {
    Json edited = json, edited_render = render;
    c.edit(edited, edited_render);
    const std::string message = thrown_message([&] { (void)render_from_json("profile", edited, edited_render); });
    EXPECT_TRUE(contains(message, c.why)) << c.why << ": " << message;
  }
}

// Rows the writers would hide or pad, each consistent with to_json: a statistic row repeated
// (ProfilePlan::index keeps one of the two), leave-out rows where no leave-out table is written,
// and a render judge no result row names (its table rows would be all "—").
TEST(ProfileFromJson, RowsTheTablesWouldHideOrPadAreRefusedByName) {
  const AnalysisResult run = synthetic_profile();
  const Json json = stored(run.json), render = stored(run.render);
  ASSERT_FALSE(json["leave_out"].empty());
  ASSERT_TRUE(render["leave_out"].get<bool>());
  ASSERT_NO_THROW((void)render_from_json("profile", json, render));
  auto refused = [](const Json& j, const Json& r) {
    return thrown_message([&] { (void)render_from_json("profile", j, r); });
  };
  Json repeated = json, repeated_render = render;
  const size_t rows = json["statistics"].size(), states = render["intervals"].size();
  repeated["statistics"].push_back(json["statistics"][0]);
  repeated_render["intervals"].push_back({{"row", "statistics"}, {"index", rows}, {"size_cv", nullptr}});
  EXPECT_EQ(refused(repeated, repeated_render), "render.intervals[" + std::to_string(states) +
                                                    "].index: result.statistics[" + std::to_string(rows) +
                                                    "] repeats another row's statistic");
  const std::string hidden = "result.leave_out[0]: benchmark 'judgerEva' has no leave-out tables";
  Json no_leave_out = render;
  no_leave_out["leave_out"] = false;
  EXPECT_TRUE(contains(refused(json, no_leave_out), hidden)) << refused(json, no_leave_out);
  Json unflagged = render;
  unflagged["benchmarks"][0]["has_flagged"] = false;
  EXPECT_TRUE(contains(refused(json, unflagged), hidden)) << refused(json, unflagged);
  Json extra_judge = render;
  extra_judge["judges"].push_back("nobody");
  const std::string extra =
      "render.judges[" + std::to_string(render["judges"].size()) + "]: 'nobody' names no result row";
  EXPECT_EQ(refused(json, extra_judge), extra);
}

}  // namespace
}  // namespace judgestat
