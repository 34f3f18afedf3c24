// judgestat/analysis.hpp: an analysis asked for with the CLI's flags gives the CLI's own outputs,
// and bad flags fail before anything is loaded, naming the flag.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::cpu_target;
using testing_support::kRoot;
using testing_support::run_cli;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const char* const kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B";
const char* const kFallback = "o1-mini-2024-09-12";

using testing_support::read_all;

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) out += " '" + arg + "'";
  return out;
}

// The document without what differs from run to run (timing, argv).
Json without_run_fields(Json json) {
  json.erase("timing");
  json.erase("argv");
  return json;
}

// The tables' summary lines carry the run's seconds and rates.
std::string without_timing(const std::string& text) {
  const std::string rates = std::regex_replace(text, std::regex("[0-9.e+]+ (draws|replicates)/s"), "R $1/s");
  return std::regex_replace(rates, std::regex("[0-9]+\\.[0-9]+s\\b"), "Ts");
}

// `judgestat COMMAND FILE ARGS --json TMP` run by the binary: its JSON and its stdout.
struct CliOutput {
  Json json;
  std::string text;
};
CliOutput cli_output(const std::string& command, const std::string& file, const std::vector<std::string>& args) {
  const std::string json_path = ::testing::TempDir() + "judgestat_analysis_" + command + ".json";
  const auto run = run_cli(command + " '" + file + "'" + joined(args) + " --quiet --json " + json_path);
  EXPECT_EQ(run.status, 0) << run.out;
  return {Json::parse(read_all(json_path)), run.out};
}

AnalysisResult library_output(const AnalysisRequest& request, const std::string& file) {
  check_analysis(request);
  const ItemMatrix matrix = load_item_matrix(file, analysis_load_options(request));
  std::vector<std::string> words{"judgestat " + request.command, file};
  words.insert(words.end(), request.args.begin(), request.args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  const ReportHead head{json_envelope(request.command, static_cast<int>(argv.size()), argv.data(), matrix), 0};
  return run_analysis(request, matrix, cpu_target(2), head);
}

void expect_same_as_cli(const AnalysisRequest& request) {
  const CliOutput cli = cli_output(request.command, kJudgeBench, request.args);
  const AnalysisResult result = library_output(request, kJudgeBench);
  EXPECT_EQ(dump_json(without_run_fields(result.json)), dump_json(without_run_fields(cli.json))) << request.command;
  EXPECT_EQ(without_timing(result.text), without_timing(cli.text)) << request.command;
}

TEST(AnalysisRequest, MetricsByBenchmarkEqualsTheCli) {
  const AnalysisRequest request{"metrics",
                                {"--by", "benchmark", "--replicates", "400", "--backend", "cpu", "--threads", "2"}};
  expect_same_as_cli(request);
  const AnalysisResult result = library_output(request, kJudgeBench);
  ASSERT_NE(result.bootstrap, nullptr);
  EXPECT_EQ(result.bootstrap->labels.size(), result.json["statistics"].size());
  EXPECT_NE(result.csv.find(','), std::string::npos);
}

TEST(AnalysisRequest, CascadeAndBudgetEqualTheCli) {
  expect_same_as_cli({"cascade",
                      {"--first", kFirst, "--fallback", kFallback, "--by", "benchmark", "--replicates", "300",
                       "--backend", "cpu", "--threads", "2"}});
  expect_same_as_cli({"budget",
                      {"--first", kFirst, "--fallback", kFallback, "--k", "48,96", "--draws", "2000", "--backend",
                       "cpu", "--threads", "2"}});
  expect_same_as_cli({"budget",
                      {"--compare", std::string("Skywork_Skywork-Reward-Gemma-2-27B,") + kFallback, "--k=50,100",
                       "--draws", "2000", "--backend", "cpu", "--threads", "2"}});
}

TEST(AnalysisRequest, ProfileEqualsTheCli) {
  expect_same_as_cli(
      {"profile",
       {"--config", kRoot + "/configs/judgebench.json", "--replicates", "300", "--backend", "cpu", "--threads", "2"}});
}

TEST(AnalysisRequest, ItemsCsvEqualsTheCli) {
  const AnalysisRequest request{"items", {"--disagree"}};
  const auto run = run_cli("items '" + kJudgeBench + "' --disagree --quiet");
  ASSERT_EQ(run.status, 0) << run.out;
  const AnalysisResult result = library_output(request, kJudgeBench);
  EXPECT_EQ(result.csv, run.out);
  // One JSON row per CSV line after the header.
  const size_t lines = std::count(run.out.begin(), run.out.end(), '\n');
  EXPECT_EQ(result.json["rows"].size() + 1, lines);
  EXPECT_EQ(result.json["columns"][0], "item");
}

TEST(AnalysisRequest, BadFlagsFailBeforeLoadingNamingTheFlag) {
  EXPECT_NE(thrown_message<UsageError>([] {
              check_analysis({"metrics", {"--firts", "a"}});
            }).find("firts"),
            std::string::npos);
  EXPECT_NE(thrown_message<UsageError>([] {
              check_analysis({"metrics", {"--level", "2"}});
            }).find("--level"),
            std::string::npos);
  EXPECT_NE(thrown_message<UsageError>([] {
              check_analysis({"cascade", {"--first", "a"}});
            }).find("--fallback"),
            std::string::npos);
  EXPECT_NE(thrown_message<UsageError>([] {
              check_analysis({"budget", {"--compare", "a,b", "--tol", "0.1"}});
            }).find("--tol"),
            std::string::npos);
  EXPECT_NE(thrown_message<UsageError>([] {
              check_analysis({"metrics", {"records.csv"}});
            }).find("records.csv"),
            std::string::npos);
  EXPECT_NE(thrown_message<std::invalid_argument>([] {
              check_analysis({"plot", {}});
            }).find("command:"),
            std::string::npos);
}

TEST(AnalysisRequest, FlagListsAndLoadOptionsFollowTheCli) {
  const std::vector<std::string> budget = analysis_flags("budget");
  for (const char* flag : {"first", "compare", "k", "z", "draws", "seed"})
    EXPECT_NE(std::find(budget.begin(), budget.end(), flag), budget.end()) << flag;
  EXPECT_EQ(std::find(budget.begin(), budget.end(), "replicates"), budget.end());
  const std::vector<std::string> metrics = analysis_flags("metrics");
  EXPECT_NE(std::find(metrics.begin(), metrics.end(), "save-replicates"), metrics.end());
  EXPECT_TRUE(is_output_flag("plots"));
  EXPECT_TRUE(is_execution_flag("threads"));
  EXPECT_FALSE(is_output_flag("seed"));

  const AnalysisRequest request{"cascade",
                                {"--first", "a", "--fallback", "b", "--select-column", "split", "--labels", "A,B"}};
  const LoadOptions load = analysis_load_options(request);
  EXPECT_EQ(load.item_column, "split");
  EXPECT_EQ(load.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(analysis_target({"metrics", {"--backend", "cpu", "--threads", "3"}}).threads, 3);
  // A matrix loaded without the column the args name is refused, naming what to do.
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  EXPECT_NE(thrown_message<std::invalid_argument>([&] {
              run_analysis(request, matrix, cpu_target(1), {});
            }).find("analysis_load_options"),
            std::string::npos);
}

}  // namespace
}  // namespace judgestat
