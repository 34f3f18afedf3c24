// Several record files per analysis (issue 29 item 3): FILE… and globs merge as the study merges an
// input's files, a missing path or an empty glob is an error naming it, and --map reads a harness
// log straight into `metrics`, the same as importing it first; a study input reads through its map.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "judgestat/study.hpp"
#include "requests/request_flags.hpp"
#include "study/study_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::run_cli;
using testing_support::temp_path;
using testing_support::thrown_message;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The first `rows` records of data/examples/position_no_gold.csv (header, then judge-major rows)
// split at `at` into two files: judge "steady" in the first, the rest in the second.
std::pair<std::string, std::string> split_example(const std::string& prefix) {
  std::ifstream in(testing_support::kRoot + "/data/examples/position_no_gold.csv");
  std::string header, line, first, second;
  std::getline(in, header);
  while (std::getline(in, line)) (line.rfind("steady,", 0) == 0 ? first : second) += line + "\n";
  return {write_file(prefix + "_a.csv", header + "\n" + first), write_file(prefix + "_b.csv", header + "\n" + second)};
}

TEST(SeveralFiles, RecordFilesExpandGlobsAndRefuseMissingPaths) {
  const auto [a, b] = split_example("part");
  const std::string pattern = temp_path("part_*.csv");
  EXPECT_EQ(record_files({pattern}), (std::vector<std::string>{a, b}));  // byte order of the paths
  EXPECT_EQ(record_files({b, a}), (std::vector<std::string>{b, a}));     // as given
  EXPECT_EQ(thrown_message<UsageError>([] { record_files({"/nonexistent.csv"}); }),
            "FILE '/nonexistent.csv': no such file (every FILE given is read; none is skipped)");
  EXPECT_EQ(thrown_message<UsageError>([&] { record_files({temp_path("none_*.csv")}); }),
            "FILE '" + temp_path("none_*.csv") + "': the pattern matches no file");
}

TEST(SeveralFiles, MetricsMergesFilesAndRefusesAMissingOne) {
  const auto [a, b] = split_example("part");
  const std::string whole = testing_support::kRoot + "/data/examples/position_no_gold.csv";
  const std::string flags = " --replicates 50 --format csv --quiet";
  const auto merged = run_cli("metrics " + a + " " + b + flags);
  const auto globbed = run_cli("metrics '" + temp_path("part_*.csv") + "'" + flags);
  const auto single = run_cli("metrics " + whole + flags);
  ASSERT_EQ(merged.status, 0) << merged.out;
  EXPECT_EQ(merged.out, globbed.out);
  EXPECT_EQ(merged.out, single.out);  // the same records: the same statistics, same seed

  const auto missing = run_cli("metrics " + a + " /nonexistent.csv" + flags);
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_TRUE(contains(missing.out, "FILE '/nonexistent.csv': no such file")) << missing.out;
}

const char* const kLog = R"({"id": "q1", "judge": "m", "label": "A", "games": ["A>B", "B>A"]})"
                         "\n"
                         R"({"id": "q2", "judge": "m", "label": "B", "games": ["B>A", "B>A"]})"
                         "\n"
                         R"({"id": "q3", "judge": "m", "label": "A", "games": ["A>B", "A>B"]})"
                         "\n";
const char* const kMap = R"({"input": "jsonl", "each": "games", "fields": {
  "judge": "judge", "item": "id", "gold": "label", "order": "$index",
  "verdict": {"path": "@", "values": {"A>B": "A", "B>A": "B"}}},
  "swap": {"when": {"path": "$index", "equals": 1}, "labels": {"A": "B", "B": "A"}}})";

TEST(SeveralFiles, MetricsReadsALogThroughAMapAsItsImport) {
  const std::string log = write_file("log.jsonl", kLog);
  const std::string map = write_file("map.json", kMap);
  const std::string records = temp_path("records.csv");
  ASSERT_EQ(run_cli("import --map " + map + " " + log + " --out " + records).status, 0);
  // q1 order 1 (B>A of the swapped pair) is A: right; q2 order 1 is A: wrong; q3 order 1 is B: wrong.
  std::ifstream in(records);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "judge,item,order,gold,verdict\nm,q1,0,A,A\nm,q1,1,A,A\nm,q2,0,B,B\nm,q2,1,B,A\n"
            "m,q3,0,A,A\nm,q3,1,A,B\n");
  const std::string flags = " --replicates 50 --format csv --quiet";
  const auto mapped = run_cli("metrics --map " + map + " " + log + flags);
  const auto imported = run_cli("metrics " + records + flags);
  ASSERT_EQ(mapped.status, 0) << mapped.out;
  EXPECT_EQ(mapped.out, imported.out);
}

TEST(SeveralFiles, StudyInputReadsThroughItsMap) {
  const std::string dir = study_testing::fresh_dir("study_map");
  study_testing::write_all(dir + "/log.jsonl", kLog);
  study_testing::write_all(dir + "/map.json", kMap);
  study_testing::write_all(dir + "/study.json", R"({"settings": {"replicates": 50}, "inputs": {
      "games": {"files": ["log.jsonl"], "map": "map.json"}}, "analyses": [{"analysis": "metrics", "input": "games"}]})");
  const Study study = load_study(dir + "/study.json");
  ASSERT_EQ(study.inputs.size(), 1u);
  EXPECT_EQ(study.inputs[0].map, dir + "/map.json");
  StudyRunOptions run;
  run.out_dir = dir + "/out";
  run.backend = "cpu";
  run.threads = 1;
  run.quiet = true;
  EXPECT_EQ(run_study(study, run).computed.size(), 1u);
  EXPECT_TRUE(contains(study_testing::read_all(dir + "/out/results.json"), "\"records\": 6"));

  study_testing::write_all(dir + "/bad.json", R"({"input": "jsonl", "fields": {"judge": "judge"}})");
  study_testing::write_all(dir + "/study.json", R"({"inputs": {"games": {"files": "log.jsonl", "map": "bad.json"}},
      "analyses": [{"analysis": "metrics", "input": "games"}]})");
  EXPECT_TRUE(contains(thrown_message<UsageError>([&] { load_study(dir + "/study.json"); }),
                       "inputs.games: \"map\": " + dir + "/bad.json: fields: missing \"item\""));
}

}  // namespace
}  // namespace judgestat
