// report/report_from_json.hpp: a report read back from its JSON renders the same bytes as the
// report itself (tables in text, csv and md, and every figure), on the bundled JudgeBench outputs
// run through run_analysis as a study runs them; and a document with a field missing or of the
// wrong type is refused, naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/metrics.hpp"
#include "render_support.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using render_support::expect_same_outputs;
using render_support::stored;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";
const std::string kGated = "Skywork_Skywork-Reward-Gemma-2-27B";  // a judge with probabilities

// The analysis as a study runs it, on JudgeBench.
AnalysisResult run_on_judgebench(const AnalysisRequest& request) {
  return render_support::run_on(kJudgeBench, request);
}

// Each analysis the bundled study (configs/study_bundled.json) runs that has a reader, plus the
// items table in full (its empty cells are nulls).
const std::vector<AnalysisRequest>& rendered_requests() {
  static const std::vector<AnalysisRequest> requests{
      {"items", {"--judges", kFallback + "," + kFirst, "--disagree"}},
      {"items", {}},
      {"budget",
       {"--compare", "Skywork_Skywork-Reward-Gemma-2-27B," + kFallback, "--k", "50,100,200,300", "--draws", "3000"}},
      {"budget", {"--compare", kFirst + "," + kFallback, "--statistic", "pa", "--k", "50", "--draws", "500"}},
      // The label budget: no fees in the file, so every draw's fee ratio is undefined (a note).
      {"budget", {"--first", kGated, "--fallback", kFallback, "--k", "50,100", "--draws", "2000"}},
      {"budget",
       {"--first", kGated, "--fallback", kFallback, "--k", "60", "--draws", "700", "--per-stratum", "--grid",
        "0.5,0.75,0.9", "--gate-orders", "1", "--fee", kGated + "=0.001", "--fee", kFallback + "=0.01"}},
  };
  return requests;
}

TEST(ReportFromJson, RendersTheSameBytesAsTheRunOnJudgeBench) {
  for (const AnalysisRequest& request : rendered_requests()) {
    SCOPED_TRACE(request.command + " " + (request.args.empty() ? "" : request.args.front()));
    const AnalysisResult run = run_on_judgebench(request);
    ASSERT_FALSE(run.text.empty());
    const Json json = stored(run.json);
    ASSERT_TRUE(renders_from_json(request.command, json));
    expect_same_outputs(run, render_from_json(request.command, json, stored(run.render)));
  }
}

TEST(ReportFromJson, LabelBudgetRoundTripsWithItsRenderState) {
  const AnalysisResult run = run_on_judgebench(rendered_requests()[4]);
  ASSERT_TRUE(run.render.is_object());
  const BudgetReport read = budget_report_from_json(stored(run.json), stored(run.render));
  ASSERT_EQ(read.summaries.size(), 4u);  // k 50 and 100, each with the point and the lower rule
  EXPECT_EQ(read.first, kGated);
  EXPECT_EQ(read.grid.labels,
            (std::vector<std::string>{"0.5", "0.6", "0.7", "0.8", "0.85", "0.9", "0.95", "0.99", "1"}));
  EXPECT_EQ(read.total_draws, 4u * 2000u);
  for (size_t s = 0; s < 4; ++s) {
    SCOPED_TRACE(s);
    const Json& state = run.render["summaries"][s];
    EXPECT_EQ(read.summaries[s].heldout_items, state["heldout_items"].get<int64_t>());
    EXPECT_EQ(read.summaries[s].heldout_items, read.pool_items - read.summaries[s].k);  // N − k
    EXPECT_EQ(read.summaries[s].fee_ratio_undefined, 2000u);                            // no fees in the file
    EXPECT_EQ(read.summaries[s].delta_hist, state["delta_hist"].get<std::vector<uint64_t>>());
    EXPECT_EQ(read.summaries[s].loss_share, run.json["budget"][s]["loss_share"].get<double>());
  }
  EXPECT_NE(tables(read, "text").find("fee ratio undefined in 2000 draws"), std::string::npos);
  EXPECT_EQ(dump_json(to_json(read, ReportHead{{}, run.json["timing"]["load_s"].get<double>()})), dump_json(run.json));
  // An all-invalid judge's note is the only note the label budget's JSON has; it reads back as
  // the validity that wrote it.
  BudgetReport warned = read;
  warned.validity = {{kGated, 30, 30, "probabilities summing to 100"}};
  const BudgetReport back = budget_report_from_json(stored(to_json(warned, {})), run.render);
  ASSERT_EQ(back.validity.size(), 1u);
  EXPECT_EQ(back.validity[0].records, 30);
  for (const char* format : {"text", "csv", "md"}) EXPECT_EQ(tables(back, format), tables(warned, format)) << format;
}

