// A unit outside the given edges of --assoc-bins or --length-bins is a usage error naming the flag
// and the item, as for --by x.NAME --bins (docs/statistics.md §8.3: never dropped).
#include <gtest/gtest.h>

#include <string>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Four items with subtlety 1, 2, 4.5, 3: the third lies outside edges 0..4.
std::string subtlety_file() {
  return write_temp("outside_bins.csv",
                    "judge,item,gold,verdict,x.subtlety\n"
                    "J,i1,A,A,1\nJ,i2,A,B,2\nJ,i3,A,A,4.5\nJ,i4,A,B,3\n");
}

}  // namespace

TEST(CovariateBinsOutside, AnAssocValueOutsideTheEdgesNamesTheFlagAndTheItem) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  MetricsOptions options;
  options.covariates.assoc = "x.subtlety";
  options.covariates.assoc_bins = "0,2,4";
  const std::string message =
      thrown_message<UsageError>([&] { build_metrics_run_plan(m, select_records(m, {}), options); });
  EXPECT_EQ(message,
            "--assoc-bins: item 'i3' has x.subtlety = 4.5, outside the edges 0 to 4; widen them (inf and -inf are "
            "allowed)");
  // Edges that hold every value: the bins count all four items.
  options.covariates.assoc_bins = "0,2,5";
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  int64_t binned = 0;
  for (const auto& statistic : built.plan.statistics)
    if (statistic.label.name == "assoc_acc") binned += statistic.label.n;
  EXPECT_EQ(binned, 4);
}

TEST(CovariateBinsOutside, ALengthDifferenceOutsideTheEdgesNamesTheFlagAndTheItem) {
  // Gold A; the length difference is gold's length less the other's: i1 +5, i2 −3.
  const std::string path = write_temp("outside_length.csv",
                                      "judge,item,gold,verdict,x.len_a,x.len_b\n"
                                      "J,i1,A,A,10,5\nJ,i2,A,B,4,7\n");
  const CliRun run = run_cli("metrics " + path + " --labels A,B --length x.len_a,x.len_b --length-bins=0,10 --quiet");
  EXPECT_NE(run.status, 0);
  EXPECT_TRUE(contains(run.out,
                       "--length-bins: item 'i2' has a length difference of -3, outside the edges 0 to 10; widen "
                       "them (inf and -inf are allowed)"))
      << run.out;
}
