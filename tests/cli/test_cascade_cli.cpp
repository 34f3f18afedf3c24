// `judgestat cascade` as JEV runs it (docs/statistics.md §7.5): --select-column, --select-items,
// --select 0 / 1, --gate-orders, --tau, --by benchmark and --benchmark from the command line, and
// a clear error (file, line, column, or the flag) for every bad request.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace judgestat::testing_support;

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kPair =
    " --first Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12 --replicates 200 --quiet";

// Two benchmarks, four items, F in both orders and S in order 0; `split` per item.
std::string small_csv(const std::string& split1, const std::string& split2_first, const std::string& split2_second) {
  std::string csv = "judge,item,benchmark,order,gold,verdict,p.A,p.B,split\n";
  csv += "F,i1,a,0,A,A,0.9,0.1," + split1 + "\nF,i1,a,1,A,A,0.8,0.2," + split1 + "\nS,i1,a,0,A,A,,," + split1 + "\n";
  csv += "F,i2,a,0,A,A,0.6,0.4," + split2_first + "\nF,i2,a,1,A,B,0.4,0.6," + split2_second + "\nS,i2,a,0,A,B,,," +
         split2_second + "\n";
  csv += "F,i3,b,0,B,B,0.2,0.8,heldout\nF,i3,b,1,B,B,0.1,0.9,heldout\nS,i3,b,0,B,B,,,heldout\n";
  csv += "F,i4,b,0,B,A,0.7,0.3,heldout\nF,i4,b,1,B,A,0.6,0.4,heldout\nS,i4,b,0,B,B,,,heldout\n";
  return csv;
}

nlohmann::json json_run(const std::string& args) {
  const CliRun r = run_cli("cascade " + args + " --format json");
  EXPECT_EQ(r.status, 0) << r.out;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// Exit status 2: a usage error; 3: bad input (the data contradicts the request).
void expect_error(const std::string& args, const std::string& message, int status = 2) {
  const CliRun r = run_cli("cascade " + args);
  EXPECT_EQ(r.status, status) << args;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
}

}  // namespace

TEST(CascadeCliOwnSet, SelectColumnMarksTheLabelledItems) {
  const std::string file = write_temp("marked.csv", small_csv("select", "select", "select"));
  const auto j = json_run(file + " --first F --fallback S --replicates 100 --quiet --select-column split");
  EXPECT_EQ(j["split"]["source"], "column");
  EXPECT_EQ(j["split"]["column"], "split");
  EXPECT_EQ(j["split"]["selection"]["items"], 2);
  EXPECT_EQ(j["split"]["heldout"]["items"], 2);
  EXPECT_TRUE(j["settings"]["select"].is_null());
  EXPECT_EQ(j["settings"]["select_column"], "split");
  const CliRun text =
      run_cli("cascade " + file + " --first F --fallback S --replicates 100 --quiet --select-column split");
  EXPECT_NE(text.out.find("Selection part (2 items, items marked select in column 'split')"), std::string::npos)
      << text.out;
  // The same set from JSONL, whose key is kept the same way.
  std::string jsonl;
  for (const char* item : {"i1", "i2"})
    for (int order = 0; order < 2; ++order)
      jsonl += std::string("{\"judge\":\"F\",\"item\":\"") + item + "\",\"order\":" + std::to_string(order) +
               ",\"gold\":\"A\",\"verdict\":\"A\",\"p.A\":0.9,\"p.B\":0.1,\"split\":\"" +
               (item[1] == '1' ? "select" : "heldout") + "\"}\n";
  jsonl += "{\"judge\":\"S\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\",\"split\":\"select\"}\n";
  jsonl += "{\"judge\":\"S\",\"item\":\"i2\",\"gold\":\"A\",\"verdict\":\"B\",\"split\":\"heldout\"}\n";
  const auto from_jsonl = json_run(write_temp("marked.jsonl", jsonl) +
                                   " --first F --fallback S --replicates 50 --quiet --select-column split");
  EXPECT_EQ(from_jsonl["split"]["selection"]["items"], 1);
  EXPECT_EQ(from_jsonl["split"]["heldout"]["items"], 1);
}

