// Every statistic docs/statistics.md §7 added to `metrics` (classification, agreement, position,
// cost, oracle accuracy, differences of probability statistics, the adjudicated difference) is
// a plan statistic: the CUDA backend must give the CPU's replicate values bit for bit, and the
// same p, sign-flip p and intervals. Skipped without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "metrics_study_fixture.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

Plan study_plan() {
  MetricsOptions options;
  options.all_pairs = true;
  options.diff = {"acc", "pa", "bc", "brier", "auroc_err", "macro_f1", "kappa", "position_rate", "fee_per_1k"};
  options.raters = {"J1", "J2", "J3"};
  return metrics_study_plan("study.csv", "condition", options);  // clusters span conditions: domain estimation
}

}  // namespace

TEST(MetricsStudyCuda, NewStatisticsMatchTheCpuBitForBit) {
  REQUIRE_CUDA();
  const Plan plan = study_plan();
  ASSERT_FALSE(plan.sign_flip_tests.empty());
  BootstrapOptions options;
  options.replicates = 3000;
  options.seed = 20261201;
  options.keep_replicates = true;
  auto cpu = make_cpu_backend(2);
  auto gpu = make_cuda_backend(0, 0);
  const BootstrapResult a = run_bootstrap(plan, *cpu, options);
  const BootstrapResult b = run_bootstrap(plan, *gpu, options);
  ASSERT_EQ(a.replicates.size(), b.replicates.size());
  size_t differing = 0;
  for (size_t k = 0; k < a.replicates.size(); ++k) differing += !same_bits_or_nan(a.replicates[k], b.replicates[k]);
  EXPECT_EQ(differing, 0u);
  for (size_t s = 0; s < a.intervals.size(); ++s) {
    SCOPED_TRACE(a.labels[s].name + " " + a.labels[s].judge);
    const Interval &x = a.intervals[s], &y = b.intervals[s];
    for (auto [u, v] : {std::pair{x.estimate, y.estimate},
                        {x.lo, y.lo},
                        {x.hi, y.hi},
                        {x.se, y.se},
                        {x.p, y.p},
                        {x.perm_p, y.perm_p}})
      EXPECT_TRUE(same_bits_or_nan(u, v)) << u << " vs " << v;
    EXPECT_EQ(x.undefined, y.undefined);
  }
}

// The same plan on the CPU with other thread counts and chunk sizes: the promise the CUDA test
// extends, checked here on every machine.
TEST(MetricsStudy, NewStatisticsAreTheSameOnAnyThreadsAndChunks) {
  const Plan plan = study_plan();
  BootstrapOptions options;
  options.replicates = 500;
  options.keep_replicates = true;
  auto one = make_cpu_backend(1);
  auto three = make_cpu_backend(3, 77);
  const BootstrapResult a = run_bootstrap(plan, *one, options);
  const BootstrapResult b = run_bootstrap(plan, *three, options);
  ASSERT_EQ(a.replicates.size(), b.replicates.size());
  for (size_t k = 0; k < a.replicates.size(); ++k) ASSERT_TRUE(same_bits_or_nan(a.replicates[k], b.replicates[k])) << k;
  for (size_t s = 0; s < a.intervals.size(); ++s) {
    EXPECT_TRUE(same_bits_or_nan(a.intervals[s].p, b.intervals[s].p));
    EXPECT_TRUE(same_bits_or_nan(a.intervals[s].perm_p, b.intervals[s].perm_p));
  }
}
