// A reused cache entry's tables and figures are rendered from its result (docs/study.md, "The
// cache"): an entry edited by hand with its digest recomputed shows the same (edited) numbers in
// results.json, the tables and report.html, never the edited one beside the original; an entry
// whose result cannot be read back is recomputed with a note, like a digest mismatch.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "report/html_report.hpp"
#include "report/report.hpp"
#include "study/study_cache.hpp"
#include "study_support.hpp"

namespace judgestat {
namespace {

using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::without_run_fields;
using study_testing::without_timing;
using study_testing::write_all;
using testing_support::kRoot;

// budget --compare, the label budget, items and metrics, whose tables are rendered from the
// result (the label budget's and metrics' with their render state).
std::string rendered_study(const std::string& dir) {
  write_all(dir + "/jb.csv", read_all(kRoot + "/data/judgebench/gpt4o_split.csv"));
  write_all(dir + "/study.json", R"({
    "settings": {"replicates": 100, "draws": 2000, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"},
    "analyses": [
      {"name": "power", "analysis": "budget", "input": "jb",
       "compare": "Skywork_Skywork-Reward-Gemma-2-27B,o1-mini-2024-09-12", "k": [50, 100]},
      {"name": "disagree", "analysis": "items", "input": "jb",
       "judges": ["o1-mini-2024-09-12", "Skywork_Skywork-Reward-Llama-3.1-8B"], "disagree": true},
      {"name": "gate", "analysis": "budget", "input": "jb", "first": "Skywork_Skywork-Reward-Gemma-2-27B",
       "fallback": "o1-mini-2024-09-12", "k": [50, 100]},
      {"name": "acc", "analysis": "metrics", "input": "jb",
       "judges": ["Skywork_Skywork-Reward-Gemma-2-27B", "Skywork_Skywork-Reward-Llama-3.1-8B"], "diff": "acc,brier",
       "by": "benchmark"}
    ]})");
  return dir + "/study.json";
}

StudyOutcome run_into(const std::string& study_path, const std::string& out) {
  StudyRunOptions options;
  options.out_dir = out;
  options.quiet = true;
  return run_study(load_study(study_path), options);
}

const Json& analysis_of(const Json& results, const std::string& name) {
  for (const Json& analysis : results["analyses"])
    if (analysis["name"] == name) return analysis;
  throw std::runtime_error("no analysis " + name);
}

std::string entry_path(const std::string& out, const std::string& name) {
  const Json results = Json::parse(read_all(out + "/results.json"));
  return out + "/cache/" + analysis_of(results, name)["key"].get<std::string>() + ".json";
}

// Edits the entry and recomputes its digest, as a forger would.
void forge_entry(const std::string& path, const std::function<void(Json&)>& edit) {
  Json entry = Json::parse(read_all(path));
  edit(entry);
  entry["digest"] = study::entry_digest(entry);
  write_all(path, dump_json(entry) + "\n");
}

TEST(StudyCacheRender, EntriesKeepTablesOnlyWhereTheyAreNotRenderedFromTheResult) {
  const std::string dir = fresh_dir("kept");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  for (const char* name : {"power", "disagree", "gate", "acc"}) {
    SCOPED_TRACE(name);
    const Json entry = Json::parse(read_all(entry_path(out, name)));
    EXPECT_EQ(entry["format"], study::kEntryFormat);
    for (const char* key : {"text", "csv", "md", "plots"}) EXPECT_FALSE(entry.contains(key)) << key;
    EXPECT_EQ(entry.contains("render"), std::string(name) == "gate" || std::string(name) == "acc");
    EXPECT_FALSE(analysis_of(Json::parse(read_all(out + "/results.json")), name)["result"].contains("render"));
  }
  const Json gate_render = Json::parse(read_all(entry_path(out, "gate")))["render"];
  ASSERT_EQ(gate_render["summaries"].size(), 4u);                       // k 50 and 100, each with both rules
  EXPECT_EQ(gate_render["summaries"][0]["fee_ratio_undefined"], 2000);  // no fees in the file: every draw
  // Reused, the outputs are the computed ones byte for byte but for the seconds.
  const std::string tables = read_all(out + "/power/tables.txt"),
                    svg = read_all(out + "/power/budget_compare_power.svg");
  const std::string items = read_all(out + "/disagree/tables.csv"), report = read_all(out + "/report.html");
  const std::string gate_tables = read_all(out + "/gate/tables.md"), gate_csv = read_all(out + "/gate/tables.csv"),
                    gate_delta = read_all(out + "/gate/budget_delta_k100_lower.svg"),
                    gate_loss = read_all(out + "/gate/budget_loss_share.csv");
  ASSERT_NE(gate_delta.find("<rect"), std::string::npos);
  std::map<std::string, std::string> metrics_outputs;
  for (const char* file :
       {"/acc/tables.txt", "/acc/tables.csv", "/acc/metrics_forest_mmlu.svg", "/acc/metrics_forest.csv"})
    metrics_outputs[file] = read_all(out + file);
  ASSERT_NE(metrics_outputs["/acc/tables.txt"].find("Probability quality"), std::string::npos);
  ASSERT_NE(metrics_outputs["/acc/tables.txt"].find("diff brier"), std::string::npos);
  const StudyOutcome reused = run_into(study, out);
  EXPECT_EQ(reused.reused.size(), 4u);
  EXPECT_TRUE(reused.notes.empty());
  EXPECT_EQ(without_timing(read_all(out + "/power/tables.txt")), without_timing(tables));
  EXPECT_EQ(read_all(out + "/power/budget_compare_power.svg"), svg);
  EXPECT_EQ(read_all(out + "/disagree/tables.csv"), items);
  EXPECT_EQ(without_timing(read_all(out + "/gate/tables.md")), without_timing(gate_tables));
  EXPECT_EQ(without_timing(read_all(out + "/gate/tables.csv")), without_timing(gate_csv));
  EXPECT_EQ(read_all(out + "/gate/budget_delta_k100_lower.svg"), gate_delta);
  EXPECT_EQ(read_all(out + "/gate/budget_loss_share.csv"), gate_loss);
  EXPECT_EQ(without_timing(read_all(out + "/report.html")), without_timing(report));
  for (const char* file :
       {"/acc/tables.txt", "/acc/tables.csv", "/acc/metrics_forest_mmlu.svg", "/acc/metrics_forest.csv"})
    EXPECT_EQ(without_timing(read_all(out + file)), without_timing(metrics_outputs[file])) << file;
}

TEST(StudyCacheRender, AForgedEstimateShowsTheSameEverywhere) {
  const std::string dir = fresh_dir("forged");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  // 0.987654 is no value the run gives: the tables print it as 0.9877, the figure as 98.77 %.
  for (const std::string file : {"/power/tables.txt", "/report.html", "/disagree/tables.csv"}) {
    EXPECT_EQ(read_all(out + file).find("0.9877"), std::string::npos) << file;
    EXPECT_EQ(read_all(out + file).find("FORGED-ITEM"), std::string::npos) << file;
  }
  forge_entry(entry_path(out, "power"), [](Json& e) {
    e["result"]["budget"][0]["d_median"] = 0.987654;
    e["result"]["budget"][0]["power"] = 0.987654;
  });
  forge_entry(entry_path(out, "disagree"), [](Json& e) { e["result"]["rows"][0]["item"] = "FORGED-ITEM"; });
  // The label budget: 0.876543 as k 50's point-rule loss share prints as 87.65 (%) in the tables.
  for (const std::string file : {"/gate/tables.txt", "/report.html", "/gate/budget_loss_share.csv"}) {
    EXPECT_EQ(read_all(out + file).find("87.65"), std::string::npos) << file;
    EXPECT_EQ(read_all(out + file).find("0.876543"), std::string::npos) << file;
  }
  ASSERT_EQ(Json::parse(read_all(entry_path(out, "gate")))["result"]["budget"][0]["rule"], "point");
  forge_entry(entry_path(out, "gate"), [](Json& e) { e["result"]["budget"][0]["loss_share"] = 0.876543; });
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.reused.size(), 4u);
  EXPECT_TRUE(outcome.notes.empty());
  const Json gate = analysis_of(Json::parse(read_all(out + "/results.json")), "gate");
  EXPECT_EQ(gate["result"]["budget"][0]["loss_share"].get<double>(), 0.876543);
  EXPECT_NE(read_all(out + "/gate/tables.txt").find(" 87.65 "), std::string::npos)  // column "P(loss > 2 pp) (%)"
      << read_all(out + "/gate/tables.txt");
  EXPECT_NE(read_all(out + "/gate/tables.csv").find(",87.65,"), std::string::npos);
  EXPECT_NE(read_all(out + "/gate/budget_delta_k50_point.svg").find("87.7 % of draws lose more"), std::string::npos);
  EXPECT_NE(read_all(out + "/gate/budget_loss_share.csv").find("point,50,2000,0.876542999"), std::string::npos);
  EXPECT_NE(read_all(out + "/report.html").find("87.65 %"), std::string::npos);
  const Json power = analysis_of(Json::parse(read_all(out + "/results.json")), "power");
  EXPECT_EQ(power["result"]["budget"][0]["d_median"].get<double>(), 0.987654);
  EXPECT_NE(read_all(out + "/power/tables.txt").find("0.9877 ("), std::string::npos);
  EXPECT_NE(read_all(out + "/power/tables.csv").find(",98.77,"), std::string::npos);
  EXPECT_NE(read_all(out + "/power/budget_compare_power.csv").find("power,50,2000,0.98765"), std::string::npos);
  EXPECT_NE(read_all(out + "/report.html").find("0.9877 ("), std::string::npos);
  const Json items = analysis_of(Json::parse(read_all(out + "/results.json")), "disagree");
  EXPECT_EQ(items["result"]["rows"][0]["item"], "FORGED-ITEM");
  EXPECT_NE(read_all(out + "/disagree/tables.csv").find("\nFORGED-ITEM,"), std::string::npos);
  EXPECT_NE(read_all(out + "/report.html").find("FORGED-ITEM"), std::string::npos);
}

TEST(StudyCacheRender, AResultThatCannotBeReadBackIsRecomputedWithANote) {
  const std::string dir = fresh_dir("unreadable");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json results = Json::parse(read_all(out + "/results.json"));
  const std::string tables = read_all(out + "/power/tables.txt");
  forge_entry(entry_path(out, "power"), [](Json& e) { e["result"]["budget"][1]["draws"] = "many"; });
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.computed, (std::vector<std::string>{"power"}));
  ASSERT_EQ(outcome.notes.size(), 1u);
  EXPECT_NE(outcome.notes[0].find("power: the cached result cache/"), std::string::npos) << outcome.notes[0];
  EXPECT_NE(outcome.notes[0].find("result.budget[1].draws: expected a whole number"), std::string::npos)
      << outcome.notes[0];
  EXPECT_NE(outcome.notes[0].find("recomputed"), std::string::npos) << outcome.notes[0];
  const Json now = Json::parse(read_all(out + "/results.json"));
  EXPECT_EQ(now["study"]["notes"], Json::array({outcome.notes[0]}));
  EXPECT_EQ(dump_json(without_run_fields(now)["analyses"]), dump_json(without_run_fields(results)["analyses"]));
  EXPECT_EQ(without_timing(read_all(out + "/power/tables.txt")), without_timing(tables));
  EXPECT_NE(read_all(out + "/report.html").find("<p class=\"note\">note: " + html_escape(outcome.notes[0]) + "</p>"),
            std::string::npos);
}

