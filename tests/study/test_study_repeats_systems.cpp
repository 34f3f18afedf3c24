// A study runs repeats and systems (docs/study.md) and metrics on scores (--scale as "scale"):
// results.json carries the statistics the library's own runs give on the same files and options,
// report.html shows their tables and systems' figures, a second run reuses every analysis from the
// cache (their tables rendered again from their JSON) with the same results.json, and a wrong-typed
// value names its key.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "judgestat/study.hpp"
#include "study/study_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::write_all;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kRepeats = kRoot + "/data/examples/repeats.csv";
const std::string kWinRates = kRoot + "/data/examples/win_rates.csv";
const std::string kScores = kRoot + "/data/examples/score_judges.csv";

std::string study_file(const std::string& dir, const std::string& analyses) {
  const std::string path = dir + "/study.json";
  write_all(path, R"({"settings": {"replicates": 200, "seed": 4}, "inputs": {"rep": ")" + kRepeats + R"(", "wr": ")" +
                      kWinRates + R"(", "sc": ")" + kScores + R"("}, "analyses": )" + analyses + "}");
  return path;
}

const char* const kAnalyses = R"([
  {"analysis": "repeats", "input": "rep"},
  {"analysis": "systems", "input": "wr", "systems": ["x.model_a", "x.model_b"], "baseline": "mistral-7b"},
  {"analysis": "metrics", "input": "sc", "scale": "1:10", "judges": ["close", "noisy"]},
  {"analysis": "metrics", "input": "sc", "name": "as_labels", "judges": ["close"]}])";

StudyOutcome run_into(const std::string& study_path, const std::string& out) {
  StudyRunOptions options;
  options.out_dir = out;
  options.backend = "cpu";
  options.threads = 1;
  options.quiet = true;
  return run_study(load_study(study_path), options);
}

// The analysis's statistics as the library's own run gives them with the CLI's flags.
Json direct_statistics(const std::string& command, const std::string& file, const std::vector<std::string>& args) {
  const AnalysisRequest request{command, args};
  const ItemMatrix matrix = load_item_matrix(file, analysis_load_options(request));
  ReportHead head;
  head.envelope = Json::object();
  return run_analysis(request, matrix, ExecTarget{ExecTarget::Kind::kCpu}, head).json["statistics"];
}

// Pearson's r of each judge's scores against gold over its records, computed here from the CSV.
std::map<std::string, double> pearson_by_hand(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // judge,item,cluster,gold,verdict,x.pair
  std::map<std::string, std::vector<std::pair<double, double>>> scores;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    scores[cells[0]].emplace_back(std::stod(cells[4]), std::stod(cells[3]));
  }
  std::map<std::string, double> r;
  for (const auto& [judge, pairs] : scores) {
    double mx = 0, my = 0;
    for (const auto& [x, y] : pairs) mx += x / pairs.size(), my += y / pairs.size();
    double sxy = 0, sxx = 0, syy = 0;
    for (const auto& [x, y] : pairs) sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx), syy += (y - my) * (y - my);
    r[judge] = sxy / std::sqrt(sxx * syy);
  }
  return r;
}

