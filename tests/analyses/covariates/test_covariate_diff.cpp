// `--diff` on the covariate statistics (docs/statistics.md §8.3, §7.3) on the bundled example
// data/examples/length_bias.csv: each diff's estimate is the difference of the two judges'
// estimates, each kept replicate the difference of their replicates (the rows share replicates),
// and the diffs join the run's Holm family like every other diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::vector<std::string> kCovariateStatistics = {
    "longer_rate",     "gold_longer_rate", "longer_rate_gold_shorter", "acc_gold_longer", "acc_gold_shorter",
    "length_acc_diff", "length_acc",       "point_biserial",           "assoc_rho",       "assoc_acc"};

MetricsOptions diff_options() {
  MetricsOptions options;
  options.covariates.length = "x.len_a,x.len_b";
  options.covariates.length_bins = "-inf,0,1,inf";
  options.covariates.assoc = "x.subtlety";
  options.covariates.assoc_bins = "1,3,5";
  options.diff = kCovariateStatistics;
  options.reference = "fair";
  options.bootstrap.replicates = 200;
  options.bootstrap.keep_replicates = true;
  return options;
}

// The row of statistic `name` of `judge` with the same bin label as `like` (no group).
std::optional<size_t> row_of(const BootstrapResult& result, const std::string& name, const std::string& judge,
                             const std::optional<std::string>& label) {
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    if (l.name == name && l.judge == judge && l.label == label && !l.benchmark && !l.condition) return s;
  }
  return std::nullopt;
}

}  // namespace

TEST(CovariateDiff, EstimatesAndReplicatesAreDifferencesOfTheJudges) {
  const ItemMatrix m = load_item_matrix(kRoot + "/data/examples/length_bias.csv", LoadOptions{{"A", "B"}});
  const MetricsReport report = run_metrics(m, diff_options(), cpu_target(2));
  const BootstrapResult& result = report.statistics;
  const size_t S = result.labels.size();
  std::set<std::string> differenced;
  for (size_t d = 0; d < S; ++d) {
    const StatLabel& l = result.labels[d];
    if (l.name != "diff" || !l.of ||
        std::find(kCovariateStatistics.begin(), kCovariateStatistics.end(), *l.of) == kCovariateStatistics.end())
      continue;
    SCOPED_TRACE(l.judge + " " + *l.of + " " + l.label.value_or(""));
    EXPECT_EQ(*l.reference, "fair");
    const auto mine = row_of(result, *l.of, l.judge, l.label), theirs = row_of(result, *l.of, "fair", l.label);
    ASSERT_TRUE(mine && theirs);
    EXPECT_EQ(result.intervals[d].estimate, result.intervals[*mine].estimate - result.intervals[*theirs].estimate);
    for (size_t b = 0; b < 200; ++b) {
      const double* rep = result.replicates.data() + b * S;
      if (std::isnan(rep[*mine]) || std::isnan(rep[*theirs]))
        EXPECT_TRUE(std::isnan(rep[d]));
      else
        EXPECT_EQ(rep[d], rep[*mine] - rep[*theirs]);
    }
    // Holm over the run's diffs: never below the row's own p.
    EXPECT_TRUE(std::isfinite(report.p_holm[d]));
    EXPECT_GE(report.p_holm[d], result.intervals[d].p);
    differenced.insert(*l.of);
  }
  EXPECT_EQ(differenced, std::set<std::string>(kCovariateStatistics.begin(), kCovariateStatistics.end()));
}

TEST(CovariateDiff, LongerRateDifferenceIsAHandCount) {
  // data/examples/make_length_bias.py: verbose picks the longer answer on all 48 length-mismatched
  // pairs; fair is right except on items i % 7 == 3, so it picks the longer one where gold is
  // longer (gold's ratio 0.5 or 0.8: the other answer shorter) and is right, or where gold is
  // shorter and it errs. Recounted here from the generator's rules.
  int mismatched = 0, fair_longer = 0;
  for (int i = 0; i < 60; ++i) {
    const double ratio = std::vector<double>{0.5, 0.8, 1.0, 1.3, 2.2}[i % 5];
    if (ratio == 1.0) continue;
    ++mismatched;
    const bool gold_longer = ratio < 1.0, fair_right = i % 7 != 3;
    fair_longer += gold_longer == fair_right;
  }
  const ItemMatrix m = load_item_matrix(kRoot + "/data/examples/length_bias.csv", LoadOptions{{"A", "B"}});
  MetricsOptions options = diff_options();
  options.judges = {"fair", "verbose"};
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  const BootstrapResult& result = report.statistics;
  bool found = false;
  for (size_t s = 0; s < result.labels.size(); ++s)
    if (result.labels[s].name == "diff" && result.labels[s].of == std::optional<std::string>("longer_rate")) {
      EXPECT_DOUBLE_EQ(result.intervals[s].estimate, 1.0 - double(fair_longer) / mismatched);
      found = true;
    }
  EXPECT_TRUE(found);
}