TEST(StudyCacheRender, ALabelBudgetEntryThatDoesNotReadBackIsRecomputed) {
  const std::string dir = fresh_dir("label_budget");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  const std::string tables = read_all(out + "/gate/tables.txt"),
                    delta = read_all(out + "/gate/budget_delta_k50_point.svg");
  // Each forged consistently with its digest, but no run writes it: a rate that is not draws over
  // seconds, a Δ histogram that does not count the draws, no render state at all.
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> forgeries = {
      {[](Json& e) { e["result"]["timing"]["draws_per_s"] = 1.0; }, "result.timing: does not read back"},
      {[](Json& e) { e["render"]["summaries"][0]["delta_hist"].push_back(5); },
       "render.summaries[0].delta_hist: expected one count per draw"},
      {[](Json& e) { e.erase("render"); }, "render: expected an object"},
  };
  for (const auto& [forge, why] : forgeries) {
    SCOPED_TRACE(why);
    forge_entry(entry_path(out, "gate"), forge);
    const StudyOutcome outcome = run_into(study, out);
    EXPECT_EQ(outcome.computed, (std::vector<std::string>{"gate"}));
    ASSERT_EQ(outcome.notes.size(), 1u);
    EXPECT_NE(outcome.notes[0].find("gate: the cached result cache/"), std::string::npos) << outcome.notes[0];
    EXPECT_NE(outcome.notes[0].find(why), std::string::npos) << outcome.notes[0];
    EXPECT_EQ(without_timing(read_all(out + "/gate/tables.txt")), without_timing(tables));
    EXPECT_EQ(read_all(out + "/gate/budget_delta_k50_point.svg"), delta);
  }
}

