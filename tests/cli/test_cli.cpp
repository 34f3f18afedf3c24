// The CLI end to end: docs/statistics.md §4 JSON from `judgestat metrics`, determinism across threads and
// chunks, and clear errors for bad requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

using namespace judgestat::testing_support;

nlohmann::json metrics_json(const std::string& extra) {
  const CliRun r = run_cli("metrics " + kRoot + "/data/judgebench/gpt4o_split.csv --format json --quiet " +
                           "--replicates 400 --judges o1-mini-2024-09-12,internlm_internlm2-7b-reward " + extra);
  EXPECT_EQ(r.status, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(Cli, MetricsJsonFollowsSpecSection4) {
  const auto j = metrics_json("--seed 3");
  for (const char* key : {"tool", "version", "command", "argv", "input", "settings", "statistics", "timing"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["tool"], "judgestat");
  EXPECT_EQ(j["command"], "metrics");
  EXPECT_EQ(j["input"]["records"], 4200);
  EXPECT_EQ(j["input"]["invalid"], 0);
  EXPECT_EQ(j["input"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(j["settings"]["seed"], 3);
  EXPECT_EQ(j["settings"]["replicates"], 400);
  EXPECT_EQ(j["settings"]["ci"], "percentile");
  EXPECT_EQ(j["settings"]["backend"], "cpu");
  for (const char* key : {"load_s", "resample_s", "replicates_per_s"}) EXPECT_TRUE(j["timing"].contains(key));
  bool saw_diff = false, saw_acc1 = false;
  for (const auto& row : j["statistics"]) {
    for (const char* key : {"name", "judge", "reference", "benchmark", "condition", "order", "variant", "threshold",
                            "n", "estimate", "ci", "se", "undefined"})
      ASSERT_TRUE(row.contains(key)) << key;
    if (row["name"] == "diff" && row["of"] != "order_gain") {  // order_gain: a judge against itself
      saw_diff = true;
      EXPECT_EQ(row["reference"], "o1-mini-2024-09-12");
    }
    if (row["name"] == "acc" && row["order"] == 1 && row["judge"] == "o1-mini-2024-09-12") {
      saw_acc1 = true;
      EXPECT_DOUBLE_EQ(row["estimate"].get<double>(), 261.0 / 350.0);  // 0.7457…
      EXPECT_LE(row["ci"][0].get<double>(), row["estimate"].get<double>());
      EXPECT_GE(row["ci"][1].get<double>(), row["estimate"].get<double>());
    }
  }
  EXPECT_TRUE(saw_diff);
  EXPECT_TRUE(saw_acc1);
}

TEST(Cli, SameSeedSameStatisticsOnAnyThreadsAndChunks) {
  const auto a = metrics_json("--seed 9 --threads 1");
  const auto b = metrics_json("--seed 9 --threads 2 --chunk 37");
  const auto c = metrics_json("--seed 10 --threads 2");
  EXPECT_EQ(a["statistics"].dump(), b["statistics"].dump());
  EXPECT_NE(a["statistics"].dump(), c["statistics"].dump());
}

TEST(Cli, ByBenchmarkReportsEachGroupStratified) {
  const auto j = metrics_json("--by benchmark");
  EXPECT_EQ(j["settings"]["strata"], "benchmark");
  std::set<std::string> groups;
  for (const auto& row : j["statistics"])
    if (!row["benchmark"].is_null()) groups.insert(row["benchmark"].get<std::string>());
  EXPECT_EQ(groups, (std::set<std::string>{"mmlu", "livebench", "livecodebench"}));
}

TEST(Cli, JsonFileAndTableAgree) {
  const std::string path = ::testing::TempDir() + "/judgestat_cli_metrics.json";
  const CliRun r = run_cli("metrics " + kRoot + "/data/judgebench/gpt4o_split.csv --quiet --replicates 200 " +
                           "--judges o1-mini-2024-09-12 --json " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("acc [order 0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 70.9 ("), std::string::npos) << r.out;  // the summary: 248 / 350 in percent
  const CliRun full = run_cli("metrics " + kRoot + "/data/judgebench/gpt4o_split.csv --quiet --replicates 200 " +
                              "--judges o1-mini-2024-09-12 --full");
  ASSERT_EQ(full.status, 0) << full.out;
  EXPECT_NE(full.out.find("0.7086"), std::string::npos) << full.out;  // every table: 248 / 350
  EXPECT_EQ(r.out.find("0.7086"), std::string::npos) << r.out;
  std::ifstream file(path);
  const auto j = nlohmann::json::parse(file);
  EXPECT_EQ(j["statistics"][0]["name"], "acc");
}

TEST(Cli, ClearErrorsForBadRequests) {
  const std::string data = kRoot + "/data/judgebench/gpt4o_split.csv";
  CliRun r = run_cli("metrics " + data + " --judges nobody --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("'nobody' does not occur"), std::string::npos) << r.out;
  r = run_cli("metrics " + data + " --benchmark mmlu --condition livebench-math --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("subset is empty"), std::string::npos) << r.out;
  r = run_cli("metrics " + data + " --ci wide --quiet");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--ci"), std::string::npos) << r.out;
  r = run_cli("metrics " + kRoot + "/no/such/file.csv --quiet");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("no/such/file.csv"), std::string::npos) << r.out;
  r = run_cli("frobnicate");
  EXPECT_EQ(r.status, 2);
}

TEST(Cli, ReplicatesThatCannotFitInMemoryAreRefusedUpFront) {
  // 4e9 replicates of JudgeBench's 134 statistics need ~4.3 TB for their values.
  const CliRun r = run_cli("metrics " + kRoot + "/data/judgebench/gpt4o_split.csv --replicates 4000000000 --quiet");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("GB of memory for the replicate values"), std::string::npos) << r.out;
}

TEST(Cli, BenchW1RunsOnSyntheticInput) {
  const CliRun r = run_cli(
      "bench w1 --items 400 --clusters 100 --judges 3 --replicates 500 --backend cpu "
      "--warmup 0 --repeats 2 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["statistics"], 3 * 3 + 2);
  EXPECT_EQ(j["clusters"], 100);
  EXPECT_EQ(j["measurements"][0]["repetitions"].size(), 2u);
  EXPECT_GT(j["cluster_draws_per_s"].get<double>(), 0);
}

TEST(Cli, BenchSweepReportsEachSize) {
  // CI-sized sweeps: the output parses and carries one measurement per swept value.
  CliRun r = run_cli(
      "bench w1 --sweep clusters --values 50,100,200 --items 400 --judges 2 --replicates 200 "
      "--backend cpu --warmup 0 --repeats 1 --probe 1e9 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["measurements"].size(), 3u);
  EXPECT_EQ(j["sweep"], "clusters");
  EXPECT_EQ(j["measurements"][2]["clusters"], 200);
  EXPECT_GT(j["measurements"][0]["probe_fraction"].get<double>(), 0);
  r = run_cli(
      "bench w2 --sweep k --values 8,16 --items 200 --draws 2000 --backend cpu --warmup 0 --repeats 1 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["measurements"].size(), 2u);
  EXPECT_EQ(j["measurements"][1]["k"], 16);
  EXPECT_GT(j["measurements"][1]["draws_per_s"].get<double>(), 0);
  r = run_cli(
      "bench w1 --sweep replicates --values 100,200 --items 300 --clusters 60 --judges 2 --backend cpu "
      "--warmup 0 --repeats 1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cluster draws/s"), std::string::npos) << r.out;
  r = run_cli(
      "bench w2 --sweep grid --values 3,40 --items 200 -k 16 --draws 2000 --backend cpu --warmup 0 "
      "--repeats 1 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["measurements"].size(), 2u);
  EXPECT_EQ(j["measurements"][0]["grid"], 3);
  EXPECT_EQ(j["measurements"][1]["grid"], 40);
  r = run_cli(
      "bench w2 --grid 0.7,0.9 --items 200 -k 16 --draws 1000 --backend cpu --warmup 0 --repeats 1 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["measurements"][0]["grid"], 2);
  r = run_cli("bench w1 --sweep nonsense");
  EXPECT_EQ(r.status, 2);
  r = run_cli("bench w2 --grid 0.9,0.5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("ascend"), std::string::npos) << r.out;
}

TEST(Cli, BudgetPerCallFeesGiveFeeRatios) {
  const std::string base = "budget " + kRoot +
                           "/data/judgebench/gpt4o_split.csv --first "
                           "Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12 -k 48 --rule point "
                           "--draws 2000 --backend cpu --format json --quiet";
  CliRun r = run_cli(base);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["budget"][0]["fee_ratio_median"].is_null());
  r = run_cli(base + " --fee Skywork_Skywork-Reward-Llama-3.1-8B=0 --fee o1-mini-2024-09-12=0.01");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto row = nlohmann::json::parse(r.out)["budget"][0];
  // A free first stage: the fee ratio is the escalated share of the held-out items, in (0, 1].
  EXPECT_GT(row["fee_ratio_median"].get<double>(), 0.0);
  EXPECT_LE(row["fee_ratio_median"].get<double>(), 1.0);
  r = run_cli(base + " --fee nobody=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("'nobody' is neither"), std::string::npos) << r.out;
}

TEST(Cli, SaveReplicatesWritesTheDistribution) {
  const std::string path = ::testing::TempDir() + "/judgestat_cli_replicates.csv";
  const CliRun r = run_cli("metrics " + kRoot +
                           "/data/judgebench/gpt4o_split.csv --quiet --replicates 300 "
                           "--judges o1-mini-2024-09-12 --format json --save-replicates " +
                           path);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  std::ifstream file(path);
  std::string header, line;
  std::getline(file, header);
  EXPECT_EQ(header.rfind("acc|judge=o1-mini-2024-09-12|order=0,", 0), 0u) << header;
  // One row per replicate, one column per statistic; the SE recomputed from the file matches.
  std::vector<double> acc0;
  while (std::getline(file, line)) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), static_cast<long>(j["statistics"].size()) - 1);
    acc0.push_back(std::stod(line.substr(0, line.find(','))));
  }
  ASSERT_EQ(acc0.size(), 300u);
  double mean = 0, ss = 0;
  for (double v : acc0) mean += v / acc0.size();
  for (double v : acc0) ss += (v - mean) * (v - mean);
  EXPECT_NEAR(std::sqrt(ss / (acc0.size() - 1)), j["statistics"][0]["se"].get<double>(), 1e-12);
}