TEST(ReportFromJson, AResultItsReportDoesNotWriteAgainIsRefused) {
  const AnalysisResult run = run_on_judgebench(rendered_requests()[5]);
  const Json json = stored(run.json), render = stored(run.render);
  struct Case {
    const char* why;
    void (*edit)(Json& json, Json& render);
  };
  const Case cases[] = {
      // Fields no reader takes, or takes as another: to_json of what was read must give them again.
      {"result.timing: does not read back", [](Json& j, Json&) { j["timing"]["draws_per_s"] = 1.0; }},
      {"result.budget: does not read back", [](Json& j, Json&) { j["budget"][0]["note"] = "edited"; }},
      {"result.settings: does not read back", [](Json& j, Json&) { j["settings"]["engine"] = "edited"; }},
      {"result: keys missing or out of the writer's order",
       [](Json& j, Json&) {
         const Json pool = j["pool"];
         j.erase("pool");
         j["pool"] = pool;
       }},
      {"result.settings.grid[1]: not the value of tau_hist's label '0.75'",
       [](Json& j, Json&) { j["settings"]["grid"][1] = 0.75000001; }},
      {"result.budget[1].tau_hist: key '0.75' out of place",  // the first row's keys are the grid's labels
       [](Json& j, Json&) {
         Json hist = Json::object();
         for (const char* key : {"0.75", "0.5", "0.9", "all"}) hist[key] = j["budget"][1]["tau_hist"][key];
         j["budget"][1]["tau_hist"] = hist;
       }},
      {"result.notes[0]: not a note this analysis writes", [](Json& j, Json&) { j["notes"] = Json::array({"hello"}); }},
      {"result.settings.gate_orders: expected 1 or 2", [](Json& j, Json&) { j["settings"]["gate_orders"] = 3; }},
      // The render state: present, one element per row, a Δ histogram counting every draw once.
      {"render: expected an object", [](Json&, Json& r) { r = nullptr; }},
      {"render.summaries: expected one element per result.budget row",
       [](Json&, Json& r) { r["summaries"].push_back(r["summaries"][0]); }},
      {"render.summaries[1].delta_hist: expected one count per draw",
       [](Json&, Json& r) {
         r["summaries"][1]["delta_hist"][0] = r["summaries"][1]["delta_hist"][0].get<uint64_t>() + 1;
       }},
      {"render.summaries[0].heldout_items: missing", [](Json&, Json& r) { r["summaries"][0].erase("heldout_items"); }},
  };
  ASSERT_NO_THROW((void)render_from_json("budget", json, render));
  for (const Case& c : cases) {
    Json edited = json, edited_render = render;
    c.edit(edited, edited_render);
    EXPECT_NE(thrown_message([&] { (void)render_from_json("budget", edited, edited_render); }).find(c.why),
              std::string::npos)
        << c.why << ": " << thrown_message([&] { (void)render_from_json("budget", edited, edited_render); });
  }
}

