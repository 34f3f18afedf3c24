// `judgestat run STUDY` (judgestat/study.hpp, docs/study.md): the results equal the single
// commands', the cache recomputes exactly what changed, bad study files fail before any output.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "study/study_support.hpp"
#include "support/parallel.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using study_testing::bundled_run;
using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::without_run_fields;
using study_testing::without_timing;
using study_testing::write_all;
using testing_support::kRoot;
using testing_support::run_cli;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";

std::string quoted(const std::string& word) { return "'" + word + "'"; }

TEST(StudyBundled, EveryAnalysisKindEqualsItsSingleCommand) {
  const auto& run = bundled_run();
  const Json results = Json::parse(read_all(run.dir + "/results.json"));
  std::vector<std::string> kinds;
  for (const Json& analysis : results["analyses"]) {
    const std::string command = analysis["analysis"];
    const bool compare = std::any_of(analysis["options"].begin(), analysis["options"].end(), [](const Json& option) {
      return option.get<std::string>().rfind("--compare=", 0) == 0;
    });
    kinds.push_back(compare ? "budget --compare" : command);
    std::string args;
    for (const Json& file : analysis["result"]["input"].contains("files") ? analysis["result"]["input"]["files"]
                                                                          : Json::array({analysis["result"]["input"]}))
      args += " " + quoted(file["path"]);
    for (const Json& option : analysis["options"]) args += " " + quoted(option);
    args += " --quiet";
    // A study's tables.txt keeps metrics' full tables (the command prints the summary without --full).
    if (command == "metrics") args += " --full";
    if (command == "items") {
      // items prints its table (no --json): the study's CSV is the command's output.
      const auto cli = run_cli(command + args);
      ASSERT_EQ(cli.status, 0) << cli.out;
      EXPECT_EQ(read_all(run.dir + "/" + analysis["name"].get<std::string>() + "/tables.csv"), cli.out);
      continue;
    }
    const std::string json_path = run.dir + "/single.json";
    const auto cli = run_cli(command + args + " --backend cpu --threads 2 --json " + json_path);
    ASSERT_EQ(cli.status, 0) << cli.out;
    Json single = Json::parse(read_all(json_path)), study = analysis["result"];
    for (Json* json : {&single, &study}) {
      json->erase("timing");
      json->erase("argv");
    }
    EXPECT_EQ(dump_json(study), dump_json(single)) << analysis["name"];
    EXPECT_EQ(without_timing(read_all(run.dir + "/" + analysis["name"].get<std::string>() + "/tables.txt")),
              without_timing(cli.out))
        << analysis["name"];
  }
  for (const char* kind : {"metrics", "cascade", "budget", "budget --compare", "profile", "items"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  // Run-wide settings reach the analyses that take them.
  EXPECT_EQ(results["analyses"][0]["result"]["settings"]["replicates"], 300);
  EXPECT_EQ(results["study"]["inputs"][0]["files"][0]["sha256"].get<std::string>().size(), 64u);
}

TEST(StudyBundled, WritesTablesFiguresAndOneSelfContainedReport) {
  const auto& run = bundled_run();
  const Study study = load_study(kRoot + "/configs/study_bundled.json");
  const std::string html = read_all(run.dir + "/report.html");
  for (const StudyAnalysis& analysis : study.analyses) {
    EXPECT_TRUE(std::filesystem::is_regular_file(run.dir + "/" + analysis.name + "/tables.csv")) << analysis.name;
    EXPECT_NE(html.find("<section id=\"a-" + analysis.name + "\""), std::string::npos) << analysis.name;
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(run.dir + "/judgebench_cascade/cascade_accuracy_fee.svg") ||
              !std::filesystem::is_empty(run.dir + "/judgebench_cascade"));
  // Tidy numbers: a row per statistic with its interval's ends.
  const Json results = Json::parse(read_all(run.dir + "/results.json"));
  const std::string tidy = read_all(run.dir + "/judgebench_metrics/statistics.csv");
  EXPECT_EQ(static_cast<size_t>(std::count(tidy.begin(), tidy.end(), '\n')),
            results["analyses"][0]["result"]["statistics"].size() + 1);
  EXPECT_EQ(tidy.rfind("name,judge,", 0), 0u);
  EXPECT_NE(tidy.substr(0, tidy.find('\n')).find(",estimate,ci_lo,ci_hi,se,"), std::string::npos);
  const std::string budget = read_all(run.dir + "/judgebench_budget/budget.csv");
  EXPECT_EQ(budget.rfind("k,rule,", 0), 0u);
  EXPECT_EQ(std::count(budget.begin(), budget.end(), '\n'), 1 + 3 * 2);  // k 48, 96, 192 × point, lower
  // Nothing fetched: one inline script (it sorts tables) that loads nothing, no external reference.
  const size_t script = html.find("<script>");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(html.find("<script", script + 1), std::string::npos);
  const std::string code = html.substr(script, html.find("</script>", script) - script);
  for (const char* loads : {"src", "fetch", "XMLHttpRequest", "import", "http"})
    EXPECT_EQ(code.find(loads), std::string::npos) << loads;
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // The provenance footer lists every input file with its SHA-256.
  const std::string jb_sha = load_item_matrix(kJudgeBench).sha256;
  EXPECT_NE(html.find(jb_sha), std::string::npos);
}

// A folder with two inputs: "split" (JudgeBench's o1-mini records and the other judges' in two
// files, which merge) and "whole" (the file itself).
struct CacheFixture {
  std::string dir, study_path;
};

CacheFixture cache_fixture(const std::string& dir) {
  const std::string text = read_all(kJudgeBench);
  std::string header = text.substr(0, text.find('\n') + 1), o1, rest;
  for (size_t at = header.size(); at < text.size();) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at + 1);
    (line.rfind("o1-mini-2024-09-12,", 0) == 0 ? o1 : rest) += line;
    at = end + 1;
  }
  write_all(dir + "/o1.csv", header + o1);
  write_all(dir + "/rest.csv", header + rest);
  write_all(dir + "/whole.csv", text);
  const std::string study = R"({
    "settings": {"replicates": 200, "backend": "cpu", "threads": 2},
    "inputs": {"split": ["o1.csv", "rest.csv"], "whole": "whole.csv"},
    "analyses": [
      {"analysis": "metrics", "input": "split", "judges": ["o1-mini-2024-09-12", "Skywork_Skywork-Reward-Llama-3.1-8B"]},
      {"analysis": "items", "input": "split", "disagree": true},
      {"analysis": "metrics", "input": "whole", "diff": "acc"}
    ]})";
  write_all(dir + "/study.json", study);
  return {dir, dir + "/study.json"};
}

