// Win rates between systems (docs/statistics.md §8.4, issue 28 item 5) against a hand count:
// per pair, per system over all opponents and against a baseline, and the paired differences.
#include <gtest/gtest.h>

#include <string>

#include "analyses/systems/systems_test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;
using namespace judgestat::systems_testing;

namespace {

// Nine pairwise items, no gold. J's verdicts (order 0, order 1 where given), the systems behind A and B:
//   i1 s1|s2 A        s1 wins              i6 s2|s3 A      s2 wins
//   i2 s2|s1 A        s2 wins              i7 s3|s2 C      invalid: left out of J's rates
//   i3 s1|s2 tie      half each            i8 s2|s2 A      a system against itself: left out
//   i4 s1|s3 A, B     half each (orders)   i9 s3|s2 B      s2 wins
//   i5 s3|s1 B        s1 wins
// K says A on every item, in order 0 only.
const char* kCsv =
    "judge,item,order,verdict,x.A,x.B\n"
    "J,i1,0,A,s1,s2\nJ,i2,0,A,s2,s1\nJ,i3,0,tie,s1,s2\nJ,i4,0,A,s1,s3\nJ,i4,1,B,s1,s3\n"
    "J,i5,0,B,s3,s1\nJ,i6,0,A,s2,s3\nJ,i7,0,C,s3,s2\nJ,i8,0,A,s2,s2\nJ,i9,0,B,s3,s2\n"
    "K,i1,0,A,s1,s2\nK,i2,0,A,s2,s1\nK,i3,0,A,s1,s2\nK,i4,0,A,s1,s3\nK,i5,0,A,s3,s1\n"
    "K,i6,0,A,s2,s3\nK,i7,0,A,s3,s2\nK,i8,0,A,s2,s2\nK,i9,0,A,s3,s2\n";

LoadOptions pair_labels() {
  LoadOptions load;
  load.labels = {"A", "B"};
  return load;
}

SystemsOptions win_rate_options(const std::string& baseline = "") {
  SystemsOptions options;
  options.systems = {"x.A", "x.B"};
  options.baseline = baseline;
  return options;
}

TEST(SystemsWinRates, PairsAndOverallMatchTheHandCount) {
  const SystemsReport report = systems_of("win.csv", kCsv, win_rate_options(), pair_labels());
  EXPECT_EQ(report.systems, (std::vector<std::string>{"s1", "s2", "s3"}));
  // J, s1 vs s2: i1 1 + i2 0 + i3 ½ = 1.5 of 3; s1 vs s3: i4 ½ + i5 1 = 1.5 of 2; s2 vs s3: i6 1 + i9 1 of 2.
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s1", "s2"), 1.5 / 3);
  EXPECT_EQ(row(report, "win_rate", "J", "s1", "s2")->n, 3);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s1", "s3"), 1.5 / 2);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s2", "s3"), 2.0 / 2);
  // Over all opponents: s1 on i1–i5: 1 + 0 + ½ + ½ + 1 = 3 of 5; s2 on i1 i2 i3 i6 i9: 0 + 1 + ½ + 1 + 1 = 3.5
  // of 5; s3 on i4 i5 i6 i9: ½ + 0 + 0 + 0 = 0.5 of 4.
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s1", "all"), 3.0 / 5);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s2", "all"), 3.5 / 5);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s3", "all"), 0.5 / 4);
  EXPECT_EQ(row(report, "win_rate", "J", "s3", "all")->n, 4);
  // Differences of the overall rates, on the same replicates.
  EXPECT_NEAR(estimate(report, "win_rate_diff", "J", "s1", "s2"), 3.0 / 5 - 3.5 / 5, 1e-15);
  EXPECT_NEAR(estimate(report, "win_rate_diff", "J", "s2", "s3"), 3.5 / 5 - 0.5 / 4, 1e-15);
  // K (A always, i7 valid for it): s1 vs s2: i1 1 + i2 0 + i3 1 = 2 of 3; s2 vs s3: i6 1 + i7 0 + i9 0 = 1 of 3.
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "K", "s1", "s2"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "K", "s2", "s3"), 1.0 / 3);
  // The units left out are named.
  bool self_pair = false, invalid = false;
  for (const std::string& note : report.notes) {
    self_pair = self_pair || contains(note, "1 units compare a system with itself");
    invalid = invalid || contains(note, "win rates of J: 1 units without a valid verdict");
  }
  EXPECT_TRUE(self_pair);
  EXPECT_TRUE(invalid);
}

