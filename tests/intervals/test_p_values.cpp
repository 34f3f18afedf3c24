// docs/statistics.md §7.3's p-values on the interval side: the bootstrap p by test inversion
// (hand counts, and run_bootstrap against its own kept replicates) and the Holm and
// Benjamini–Hochberg adjustments against hand arithmetic (R's p.adjust "holm" and "BH").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "../test_plans.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"

using namespace judgestat;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double p_of(const std::vector<double>& values) { return summarize(0.0, values, CiMethod::kPercentile, 0.95).p; }

void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "entry " << i;
    else
      EXPECT_DOUBLE_EQ(got[i], want[i]) << "entry " << i;
  }
}

}  // namespace

TEST(BootstrapP, HandCounts) {
  // n = 11; a = #≤0 = 2 (−0.3, 0); b = #≥0 = 10 (0 and nine positives): p = 2 (2 + 1) / 12 = 0.5.
  EXPECT_DOUBLE_EQ(p_of({-0.3, 0, 0.2, 0.4, 0.5, 0.9, 1.1, 1.2, 1.3, 0.7, 0.8}), 0.5);
  // −0 is 0: a = 1, b = 4, n = 4: 2 · 2 / 5 = 0.8.
  EXPECT_DOUBLE_EQ(p_of({-0.0, 1, 2, 3}), 0.8);
  // All 19 positive: a = 0: 2 · 1 / 20 = 0.1, the smallest p 19 replicates can give.
  EXPECT_DOUBLE_EQ(p_of(std::vector<double>(19, 0.25)), 0.1);
  // a = b = 1, n = 2: 2 · 2 / 3 is capped at 1.
  EXPECT_DOUBLE_EQ(p_of({-1, 1}), 1.0);
  // Nothing defined: no p.
  EXPECT_TRUE(std::isnan(p_of({kNaN, kNaN})));
}

TEST(BootstrapP, RunBootstrapCountsItsOwnReplicates) {
  const testing_support::PairedCase paired = testing_support::paired_case(80, 9);
  BootstrapOptions options;
  options.replicates = 801;
  options.seed = 13;
  options.keep_replicates = true;
  auto backend = make_cpu_backend(2);
  const BootstrapResult result = run_bootstrap(paired.plan, *backend, options);
  const size_t S = result.intervals.size();
  // The same run summarised on the host from chunks (no kept values): the same bits.
  options.keep_replicates = false;
  auto split = make_split_backend([] {
    std::vector<std::unique_ptr<Backend>> parts;
    parts.push_back(make_cpu_backend(1));
    parts.push_back(make_cpu_backend(3));
    return parts;
  }());
  const BootstrapResult again = run_bootstrap(paired.plan, *split, options);
  for (size_t s = 0; s < S; ++s) {
    uint64_t a = 0, b = 0, n = 0;
    for (uint64_t r = 0; r < options.replicates; ++r) {
      const double v = result.replicates[r * S + s];
      if (std::isnan(v)) continue;
      ++n;
      a += v <= 0;
      b += v >= 0;
    }
    const double want = std::min(1.0, 2.0 * (static_cast<double>(std::min(a, b)) + 1.0) / (n + 1.0));
    EXPECT_EQ(result.intervals[s].p, want) << "statistic " << s << ": a " << a << ", b " << b << ", n " << n;
    EXPECT_EQ(again.intervals[s].p, want) << "split backend, statistic " << s;
  }
  // acc of judge 0 is about 0.6 in every replicate: p at its floor 2 / (n + 1).
  EXPECT_DOUBLE_EQ(result.intervals[0].p, 2.0 / 802.0);
}