StudyOutcome run_quiet(const std::string& study_path, const std::string& out, bool force = false) {
  StudyRunOptions options;
  options.out_dir = out;
  options.quiet = true;
  options.force = force;
  return run_study(load_study(study_path), options);
}

TEST(StudyCache, ReusesEverythingThenRecomputesExactlyTheChangedInput) {
  const CacheFixture fixture = cache_fixture(fresh_dir("inputs"));
  const std::string out = fixture.dir + "/out";
  const StudyOutcome first = run_quiet(fixture.study_path, out);
  EXPECT_EQ(first.computed, (std::vector<std::string>{"metrics_split", "items_split", "metrics_whole"}));
  const std::string results1 = read_all(out + "/results.json"), report1 = read_all(out + "/report.html");

  const StudyOutcome second = run_quiet(fixture.study_path, out);
  EXPECT_TRUE(second.computed.empty());
  EXPECT_EQ(second.reused.size(), 3u);
  EXPECT_EQ(dump_json(without_run_fields(Json::parse(read_all(out + "/results.json")))),
            dump_json(without_run_fields(Json::parse(results1))));
  EXPECT_EQ(without_timing(read_all(out + "/report.html")), without_timing(report1));

  // A changed verdict in one of split's files: split's two analyses recompute, whole's is reused.
  // (The first row's verdict, column 8, flipped; the record becomes invalid, which is counted.)
  std::string rest = read_all(fixture.dir + "/rest.csv");
  size_t at = rest.find('\n') + 1;
  for (int comma = 0; comma < 7; ++comma) at = rest.find(',', at) + 1;
  ASSERT_TRUE(rest[at] == 'A' || rest[at] == 'B');
  rest[at] = rest[at] == 'A' ? 'B' : 'A';
  write_all(fixture.dir + "/rest.csv", rest);
  const StudyOutcome third = run_quiet(fixture.study_path, out);
  EXPECT_EQ(third.computed, (std::vector<std::string>{"metrics_split", "items_split"}));
  EXPECT_EQ(third.reused, (std::vector<std::string>{"metrics_whole"}));

  // A recompute of everything gives the same report as the cached run (minus timing).
  const std::string cached = read_all(out + "/report.html");
  const StudyOutcome forced = run_quiet(fixture.study_path, out, true);
  EXPECT_EQ(forced.computed.size(), 3u);
  EXPECT_EQ(without_timing(read_all(out + "/report.html")), without_timing(cached));
}