TEST(SystemsWinRates, AgainstABaselineWithPairedDifference) {
  const SystemsReport report = systems_of("baseline.csv", kCsv, win_rate_options("s3"), pair_labels());
  // J against s3: s1 1.5 of 2, s2 2 of 2; no row for s3 itself and no all-opponents rows.
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s1", "s3"), 0.75);
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate", "J", "s2", "s3"), 1.0);
  EXPECT_FALSE(row(report, "win_rate", "J", "s1", "all"));
  EXPECT_FALSE(row(report, "win_rate", "J", "s1", "s2"));
  EXPECT_FALSE(row(report, "win_rate", "J", "s3", "all"));
  EXPECT_DOUBLE_EQ(estimate(report, "win_rate_diff", "J", "s1", "s2"), 0.75 - 1.0);
  // Both rates' clusters: i4, i5 (s1) and i6, i9 (s2).
  EXPECT_EQ(row(report, "win_rate_diff", "J", "s1", "s2")->n, 4);
}

TEST(SystemsWinRates, IntervalsAreResampledOverClusters) {
  const SystemsReport report = systems_of("ci.csv", kCsv, win_rate_options(), pair_labels());
  const auto s1 = row(report, "win_rate", "J", "s1", "all");
  ASSERT_TRUE(s1);
  EXPECT_LE(s1->interval.lo, s1->interval.estimate);
  EXPECT_GE(s1->interval.hi, s1->interval.estimate);
  EXPECT_LT(s1->interval.lo, s1->interval.hi);
  EXPECT_GT(s1->interval.se, 0.0);
  EXPECT_EQ(s1->interval.clusters, 9);  // every analysed item is its own cluster
}

TEST(SystemsWinRates, SameSeedSameReplicatesOnAnyThreadCount) {
  SystemsOptions options = win_rate_options();
  options.bootstrap.keep_replicates = true;
  const SystemsReport one = systems_of("t1.csv", kCsv, options, pair_labels(), 1);
  const SystemsReport two = systems_of("t2.csv", kCsv, options, pair_labels(), 2);
  const SystemsReport again = systems_of("t3.csv", kCsv, options, pair_labels(), 2);
  ASSERT_FALSE(one.statistics.replicates.empty());
  EXPECT_EQ(one.statistics.replicates.size(), two.statistics.replicates.size());
  for (size_t k = 0; k < one.statistics.replicates.size(); ++k) {
    const double a = one.statistics.replicates[k], b = two.statistics.replicates[k], c = again.statistics.replicates[k];
    EXPECT_TRUE((std::isnan(a) && std::isnan(b) && std::isnan(c)) || (a == b && b == c)) << "replicate value " << k;
  }
}

TEST(SystemsWinRates, BadOptionsNameTheFlag) {
  const std::string not_a_system =
      thrown_message([&] { systems_of("bad.csv", kCsv, win_rate_options("s9"), pair_labels()); });
  EXPECT_TRUE(contains(not_a_system, "baseline: no system 's9'")) << not_a_system;
  EXPECT_TRUE(contains(not_a_system, "s1, s2, s3")) << not_a_system;
  SystemsOptions missing;
  missing.systems = {"x.A", "x.C"};
  const std::string column = thrown_message<UsageError>([&] { systems_of("col.csv", kCsv, missing, pair_labels()); });
  EXPECT_TRUE(contains(column, "x.C")) << column;
  LoadOptions three;
  three.labels = {"A", "B", "C"};
  const std::string labels = thrown_message([&] { systems_of("labels.csv", kCsv, win_rate_options(), three); });
  EXPECT_TRUE(contains(labels, "systems: pairwise records need the labels A and B")) << labels;
}

