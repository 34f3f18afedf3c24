// The interval policy as data (issue 27, part 4): interval_warnings' kinds, thresholds, suggested
// methods and measured coverage for few clusters, one cluster, unequal cluster sizes, coarse
// intervals, ece, statistics a method does not apply to and withheld p-values; and the one check
// of bootstrap options (validate_bootstrap_options, which run_bootstrap uses).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "test_plans.hpp"

using namespace judgestat;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// One row per (name, clusters): a finite interval over `clusters` clusters in one stratum, 500
// distinct replicate values, p 0.01, `of` = "acc", in a run of 1,000 replicates.
BootstrapResult rows(const std::vector<std::pair<std::string, int64_t>>& named_clusters, CiMethod ci,
                     double level = 0.95) {
  BootstrapResult result;
  result.ci = ci;
  result.level = level;
  result.replicates_run = 1000;
  for (const auto& [name, clusters] : named_clusters) {
    StatLabel label;
    label.name = name;
    label.of = "acc";
    result.labels.push_back(label);
    Interval interval;
    interval.estimate = 0.1;
    interval.lo = 0.05;
    interval.hi = 0.15;
    interval.p = 0.01;
    interval.clusters = clusters;
    interval.strata = 1;
    interval.distinct = 500;
    result.intervals.push_back(interval);
  }
  return result;
}

std::vector<IntervalWarningKind> kinds(const std::vector<IntervalWarning>& warnings) {
  std::vector<IntervalWarningKind> out;
  for (const IntervalWarning& w : warnings) out.push_back(w.kind);
  return out;
}

using Kinds = std::vector<IntervalWarningKind>;
using Methods = std::vector<CiMethod>;
using Names = std::vector<std::string>;

}  // namespace

TEST(IntervalWarnings, VeryFewClustersSuggestTheMethodsBuiltForThem) {
  // Percentile at 10 clusters: under kStronglyFewClusters = 20; bench/RESULTS.md measured 89.3%.
  const std::vector<IntervalWarning> w = interval_warnings(rows({{"acc", 10}}, CiMethod::kPercentile));
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kVeryFewClusters});
  EXPECT_EQ(w[0].method, CiMethod::kPercentile);
  EXPECT_EQ(w[0].threshold, 20);
  EXPECT_EQ(w[0].observed, 10);
  EXPECT_EQ(w[0].suggested_methods, (Methods{CiMethod::kStudentized, CiMethod::kT}));
  ASSERT_TRUE(w[0].measured_coverage);
  EXPECT_EQ(*w[0].measured_coverage, 89.3);
  EXPECT_TRUE(w[0].statistics.empty());
  // 12 clusters or level 0.9 were not measured: the same warning, no figure.
  for (const BootstrapResult& result :
       {rows({{"acc", 12}}, CiMethod::kPercentile), rows({{"acc", 10}}, CiMethod::kPercentile, 0.9)}) {
    const std::vector<IntervalWarning> plain = interval_warnings(result);
    ASSERT_EQ(kinds(plain), Kinds{IntervalWarningKind::kVeryFewClusters});
    EXPECT_FALSE(plain[0].measured_coverage);
  }
  // Studentized is built for few clusters: still warned (it can under-cover too), nothing suggested.
  const std::vector<IntervalWarning> s = interval_warnings(rows({{"acc", 10}}, CiMethod::kStudentized));
  ASSERT_EQ(kinds(s), Kinds{IntervalWarningKind::kVeryFewClusters});
  EXPECT_TRUE(s[0].suggested_methods.empty());
  EXPECT_EQ(*s[0].measured_coverage, 94.1);
}

TEST(IntervalWarnings, FewClustersCountTheFewestOfAnyRow) {
  // Rows over 60, 30 and an unknown (0) number of clusters: the fewest known is 30, < 50.
  const std::vector<IntervalWarning> w = interval_warnings(rows({{"acc", 60}, {"pa", 30}, {"bc", 0}}, CiMethod::kBca));
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kFewClusters});
  EXPECT_EQ(w[0].threshold, 50);
  EXPECT_EQ(w[0].observed, 30);
  EXPECT_EQ(w[0].suggested_methods, (Methods{CiMethod::kStudentized, CiMethod::kT}));
  EXPECT_FALSE(w[0].measured_coverage);
  // t at 20 clusters: not under 20, under 50; t holds (nothing suggested), measured 93.4%.
  const std::vector<IntervalWarning> t = interval_warnings(rows({{"acc", 20}}, CiMethod::kT));
  ASSERT_EQ(kinds(t), Kinds{IntervalWarningKind::kFewClusters});
  EXPECT_TRUE(t[0].suggested_methods.empty());
  EXPECT_EQ(*t[0].measured_coverage, 93.4);
  // 50 clusters, or none known: no warning.
  EXPECT_TRUE(interval_warnings(rows({{"acc", 50}}, CiMethod::kPercentile)).empty());
  EXPECT_TRUE(interval_warnings(rows({{"acc", 0}}, CiMethod::kPercentile)).empty());
}

