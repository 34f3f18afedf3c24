// A numeric covariate's association with correctness (docs/statistics.md §8.3, `--assoc`): the
// point-biserial correlation against a direct two-pass Pearson r on 0/1 correctness computed here,
// accuracy per bin against a hand count, and the bootstrap of it deterministic across seeds and
// threads.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Twelve items: subtlety (1–5, some fractional) and whether judge J / K is right on it.
struct Item {
  double subtlety;
  bool j_right, k_right;
};
const std::vector<Item> kItems = {{1, 1, 1}, {1.5, 1, 1}, {2, 1, 0}, {2, 0, 1}, {2.5, 1, 1}, {3, 1, 0},
                                  {3, 0, 1}, {3.5, 0, 0}, {4, 1, 1}, {4, 0, 0}, {4.5, 0, 1}, {5, 0, 0}};

std::string subtlety_file() {
  std::string csv = "judge,item,gold,verdict,cluster,x.subtlety\n";
  for (size_t i = 0; i < kItems.size(); ++i) {
    const std::string item = "i" + std::to_string(i), cluster = "c" + std::to_string(i / 2);
    char number[32];
    std::snprintf(number, sizeof number, "%g", kItems[i].subtlety);
    csv += "J," + item + ",A," + (kItems[i].j_right ? "A" : "B") + "," + cluster + "," + number + "\n";
    csv += "K," + item + ",A," + (kItems[i].k_right ? "A" : "B") + "," + cluster + "," + number + "\n";
  }
  return write_temp("subtlety.csv", csv);
}

/// Pearson's r the textbook way: means first, then Σ(x − x̄)(y − ȳ) / √(Σ(x − x̄)² Σ(y − ȳ)²).
double direct_pearson(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / x.size(), my += y[i] / y.size();
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

MetricsOptions assoc_options() {
  MetricsOptions options;
  options.covariates.assoc = "x.subtlety";
  options.covariates.assoc_bins = "0,3,5";
  options.bootstrap.replicates = 400;
  return options;
}

std::map<std::string, double> points(const ItemMatrix& m, const std::string& judge) {
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  const std::vector<double> point = point_estimates(built.plan);
  std::map<std::string, double> out;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.judge == judge) out[l.name + (l.label ? " " + *l.label : "")] = point[s];
  }
  return out;
}

}  // namespace

TEST(PointBiserial, EqualsPearsonOnZeroOneCorrectness) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  std::vector<double> x, j, k;
  for (const Item& item : kItems) {
    x.push_back(item.subtlety);
    j.push_back(item.j_right);
    k.push_back(item.k_right);
  }
  EXPECT_NEAR(points(m, "J").at("point_biserial"), direct_pearson(x, j), 1e-12);
  EXPECT_NEAR(points(m, "K").at("point_biserial"), direct_pearson(x, k), 1e-12);
  // numpy.corrcoef(x, j)[0, 1] = -0.560112033611204, numpy.corrcoef(x, k)[0, 1] = -0.3550358012483632.
  EXPECT_NEAR(points(m, "J").at("point_biserial"), -0.560112033611204, 1e-12);
  EXPECT_NEAR(points(m, "K").at("point_biserial"), -0.3550358012483632, 1e-12);
}

TEST(PointBiserial, AccuracyPerBinIsAHandCount) {
  const auto j = points(load_item_matrix(subtlety_file()), "J");
  // [0, 3): subtlety 1, 1.5, 2, 2, 2.5 → J right on 4 of 5; [3, 5]: 3, 3, 3.5, 4, 4, 4.5, 5 → 2 of 7.
  EXPECT_DOUBLE_EQ(j.at("assoc_acc [0, 3)"), 4.0 / 5);
  EXPECT_DOUBLE_EQ(j.at("assoc_acc [3, 5]"), 2.0 / 7);
}

TEST(PointBiserial, BootstrapIsDeterministicAcrossRunsAndThreads) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  const MetricsReport one = run_metrics(m, assoc_options(), cpu_target(1));
  const MetricsReport again = run_metrics(m, assoc_options(), cpu_target(1));
  const MetricsReport two = run_metrics(m, assoc_options(), cpu_target(2));
  bool found = false;
  for (size_t s = 0; s < one.statistics.labels.size(); ++s) {
    if (one.statistics.labels[s].name != "point_biserial") continue;
    found = true;
    for (const MetricsReport* other : {&again, &two}) {
      EXPECT_EQ(one.statistics.intervals[s].lo, other->statistics.intervals[s].lo);
      EXPECT_EQ(one.statistics.intervals[s].hi, other->statistics.intervals[s].hi);
      EXPECT_EQ(one.statistics.intervals[s].se, other->statistics.intervals[s].se);
    }
    EXPECT_LT(one.statistics.intervals[s].lo, one.statistics.intervals[s].estimate);
    EXPECT_GT(one.statistics.intervals[s].hi, one.statistics.intervals[s].estimate);
  }
  EXPECT_TRUE(found);
}

TEST(PointBiserial, ConstantCorrectnessIsLeftOutWithANote) {
  const ItemMatrix m = load_item_matrix(
      write_temp("subtlety_all_right.csv", "judge,item,gold,verdict,x.subtlety\nJ,a,A,A,1\nJ,b,A,A,2\nJ,c,A,A,3\n"));
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  for (const StatisticDef& stat : built.plan.statistics) EXPECT_NE(stat.label.name, "point_biserial");
  bool noted = false;
  for (const std::string& note : built.notes) noted |= contains(note, "point_biserial and assoc_rho of J are left out");
  EXPECT_TRUE(noted);
}

TEST(PointBiserial, NonNumericCovariateNamesTheFlag) {
  const ItemMatrix m = load_item_matrix(
      write_temp("subtlety_words.csv", "judge,item,gold,verdict,x.subtlety\nJ,a,A,A,high\nJ,b,A,B,2\n"));
  EXPECT_TRUE(contains(thrown_message([&] { build_metrics_run_plan(m, select_records(m, {}), assoc_options()); }),
                       "--assoc: x.subtlety must be a number, but it has 'high'"));
}