// metrics: an acc estimate (0.987654, printed 0.9877) and a Brier score (7.654321, printed
// 7.6543, no value a run gives) forged with the digest recomputed show in results.json, every
// table, the forest plot and report.html as edited; never the original.
TEST(StudyCacheRender, AForgedMetricsEstimateShowsTheSameEverywhere) {
  const std::string dir = fresh_dir("forged_metrics");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json results = Json::parse(read_all(out + "/results.json"));
  const Json& rows = analysis_of(results, "acc")["result"]["statistics"];
  size_t acc = rows.size(), brier = rows.size();
  for (size_t s = 0; s < rows.size(); ++s) {
    if (acc == rows.size() && rows[s]["name"] == "acc" && rows[s]["benchmark"].is_null()) acc = s;
    if (brier == rows.size() && rows[s]["name"] == "brier" && rows[s]["benchmark"].is_null()) brier = s;
  }
  ASSERT_LT(acc, rows.size());
  ASSERT_LT(brier, rows.size());
  for (const std::string file : {"/acc/tables.txt", "/acc/tables.csv", "/acc/metrics_forest.svg", "/report.html"}) {
    EXPECT_EQ(read_all(out + file).find("0.9877"), std::string::npos) << file;
    EXPECT_EQ(read_all(out + file).find("7.6543"), std::string::npos) << file;
  }
  forge_entry(entry_path(out, "acc"), [&](Json& e) {
    e["result"]["statistics"][acc]["estimate"] = 0.987654;
    e["result"]["statistics"][brier]["estimate"] = 7.654321;
  });
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.reused.size(), 4u);
  EXPECT_TRUE(outcome.notes.empty());
  const Json now = analysis_of(Json::parse(read_all(out + "/results.json")), "acc");
  EXPECT_EQ(now["result"]["statistics"][acc]["estimate"].get<double>(), 0.987654);
  EXPECT_EQ(now["result"]["statistics"][brier]["estimate"].get<double>(), 7.654321);
  const std::string text = read_all(out + "/acc/tables.txt");
  EXPECT_NE(text.find("0.9877"), std::string::npos) << text;
  EXPECT_NE(text.find("7.6543"), std::string::npos) << text;
  EXPECT_NE(read_all(out + "/acc/tables.csv").find(",0.98765400000000003,"), std::string::npos);
  EXPECT_NE(read_all(out + "/acc/tables.csv").find(",7.6543210000000004,"), std::string::npos);
  EXPECT_NE(read_all(out + "/acc/metrics_forest.svg").find("0.9877 ("), std::string::npos);
  EXPECT_NE(read_all(out + "/acc/metrics_forest.csv").find(",0.98765400000000003,"), std::string::npos);
  EXPECT_NE(read_all(out + "/report.html").find("0.9877"), std::string::npos);
  EXPECT_NE(read_all(out + "/report.html").find("7.6543"), std::string::npos);
}