// The provenance footer names the threads the run used: a study without `threads` runs one per
// hardware thread (capped), and the footer says how many, never "threads=0"; --out with a
// trailing '/' gives paths with one separator (issue 31).
TEST(StudyReport, FooterShowsTheThreadsTheRunReallyUsed) {
  const std::string dir = fresh_dir("footer_threads");
  write_all(dir + "/jb.csv", read_all(kJudgeBench));
  write_all(dir + "/study.json", R"({"settings": {"backend": "cpu"}, "inputs": {"jb": "jb.csv"},
    "analyses": [{"analysis": "items", "input": "jb", "disagree": true}]})");
  const StudyOutcome outcome = run_quiet(dir + "/study.json", dir + "/out/");
  EXPECT_EQ(outcome.results_path, dir + "/out/results.json");  // not out//results.json
  EXPECT_EQ(outcome.report_path, dir + "/out/report.html");
  const std::string html = read_all(dir + "/out/report.html");
  const int threads = capped_threads(0);
  EXPECT_NE(html.find("; target cpu " + std::to_string(threads) + (threads == 1 ? " thread" : " threads")),
            std::string::npos);
  EXPECT_EQ(html.find("threads=0"), std::string::npos);
  EXPECT_EQ(Json::parse(read_all(dir + "/out/results.json"))["study"]["settings"]["target"],
            "cpu " + std::to_string(threads) + (threads == 1 ? " thread" : " threads"));
}

// The command twice into one folder: the second run finds --out an existing folder (which is
// what it writes into, not a file it would replace) and reuses every analysis.
TEST(StudyCache, CommandRunTwiceIntoTheSameFolderReuses) {
  const CacheFixture fixture = cache_fixture(fresh_dir("cli_twice"));
  const std::string command = "run " + quoted(fixture.study_path) + " --out " + quoted(fixture.dir + "/out");
  const auto first = run_cli(command);
  ASSERT_EQ(first.status, 0) << first.out;
  const auto second = run_cli(command);
  ASSERT_EQ(second.status, 0) << second.out;
  EXPECT_NE(second.out.find("0 computed, 3 reused"), std::string::npos) << second.out;
}

TEST(StudyCache, SeedOverrideChangesEveryKey) {
  const CacheFixture fixture = cache_fixture(fresh_dir("inputs"));
  const std::string out = fixture.dir + "/out";
  run_quiet(fixture.study_path, out);
  StudyRunOptions options;
  options.out_dir = out;
  options.quiet = true;
  options.seed = 7;
  const StudyOutcome reseeded = run_study(load_study(fixture.study_path), options);
  // items has no seed: its result does not depend on it.
  EXPECT_EQ(reseeded.computed, (std::vector<std::string>{"metrics_split", "metrics_whole"}));
  const Json results = Json::parse(read_all(out + "/results.json"));
  EXPECT_EQ(results["analyses"][0]["result"]["settings"]["seed"], 7);
}