TEST(SystemsWinRates, CommandRefusesMissingOrStrayFlags) {
  const std::string path = write_temp("flags.csv", kCsv);
  const CliRun none = run_cli("systems " + path + " --labels A,B");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_TRUE(contains(none.out, "--systems: name the systems' columns")) << none.out;
  const CliRun family = run_cli("systems " + path + " --labels A,B --systems x.A,x.B --family J=openai");
  EXPECT_EQ(family.status, 2) << family.out;
  EXPECT_TRUE(contains(family.out, "--family: families are read for --self only")) << family.out;
  const CliRun entry = run_cli("systems " + path + " --labels A,B --self x.A,x.B --family J");
  EXPECT_EQ(entry.status, 2) << entry.out;
  EXPECT_TRUE(contains(entry.out, "--family: expected NAME=FAMILY entries")) << entry.out;
  const CliRun three = run_cli("systems " + path + " --labels A,B --systems x.A,x.B,x.A");
  EXPECT_EQ(three.status, 2) << three.out;
  EXPECT_TRUE(contains(three.out, "--systems: expected one column")) << three.out;
}

TEST(SystemsWinRates, ASystemThatDiffersWithinAnItemIsBadInput) {
  const std::string csv = "judge,item,order,verdict,x.A,x.B\nJ,i1,0,A,s1,s2\nJ,i1,1,B,s3,s2\nJ,i2,0,A,s1,s2\n";
  const std::string message =
      thrown_message<InputError>([&] { systems_of("mixed.csv", csv, win_rate_options(), pair_labels()); });
  EXPECT_TRUE(contains(message, ":3:")) << message;  // the differing record's line
  EXPECT_TRUE(contains(message, "--systems")) << message;
}

TEST(SystemsWinRates, CommandPrintsTablesAndJson) {
  const std::string path = write_temp("cli.csv", kCsv);
  const CliRun text =
      run_cli("systems " + path + " --systems x.A,x.B --labels A,B --replicates 100 --baseline s3 --quiet");
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_TRUE(contains(text.out, "Win rates")) << text.out;
  EXPECT_TRUE(contains(text.out, "0.7500")) << text.out;
  const CliRun csv = run_cli("systems " + path + " --systems x.A,x.B --labels A,B --replicates 100 --format csv");
  ASSERT_EQ(csv.status, 0) << csv.out;
  EXPECT_TRUE(contains(csv.out, "win_rates,win_rate,J,s1,s2,,3,0.5,")) << csv.out;
  const CliRun json = run_cli("systems " + path + " --systems x.A,x.B --labels A,B --replicates 100 --format json");
  ASSERT_EQ(json.status, 0) << json.out;
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["command"], "systems");
  EXPECT_EQ(doc["systems"], Json::array({"s1", "s2", "s3"}));
  bool found = false;
  for (const Json& r : doc["statistics"])
    if (r["name"] == "win_rate_diff" && r["judge"] == "J" && r["system"] == "s1" && r["opponent"] == "s2") {
      found = true;
      EXPECT_EQ(r["section"], "win_rates");
      EXPECT_DOUBLE_EQ(r["estimate"].get<double>(), 3.0 / 5 - 3.5 / 5);
      EXPECT_TRUE(r.contains("p"));
    }
  EXPECT_TRUE(found) << json.out;
  // Every row says which share of its 100 replicates was left out (docs/statistics.md §2).
  for (const Json& r : doc["statistics"])
    EXPECT_EQ(r["undefined_share"].get<double>(), r["undefined"].get<double>() / 100) << r.dump();
  const CliRun bad = run_cli("systems " + path + " --systems x.A,x.B --labels A,B --baseline nobody");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(contains(bad.out, "--baseline: no system 'nobody'")) << bad.out;
}

}  // namespace