TEST(CascadeCliOwnSet, BadSelectionColumnsNameFileLineAndColumn) {
  const std::string other = write_temp("other.csv", small_csv("select", "maybe", "maybe"));
  expect_error(other + " --first F --fallback S --quiet --select-column split",
               other + ":5: column 'split': item \"i2\" is marked \"maybe\"; the selection column takes select", 3);
  const std::string empty = write_temp("empty.csv", small_csv("", "select", "select"));
  expect_error(empty + " --first F --fallback S --quiet --select-column split",
               empty + ":2: column 'split': item \"i1\" is marked with an empty field", 3);
  const std::string differs = write_temp("differs.csv", small_csv("select", "select", "heldout"));
  expect_error(differs + " --first F --fallback S --quiet --select-column split",
               differs + ":6: column 'split': item \"i2\" has split \"heldout\" here but \"select\" on line 5", 3);
  expect_error(differs + " --first F --fallback S --quiet --select-column stage",
               differs + ":1: column 'stage': the item-level column asked for is missing", 3);
  const std::string none = write_temp("none.csv", small_csv("heldout", "heldout", "heldout"));
  expect_error(none + " --first F --fallback S --quiet --select-column split",
               "--select-column: no analysed item is marked select");
  expect_error(differs + " --first F --fallback S --quiet --select-column split --select 0.5", "give one of them");
}

TEST(CascadeCliOwnSet, SelectItemsListsTheLabelledItems) {
  const std::string data = write_temp("data.csv", small_csv("heldout", "heldout", "heldout"));
  const std::string list = write_temp("labelled.txt", "i1\r\n\n  i3 \ni1\n");
  const auto j = json_run(data + " --first F --fallback S --replicates 100 --quiet --select-items " + list);
  EXPECT_EQ(j["split"]["source"], "items");
  EXPECT_EQ(j["split"]["file"], list);
  EXPECT_EQ(j["split"]["listed"], 2);
  EXPECT_EQ(j["split"]["selection"]["items"], 2);
  EXPECT_EQ(j["split"]["heldout"]["clusters"], 2);
  // With --benchmark a, i3 is listed but not analysed: ignored, with a note.
  const auto filtered =
      json_run(data + " --first F --fallback S --replicates 100 --quiet --benchmark a --select-items " + list);
  EXPECT_EQ(filtered["split"]["listed_not_analysed"], 1);
  EXPECT_EQ(filtered["split"]["selection"]["items"], 1);
  EXPECT_EQ(filtered["pool"]["items"], 2);

  const std::string unknown = write_temp("unknown.txt", "i1\n\nnope\n");
  expect_error(data + " --first F --fallback S --quiet --select-items " + unknown,
               unknown + ":3: item \"nope\" does not occur in " + data, 3);
  expect_error(data + " --first F --fallback S --quiet --select-items /no/such/file.txt",
               "--select-items: cannot read '/no/such/file.txt'");
}

TEST(CascadeCliOwnSet, SelectOneAndSelectZero) {
  const CliRun one = run_cli("cascade " + kJudgeBench + kPair + " --select 1");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("Selection part (350 items"), std::string::npos);
  EXPECT_EQ(one.out.find("Held-out part"), std::string::npos);
  EXPECT_NE(one.out.find("nothing is held out"), std::string::npos);
  const auto j = json_run(kJudgeBench + kPair + " --select 1");
  EXPECT_TRUE(j["rules"][0]["heldout"].is_null());
  EXPECT_EQ(j["rules"][1]["rule"], "lower");
  const auto zero = json_run(kJudgeBench + kPair + " --select 0");
  EXPECT_TRUE(zero["rules"].is_null());
  EXPECT_FALSE(zero.contains("split"));
}