TEST(StudyCache, FailingAnalysisKeepsThePreviousReportAndFinishedEntries) {
  const CacheFixture fixture = cache_fixture(fresh_dir("inputs"));
  const std::string out = fixture.dir + "/out";
  run_quiet(fixture.study_path, out);
  const std::string results = read_all(out + "/results.json"), report = read_all(out + "/report.html");
  // A new analysis that finishes, then one that fails when run (an unknown judge is found in the data).
  write_all(fixture.dir + "/failing.json", R"({
    "settings": {"replicates": 200, "backend": "cpu", "threads": 2},
    "inputs": {"whole": "whole.csv"},
    "analyses": [
      {"analysis": "metrics", "input": "whole", "diff": "pa"},
      {"analysis": "metrics", "input": "whole", "judges": "nobody"}
    ]})");
  const std::string message = thrown_message<UsageError>([&] { run_quiet(fixture.dir + "/failing.json", out); });
  EXPECT_NE(message.find("analyses[1] (metrics_whole_2)"), std::string::npos) << message;
  EXPECT_NE(message.find("nobody"), std::string::npos) << message;
  EXPECT_EQ(read_all(out + "/results.json"), results);
  EXPECT_EQ(read_all(out + "/report.html"), report);
  // The finished analysis is cached: the fixed study reuses it.
  write_all(fixture.dir + "/fixed.json", R"({
    "settings": {"replicates": 200, "backend": "cpu", "threads": 2},
    "inputs": {"whole": "whole.csv"},
    "analyses": [{"analysis": "metrics", "input": "whole", "diff": "pa"}]})");
  EXPECT_EQ(run_quiet(fixture.dir + "/fixed.json", out).reused, (std::vector<std::string>{"metrics_whole"}));
  for (const auto& file : std::filesystem::directory_iterator(out))
    EXPECT_EQ(file.path().filename().string().find(".tmp-"), std::string::npos) << file.path();
}

TEST(StudyInputs, FilesOfOneInputMergeJudges) {
  const CacheFixture fixture = cache_fixture(fresh_dir("inputs"));
  std::vector<std::string> digests;
  const ItemMatrix merged =
      load_item_matrix(std::vector<std::string>{fixture.dir + "/o1.csv", fixture.dir + "/rest.csv"}, {}, &digests);
  const ItemMatrix whole = load_item_matrix(kJudgeBench);
  EXPECT_EQ(merged.records, whole.records);
  EXPECT_EQ(merged.n_items(), whole.n_items());
  EXPECT_EQ(merged.n_judges(), whole.n_judges());
  ASSERT_EQ(digests.size(), 2u);
  EXPECT_EQ(digests[0], load_item_matrix(fixture.dir + "/o1.csv").sha256);
  EXPECT_NE(merged.sha256, digests[0]);
  // The same records twice are duplicates: the second file's first record (line 2, after the
  // header) repeats the first file's, each named by its own file and line.
  const std::string o1 = fixture.dir + "/o1.csv";
  const std::string message = thrown_message<InputError>([&] {
    load_item_matrix(std::vector<std::string>{o1, o1}, {});
  });
  EXPECT_EQ(message.rfind(o1 + ":2: columns 'judge','item','order','variant': ", 0), 0u) << message;
  EXPECT_NE(message.find("already occurs on line 2 of " + o1 + ";"), std::string::npos) << message;
}

struct BadStudy {
  const char* name;
  const char* analyses;  // the "analyses" list
  const char* expected;  // in the message, after the file name
};

const BadStudy kBadStudies[] = {
    {"unknown_key", R"([{"analysis": "metrics", "input": "jb"}, {"analysis": "metrics", "input": "jb", "firts": "a"}])",
     "analyses[1] (metrics_jb_2): key 'firts': not an option of metrics"},
    {"missing_input", R"([{"analysis": "metrics", "input": "nope"}])",
     "analyses[0]: key 'input': no input named 'nope'"},
    {"option_of_another_analysis",
     R"([{"analysis": "budget", "input": "jb", "first": "a", "fallback": "b", "replicates": 9}])",
     "analyses[0] (budget_jb): key 'replicates': not an option of budget"},
    {"bad_value", R"([{"analysis": "metrics", "input": "jb", "level": 2}])", "analyses[0] (metrics_jb): key 'level'"},
    {"missing_option", R"([{"analysis": "cascade", "input": "jb", "first": "a"}])",
     "analyses[0] (cascade_jb): missing --fallback"},
    {"output_key", R"([{"analysis": "metrics", "input": "jb", "json": "x.json"}])",
     "analyses[0] (metrics_jb): key 'json': the study writes its own outputs"},
    {"execution_key", R"([{"analysis": "metrics", "input": "jb", "threads": 2}])",
     "analyses[0] (metrics_jb): key 'threads': where the study runs is a setting"},
    {"reserved_name", R"([{"name": "cache", "analysis": "items", "input": "jb"}])",
     "analyses[0]: key 'name': 'cache' is a file or folder of the study's own"},
    {"unknown_analysis", R"([{"analysis": "plot", "input": "jb"}])", "analyses[0]: key 'analysis'"},
};

