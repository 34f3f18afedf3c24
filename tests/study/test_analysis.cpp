// judgestat/analysis.hpp: an analysis asked for with the CLI's flags gives the CLI's own outputs,
// and bad flags fail before anything is loaded, naming the flag; the flags parse into the typed
// options a client could build by hand, which give the same outputs.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
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

TEST(AnalysisRequest, FlagsParseIntoTheTypedOptionsOfTheirAnalysis) {
  const TypedAnalysisRequest metrics =
      parse_analysis({"metrics",
                      {"--judges", std::string(kFirst) + "," + kFallback, "--by", "benchmark", "--replicates", "300",
                       "--seed", "7", "--labels", "A,B"}});
  ASSERT_TRUE(std::holds_alternative<MetricsOptions>(metrics.options));
  const MetricsOptions& options = std::get<MetricsOptions>(metrics.options);
  EXPECT_EQ(options.judges, (std::vector<std::string>{kFirst, kFallback}));
  EXPECT_EQ(options.by, "benchmark");
  EXPECT_EQ(options.bootstrap.replicates, 300u);
  EXPECT_EQ(options.bootstrap.seed, 7u);
  EXPECT_EQ(metrics.load.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(analysis_command(metrics.options), "metrics");

  // budget's two forms are two option types of one command.
  const TypedAnalysisRequest compare = parse_analysis({"budget", {"--compare", "a,b", "--k", "50,100"}});
  ASSERT_TRUE(std::holds_alternative<BudgetCompareOptions>(compare.options));
  EXPECT_EQ(std::get<BudgetCompareOptions>(compare.options).b, "b");
  EXPECT_EQ(std::get<BudgetCompareOptions>(compare.options).ks, (std::vector<uint32_t>{50, 100}));
  EXPECT_EQ(analysis_command(compare.options), "budget");
  const TypedAnalysisRequest cascade =
      parse_analysis({"cascade", {"--first", "a", "--fallback", "b", "--select-column", "split"}});
  EXPECT_EQ(std::get<CascadeOptions>(cascade.options).select_column, "split");
  EXPECT_EQ(cascade.load.item_column, "split");  // the loader keeps the column the options read
}

TEST(AnalysisRequest, OptionsBuiltByHandGiveTheFlagsOutputs) {
  const AnalysisRequest request{
      "metrics",
      {"--judges", std::string(kFirst) + "," + kFallback, "--by", "benchmark", "--replicates", "300", "--seed", "5"}};
  MetricsOptions by_hand;  // what the flags say, field by field
  by_hand.judges = {kFirst, kFallback};
  by_hand.by = "benchmark";
  by_hand.bootstrap.replicates = 300;
  by_hand.bootstrap.seed = 5;
  by_hand.diff = {"acc", "pa", "bc"};  // --diff's default
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  const AnalysisResult flags = run_analysis(request, matrix, cpu_target(2), {});
  const AnalysisResult typed = run_analysis(TypedAnalysisRequest{by_hand}, matrix, cpu_target(2), {});
  EXPECT_EQ(dump_json(without_run_fields(typed.json)), dump_json(without_run_fields(flags.json)));
  EXPECT_EQ(without_timing(typed.text), without_timing(flags.text));
  ASSERT_NE(typed.bootstrap, nullptr);
  // o1-mini's order-0 accuracy on the split: 248 of 350 pairs (as tests/cli/test_cli.cpp's order 1 is 261).
  bool seen = false;
  for (size_t s = 0; s < typed.bootstrap->labels.size(); ++s) {
    const StatLabel& label = typed.bootstrap->labels[s];
    if (label.name == "acc" && label.judge == kFallback && label.order == 0 && !label.benchmark) {
      EXPECT_DOUBLE_EQ(typed.bootstrap->intervals[s].estimate, 248.0 / 350.0);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

TEST(AnalysisRequest, TypedErrorsNameTheFieldTheFlagsFormTheFlag) {
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  BudgetOptions budget;
  budget.first = kFirst;
  budget.fallback = kFallback;
  budget.tol = -1;
  EXPECT_EQ(thrown_message<std::invalid_argument>(
                [&] { run_analysis(TypedAnalysisRequest{budget}, matrix, cpu_target(1), {}); }),
            "tol: expected a number >= 0");
  EXPECT_EQ(
      thrown_message<UsageError>([&] {
        run_analysis({"budget", {"--first", kFirst, "--fallback", kFallback, "--tol=-1"}}, matrix, cpu_target(1), {});
      }),
      "--tol: expected a number >= 0");
}

}  // namespace
}  // namespace judgestat
