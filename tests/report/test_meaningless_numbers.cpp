// Numbers that say when they mean nothing (issue 26, part 6): text tables' number format, the
// few-clusters warning's coverage figures only where measured, withheld p-values and their note,
// a judge whose records are all invalid named above the tables, and diffs of judges that share
// few units.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "judgestat/bootstrap.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/records.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

using testing_support::contains;

// A result of one row with `clusters` clusters in one stratum and a finite interval.
BootstrapResult one_row(const std::string& name, int64_t clusters, CiMethod ci, double level) {
  BootstrapResult result;
  result.ci = ci;
  result.level = level;
  result.replicates_run = 1000;
  StatLabel label;
  label.name = name;
  label.of = "acc";
  result.labels = {label};
  Interval interval;
  interval.estimate = 0.1;
  interval.lo = 0.05;
  interval.hi = 0.15;
  interval.p = 0.01;
  interval.clusters = clusters;
  interval.strata = 1;
  interval.distinct = 500;
  result.intervals = {interval};
  return result;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace

TEST(NumberFormat, FixedBelowAMillionGAbove) {
  EXPECT_EQ(fixed(0.5), "0.5000");
  EXPECT_EQ(fixed(0.0), "0.0000");
  EXPECT_EQ(fixed(-0.25), "-0.2500");
  EXPECT_EQ(fixed(1e-4), "0.0001");
  EXPECT_EQ(fixed(999999.5, 1), "999999.5");
  EXPECT_EQ(fixed(92.44, 1), "92.4");
  EXPECT_EQ(fixed(95.0, 0), "95");
  // Past the range: %g with `digits` significant digits.
  EXPECT_EQ(fixed(1e103), "1e+103");
  EXPECT_EQ(fixed(-1e103), "-1e+103");
  EXPECT_EQ(fixed(1234567.0), "1.235e+06");
  // Below the range stays fixed: rounding noise (an SE of 7e-16) is not shown as news.
  EXPECT_EQ(fixed(3.14159e-7), "0.0000");
  EXPECT_EQ(fixed(7.2e-16, 6), "0.000000");
  EXPECT_EQ(fixed(2e7, 0), "2e+07");
  EXPECT_EQ(fixed(kNaN), "—");
  EXPECT_EQ(fixed(std::numeric_limits<double>::infinity()), "—");
  Interval interval;
  interval.estimate = 1e103;
  interval.lo = 5e102;
  interval.hi = 2e103;
  EXPECT_EQ(estimate_cell(interval), "1e+103 (5e+102, 2e+103)");
}

TEST(NumberFormat, TextTableOfAHugeValueStaysNarrow) {
  Table table;
  table.header = {"judge", "estimate"};
  table.rows = {{"A", fixed(1e103)}, {"B", fixed(0.75)}};
  const std::string text = table.render("text");
  EXPECT_EQ(text,
            "judge  estimate\n"
            "---------------\n"
            "A        1e+103\n"
            "B        0.7500\n");
}

TEST(FewClustersWarning, CoverageFigureOnlyWhereMeasured) {
  // bench/RESULTS.md measured percentile at 10 clusters: 89.3%; basic 87.6%; t 94.7%; at 20
  // clusters percentile 91.8%.
  EXPECT_EQ(measured_coverage(CiMethod::kPercentile, 10, 0.95), 89.3);
  EXPECT_EQ(measured_coverage(CiMethod::kBasic, 10, 0.95), 87.6);
  EXPECT_EQ(measured_coverage(CiMethod::kT, 10, 0.95), 94.7);
  EXPECT_EQ(measured_coverage(CiMethod::kPercentile, 20, 0.95), 91.8);
  EXPECT_FALSE(measured_coverage(CiMethod::kPercentile, 12, 0.95));
  EXPECT_FALSE(measured_coverage(CiMethod::kPercentile, 10, 0.9));

  const std::string at10 = joined(interval_notes(interval_warnings(one_row("acc", 10, CiMethod::kPercentile, 0.95))));
  EXPECT_TRUE(contains(at10,
                       "WARNING: as few as 10 clusters (< 20): percentile intervals can under-cover badly (measured: "
                       "89.3% for a nominal 95% at 10 clusters in bench/RESULTS.md's simulation); use --ci "
                       "studentized"))
      << at10;
  EXPECT_FALSE(contains(at10, "87-89"));
  // 12 clusters, or level 0.9: a plain warning, no figure.
  for (const auto& result :
       {one_row("acc", 12, CiMethod::kPercentile, 0.95), one_row("acc", 10, CiMethod::kPercentile, 0.9)}) {
    const std::string text = joined(interval_notes(interval_warnings(result)));
    EXPECT_TRUE(contains(text, "percentile intervals can under-cover badly; use --ci studentized")) << text;
    EXPECT_FALSE(contains(text, "%")) << text;
  }
  const std::string t20 = joined(interval_notes(interval_warnings(one_row("acc", 20, CiMethod::kT, 0.95))));
  EXPECT_TRUE(contains(t20,
                       "warning: as few as 20 clusters (< 50): t intervals hold near nominal here (measured: 93.4% "
                       "for a nominal 95% at 20 clusters in bench/RESULTS.md's simulation)"))
      << t20;
}

TEST(WithheldPNote, NamesTheDiffsAndWhy) {
  BootstrapResult result = one_row("diff", 1, CiMethod::kPercentile, 0.95);
  const std::string text = joined(interval_notes(interval_warnings(result)));
  EXPECT_TRUE(contains(text,
                       "note: p is left out (—) where the replicates cannot support it: one cluster per stratum "
                       "(diff of acc); Holm and BH adjust over the other differences"))
      << text;
  // Not a diff row (p is not shown): no note.
  result.labels[0].name = "acc";
  EXPECT_FALSE(contains(joined(interval_notes(interval_warnings(result))), "p is left out"));
  // A diff row with 60 of 1,000 replicates undefined.
  result = one_row("diff", 80, CiMethod::kPercentile, 0.95);
  result.intervals[0].undefined = 60;
  EXPECT_TRUE(contains(joined(interval_notes(interval_warnings(result))),
                       "more than 5% of replicates undefined (diff of acc)"));
}

namespace {

// 30 items in 30 clusters, gold alternating A/B. R and Y rate all of them; X rates only the
// first; P rates all with its probabilities written as percentages (70 / 30).
std::string four_judges_csv() {
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 30; ++i) {
    const std::string item = "i" + std::to_string(i), cluster = "c" + std::to_string(i);
    const std::string gold = i % 2 ? "B" : "A", other = i % 2 ? "A" : "B";
    csv << "R," << item << "," << cluster << "," << gold << "," << (i % 3 ? gold : other) << ",,\n";
    csv << "Y," << item << "," << cluster << "," << gold << "," << (i % 4 ? gold : other) << ",,\n";
    if (i == 0) csv << "X," << item << "," << cluster << "," << gold << "," << gold << ",,\n";
    csv << "P," << item << "," << cluster << "," << gold << ",A,70,30\n";
  }
  return csv.str();
}

size_t diff_row(const MetricsReport& report, const std::string& judge) {
  for (size_t s = 0; s < report.statistics.labels.size(); ++s) {
    const StatLabel& l = report.statistics.labels[s];
    if (l.name == "diff" && l.judge == judge && l.of == std::string("acc") && l.order == 0) return s;
  }
  ADD_FAILURE() << "no diff of acc for " << judge;
  return 0;
}

}  // namespace

