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
using testing_support::write_temp;

// The first `rows` records of data/examples/position_no_gold.csv (header, then judge-major rows)
// split at `at` into two files: judge "steady" in the first, the rest in the second.
std::pair<std::string, std::string> split_example(const std::string& prefix) {
  std::ifstream in(testing_support::kRoot + "/data/examples/position_no_gold.csv");
  std::string header, line, first, second;
  std::getline(in, header);
  while (std::getline(in, line)) (line.rfind("steady,", 0) == 0 ? first : second) += line + "\n";
  return {write_temp(prefix + "_a.csv", header + "\n" + first), write_temp(prefix + "_b.csv", header + "\n" + second)};
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
  const std::string log = write_temp("log.jsonl", kLog);
  const std::string map = write_temp("map.json", kMap);
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

// A conflict between records of two files names the real file and line of each record, not a
// line of the files run on (f1 has 3 lines, so the run-on place of f2's line 2 was ", f2:6").
TEST(SeveralFiles, ConflictsNameEachRecordsOwnFileAndLine) {
  const std::string f1 = write_temp("own_f1.csv", "judge,item,gold,verdict\na,i1,A,A\na,i2,B,A\n");
  const std::string f2 = write_temp("own_f2.csv", "judge,item,gold,verdict\nb,i1,B,A\nb,i2,B,A\n");
  EXPECT_EQ(thrown_message<InputError>([&] {
              load_item_matrix(std::vector<std::string>{f1, f2}, {});
            }),
            f2 + ":2: column 'gold': item \"i1\" has gold \"B\" here but \"A\" on line 2 of " + f1 +
                "; every record of an item must carry the same gold, so correct one of the two lines");
  // The same record in both files: the duplicate is f2's line 3, the first f1's line 3.
  const std::string f3 = write_temp("own_f3.csv", "judge,item,gold,verdict\nb,i1,A,A\na,i2,B,B\n");
  const std::string message = thrown_message<InputError>([&] {
    load_item_matrix(std::vector<std::string>{f1, f3}, {});
  });
  EXPECT_EQ(message.rfind(f3 + ":3: columns 'judge','item','order','variant': judge \"a\", item \"i2\"", 0), 0u)
      << message;
  EXPECT_TRUE(contains(message, "already occurs on line 3 of " + f1 + ";")) << message;
}

// Through a map, a record's place is its log line: log2's third line repeats log1's first.
TEST(SeveralFiles, MappedConflictsNameTheLogLines) {
  const std::string map = write_temp(
      "own_map.json", R"({"input": "jsonl", "fields": {"judge": "j", "item": "id", "gold": "g", "verdict": "v"}})");
  const std::string log1 = write_temp("own_log1.jsonl", R"({"j": "a", "id": "i1", "g": "A", "v": "A"})"
                                                        "\n"
                                                        R"({"j": "a", "id": "i2", "g": "B", "v": "A"})"
                                                        "\n");
  const std::string log2 = write_temp("own_log2.jsonl", R"({"j": "b", "id": "i1", "g": "A", "v": "B"})"
                                                        "\n"
                                                        R"({"j": "b", "id": "i2", "g": "B", "v": "B"})"
                                                        "\n"
                                                        R"({"j": "a", "id": "i1", "g": "A", "v": "B"})"
                                                        "\n");
  LoadOptions options;
  options.map = map;
  const std::string message = thrown_message<InputError>([&] {
    load_item_matrix(std::vector<std::string>{log1, log2}, options);
  });
  EXPECT_EQ(message.rfind(log2 + ":3: columns 'judge','item','order','variant': judge \"a\", item \"i1\"", 0), 0u)
      << message;
  EXPECT_TRUE(contains(message, "already occurs on line 1 of " + log1 + ";")) << message;
}

}  // namespace
}  // namespace judgestat