TEST(PAdjust, HolmAndBhByHand) {
  // p = 0.01, 0.04, 0.03, 0.005 (m = 4), ascending 0.005, 0.01, 0.03, 0.04.
  // Holm: 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, 1·0.04 = 0.04 → running max 0.06.
  // BH: 4/1·0.005 = 0.02, 4/2·0.01 = 0.02, 4/3·0.03 = 0.04, 4/4·0.04 = 0.04; running min from the
  // largest keeps them.
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  expect_values(holm_adjust(p), {0.03, 0.06, 0.06, 0.02});
  expect_values(bh_adjust(p), {0.02, 0.04, 0.04, 0.02});
  // R: p.adjust(c(.01, .02, .03, .04, .05), "holm") = .05 .08 .09 .09 .09 (5·.01, 4·.02, 3·.03,
  // then 2·.04 = .08 and 1·.05 = .05 raised to the running max .09); "BH" = .05 for all (m p / i).
  expect_values(holm_adjust({0.01, 0.02, 0.03, 0.04, 0.05}), {0.05, 0.08, 0.09, 0.09, 0.09});
  expect_values(bh_adjust({0.01, 0.02, 0.03, 0.04, 0.05}), {0.05, 0.05, 0.05, 0.05, 0.05});
}

TEST(PAdjust, NanEntriesStayAndDoNotCount) {
  // m = 3 (the NaN is not a test). Holm: 3·0.01 = 0.03, 2·0.2 = 0.4, 1·0.5 = 0.5.
  // BH: 3/1·0.01 = 0.03, 3/2·0.2 = 0.3, 3/3·0.5 = 0.5.
  const std::vector<double> p{0.5, kNaN, 0.2, 0.01};
  expect_values(holm_adjust(p), {0.5, kNaN, 0.4, 0.03});
  expect_values(bh_adjust(p), {0.5, kNaN, 0.3, 0.03});
  expect_values(holm_adjust({kNaN, kNaN}), {kNaN, kNaN});
  EXPECT_TRUE(holm_adjust({}).empty());
  EXPECT_TRUE(bh_adjust({}).empty());
}

TEST(PAdjust, CapsAtOneAndTiesShareAValue) {
  // Holm: 2·0.6 = 1.2 → 1, then 0.7 raised to 1. BH: 2/2·0.7 = 0.7, 2/1·0.6 = 1.2 → min 0.7.
  expect_values(holm_adjust({0.6, 0.7}), {1.0, 1.0});
  expect_values(bh_adjust({0.6, 0.7}), {0.7, 0.7});
  // Tied 0.02s: Holm 3·0.02 = 0.06 and 2·0.02 = 0.04 → 0.06 both; 0.5. BH 3/2·0.02 = 0.03 and
  // 3/1·0.02 = 0.06 → 0.03 both; 3/3·0.5 = 0.5.
  expect_values(holm_adjust({0.02, 0.5, 0.02}), {0.06, 0.5, 0.06});
  expect_values(bh_adjust({0.02, 0.5, 0.02}), {0.03, 0.5, 0.03});
}

// docs/statistics.md §7.3: p is withheld where the replicates cannot support it.

TEST(WithheldP, UndefinedShareAboveFivePercent) {
  // 20 replicates, 1 undefined (exactly 5%): the 19 defined are all positive, a = 0, so
  // p = 2 · 1 / 20 = 0.1 stands.
  std::vector<double> values(19, 0.25);
  values.push_back(kNaN);
  EXPECT_DOUBLE_EQ(p_of(values), 0.1);
  // 19 replicates, 1 undefined (5.3%): withheld, though the 18 defined would give 2/19.
  values.resize(18);
  values.push_back(kNaN);
  const Interval interval = summarize(0.0, values, CiMethod::kPercentile, 0.95);
  EXPECT_TRUE(std::isnan(interval.p));
  EXPECT_EQ(p_withheld_reason(interval, 19), "more than 5% of replicates undefined");
  // The interval itself stays (the row's `undefined` reports the 1).
  EXPECT_DOUBLE_EQ(interval.lo, 0.25);
  EXPECT_EQ(interval.undefined, 1);
}

