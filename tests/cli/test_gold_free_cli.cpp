// The README's gold-free position-bias study (issue 28 item 1; docs/statistics.md §8.1) as a user
// runs it: data/examples/position_no_gold.csv has no gold column. metrics prints consistency and
// position rates and no accuracy, with the notes above the tables; an analysis that needs gold
// throughout stops with a usage error that says why.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace judgestat::testing_support;

namespace {

const std::string kStudy = kRoot + "/data/examples/position_no_gold.csv";

TEST(GoldFreeCli, MetricsPrintsConsistencyAndNoAccuracy) {
  const std::string out = write_temp("gold_free_cli.json", "");
  const CliRun run = run_cli("metrics " + kStudy + " --labels A,B --backend cpu --threads 2 --replicates 300 --json " +
                             out + " --quiet");
  ASSERT_EQ(run.status, 0) << run.out;
  // Above the tables: sloppy's 5 'C' verdicts of 80 records (6.25%), then the items without gold.
  EXPECT_EQ(run.out.find("WARNING: sloppy: 5 of 80 records invalid (6.2%), most often verdict 'C' (5)\n"
                         "WARNING: 40 of 40 items have no gold: acc, pa, bc"),
            0u)
      << run.out;
  EXPECT_FALSE(contains(run.out, "acc [order 0]")) << run.out;
  std::ifstream in(out);
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json["input"]["items"], 40);
  EXPECT_EQ(json["input"]["items_without_gold"], 40);
  // Hand counts (data/examples/make_position_no_gold.py): steady flips on 4 of 40 items,
  // first-pick picks the first-shown response on 24 and flips on 4 more.
  std::map<std::string, double> cons;
  for (const auto& row : json["statistics"])
    if (row["name"] == "cons")
      cons[row["judge"].get<std::string>()] = row["estimate"].get<double>();
    else
      for (const std::string name : {"acc", "pa", "bc", "stable_wrong", "jb_score", "macro_f1"})
        EXPECT_NE(row["name"], name) << row.dump();
  EXPECT_DOUBLE_EQ(cons.at("steady"), 36.0 / 40);
  EXPECT_DOUBLE_EQ(cons.at("first-pick"), 12.0 / 40);
  EXPECT_EQ(json["notes"][0], "sloppy: 5 of 80 records invalid (6.2%), most often verdict 'C' (5)");
}

TEST(GoldFreeCli, CascadeNeedsGold) {
  const CliRun run = run_cli("cascade " + kStudy + " --first steady --fallback sloppy --quiet");
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_TRUE(contains(run.out, "cascade needs gold labels, and no item of " + kStudy + " has one")) << run.out;
}

}  // namespace