TEST(IntervalWarnings, OneClusterWarnsAndWithholdsTheDiffsP) {
  // A diff over one cluster: every replicate repeats the data, so its p is withheld.
  const std::vector<IntervalWarning> w = interval_warnings(rows({{"diff", 1}}, CiMethod::kPercentile));
  ASSERT_EQ(kinds(w), (Kinds{IntervalWarningKind::kVeryFewClusters, IntervalWarningKind::kPWithheld}));
  EXPECT_EQ(w[0].observed, 1);
  EXPECT_FALSE(w[0].measured_coverage);
  EXPECT_EQ(w[1].reason, "one cluster per stratum");
  EXPECT_EQ(w[1].statistics, Names{"acc"});  // the statistic the diff differences
  EXPECT_TRUE(w[1].suggested_methods.empty());
}

TEST(IntervalWarnings, WithheldPGroupsDiffsByReason) {
  // Diffs of acc and pa with 60 of 1,000 replicates undefined (> 5%), one of bc over 1 cluster,
  // and a second acc diff: one warning per reason, statistics once each, in row order.
  BootstrapResult result = rows({{"diff", 80}, {"diff", 80}, {"diff", 1}, {"diff", 80}}, CiMethod::kPercentile);
  result.labels[1].of = "pa";
  result.labels[2].of = "bc";
  for (size_t s : {0, 1, 3}) result.intervals[s].undefined = 60;
  std::vector<IntervalWarning> withheld;
  for (const IntervalWarning& w : interval_warnings(result))
    if (w.kind == IntervalWarningKind::kPWithheld) withheld.push_back(w);
  ASSERT_EQ(withheld.size(), 2u);
  EXPECT_EQ(withheld[0].reason, p_withheld_reason(result.intervals[0], 1000));
  EXPECT_EQ(withheld[0].statistics, (Names{"acc", "pa"}));
  EXPECT_EQ(withheld[1].reason, "one cluster per stratum");
  EXPECT_EQ(withheld[1].statistics, Names{"bc"});
  // 50 undefined (exactly 5%) withholds nothing; a row that is not a diff is never listed.
  result = rows({{"diff", 80}, {"acc", 1}}, CiMethod::kPercentile);
  result.intervals[0].undefined = 50;
  EXPECT_EQ(kinds(interval_warnings(result)), Kinds{IntervalWarningKind::kVeryFewClusters});
}

TEST(IntervalWarnings, UnequalClusterSizesFromACvOfHalf) {
  BootstrapResult result = rows({{"acc", 80}, {"pa", 80}, {"bc", 80}, {"acc", 80}}, CiMethod::kPercentile);
  result.intervals[0].size_cv = 0.5;  // reaches kUnequalSizesCv
  result.intervals[1].size_cv = 0.49;
  result.intervals[2].size_cv = kNaN;  // not a ratio
  result.intervals[3].size_cv = 0.8;
  const std::vector<IntervalWarning> w = interval_warnings(result);
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kUnequalClusterSizes});
  EXPECT_EQ(w[0].threshold, 0.5);
  EXPECT_EQ(w[0].observed, 0.8);
  EXPECT_EQ(w[0].statistics, Names{"acc"});
  EXPECT_EQ(w[0].suggested_methods, Methods{CiMethod::kStudentized});
  result.intervals[0].size_cv = result.intervals[3].size_cv = 0.49;
  EXPECT_TRUE(interval_warnings(result).empty());
}

TEST(IntervalWarnings, CoarseIntervalsUnlessTheMethodIgnoresTheReplicates) {
  BootstrapResult result = rows({{"acc", 80}, {"pa", 80}, {"bc", 80}}, CiMethod::kPercentile);
  result.intervals[0].distinct = 19;  // under kFewDistinct = 20
  result.intervals[1].distinct = 20;
  result.intervals[2].lo = result.intervals[2].hi = 0.1;  // equal ends
  std::vector<IntervalWarning> w = interval_warnings(result);
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kCoarseIntervals});
  EXPECT_EQ(w[0].threshold, 20);
  EXPECT_EQ(w[0].statistics, (Names{"acc", "bc"}));
  EXPECT_TRUE(few_distinct_values(result.intervals[0], CiMethod::kBca));
  EXPECT_FALSE(few_distinct_values(result.intervals[1], CiMethod::kBca));
  // t reads no replicates: few values do not matter, equal ends still do.
  result.ci = CiMethod::kT;
  EXPECT_FALSE(few_distinct_values(result.intervals[0], CiMethod::kT));
  w = interval_warnings(result);
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kCoarseIntervals});
  EXPECT_EQ(w[0].statistics, Names{"bc"});
}