TEST(StudyCacheRender, AMetricsEntryThatDoesNotReadBackIsRecomputed) {
  const std::string dir = fresh_dir("metrics_unreadable");
  const std::string study = rendered_study(dir), out = dir + "/out";
  run_into(study, out);
  const std::string tables = read_all(out + "/acc/tables.txt"), forest = read_all(out + "/acc/metrics_forest.svg");
  // Each forged consistently with its digest, but no run writes it: a share that is not its
  // count over n, a row's interval flag state missing, no render state at all.
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> forgeries = {
      {[](Json& e) { e["result"]["complementarity"][0]["shares"]["both_wrong"] = 0.5; },
       "result.complementarity: does not read back"},
      {[](Json& e) { e["render"]["intervals"][0].erase("strata"); }, "render.intervals[0].strata: missing"},
      {[](Json& e) { e.erase("render"); }, "render: expected an object"},
  };
  for (const auto& [forge, why] : forgeries) {
    SCOPED_TRACE(why);
    forge_entry(entry_path(out, "acc"), forge);
    const StudyOutcome outcome = run_into(study, out);
    EXPECT_EQ(outcome.computed, (std::vector<std::string>{"acc"}));
    ASSERT_EQ(outcome.notes.size(), 1u);
    EXPECT_NE(outcome.notes[0].find("acc: the cached result cache/"), std::string::npos) << outcome.notes[0];
    EXPECT_NE(outcome.notes[0].find(why), std::string::npos) << outcome.notes[0];
    EXPECT_EQ(without_timing(read_all(out + "/acc/tables.txt")), without_timing(tables));
    EXPECT_EQ(read_all(out + "/acc/metrics_forest.svg"), forest);
  }
}