// metrics as a study runs it: probabilities (Gemma-27B), differences with Holm and BH, per
// benchmark (stratified) and per difficulty (domain estimation, whose groups the JSON names only
// as conditions), raters, a fitted temperature, and --ci studentized (intervals with a note).
const std::vector<AnalysisRequest>& metrics_requests() {
  static const std::vector<AnalysisRequest> requests{
      {"metrics", {"--replicates", "200", "--by", "benchmark"}},
      {"metrics",
       {"--replicates", "150", "--judges", kGated + "," + kFallback + "," + kFirst, "--diff", "acc,brier,auroc_err",
        "--pairs", "all", "--raters", kGated + "," + kFallback + "," + kFirst, "--temperature-fit", kJudgeBench}},
      {"metrics", {"--replicates", "120", "--by", "difficulty", "--strata", "none", "--diff", "acc,pa", "--ci", "t"}},
      {"metrics",
       {"--replicates", "100", "--judges", kGated + "," + kFallback, "--ci", "studentized", "--invalid-match", "--by",
        "condition"}},
  };
  return requests;
}

TEST(ReportFromJson, MetricsRendersTheSameBytesAsTheRunOnJudgeBench) {
  for (const AnalysisRequest& request : metrics_requests()) {
    SCOPED_TRACE(request.args[2] + " " + request.args[3]);
    const AnalysisResult run = run_on_judgebench(request);
    ASSERT_FALSE(run.text.empty());
    const Json json = stored(run.json);
    ASSERT_TRUE(renders_from_json("metrics", json));
    expect_same_outputs(run, render_from_json("metrics", json, stored(run.render)));
  }
}

TEST(ReportFromJson, MetricsReadsBackWhatItsTablesPrint) {
  const AnalysisResult run = run_on_judgebench(metrics_requests()[1]);
  const MetricsReport read = metrics_report_from_json(stored(run.json), stored(run.render));
  // What the tables need and the JSON lacks comes from the render state.
  EXPECT_EQ(read.statistics.replicates_run, 150u);
  EXPECT_EQ(read.statistics.n_clusters, run.render["n_clusters"].get<int64_t>());
  EXPECT_GT(read.statistics.n_clusters, 50);  // JudgeBench's clusters
  ASSERT_EQ(read.statistics.intervals.size(), run.render["intervals"].size());
  // The two reward models have probabilities to fit; o1-mini has none.
  EXPECT_EQ(read.temperature.size(), 2u);
  EXPECT_TRUE(read.temperature.count(kGated) && read.temperature.count(kFirst));
  EXPECT_NE(tables(read, "text").find("temperature: " + kGated + "'s probabilities scaled with T = "),
            std::string::npos);
  // Differences: 3 pairs × 3 statistics, each with its p and both adjustments.
  size_t diffs = 0;
  for (size_t s = 0; s < read.statistics.labels.size(); ++s) {
    if (read.statistics.labels[s].name != "diff") continue;
    ++diffs;
    EXPECT_FALSE(std::isnan(read.p_holm[s]) && std::isnan(read.statistics.intervals[s].p));
  }
  EXPECT_GE(diffs, 6u);
  EXPECT_FALSE(read.probability.empty());
  EXPECT_FALSE(read.confusion.empty());
  EXPECT_EQ(read.complementarity.size(), 3u);  // every pair of three judges
  const Json again = to_json(read, ReportHead{{}, run.json["timing"]["load_s"].get<double>()});
  EXPECT_EQ(dump_json(again), dump_json(run.json));
  // An all-invalid judge's note comes back as its validity (with the reason the note names),
  // and a WARNING above the tables as in the report that wrote it.
  MetricsReport warned = read;
  warned.validity.front().invalid = warned.validity.front().records;
  warned.validity.front().invalid_reason = "probabilities summing to 100";
  const MetricsReport back = metrics_report_from_json(stored(to_json(warned, {})), run.render);
  EXPECT_EQ(back.validity.front().invalid_reason, "probabilities summing to 100");
  EXPECT_EQ(back.notes, read.notes);
  for (const char* format : {"text", "csv", "md"}) EXPECT_EQ(tables(back, format), tables(warned, format)) << format;
  EXPECT_NE(tables(back, "text").find("WARNING: every record of judge " + warned.validity.front().judge),
            std::string::npos);
}