TEST(IntervalWarnings, EceAndStatisticsTheMethodDoesNotApplyToInKindOrder) {
  BootstrapResult result = rows({{"ece", 80}, {"acc", 80}, {"ece", 80}}, CiMethod::kStudentized);
  result.intervals[0].note = result.intervals[2].note = "not a ratio";
  result.intervals[0].lo = result.intervals[0].hi = result.intervals[2].lo = result.intervals[2].hi = kNaN;
  result.intervals[1].distinct = 3;
  result.intervals[1].clusters = 30;
  const std::vector<IntervalWarning> w = interval_warnings(result);
  ASSERT_EQ(kinds(w), (Kinds{IntervalWarningKind::kFewClusters, IntervalWarningKind::kCoarseIntervals,
                             IntervalWarningKind::kNoCoverageGuarantee, IntervalWarningKind::kMethodNotApplicable}));
  EXPECT_EQ(w[1].statistics, Names{"acc"});
  EXPECT_EQ(w[2].statistics, Names{"ece"});
  EXPECT_EQ(w[3].statistics, Names{"ece"});
  EXPECT_EQ(w[3].method, CiMethod::kStudentized);
  EXPECT_EQ(w[3].suggested_methods, Methods{CiMethod::kT});
}

TEST(BootstrapOptionsCheck, OneValidatorWithTheLibrarysMessages) {
  auto message = [](uint64_t replicates, double level) -> std::string {
    BootstrapOptions options;
    options.replicates = replicates;
    options.level = level;
    try {
      validate_bootstrap_options(options);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(2, 0.95), "");
  EXPECT_EQ(message(kMaxReplicates, 1e-9), "");
  EXPECT_EQ(kMaxReplicates, 4294967296ull);
  EXPECT_EQ(message(1, 0.95), "replicates: need at least 2");
  EXPECT_EQ(message(0, 0.95), "replicates: need at least 2");
  EXPECT_EQ(message(kMaxReplicates + 1, 0.95),
            "replicates: at most 2^32 (replicate numbers are 32-bit in docs/statistics.md §2)");
  for (double level : {0.0, 1.0, -0.5, 95.0, kNaN}) EXPECT_EQ(message(1000, level), "level: expected 0 < level < 1");
  // Both wrong: replicates are named first.
  EXPECT_EQ(message(1, 2.0), "replicates: need at least 2");
}

TEST(BootstrapOptionsCheck, RunBootstrapChecksFirstAndKeepsTheSeed) {
  auto backend = make_cpu_backend(1);
  BootstrapOptions options;
  options.replicates = 1;
  EXPECT_THROW(
      {
        try {
          run_bootstrap(testing_support::two_strata_plan(), *backend, options);
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "replicates: need at least 2");
          throw;
        }
      },
      std::invalid_argument);
  options.replicates = 64;
  options.seed = 17;
  options.ci = CiMethod::kBasic;
  options.level = 0.9;
  const BootstrapResult result = run_bootstrap(testing_support::two_strata_plan(), *backend, options);
  // The result carries the run's settings, so a report needs no second copy of them.
  EXPECT_EQ(result.seed, 17u);
  EXPECT_EQ(result.replicates_run, 64u);
  EXPECT_EQ(result.ci, CiMethod::kBasic);
  EXPECT_EQ(result.level, 0.9);
}

TEST(IntervalWarnings, ManyUndefinedAboveFivePercentOfTheReplicates) {
  // 51 and 120 of 1,000 undefined pass 5%; 50 (exactly 5%) does not; any row, diff or not.
  BootstrapResult result = rows({{"acc", 80}, {"pa", 80}, {"bc", 80}, {"acc", 80}}, CiMethod::kStudentized);
  result.intervals[0].undefined = 51;
  result.intervals[1].undefined = 50;
  result.intervals[2].undefined = 120;
  result.intervals[3].undefined = 60;
  const std::vector<IntervalWarning> w = interval_warnings(result);
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kManyUndefined});
  EXPECT_EQ(w[0].statistics, (Names{"acc", "bc"}));
  EXPECT_DOUBLE_EQ(w[0].observed, 0.12);
  EXPECT_DOUBLE_EQ(w[0].threshold, 0.05);
  EXPECT_EQ(w[0].method, CiMethod::kStudentized);
  result.intervals[0].undefined = result.intervals[2].undefined = result.intervals[3].undefined = 50;
  EXPECT_TRUE(interval_warnings(result).empty());
}

TEST(IntervalWarnings, ClippedRowsNamed) {
  BootstrapResult result = rows({{"acc", 80}, {"kappa", 80}}, CiMethod::kT);
  result.intervals[1].clipped = true;
  const std::vector<IntervalWarning> w = interval_warnings(result);
  ASSERT_EQ(kinds(w), Kinds{IntervalWarningKind::kClippedToRange});
  EXPECT_EQ(w[0].statistics, Names{"kappa"});
}