// profile on the bundled LLMBar outputs with configs/llmbar.json: three benchmarks, a stress pair
// and families, rendered from its result and render state.
std::string profile_study(const std::string& dir) {
  write_all(dir + "/llmbar.csv", read_all(kRoot + "/data/llmbar/natural_neighbor.csv"));
  write_all(dir + "/llmbar.json", read_all(kRoot + "/configs/llmbar.json"));
  write_all(dir + "/study.json", R"({
    "settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"llmbar": "llmbar.csv"},
    "analyses": [
      {"name": "cap", "analysis": "profile", "input": "llmbar", "config": "llmbar.json",
       "judges": ["ChatGPT/Vanilla", "Falcon/Vanilla", "GPT-4/Vanilla", "LLaMA2/Vanilla", "PaLM2/Vanilla"]}
    ]})");
  return dir + "/study.json";
}

const char* const kProfileOutputs[] = {
    "/cap/tables.txt",       "/cap/tables.csv",

    "/cap/radar_LLMBar.svg", "/cap/forest_LLMBar.svg", "/cap/forest_LLMBar.csv", "/cap/radar_LLMBar-Natural.svg",
    "/report.html"};

TEST(StudyCacheRender, AProfileEntryIsRenderedFromItsResult) {
  const std::string dir = fresh_dir("profile");
  const std::string study = profile_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json entry = Json::parse(read_all(entry_path(out, "cap")));
  for (const char* key : {"text", "csv", "md", "plots"}) EXPECT_FALSE(entry.contains(key)) << key;
  ASSERT_TRUE(entry.contains("render"));
  EXPECT_EQ(entry["render"]["judges"].size(), 5u);
  EXPECT_EQ(entry["render"]["benchmarks"].size(), 3u);  // LLMBar, LLMBar-Natural, LLMBar-Neighbor
  std::map<std::string, std::string> outputs;
  for (const char* file : kProfileOutputs) {
    outputs[file] = read_all(out + file);
    ASSERT_FALSE(outputs[file].empty()) << file;
  }
  ASSERT_NE(outputs["/cap/tables.txt"].find("Stress degradation LLMBar-Natural → LLMBar-Neighbor"), std::string::npos)
      << outputs["/cap/tables.txt"];
  const StudyOutcome reused = run_into(study, out);
  EXPECT_EQ(reused.reused, (std::vector<std::string>{"cap"}));
  EXPECT_TRUE(reused.notes.empty());
  for (const char* file : kProfileOutputs)
    EXPECT_EQ(without_timing(read_all(out + file)), without_timing(outputs[file])) << file;
}