TEST(CascadeCliGate, GateOrdersValues) {
  const auto present = json_run(kJudgeBench + kPair + " --select 0");
  EXPECT_EQ(present["settings"]["gate_orders"], "present");
  EXPECT_EQ(present["pool"]["fewer_orders"], 0);
  const auto two = json_run(kJudgeBench + kPair + " --select 0 --gate-orders 2");
  EXPECT_EQ(two["settings"]["gate_orders"], 2);
  EXPECT_EQ(two["statistics"], present["statistics"]);  // every item has both orders
  expect_error(kJudgeBench + kPair + " --gate-orders 3", "--gate-orders: expected present");
}

TEST(CascadeCliFrozen, TauAloneScoresEveryItemAndWithASelectionTheHeldOutPart) {
  const auto live = json_run(kJudgeBench + kPair + " --tau 0.9");
  EXPECT_TRUE(live["rules"].is_null());
  EXPECT_EQ(live["frozen"]["scored_on"], "all");
  EXPECT_EQ(live["frozen"]["items"], 350);
  EXPECT_EQ(live["frozen"]["tau"]["every"], 0.9);
  // The frozen rows are the sweep's at 0.9.
  for (const auto& row : live["frozen"]["statistics"]) {
    bool found = false;
    for (const auto& sweep : live["statistics"])
      if (sweep["name"] == row["name"] && sweep["threshold"] == 0.9) {
        EXPECT_EQ(sweep, row);
        found = true;
      }
    EXPECT_TRUE(found) << row;
  }
  const auto held = json_run(kJudgeBench + kPair + " --tau mmlu=0.95,0.99 --select 0.4");
  EXPECT_EQ(held["frozen"]["scored_on"], "heldout");
  EXPECT_EQ(held["frozen"]["items"], held["split"]["heldout"]["items"]);
  EXPECT_EQ(held["frozen"]["applied"]["mmlu"], 0.95);
  EXPECT_EQ(held["frozen"]["applied"]["livecodebench"], 0.99);
  EXPECT_TRUE(held["frozen"]["statistics"][0]["threshold"].is_null());
  const CliRun text = run_cli("cascade " + kJudgeBench + kPair + " --tau 0.9");
  EXPECT_NE(text.out.find("Frozen threshold: the pre-specified policy (JEV §9, Table 5)"), std::string::npos);

  expect_error(kJudgeBench + kPair + " --tau halueval=0.9,0.9",
               "--tau: benchmark 'halueval' is not among the analysed items' benchmarks");
  expect_error(kJudgeBench + kPair + " --tau 1.2", "--tau: 1.2 in '1.2' is outside [0, 1]");
  expect_error(kJudgeBench + kPair + " --tau mmlu=-0.5,0.9", "--tau: -0.5 in 'mmlu=-0.5' is outside [0, 1]");
  expect_error(kJudgeBench + kPair + " --tau mmlu=0.9", "--tau: no threshold for benchmark 'livebench'");
}

TEST(CascadeCliByBenchmark, TablesPerBenchmarkAndFilters) {
  const CliRun r = run_cli("cascade " + kJudgeBench + kPair + " --by benchmark --tau 0.99 --select 0.4");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Threshold sweep, benchmark livebench ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replicates stratified by benchmark"), std::string::npos);
  EXPECT_NE(r.out.find("livecodebench ("), std::string::npos);
  const auto j = json_run(kJudgeBench + kPair + " --by benchmark --select 0");
  EXPECT_EQ(j["groups"]["names"], nlohmann::json({"mmlu", "livebench", "livecodebench"}));
  EXPECT_EQ(j["settings"]["by"], "benchmark");
  size_t livebench_rows = 0, livebench_bins = 0;
  for (const auto& row : j["statistics"]) {
    livebench_rows += row["benchmark"] == "livebench";
    livebench_bins += row["benchmark"] == "livebench" && row["name"] == "bin_acc";
  }
  EXPECT_EQ(livebench_bins, 5u);  // F's confidence bins with livebench items
  // 10 policies × 4 statistics (no fees given) + the oracle; then F's risk–coverage: aurc,
  // selective_acc and selective_coverage at 3 coverages, both judges' accuracy per bin.
  EXPECT_EQ(livebench_rows, 41u + 7u + 2 * livebench_bins);
  const auto filtered = json_run(kJudgeBench + kPair + " --benchmark livebench,livecodebench --select 0");
  EXPECT_EQ(filtered["settings"]["benchmarks"], nlohmann::json({"livebench", "livecodebench"}));
  EXPECT_LT(filtered["pool"]["items"].get<int>(), 350);
  expect_error(kJudgeBench + kPair + " --by difficulty", "--by: expected benchmark or condition");
  expect_error(kJudgeBench + kPair + " --benchmark halueval", "--benchmark: 'halueval' does not occur in the data");
}