class BadStudies : public ::testing::TestWithParam<BadStudy> {};

TEST_P(BadStudies, FailBeforeAnyOutputNamingFileIndexAndKey) {
  const BadStudy& c = GetParam();
  const std::string dir = fresh_dir(c.name);
  const std::string path = dir + "/study.json";
  write_all(path, std::string(R"({"inputs": {"jb": ")") + kJudgeBench + R"("}, "analyses": )" + c.analyses + "}");
  const std::string message = thrown_message<UsageError>([&] { load_study(path); });
  EXPECT_NE(message.find(path + ": " + c.expected), std::string::npos) << message;
  // The command says the same and writes nothing.
  const auto run = run_cli("run " + quoted(path) + " --out " + quoted(dir + "/out") + " --quiet");
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.out.find(c.expected), std::string::npos) << run.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

INSTANTIATE_TEST_SUITE_P(Cases, BadStudies, ::testing::ValuesIn(kBadStudies),
                         [](const ::testing::TestParamInfo<BadStudy>& info) { return std::string(info.param.name); });

TEST(StudyFile, InputsAndTopLevelAreChecked) {
  const std::string dir = fresh_dir("files");
  write_all(dir + "/glob.json",
            R"({"inputs": {"none": "nothing/*.csv"}, "analyses": [{"analysis": "items", "input": "none"}]})");
  EXPECT_NE(thrown_message<UsageError>([&] {
              load_study(dir + "/glob.json");
            }).find("inputs.none: '" + dir + "/nothing/*.csv' matches no file"),
            std::string::npos);
  write_all(dir + "/top.json", R"({"inputs": {"jb": "x.csv"}, "analyses": [], "analysis": 1})");
  EXPECT_NE(thrown_message<UsageError>([&] { load_study(dir + "/top.json"); }).find("top level: key 'analysis'"),
            std::string::npos);
  write_all(dir + "/settings.json", R"({"settings": {"sede": 1}, "inputs": {"jb": "x.csv"}, "analyses": []})");
  EXPECT_NE(thrown_message<UsageError>([&] { load_study(dir + "/settings.json"); }).find("settings: key 'sede'"),
            std::string::npos);
  // Keys take '-' or '_'; lists join with commas; a fee object gives one --fee per judge.
  write_all(dir + "/ok.json", std::string(R"({"inputs": {"jb": ")") + kJudgeBench + R"("}, "analyses": [
      {"analysis": "cascade", "input": "jb", "first": "a", "fallback": "b", "gate_orders": "1",
       "grid": [0.5, 0.9], "fee": {"a": 0, "b": 0.5}, "per-stratum": true}]})");
  const Study study = load_study(dir + "/ok.json");
  EXPECT_EQ(study.analyses[0].request.args,
            (std::vector<std::string>{"--first=a", "--fallback=b", "--gate-orders=1", "--grid=0.5,0.9", "--fee=a=0",
                                      "--fee=b=0.5", "--per-stratum"}));
}

// A study file nested past the JSON depth bound is bad input naming the file and the limit, not a
// stack overflow in the parser (issue 19, part 1; the reproducer is tests/fuzz/regressions/study/).
TEST(StudyFile, DeepNestingIsRejectedWithTheLimit) {
  const std::string dir = fresh_dir("deep");
  const std::string path = dir + "/deep.json";
  write_all(path, "{\"inputs\":" + std::string(100000, '[') + std::string(100000, ']') + "}");
  try {
    (void)load_study(path);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("256"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace judgestat