// A C7 estimate forged as 0.987654 (the profile table prints 98.8 with the row's CI, the forest
// CSV the number) with the digest recomputed shows the same in results.json, the tables, the
// forest figure and report.html; a row naming a judge the report lacks is recomputed with a note.
TEST(StudyCacheRender, AForgedProfileEstimateShowsTheSameEverywhere) {
  const std::string dir = fresh_dir("forged_profile");
  const std::string study = profile_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json results = Json::parse(read_all(out + "/results.json"));
  const Json& rows = analysis_of(results, "cap")["result"]["statistics"];
  size_t row = 0;
  while (row < rows.size() && !(rows[row]["name"] == "C7" && rows[row]["benchmark"] == "LLMBar")) ++row;
  ASSERT_LT(row, rows.size());
  const std::string cell = "98.8 (" + std::to_string(std::lround(100 * rows[row]["ci"][0].get<double>())) + "," +
                           std::to_string(std::lround(100 * rows[row]["ci"][1].get<double>())) + ")";
  const std::string tables = read_all(out + "/cap/tables.txt");
  for (const std::string file : {"/cap/tables.txt", "/report.html"})
    ASSERT_EQ(read_all(out + file).find(cell), std::string::npos) << file;
  forge_entry(entry_path(out, "cap"), [&](Json& e) { e["result"]["statistics"][row]["estimate"] = 0.987654; });
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.reused, (std::vector<std::string>{"cap"}));
  EXPECT_TRUE(outcome.notes.empty());
  const Json now = analysis_of(Json::parse(read_all(out + "/results.json")), "cap");
  EXPECT_EQ(now["result"]["statistics"][row]["estimate"].get<double>(), 0.987654);
  for (const std::string file : {"/cap/tables.txt", "/report.html"})
    EXPECT_NE(read_all(out + file).find(cell), std::string::npos) << file << ": " << cell;
  EXPECT_NE(read_all(out + "/cap/forest_LLMBar.csv").find(",0.98765400000000003,"), std::string::npos);
  EXPECT_NE(read_all(out + "/cap/forest_LLMBar.svg").find(": 98.8 ("), std::string::npos);

  forge_entry(entry_path(out, "cap"), [&](Json& e) { e["result"]["statistics"][0]["judge"] = "nobody"; });
  const StudyOutcome refused = run_into(study, out);
  EXPECT_EQ(refused.computed, (std::vector<std::string>{"cap"}));
  ASSERT_EQ(refused.notes.size(), 1u);
  EXPECT_NE(refused.notes[0].find("cap: the cached result cache/"), std::string::npos) << refused.notes[0];
  EXPECT_NE(refused.notes[0].find("result.statistics[0].judge: 'nobody' is not a judge"), std::string::npos)
      << refused.notes[0];
  EXPECT_EQ(without_timing(read_all(out + "/cap/tables.txt")), without_timing(tables));
}

// A cascade per benchmark with the seeded selection part (rules scored on the held-out part) and
// a frozen τ: every table and figure comes from the result and its render state.
std::string cascade_study(const std::string& dir) {
  write_all(dir + "/jb.csv", read_all(kRoot + "/data/judgebench/gpt4o_split.csv"));
  write_all(dir + "/study.json", R"({
    "settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"},
    "analyses": [
      {"name": "gate", "analysis": "cascade", "input": "jb", "first": "Skywork_Skywork-Reward-Llama-3.1-8B",
       "fallback": "o1-mini-2024-09-12", "fee": {"o1-mini-2024-09-12": 0.0076}, "by": "benchmark",
       "select": 0.4, "tau": "0.9"}
    ]})");
  return dir + "/study.json";
}

const char* const kCascadeOutputs[] = {"/gate/tables.txt",
                                       "/gate/tables.csv",
                                       "/gate/cascade_accuracy_fee.svg",
                                       "/gate/cascade_accuracy_fee_mmlu.svg",
                                       "/gate/cascade_accuracy_fee.csv",
                                       "/gate/cascade_reliability.svg",
                                       "/gate/cascade_risk_coverage.csv",
                                       "/report.html"};

