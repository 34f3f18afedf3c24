// The one renderer of interval warnings (issue 27, part 4): every kind of IntervalWarning becomes
// the note the reports printed before the policy moved to host/intervals, word for word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "report/report.hpp"

using namespace judgestat;

namespace {

IntervalWarning make(IntervalWarningKind kind, CiMethod method, double threshold, double observed,
                     std::vector<CiMethod> suggested, std::vector<std::string> statistics) {
  IntervalWarning w;
  w.kind = kind;
  w.method = method;
  w.threshold = threshold;
  w.observed = observed;
  w.suggested_methods = std::move(suggested);
  w.statistics = std::move(statistics);
  return w;
}

using K = IntervalWarningKind;

}  // namespace

TEST(IntervalNotes, FewClustersWordForWord) {
  IntervalWarning percentile =
      make(K::kVeryFewClusters, CiMethod::kPercentile, 20, 10, {CiMethod::kStudentized, CiMethod::kT}, {});
  percentile.measured_coverage = 89.3;
  IntervalWarning t = make(K::kFewClusters, CiMethod::kT, 50, 20, {}, {});
  t.measured_coverage = 93.4;
  const std::vector<std::string> notes = interval_notes({
      percentile,
      make(K::kVeryFewClusters, CiMethod::kStudentized, 20, 5, {}, {}),
      make(K::kFewClusters, CiMethod::kBca, 50, 30, {CiMethod::kStudentized, CiMethod::kT}, {}),
      t,
  });
  const std::vector<std::string> want = {
      "WARNING: as few as 10 clusters (< 20): percentile intervals can under-cover badly (measured: 89.3% for a "
      "nominal 95% at 10 clusters in bench/RESULTS.md's simulation); use --ci studentized (ratios and their "
      "differences) or --ci t; check your design with `judgestat coverage`",
      "WARNING: as few as 5 clusters (< 20): even studentized intervals can under-cover here; check with "
      "`judgestat coverage`",
      "warning: as few as 30 clusters (< 50): bca intervals may under-cover; --ci studentized (ratios and their "
      "differences) or --ci t; check your design with `judgestat coverage` hold better",
      "warning: as few as 20 clusters (< 50): t intervals hold near nominal here (measured: 93.4% for a nominal 95% "
      "at 20 clusters in bench/RESULTS.md's simulation)",
  };
  EXPECT_EQ(notes, want);
}

TEST(IntervalNotes, OtherKindsWordForWordAndWithheldPInOneNote) {
  IntervalWarning withheld_undefined = make(K::kPWithheld, CiMethod::kPercentile, 0, 0, {}, {"acc", "pa"});
  withheld_undefined.reason = "more than 5% of replicates undefined";
  IntervalWarning withheld_one = make(K::kPWithheld, CiMethod::kPercentile, 0, 0, {}, {"bc"});
  withheld_one.reason = "one cluster per stratum";
  const std::vector<std::string> notes = interval_notes({
      make(K::kUnequalClusterSizes, CiMethod::kPercentile, 0.5, 0.8, {CiMethod::kStudentized}, {"acc", "pa"}),
      make(K::kCoarseIntervals, CiMethod::kPercentile, 20, 0, {}, {"acc"}),
      make(K::kNoCoverageGuarantee, CiMethod::kPercentile, 0, 0, {}, {"ece"}),
      make(K::kMethodNotApplicable, CiMethod::kStudentized, 0, 0, {CiMethod::kT}, {"ece", "kappa"}),
      withheld_undefined,
      withheld_one,
  });
  const std::vector<std::string> want = {
      "note: unequal cluster sizes (coefficient of variation up to 0.80 >= 0.5) in acc, pa: percentile intervals "
      "of ratios can miss on one side; --ci studentized holds better",
      "note: flagged intervals (acc): 'few values' = the replicates take fewer than 20 distinct values, 'equal "
      "ends' = both endpoints are equal; such an interval understates its uncertainty",
      "note: ece has no coverage guarantee: it is biased upward in small samples and near 0 its bootstrap interval "
      "rarely covers the truth",
      "note: no studentized interval for ece, kappa (it applies to ratios and differences of two ratios only); use "
      "--ci t for these",
      "note: p is left out (—) where the replicates cannot support it: more than 5% of replicates undefined (diff "
      "of acc, pa); one cluster per stratum (diff of bc); Holm and BH adjust over the other differences",
  };
  EXPECT_EQ(notes, want);
  EXPECT_TRUE(interval_notes({}).empty());
}

TEST(IntervalNotes, ResultToNotesThroughTheWarnings) {
  // A diff of acc over one cluster under percentile: the few-clusters warning (no measured figure
  // at 1 cluster) and the withheld p, in that order.
  BootstrapResult result;
  result.ci = CiMethod::kPercentile;
  result.level = 0.95;
  result.replicates_run = 1000;
  StatLabel label;
  label.name = "diff";
  label.of = "acc";
  result.labels = {label};
  Interval interval;
  interval.lo = 0.05;
  interval.hi = 0.15;
  interval.clusters = 1;
  interval.strata = 1;
  interval.distinct = 500;
  result.intervals = {interval};
  const std::vector<std::string> want = {
      "WARNING: as few as 1 clusters (< 20): percentile intervals can under-cover badly; use --ci studentized "
      "(ratios and their differences) or --ci t; check your design with `judgestat coverage`",
      "note: p is left out (—) where the replicates cannot support it: one cluster per stratum (diff of acc); Holm "
      "and BH adjust over the other differences",
  };
  EXPECT_EQ(interval_notes(interval_warnings(result)), want);
}