TEST(StudyRepeatsSystems, ResultsCarryTheirStatisticsAndTheReportTheirTables) {
  const std::string dir = fresh_dir("run");
  const std::string study = study_file(dir, kAnalyses);
  const StudyOutcome first = run_into(study, dir + "/out");
  EXPECT_EQ(first.computed, (std::vector<std::string>{"repeats_rep", "systems_wr", "metrics_sc", "as_labels"}));
  const Json results = Json::parse(read_all(first.results_path));
  const Json& analyses = results["analyses"];
  ASSERT_EQ(analyses.size(), 4u);
  const std::vector<std::string> run_wide{"--replicates=200", "--seed=4"};
  EXPECT_EQ(analyses[0]["result"]["statistics"], direct_statistics("repeats", kRepeats, run_wide));
  std::vector<std::string> systems{"--systems", "x.model_a,x.model_b", "--baseline", "mistral-7b"};
  systems.insert(systems.end(), run_wide.begin(), run_wide.end());
  EXPECT_EQ(analyses[1]["result"]["statistics"], direct_statistics("systems", kWinRates, systems));
  ASSERT_FALSE(analyses[0]["result"]["statistics"].empty());
  ASSERT_FALSE(analyses[1]["result"]["statistics"].empty());

  // --scale through the study: the CLI's pearson, and Pearson's r counted from the file here.
  std::vector<std::string> metrics{"--scale", "1:10", "--judges", "close,noisy"};
  metrics.insert(metrics.end(), run_wide.begin(), run_wide.end());
  EXPECT_EQ(analyses[2]["result"]["statistics"], direct_statistics("metrics", kScores, metrics));
  const std::map<std::string, double> by_hand = pearson_by_hand(kScores);
  int pearsons = 0;
  for (const Json& row : analyses[2]["result"]["statistics"])
    if (row["name"] == "pearson" && row.value("reference", Json()).is_null() &&
        row.value("benchmark", Json()).is_null()) {
      EXPECT_NEAR(row["estimate"].get<double>(), by_hand.at(row["judge"].get<std::string>()), 1e-12) << row.dump();
      ++pearsons;
    }
  EXPECT_EQ(pearsons, 2);
  // The same input without a scale is loaded again, its scores as labels: no score statistics.
  EXPECT_EQ(analyses[3]["result"]["statistics"],
            direct_statistics("metrics", kScores, {"--judges", "close", "--replicates=200", "--seed=4"}));
  for (const Json& row : analyses[3]["result"]["statistics"]) EXPECT_NE(row["name"], "pearson");

  const std::string html = read_all(first.report_path);
  EXPECT_NE(html.find("id=\"a-repeats_rep\""), std::string::npos);
  EXPECT_NE(html.find("id=\"a-systems_wr\""), std::string::npos);
  EXPECT_NE(html.find("mistral-7b"), std::string::npos);  // the win-rate table's opponent column
  EXPECT_NE(read_all(dir + "/out/systems_wr/tables.csv").find("win_rate"), std::string::npos);

  const std::string win_rates_svg = read_all(dir + "/out/systems_wr/systems_win_rates.svg");
  EXPECT_NE(win_rates_svg.find("<svg"), std::string::npos);
  EXPECT_NE(read_all(dir + "/out/systems_wr/systems_system_level.csv").find("by_gold"), std::string::npos);
  EXPECT_NE(html.find("win rate against mistral-7b"), std::string::npos);  // the figure's title

  // Again: every analysis comes from the cache, without a note; the same results, tables and figures.
  const std::string tables = read_all(dir + "/out/repeats_rep/tables.txt");
  const StudyOutcome second = run_into(study, dir + "/out");
  EXPECT_EQ(second.reused, (std::vector<std::string>{"repeats_rep", "systems_wr", "metrics_sc", "as_labels"}));
  EXPECT_TRUE(second.computed.empty());
  EXPECT_TRUE(second.notes.empty());
  EXPECT_EQ(dump_json(study_testing::without_run_fields(Json::parse(read_all(second.results_path)))),
            dump_json(study_testing::without_run_fields(results)));
  EXPECT_EQ(read_all(dir + "/out/repeats_rep/tables.txt"), tables);
  EXPECT_EQ(read_all(dir + "/out/systems_wr/systems_win_rates.svg"), win_rates_svg);
}

TEST(StudyRepeatsSystems, AWrongTypedValueNamesItsKey) {
  const std::string dir = fresh_dir("wrong");
  const struct {
    const char* analyses;
    const char* expected;
  } cases[] = {
      {R"([{"analysis": "systems", "input": "wr", "baseline": 3}])",
       "analyses[0] (systems_wr): key 'baseline': expected a string, got number 3"},
      {R"([{"analysis": "repeats", "input": "rep", "invalid_match": "yes"}])",
       "analyses[0] (repeats_rep): key 'invalid_match': expected true or false (a switch), got string \"yes\""},
      {R"([{"analysis": "metrics", "input": "sc", "scale": 10}])",
       "analyses[0] (metrics_sc): key 'scale': expected a string, got number 10"},
  };
  for (const auto& c : cases) {
    const std::string path = study_file(dir, c.analyses);
    EXPECT_EQ(thrown_message<UsageError>([&] { load_study(path); }), path + ": " + c.expected);
  }
}

}  // namespace
}  // namespace judgestat