TEST(StudyCacheRender, ACascadeEntryIsRenderedFromItsResult) {
  const std::string dir = fresh_dir("cascade");
  const std::string study = cascade_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json entry = Json::parse(read_all(entry_path(out, "gate")));
  EXPECT_EQ(entry["format"], 4);
  for (const char* key : {"text", "csv", "md", "plots"}) EXPECT_FALSE(entry.contains(key)) << key;
  ASSERT_TRUE(entry.contains("render"));
  EXPECT_TRUE(entry["render"].contains("frozen"));
  EXPECT_TRUE(entry["render"].contains("rules"));
  std::map<std::string, std::string> outputs;
  for (const char* file : kCascadeOutputs) {
    outputs[file] = read_all(out + file);
    ASSERT_FALSE(outputs[file].empty()) << file;
  }
  ASSERT_NE(outputs["/gate/tables.txt"].find("Frozen threshold"), std::string::npos);
  ASSERT_NE(outputs["/gate/tables.txt"].find("Held-out part"), std::string::npos);
  const StudyOutcome reused = run_into(study, out);
  EXPECT_EQ(reused.reused, (std::vector<std::string>{"gate"}));
  EXPECT_TRUE(reused.notes.empty());
  for (const char* file : kCascadeOutputs)
    EXPECT_EQ(without_timing(read_all(out + file)), without_timing(outputs[file])) << file;
}

// The oracle's accuracy forged as 0.987654 (the sweep table prints 98.8 with its CI, the figure's
// CSV the number) with the digest recomputed shows the same in results.json, the tables, the
// figure and report.html; an index of the render state outside its bootstrap, or the tables an
// older entry kept, are recomputed with a note.
TEST(StudyCacheRender, AForgedCascadeEstimateShowsTheSameEverywhere) {
  const std::string dir = fresh_dir("forged_cascade");
  const std::string study = cascade_study(dir), out = dir + "/out";
  run_into(study, out);
  const Json results = Json::parse(read_all(out + "/results.json"));
  const Json& rows = analysis_of(results, "gate")["result"]["statistics"];
  size_t row = 0;
  while (row < rows.size() && !(rows[row]["name"] == "oracle_acc" && rows[row]["benchmark"].is_null())) ++row;
  ASSERT_LT(row, rows.size());
  auto pct = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", 100 * v);
    return std::string(b);
  };
  const std::string cell =
      "98.8 [" + pct(rows[row]["ci"][0].get<double>()) + ", " + pct(rows[row]["ci"][1].get<double>()) + "]";
  const std::string tables = read_all(out + "/gate/tables.txt");
  for (const std::string file : {"/gate/tables.txt", "/report.html"})
    ASSERT_EQ(read_all(out + file).find(cell), std::string::npos) << file;
  forge_entry(entry_path(out, "gate"), [&](Json& e) { e["result"]["statistics"][row]["estimate"] = 0.987654; });
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.reused, (std::vector<std::string>{"gate"}));
  EXPECT_TRUE(outcome.notes.empty());
  const Json now = analysis_of(Json::parse(read_all(out + "/results.json")), "gate");
  EXPECT_EQ(now["result"]["statistics"][row]["estimate"].get<double>(), 0.987654);
  for (const std::string file : {"/gate/tables.txt", "/report.html"})
    EXPECT_NE(read_all(out + file).find(cell), std::string::npos) << file << ": " << cell;
  EXPECT_NE(read_all(out + "/gate/cascade_accuracy_fee.csv").find("oracle,oracle,nan,nan,nan,0.98765400000000003,"),
            std::string::npos);

  forge_entry(entry_path(out, "gate"), [&](Json& e) { e["render"]["sweep_scopes"][0]["oracle_acc"] = 100000; });
  const StudyOutcome refused = run_into(study, out);
  EXPECT_EQ(refused.computed, (std::vector<std::string>{"gate"}));
  ASSERT_EQ(refused.notes.size(), 1u);
  EXPECT_NE(refused.notes[0].find("render.sweep_scopes[0].oracle_acc: not a statistic of its bootstrap"),
            std::string::npos)
      << refused.notes[0];
  EXPECT_EQ(without_timing(read_all(out + "/gate/tables.txt")), without_timing(tables));

  forge_entry(entry_path(out, "gate"), [&](Json& e) { e["plots"] = Json::array(); });
  const StudyOutcome kept_tables = run_into(study, out);
  EXPECT_EQ(kept_tables.computed, (std::vector<std::string>{"gate"}));
  ASSERT_EQ(kept_tables.notes.size(), 1u);
  EXPECT_NE(kept_tables.notes[0].find("it holds 'plots', which the cache does not write"), std::string::npos)
      << kept_tables.notes[0];
}

