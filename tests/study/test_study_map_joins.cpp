// A study input read through an import map (docs/study.md): the cache key holds the bytes of the
// map and of every file the map joins, so editing either recomputes the analyses of that input.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "study/study_support.hpp"

namespace judgestat {
namespace {

using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::write_all;

// Judge j says A on q0..q3; the gold comes from gold.jsonl through the map's join.
void write_mapped_study(const std::string& dir) {
  std::string log;
  for (const char* item : {"q0", "q1", "q2", "q3"})
    log += std::string(R"({"id": ")") + item + R"(", "judge": "j", "score": "A"})" + "\n";
  write_all(dir + "/log.jsonl", log);
  write_all(dir + "/map.json", R"({"input": "jsonl", "fields": {"judge": "judge", "item": "id", "verdict": "score",
    "gold": {"join": {"file": "gold.jsonl", "key": "id", "value": "label"}, "on": "id"}}})");
  write_all(dir + "/study.json", R"({"settings": {"replicates": 200, "backend": "cpu", "threads": 2},
    "inputs": {"arena": {"files": "log.jsonl", "map": "map.json"}},
    "analyses": [{"analysis": "metrics", "input": "arena"}]})");
}

void write_gold(const std::string& dir, const std::vector<std::string>& labels) {
  std::string gold;
  for (size_t k = 0; k < labels.size(); ++k)
    gold += R"({"id": "q)" + std::to_string(k) + R"(", "label": ")" + labels[k] + R"(", "other": "A"})" + "\n";
  write_all(dir + "/gold.jsonl", gold);
}

StudyOutcome run_quiet(const std::string& dir) {
  StudyRunOptions options;
  options.out_dir = dir + "/out";
  options.quiet = true;
  return run_study(load_study(dir + "/study.json"), options);
}

// The accuracy of judge j in the study's results (the first acc row: order 0, no reference).
double accuracy(const std::string& dir) {
  const Json results = Json::parse(read_all(dir + "/out/results.json"));
  for (const Json& row : results["analyses"][0]["result"]["statistics"])
    if (row["name"] == "acc" && row["judge"] == "j") return row["estimate"].get<double>();
  ADD_FAILURE() << "no acc row";
  return -1;
}

TEST(StudyMappedInput, EditingAJoinedFileOrTheMapRecomputes) {
  const std::string dir = fresh_dir("mapped");
  write_mapped_study(dir);
  write_gold(dir, {"A", "A", "A", "B"});
  const std::vector<std::string> metrics{"metrics_arena"};
  EXPECT_EQ(run_quiet(dir).computed, metrics);
  EXPECT_DOUBLE_EQ(accuracy(dir), 3.0 / 4);  // A on all four, gold A on three
  EXPECT_EQ(run_quiet(dir).reused, metrics);
  // The joined gold changes, the log and the map do not.
  write_gold(dir, {"A", "B", "B", "B"});
  EXPECT_EQ(run_quiet(dir).computed, metrics);
  EXPECT_DOUBLE_EQ(accuracy(dir), 1.0 / 4);
  EXPECT_EQ(run_quiet(dir).reused, metrics);
  // The map changes (its gold comes from the key "other", A on every item): recomputed.
  std::string map = read_all(dir + "/map.json");
  map.replace(map.find("\"label\""), 7, "\"other\"");
  write_all(dir + "/map.json", map);
  EXPECT_EQ(run_quiet(dir).computed, metrics);
  EXPECT_DOUBLE_EQ(accuracy(dir), 1.0);
}

}  // namespace
}  // namespace judgestat
