// JEV App. H Table 19 (`metrics --failure-type x.NAME`, docs/statistics.md §7.1): failures by type
// per judge against a recount of data/examples/jev_failures.csv's rows, and valid-only accuracy
// beside it with --invalid exclude.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "judgestat/report.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::CliRun;
using testing_support::contains;
using testing_support::kRoot;
using testing_support::run_cli;

const std::string kFile = kRoot + "/data/examples/jev_failures.csv";

// Per (judge, type) the invalid records, per judge the records and the right valid verdicts, counted
// from the CSV itself (columns judge,item,cluster,gold,verdict,x.failure).
struct Recount {
  std::map<std::pair<std::string, std::string>, int> failed;
  std::map<std::string, int> records, valid, right;
};

Recount recount() {
  Recount out;
  std::ifstream in(kFile);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string judge, item, cluster, gold, verdict, type;
    std::getline(fields, judge, ',');
    std::getline(fields, item, ',');
    std::getline(fields, cluster, ',');
    std::getline(fields, gold, ',');
    std::getline(fields, verdict, ',');
    std::getline(fields, type, ',');
    ++out.records[judge];
    if (verdict.empty()) {
      ++out.failed[{judge, type.empty() ? "(no type)" : type}];
      continue;
    }
    ++out.valid[judge];
    out.right[judge] += verdict == gold;
  }
  return out;
}

TEST(FailureTypes, RatesPerJudgeAndTypeAreTheRecount) {
  const Recount counts = recount();
  ASSERT_EQ(counts.failed.at({"Qwen", "contract"}), 12);  // the generator's docstring
  const CliRun run = run_cli("metrics " + kFile + " --failure-type x.failure --replicates 50 --format json");
  ASSERT_EQ(run.status, 0) << run.out;
  const Json json = Json::parse(run.out);
  std::map<std::pair<std::string, std::string>, double> rates;
  for (const Json& row : json["statistics"])
    if (row["name"] == "failure_rate") {
      const std::string judge = row["judge"], type = row["label"];
      rates[{judge, type}] = row["estimate"];
      EXPECT_EQ(row["n"], counts.records.at(judge)) << judge;
    }
  ASSERT_EQ(rates.size(), counts.failed.size());  // JEV never fails: no rows
  for (const auto& [key, failed] : counts.failed)
    EXPECT_DOUBLE_EQ(rates.at(key), static_cast<double>(failed) / counts.records.at(key.first))
        << key.first << " " << key.second;
  // Valid-only accuracy (the table's other column): --invalid exclude.
  const CliRun valid = run_cli("metrics " + kFile + " --invalid exclude --replicates 50 --format json");
  ASSERT_EQ(valid.status, 0) << valid.out;
  const Json valid_json = Json::parse(valid.out);  // named: a range-for over a temporary's member dangles
  for (const Json& row : valid_json["statistics"])
    if (row["name"] == "acc" && row["order"] == 0 && row["benchmark"].is_null()) {
      const std::string judge = row["judge"];
      EXPECT_DOUBLE_EQ(row["estimate"].get<double>(),
                       static_cast<double>(counts.right.at(judge)) / counts.valid.at(judge))
          << judge;
    }
}

TEST(FailureTypes, AColumnTheFileLacksNamesTheFlag) {
  const CliRun run = run_cli("metrics " + kFile + " --failure-type x.kind --replicates 50");
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_TRUE(contains(run.out, "--failure-type: ")) << run.out;
  EXPECT_TRUE(contains(run.out, "x.kind")) << run.out;
}

}  // namespace
}  // namespace judgestat
