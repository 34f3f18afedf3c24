// `--invalid exclude` (docs/statistics.md §1 "Validity"; CAP App. L Table 20): every invalid
// record, of any repeat, leaves the matrix and is counted per judge.
#include <gtest/gtest.h>

#include <cmath>

#include "records/invalid_policy.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// X: order 1 of a and order 0 of b invalid (a label outside A/B, no verdict), and repeat 1 of
// c's order 0 invalid; Y: every record valid.
const char* kRecords =
    "judge,item,gold,verdict,order,repeat,fee_usd\n"
    "X,a,A,A,0,0,0.1\nX,a,A,C,1,0,0.2\n"
    "X,b,B,,0,0,0.3\nX,b,B,B,1,0,0.4\n"
    "X,c,A,B,0,0,0.5\nX,c,A,,0,1,0.6\n"
    "Y,a,A,A,0,0,0.1\nY,b,B,A,0,0,0.1\nY,c,A,A,0,0,0.1\n";

}  // namespace

TEST(InvalidPolicy, ExcludesEveryInvalidRecordAndCountsThemPerJudge) {
  ItemMatrix m = load_item_matrix(write_temp("invalid_policy.csv", kRecords), LoadOptions{{"A", "B"}});
  ASSERT_EQ(m.invalid, 2);  // the loader counts repeat 0's invalid records (a1, b0), not c's repeat 1
  const size_t a1 = m.cell(0, 0, 1, 0), b0 = m.cell(0, 1, 0, 0), c0 = m.cell(0, 2, 0, 0);
  ASSERT_EQ(m.verdict[a1], kInvalid);
  ASSERT_EQ(m.verdict[b0], kInvalid);
  ASSERT_EQ(m.verdict_at(c0, 1), kInvalid);
  const std::vector<int64_t> excluded = exclude_invalid_records(m);
  EXPECT_EQ(excluded, (std::vector<int64_t>{3, 0}));  // X's three, none of Y's
  EXPECT_EQ(m.invalid, 0);
  EXPECT_TRUE(m.invalid_cells.empty());
  EXPECT_EQ(m.verdict[a1], kAbsent);
  EXPECT_EQ(m.verdict[b0], kAbsent);
  EXPECT_EQ(m.line[b0], 0);
  EXPECT_TRUE(std::isnan(m.fee[b0]));
  EXPECT_EQ(m.verdict_at(c0, 1), kAbsent);
  EXPECT_EQ(m.verdict[c0], 1);  // c's repeat 0 (B, wrong but valid) stays
  EXPECT_EQ(m.fee[c0], 0.5);
  // The valid cells are untouched: X's a order 0 and every one of Y's.
  EXPECT_EQ(m.verdict[m.cell(0, 0, 0, 0)], 0);
  for (int32_t i = 0; i < 3; ++i) EXPECT_TRUE(m.present(m.cell(1, i, 0, 0)));
}

TEST(InvalidPolicy, NothingInvalidNothingExcluded) {
  ItemMatrix m = load_item_matrix(write_temp("all_valid.csv", "judge,item,gold,verdict\nX,a,A,A\nX,b,B,A\n"));
  const std::vector<double> before(m.verdict.begin(), m.verdict.end());
  EXPECT_EQ(exclude_invalid_records(m), (std::vector<int64_t>{0}));
  EXPECT_EQ(std::vector<double>(m.verdict.begin(), m.verdict.end()), before);
}