// The held-out table gives each row's cluster count (JudgeBench: one item per cluster, so the
// group's item count) and warns about the smallest group (issue 18, part 3).
TEST(CascadeCliByBenchmark, HeldOutRowsCarryTheirClusterCounts) {
  const CliRun r = run_cli("cascade " + kJudgeBench + kPair + " --by benchmark --select 0.4 --replicates 500");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string held = r.out.substr(r.out.find("Held-out part"));
  const size_t at = held.find("\nlivecodebench (");
  ASSERT_NE(at, std::string::npos) << held;
  const int items = std::stoi(held.substr(at + 16));
  const std::string row = held.substr(at + 1, held.find('\n', at + 1) - at - 1);
  EXPECT_NE(row.find("  " + std::to_string(items) + "  "), std::string::npos) << row;
  EXPECT_NE(held.find("as few as " + std::to_string(items) + " clusters (< 50)"), std::string::npos) << held;
}

// --temperature pooled (default) or per-benchmark; the first stage's risk–coverage rows with CIs.
TEST(CascadeCliCalibration, TemperaturePerBenchmarkAndRiskCoverageRows) {
  const auto pooled = json_run(kJudgeBench + kPair);
  const auto per = json_run(kJudgeBench + kPair + " --temperature per-benchmark");
  EXPECT_EQ(pooled["temperature"]["scaling"], "pooled");
  EXPECT_EQ(per["temperature"]["scaling"], "per-benchmark");
  EXPECT_EQ(per["temperature"]["temperature"], pooled["temperature"]["temperature"]);
  ASSERT_EQ(per["temperature"]["groups"].size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    EXPECT_EQ(pooled["temperature"]["groups"][g]["temperature"], pooled["temperature"]["temperature"]);
    EXPECT_NE(per["temperature"]["groups"][g]["temperature"], pooled["temperature"]["temperature"]);
    EXPECT_EQ(per["temperature"]["groups"][g]["heldout"]["nll_before"],
              pooled["temperature"]["groups"][g]["heldout"]["nll_before"]);
  }
  std::map<std::string, int> rows;
  for (const auto& row : pooled["statistics"]) {
    const std::string name = row["name"];
    if (name != "aurc" && name != "selective_acc" && name != "selective_coverage" && name != "bin_acc" &&
        name != "fallback_bin_acc")
      continue;
    ++rows[name];
    EXPECT_EQ(row["judge"], "Skywork_Skywork-Reward-Llama-3.1-8B");
    EXPECT_EQ(row["reference"], "o1-mini-2024-09-12");
    EXPECT_LE(row["ci"][0].get<double>(), row["estimate"].get<double>());
  }
  EXPECT_EQ(rows["aurc"], 1);
  EXPECT_EQ(rows["selective_acc"], 3);
  EXPECT_EQ(rows["selective_coverage"], 3);
  EXPECT_EQ(rows["bin_acc"], rows["fallback_bin_acc"]);
  EXPECT_GE(rows["bin_acc"], 3);
  const CliRun text = run_cli("cascade " + kJudgeBench + kPair + " --temperature per-benchmark");
  EXPECT_NE(text.out.find("Temperature scaling of the first stage"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Accuracy per first-stage confidence bin (JEV Fig. 5)"), std::string::npos);
  expect_error(kJudgeBench + kPair + " --temperature per-judge", "--temperature: expected pooled or per-benchmark");
}