TEST(ReportFromJson, MetricsDifficultyGroupsComeFromTheRenderState) {
  const AnalysisResult run = run_on_judgebench(metrics_requests()[2]);
  const Json& groups = run.render["probability"]["groups"];
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(run.render["probability"]["strata"], "difficulty");
  EXPECT_EQ(run.json["settings"]["strata"], "none");  // domain estimation, as asked
  bool grouped = false;
  for (const Json& g : groups) grouped = grouped || g.is_string();
  EXPECT_TRUE(grouped);
  for (const Json& row : run.json["reliability"])  // the JSON names no difficulty group
    EXPECT_TRUE(row["benchmark"].is_null() && row["condition"].is_null());
  // Without its groups the probability tables would print "all" for every row: refused instead.
  Json render = stored(run.render);
  render["probability"]["groups"].erase(render["probability"]["groups"].size() - 1);
  EXPECT_NE(thrown_message([&] {
              (void)render_from_json("metrics", stored(run.json), render);
            }).find("render.probability.groups: expected one group per reliability row"),
            std::string::npos);
}

TEST(ReportFromJson, AMetricsResultItsReportDoesNotWriteAgainIsRefused) {
  const AnalysisResult run = run_on_judgebench(metrics_requests()[1]);
  const Json json = stored(run.json), render = stored(run.render);
  struct Case {
    const char* why;
    void (*edit)(Json& json, Json& render);
  };
  const Case cases[] = {
      {"result.timing: does not read back", [](Json& j, Json&) { j["timing"]["replicates_per_s"] = 1.0; }},
      {"result.complementarity: does not read back",
       [](Json& j, Json&) { j["complementarity"][0]["shares"]["both_right"] = 0.5; }},
      {"result.reliability: does not read back", [](Json& j, Json&) { j["reliability"][0]["bins"][3]["hi"] = 0.9; }},
      {"result.statistics: does not read back", [](Json& j, Json&) { j["statistics"][0]["extra"] = 1; }},
      {"result.statistics[0].ci: expected an array", [](Json& j, Json&) { j["statistics"][0]["ci"] = "wide"; }},
      {"result.statistics[1].threshold: expected null or \"all\"",
       [](Json& j, Json&) { j["statistics"][1]["threshold"] = 0.5; }},
      {"result.statistics[0].of: a diff row names the statistic it differences",
       [](Json& j, Json&) { j["statistics"][0]["name"] = "diff"; }},
      {"result.statistics[0].of: a group_diff row names the statistic it differences",
       [](Json& j, Json&) { j["statistics"][0]["name"] = "group_diff"; }},
      {"result.settings.ci: not a CI method", [](Json& j, Json&) { j["settings"]["ci"] = "magic"; }},
      {"result.confusion[0].counts[0]: expected one count per verdict label",
       [](Json& j, Json&) { j["confusion"][0]["counts"][0].push_back(1); }},
      {"result.reliability[0].bins: expected 10 elements",
       [](Json& j, Json&) { j["reliability"][0]["bins"].erase(0); }},
      {"render: expected an object", [](Json&, Json& r) { r = nullptr; }},
      {"render.n_clusters: missing", [](Json&, Json& r) { r.erase("n_clusters"); }},
      {"render.intervals: expected one element per interval row",
       [](Json&, Json& r) { r["intervals"].push_back(r["intervals"][0]); }},
      {"render.intervals[2].size_cv: expected a number or null",
       [](Json&, Json& r) { r["intervals"][2]["size_cv"] = "wide"; }},
      // replicates_run is settings.replicates: the render state may not say otherwise.
      {"render.replicates_run: differs from settings.replicates",
       [](Json&, Json& r) { r["replicates_run"] = uint64_t{151}; }},
  };
  ASSERT_NO_THROW((void)render_from_json("metrics", json, render));
  for (const Case& c : cases) {
    Json edited = json, edited_render = render;
    c.edit(edited, edited_render);
    const std::string message = thrown_message([&] { (void)render_from_json("metrics", edited, edited_render); });
    EXPECT_NE(message.find(c.why), std::string::npos) << c.why << ": " << message;
  }
}