TEST(MeaninglessNumbers, MetricsRunNamesThemAll) {
  const ItemMatrix m = load_item_matrix(write_temp("four_judges.csv", four_judges_csv()));
  MetricsOptions options;
  options.diff = {"acc"};
  options.reference = "R";
  options.bootstrap.replicates = 1000;
  const MetricsReport report = run_metrics(m, options, cpu_target(2));

  // X's acc is undefined wherever cluster c0 is not drawn (about (29/30)^30 = 36% of
  // replicates): its diff keeps its interval but not its p, and Holm counts the other two.
  const size_t x = diff_row(report, "X"), y = diff_row(report, "Y"), p = diff_row(report, "P");
  const Interval& xi = report.statistics.intervals[x];
  EXPECT_GT(xi.undefined, 300);
  EXPECT_LT(xi.undefined, 420);
  EXPECT_TRUE(std::isnan(xi.p));
  EXPECT_TRUE(std::isnan(report.p_holm[x]));
  EXPECT_TRUE(std::isnan(report.p_bh[x]));
  const double py = report.statistics.intervals[y].p, pp = report.statistics.intervals[p].p;
  ASSERT_TRUE(std::isfinite(py) && std::isfinite(pp));
  EXPECT_EQ(report.p_holm[y], holm_adjust({py, pp})[0]);
  EXPECT_EQ(report.p_holm[p], holm_adjust({py, pp})[1]);
  // P answers A on every item and is always invalid: accuracy 0, so all 1,000 P − R replicates
  // are negative and p is its floor 2 / 1001.
  EXPECT_EQ(pp, 2.0 / 1001.0);

  const std::string text = tables(report, "text");
  const std::string warning =
      "WARNING: every record of judge P is invalid (30 of 30), most often a probability outside [0, 1] (e.g. 70): "
      "probabilities written as percentages?; its accuracy-type statistics count each as an error and it has no "
      "probability metrics\n";
  EXPECT_EQ(text.substr(0, warning.size()), warning) << text;
  EXPECT_TRUE(contains(text,
                       "note: diff of acc between X and R compares mostly different items: they share 1 of "
                       "X's 1 and R's 30 units (1 clusters), under half of either's"))
      << text;
  EXPECT_FALSE(contains(text, "between Y and R")) << text;
  EXPECT_TRUE(contains(text,
                       "note: p is left out (—) where the replicates cannot support it: more than 5% of "
                       "replicates undefined (diff of acc)"))
      << text;
  EXPECT_FALSE(contains(text, "87-89")) << text;

  ReportHead head;
  const Json json = to_json(report, head);
  EXPECT_EQ(json["notes"][0].get<std::string>(), warning.substr(9, warning.size() - 10));
  bool x_row = false;
  for (const Json& row : json["statistics"])
    if (row["name"] == "diff" && row["judge"] == "X" && row["order"] == 0) {
      x_row = true;
      EXPECT_TRUE(row["p"].is_null());
      EXPECT_TRUE(row["p_holm"].is_null());
      EXPECT_FALSE(row["ci"][0].is_null());
    }
  EXPECT_TRUE(x_row);
}
