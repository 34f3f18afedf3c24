// The cluster bootstrap-t's product columns and t*·|t*| statistics are plan columns and programs
// (host/intervals/studentized.hpp), so the CUDA backend must give the CPU's studentized intervals,
// distinct counts and undefined counts bit for bit, with the replicates kept on the device (its
// order statistics and the bisection distinct count) and on the host. Skipped without a device.
#include <gtest/gtest.h>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "metrics_study_fixture.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

Plan study_plan(const char* strata) {
  MetricsOptions options;
  options.all_pairs = true;
  options.diff = {"acc", "pa", "brier"};
  return metrics_study_plan("study_t.csv", strata, options);
}

}  // namespace

TEST(StudentizedCuda, IntervalsMatchTheCpuBitForBit) {
  REQUIRE_CUDA();
  for (const char* strata : {"", "condition"}) {
    const Plan plan = study_plan(strata);
    for (CiMethod ci : {CiMethod::kStudentized, CiMethod::kT}) {
      for (bool keep : {false, true}) {
        BootstrapOptions options;
        options.replicates = 4000;
        options.seed = 20261201;
        options.ci = ci;
        options.keep_replicates = keep;
        auto cpu = make_cpu_backend(2);
        auto gpu = make_cuda_backend(0, 0);
        const BootstrapResult a = run_bootstrap(plan, *cpu, options);
        const BootstrapResult b = run_bootstrap(plan, *gpu, options);
        ASSERT_EQ(a.intervals.size(), b.intervals.size());
        for (size_t s = 0; s < a.intervals.size(); ++s) {
          SCOPED_TRACE(a.labels[s].name + " " + a.labels[s].judge + " " + to_string(ci) + " " + strata);
          const Interval &x = a.intervals[s], &y = b.intervals[s];
          EXPECT_TRUE(same_bits_or_nan(x.lo, y.lo)) << x.lo << " " << y.lo;
          EXPECT_TRUE(same_bits_or_nan(x.hi, y.hi)) << x.hi << " " << y.hi;
          EXPECT_EQ(x.undefined, y.undefined);
          EXPECT_EQ(x.distinct, y.distinct);
          EXPECT_EQ(x.clusters, y.clusters);
        }
      }
    }
  }
}