// Reruns the profile study over a cap entry left as `replace` made it: recomputed with a note
// naming `why`, the tables as the first run wrote them.
void expect_recomputed_with_note(const std::string& dir, const std::function<void(const std::string&)>& replace,
                                 const std::string& why) {
  const std::string study = profile_study(dir), out = dir + "/out";
  run_into(study, out);
  const std::string tables = read_all(out + "/cap/tables.txt");
  replace(entry_path(out, "cap"));
  const StudyOutcome outcome = run_into(study, out);
  EXPECT_EQ(outcome.computed, (std::vector<std::string>{"cap"}));
  ASSERT_EQ(outcome.notes.size(), 1u);
  EXPECT_NE(outcome.notes[0].find("cap: the cached result cache/"), std::string::npos) << outcome.notes[0];
  EXPECT_NE(outcome.notes[0].find(why), std::string::npos) << outcome.notes[0];
  EXPECT_EQ(without_timing(read_all(out + "/cap/tables.txt")), without_timing(tables));
  EXPECT_LT(std::filesystem::file_size(entry_path(out, "cap")), study::kMaxEntryBytes);
}

// An entry nested 300000 deep (nlohmann parses it without recursion, but its digest's copy and
// dump recurse and would overflow the stack) is refused before it is parsed.
TEST(StudyCacheRender, ADeeplyNestedEntryIsRecomputedWithANote) {
  expect_recomputed_with_note(
      fresh_dir("deep_entry"),
      [](const std::string& path) {
        const Json entry = Json::parse(read_all(path));
        const size_t depth = 300000;
        write_all(path, "{\"key\":" + entry["key"].dump() + ",\"deep\":" + std::string(depth, '[') +
                            std::string(depth, ']') + "}\n");
      },
      "JSON nested deeper than 256 levels");
}

// An entry larger than kMaxEntryBytes (a sparse file: no disk used) is refused before it is read.
TEST(StudyCacheRender, AnEntryOverTheSizeBoundIsRecomputedWithANote) {
  expect_recomputed_with_note(
      fresh_dir("huge_entry"),
      [](const std::string& path) { std::filesystem::resize_file(path, study::kMaxEntryBytes + 1); },
      "it is larger than 256 MiB");
}

// Renames a benchmark everywhere in the entry, digest recomputed: its figures take its name.
std::function<void(const std::string&)> renamed_benchmark(const std::string& from, const std::string& to) {
  return [from, to](const std::string& path) {
    Json entry = Json::parse(read_all(path));
    entry.erase("digest");
    std::string text = dump_json(entry);
    const std::string quoted = "\"" + from + "\"";
    for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + to.size()))
      text.replace(at, quoted.size(), "\"" + to + "\"");
    entry = Json::parse(text);
    entry["digest"] = study::entry_digest(entry);
    write_all(path, dump_json(entry) + "\n");
  };
}

// Figure names come from benchmark names: one too long for a file (radar_ + 300 bytes), or two
// benchmarks whose figures share a file ("LLMBar Natural" and "LLMBar_Natural" both write
// radar_LLMBar_Natural.svg), is recomputed with a note, as study_run refuses them when computed.
TEST(StudyCacheRender, RenderedFigureNamesThatAreNoFileAreRecomputedWithANote) {
  expect_recomputed_with_note(fresh_dir("long_figure"), renamed_benchmark("LLMBar-Natural", std::string(300, 'N')),
                              "its report renders a figure named 'radar_NNN");
  expect_recomputed_with_note(
      fresh_dir("twin_figure"),
      [](const std::string& path) {
        renamed_benchmark("LLMBar-Natural", "LLMBar Natural")(path);
        renamed_benchmark("LLMBar-Neighbor", "LLMBar_Natural")(path);
      },
      "its report renders two figures named 'forest_LLMBar_Natural'");
}

}  // namespace
}  // namespace judgestat