// Items without gold and a judge with more than 5% invalid records (docs/statistics.md §8.1, §1):
// their notes, printed as warnings above the tables, read back from the JSON, so that a reused
// entry prints them as the run did (metrics reads its validity rows; --compare only its notes).
TEST(ReportFromJson, NoGoldAndManyInvalidNotesReadBack) {
  const std::string path = testing::TempDir() + "gold_partial.csv";
  {
    std::ofstream out(path);
    out << "judge,item,order,gold,verdict\n";
    for (int i = 0; i < 40; ++i)
      for (int order = 0; order < 2; ++order) {
        const std::string item = "q" + std::to_string(i), gold = i < 30 ? (i % 2 ? "A" : "B") : "";
        out << "j1," << item << "," << order << "," << gold << "," << (i % 3 ? "A" : "B") << "\n";
        out << "j2," << item << "," << order << "," << gold << "," << (i < 3 ? "C" : i % 2 ? "A" : "B") << "\n";
      }
  }
  // j2's 'C' on items q0–q2 in both orders: 6 of its 80 records (7.5%); --compare, which needs
  // gold throughout, counts the 60 records of the 30 items with gold (10%).
  const std::vector<std::pair<AnalysisRequest, std::string>> requests{
      {{"metrics", {"--replicates", "60", "--labels", "A,B"}}, "6 of 80 records invalid (7.5%)"},
      {{"budget", {"--compare", "j1,j2", "--k", "10", "--draws", "300", "--labels", "A,B"}},
       "6 of 60 records invalid (10%)"}};
  for (const auto& [request, share] : requests) {
    SCOPED_TRACE(request.command);
    const AnalysisResult run = render_support::run_on(path, request);
    EXPECT_NE(run.text.find("WARNING: j2: " + share + ", most often verdict 'C' (6)"), std::string::npos) << run.text;
    EXPECT_NE(run.text.find("WARNING: 10 of 40 items have no gold"), std::string::npos) << run.text;
    expect_same_outputs(run, render_from_json(request.command, stored(run.json), stored(run.render)));
  }
}

TEST(ReportFromJson, BudgetCompareRoundTripsItsFieldsAndUndefinedShares) {
  const AnalysisResult run = run_on_judgebench(rendered_requests()[2]);
  const BudgetCompareReport read = budget_compare_report_from_json(stored(run.json));
  EXPECT_EQ(read.a, "Skywork_Skywork-Reward-Gemma-2-27B");
  EXPECT_EQ(read.b, kFallback);
  ASSERT_EQ(read.summaries.size(), 4u);
  EXPECT_EQ(read.summaries[3].k, 300u);
  EXPECT_EQ(read.summaries[3].power, run.json["budget"][3]["power"].get<double>());
  EXPECT_EQ(read.total_draws, 4u * 3000u);
  // NaN and ±inf are written as null and read back as NaN, which the tables print as NaN.
  BudgetCompareReport report = read;
  report.summaries[0].power = std::numeric_limits<double>::quiet_NaN();
  report.summaries[0].d_median = std::numeric_limits<double>::infinity();
  report.summaries[1].d_q[0] = -std::numeric_limits<double>::infinity();
  report.value_a = std::numeric_limits<double>::quiet_NaN();
  const BudgetCompareReport back = budget_compare_report_from_json(stored(to_json(report, {})));
  EXPECT_TRUE(std::isnan(back.summaries[0].power));
  EXPECT_TRUE(std::isnan(back.summaries[0].d_median));
  for (const char* format : {"text", "csv", "md"}) EXPECT_EQ(tables(back, format), tables(report, format)) << format;
  EXPECT_NE(tables(back, "text").find("–"), std::string::npos);  // the undefined power
  ASSERT_EQ(plot_files(back).size(), 1u);
  EXPECT_EQ(plot_files(back)[0].svg, plot_files(report)[0].svg);
  // A judge whose records are all invalid: its note leads the JSON's notes and is a WARNING
  // above the tables, not one of the notes under them.
  report.validity = {{report.a, 40, 0, ""}, {report.b, 12, 12, "probabilities summing to 100"}};
  report.notes = {"k 400 left out: above the pool"};
  const BudgetCompareReport warned = budget_compare_report_from_json(stored(to_json(report, {})));
  ASSERT_EQ(warned.validity.size(), 1u);
  EXPECT_EQ(warned.validity[0].invalid_reason, "probabilities summing to 100");
  EXPECT_EQ(warned.notes, report.notes);
  for (const char* format : {"text", "csv", "md"}) EXPECT_EQ(tables(warned, format), tables(report, format)) << format;
}