TEST(WithheldP, OneClusterGivesNoP) {
  // One cluster of three units: every replicate draws it once, so every replicate is the data's
  // Σa/Σb = (1 + 0 + 1) / 3 and the old rule's p would be its floor 2 / 101.
  Plan plan = testing_support::plan_with_strata({1});
  plan.unit_cluster = {0, 0, 0};
  const int32_t ka = plan.add_column("a"), kb = plan.add_column("b");
  plan.columns[ka] = {1, 0, 1};
  plan.columns[kb] = {1, 1, 1};
  plan.statistics.push_back({{"diff"}, ratio_program(ka, kb)});
  BootstrapOptions options;
  options.replicates = 100;
  auto backend = make_cpu_backend(1);
  for (CiMethod method : {CiMethod::kPercentile, CiMethod::kT}) {
    options.ci = method;
    const BootstrapResult result = run_bootstrap(plan, *backend, options);
    const Interval& interval = result.intervals[0];
    SCOPED_TRACE(to_string(method));
    EXPECT_DOUBLE_EQ(interval.estimate, 2.0 / 3.0);
    EXPECT_EQ(interval.clusters, 1);
    EXPECT_TRUE(std::isnan(interval.p));
    EXPECT_EQ(p_withheld_reason(interval, 100), "one cluster per stratum");
    // percentile: both ends the estimate; t: df = 0, no interval.
    if (method == CiMethod::kPercentile) EXPECT_DOUBLE_EQ(interval.lo, 2.0 / 3.0);
    if (method == CiMethod::kT) EXPECT_TRUE(std::isnan(interval.lo) && std::isnan(interval.hi));
  }
  // Two strata of one cluster each resample nothing either; with a second cluster in one stratum
  // the replicates vary and p stands (a = 0 of 100 defined positive values: 2 / 101).
  Plan two = testing_support::plan_with_strata({1, 1});
  two.unit_cluster = {0, 1};
  const int32_t a2 = two.add_column("a"), b2 = two.add_column("b");
  two.columns[a2] = {1, 1};
  two.columns[b2] = {1, 1};
  two.statistics.push_back({{"diff"}, ratio_program(a2, b2)});
  options.ci = CiMethod::kPercentile;
  EXPECT_TRUE(std::isnan(run_bootstrap(two, *backend, options).intervals[0].p));
  Plan three = testing_support::plan_with_strata({1, 2});
  three.unit_cluster = {0, 1, 2};
  const int32_t a3 = three.add_column("a"), b3 = three.add_column("b");
  three.columns[a3] = {1, 1, 0};
  three.columns[b3] = {1, 1, 1};
  three.statistics.push_back({{"diff"}, ratio_program(a3, b3)});
  const Interval varied = run_bootstrap(three, *backend, options).intervals[0];
  EXPECT_EQ(varied.undefined, 0);
  EXPECT_DOUBLE_EQ(varied.p, 2.0 / 101.0);
}

TEST(WithheldP, NoIntervalUnlessTheMethodDoesNotApply) {
  Interval interval;
  interval.clusters = 30;
  interval.strata = 1;
  interval.lo = interval.hi = kNaN;
  EXPECT_EQ(p_withheld_reason(interval, 1000), "no interval");
  // studentized's null for a statistic it does not apply to says nothing about the replicates.
  interval.note = "studentized applies to ratios and differences of two ratios only";
  EXPECT_EQ(p_withheld_reason(interval, 1000), "");
  // One end is enough to keep p (BCa can lose one end).
  interval.note.clear();
  interval.lo = 0.1;
  EXPECT_EQ(p_withheld_reason(interval, 1000), "");
  // 50 of 1,000 undefined is 5%: kept; 51 is not.
  interval.undefined = 50;
  EXPECT_EQ(p_withheld_reason(interval, 1000), "");
  interval.undefined = 51;
  EXPECT_EQ(p_withheld_reason(interval, 1000), "more than 5% of replicates undefined");
  // Holm skips the withheld p: m = 2 among the other rows, 2 · 0.01 = 0.02.
  std::vector<Interval> rows(3, interval);
  rows[0].undefined = rows[2].undefined = 0;
  rows[0].p = 0.01;
  rows[1].p = 0.001;
  rows[2].p = 0.3;
  withhold_unsupported_p(rows, 1000);
  EXPECT_TRUE(std::isnan(rows[1].p));
  expect_values(holm_adjust({rows[0].p, rows[1].p, rows[2].p}), {0.02, kNaN, 0.3});
}
