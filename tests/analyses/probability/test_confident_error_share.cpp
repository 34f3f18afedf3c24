// JEV Table 30's share of errors made at q >= 0.9 counts invalid outputs among all errors
// (docs/statistics.md §3.2): the reliability table's error_share_high_with_invalid, beside the
// valid-only error_share_high.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "judgestat/metrics.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// The audit's 8-record file: two correct and two wrong valid outputs with gold A, two correct
// with gold B, two invalid (no verdict). One error is confident (q = 0.95), one is not (0.6).
const char* kEightRecords =
    "judge,item,gold,verdict,p.A,p.B\n"
    "J,i1,A,A,0.95,0.05\n"
    "J,i2,A,A,0.7,0.3\n"
    "J,i3,A,B,0.05,0.95\n"
    "J,i4,A,B,0.4,0.6\n"
    "J,i5,A,,,\n"
    "J,i6,B,,,\n"
    "J,i7,B,B,0.2,0.8\n"
    "J,i8,B,B,0.1,0.9\n";

}  // namespace

TEST(ConfidentErrorShare, InvalidOutputsJoinTheDenominatorAsInTheJevPaper) {
  const ItemMatrix m = load_item_matrix(write_temp("confident_errors.csv", kEightRecords));
  ASSERT_EQ(m.invalid, 2);
  MetricsOptions options;
  options.bootstrap.replicates = 50;
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  ASSERT_EQ(report.probability.summaries.size(), 1u);
  const ReliabilityTable& t = report.probability.summaries[0].reliability;
  // By hand: valid errors i3, i4; confident errors i3 (q 0.95; i8's 0.9 is correct); invalid i5, i6.
  const double valid_errors = 2, confident_errors = 1, invalid = 2;
  EXPECT_EQ(t.errors, valid_errors);
  EXPECT_EQ(t.errors_high, confident_errors);
  EXPECT_EQ(t.invalid, 2);
  EXPECT_DOUBLE_EQ(t.error_share_high(), confident_errors / valid_errors);                           // 50%
  EXPECT_DOUBLE_EQ(t.error_share_high_with_invalid(), confident_errors / (valid_errors + invalid));  // 25%
  const Json high = to_json(report, ReportHead{})["reliability"][0]["high_confidence"];
  EXPECT_EQ(high["invalid"], 2);
  EXPECT_DOUBLE_EQ(high["error_share_with_invalid"].get<double>(), 0.25);
  EXPECT_TRUE(contains(tables(report, "text"), "25.0 % (2 invalid)"));
}

TEST(ConfidentErrorShare, NoErrorsAtAllIsUndefined) {
  ReliabilityTable t;
  EXPECT_TRUE(std::isnan(t.error_share_high_with_invalid()));
  t.invalid = 3;  // only invalid outputs: none of the errors is a confident one
  EXPECT_EQ(t.error_share_high_with_invalid(), 0.0);
}