TEST(ReportFromJson, ItemsKeepTextNumbersAndEmptyCells) {
  ItemsReport report;
  report.columns = {"item", "score", "verdict"};
  report.rows = {{std::string("a,\"b\""), 0.1, std::monostate{}}, {std::string("c"), -2.5e-300, std::string("x")}};
  report.disagreeing = 7;
  Json json = {{"columns", report.columns}, {"rows", Json::array()}, {"disagreeing", 7}};
  const std::string jsonl = items_jsonl(report);
  for (size_t begin = 0, end; (end = jsonl.find('\n', begin)) != std::string::npos; begin = end + 1)
    json["rows"].push_back(Json::parse(jsonl.substr(begin, end - begin)));
  const ItemsReport back = items_report_from_json(stored(json));
  EXPECT_EQ(items_csv(back), items_csv(report));
  EXPECT_EQ(items_csv(back), "item,score,verdict\n\"a,\"\"b\"\"\",0.1,\nc,-2.5e-300,x\n");
  EXPECT_EQ(back.disagreeing, 7);
}

TEST(ReportFromJson, AMissingOrMistypedFieldIsRefusedByName) {
  const Json compare = stored(run_on_judgebench(rendered_requests()[3]).json);
  struct Case {
    const char* field;
    void (*edit)(Json&);
  };
  const Case cases[] = {
      {"result.settings.level: missing", [](Json& j) { j["settings"].erase("level"); }},
      {"result.budget[0].draws: expected a whole number", [](Json& j) { j["budget"][0]["draws"] = "3000"; }},
      {"result.budget[0].d_q: expected 2 elements", [](Json& j) { j["budget"][0]["d_q"] = Json::array({0.1}); }},
      {"result.budget[0].power: expected a number or null", [](Json& j) { j["budget"][0]["power"] = "high"; }},
      {"result.pool.values.o1-mini-2024-09-12: missing", [](Json& j) { j["pool"]["values"].erase(kFallback); }},
      {"result.notes: expected an array", [](Json& j) { j["notes"] = "none"; }},
  };
  for (const Case& c : cases) {
    Json json = compare;
    c.edit(json);
    EXPECT_NE(thrown_message([&] { (void)render_from_json("budget", json); }).find(c.field), std::string::npos)
        << c.field;
  }
  Json items = stored(run_on_judgebench(rendered_requests()[0]).json);
  items["rows"][0].erase(items["rows"][0].begin());
  EXPECT_NE(thrown_message([&] { (void)render_from_json("items", items); }).find("result.rows[0]: expected an object"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { (void)render_from_json("coverage", compare); }).find("not rendered"),
            std::string::npos);
}

}  // namespace
}  // namespace judgestat
