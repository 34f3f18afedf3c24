// Table::render("csv") for pandas (issue 31, part 2): intervals, percentages and dashes become
// numeric columns; csv_long puts several tables under one header with a `table` column.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

TEST(ReportCsv, IntervalCellsBecomeEstimateLoHi) {
  Table table;
  table.header = {"judge", "acc (95% CI)"};
  table.rows = {{"A", "0.7086 (0.6600, 0.7571)"}, {"B", "92.4 (88,96)"}, {"C", "—"}, {"D", "0.5000"}};
  EXPECT_EQ(table.render("csv"),
            "judge,acc,acc_lo,acc_hi\n"
            "A,0.7086,0.6600,0.7571\n"
            "B,92.4,88,96\n"
            "C,,,\n"
            "D,0.5000,,\n");
}

TEST(ReportCsv, EstimateCellMatchesItsInterval) {
  // The writers' own cell, split back: the three numbers are the interval's, at 4 digits.
  const Interval interval{0.123456, 0.05, 0.25, 0.02, 0};
  Table table{{"pa"}, {{estimate_cell(interval)}}, {}};
  const Table ready = csv_ready(table);
  ASSERT_EQ(ready.header, (std::vector<std::string>{"pa", "pa_lo", "pa_hi"}));
  EXPECT_DOUBLE_EQ(std::stod(ready.rows[0][0]), std::round(interval.estimate * 1e4) / 1e4);
  EXPECT_DOUBLE_EQ(std::stod(ready.rows[0][1]), interval.lo);
  EXPECT_DOUBLE_EQ(std::stod(ready.rows[0][2]), interval.hi);
}

TEST(ReportCsv, FlagsAfterAnIntervalGetTheirOwnColumn) {
  Table table{{"kappa"}, {{"0.9500 (0.9500, 0.9500) equal ends"}, {"0.4000 (0.3000, 0.5000)"}}, {}};
  EXPECT_EQ(table.render("csv"),
            "kappa,kappa_lo,kappa_hi,kappa_flag\n0.9500,0.9500,0.9500,equal ends\n0.4000,0.3000,0.5000,\n");
}

TEST(ReportCsv, PercentCellsBecomeNumbersInAPctColumn) {
  Table table{{"k", "fail rate"}, {{"48", "78.25 %"}, {"96", "3%"}, {"192", "–"}}, {}};
  EXPECT_EQ(table.render("csv"), "k,fail_rate_pct\n48,78.25\n96,3\n192,\n");
}

TEST(ReportCsv, BoundsOnlyColumnAndNegativeNumbers) {
  Table table{{"delta", "95% CI"}, {{"-0.0439", "(-0.0993, 0.0066)"}, {"1e+103", "(—, —)"}}, {}};
  EXPECT_EQ(table.render("csv"), "delta,ci_lo,ci_hi\n-0.0439,-0.0993,0.0066\n1e+103,,\n");
}

TEST(ReportCsv, TextColumnsStayAsTheyAre) {
  // A judge name with parentheses and a comma is not an interval; CSV quotes it.
  Table table{{"judge", "note"}, {{"gpt (a, b)", "few clusters (12)"}, {"x", "-"}}, {}};
  EXPECT_EQ(table.render("csv"), "judge,note\n\"gpt (a, b)\",few clusters (12)\nx,\n");
}

TEST(ReportCsv, LongTableHasOneHeaderAndATableColumn) {
  Table sweep{{"threshold", "acc"}, {{"0.5", "0.8 (0.7, 0.9)"}}, {}};
  Table rules{{"rule", "threshold", "fee"}, {{"max", "0.6", "12.5 %"}}, {}};
  EXPECT_EQ(csv_long({{"sweep", sweep}, {"rules", rules}}),
            "table,threshold,acc,acc_lo,acc_hi,rule,fee_pct\n"
            "sweep,0.5,0.8,0.7,0.9,,\n"
            "rules,0.6,,,,max,12.5\n");
}

}  // namespace
}  // namespace judgestat
