// The compute-sanitizer cases of bench/gpu_session.sh (memcheck, racecheck, synccheck, initcheck
// run over `CudaSanitizer.*` right after the CUDA tests): the tile kernel at the 5,000 clusters
// of W1 (a 160 KB shared histogram, several byte planes, a partial tile), the sign-flip kernel
// and the compare kernel, each in one or two short launches, because the sanitizers multiply a
// kernel's time by 10-100x. Each compares every value with the CPU bit for bit, so a report-free
// run also shows the kernels computed the right thing under the tool. Every test skips, saying
// why, where no usable CUDA device exists.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/plan.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"
#ifdef JUDGESTAT_HAVE_CUDA
#include "kernels/bootstrap/cuda_backend_paths.hpp"
#endif

namespace judgestat {
namespace {

// 5,000 clusters in two strata (3,100 and 1,900), 1-3 units each; a count column, a 0/1 column
// and a real column in [0, 1) (several byte planes): accuracy, mean score and their difference.
Plan five_thousand_cluster_plan() {
  Plan plan = testing_support::plan_with_strata({3100, 1900});
  for (int32_t c = 0; c < 5000; ++c)
    for (int u = 0; u <= c % 3; ++u) plan.unit_cluster.push_back(c);
  const int32_t n = plan.add_column("n"), correct = plan.add_column("correct"), score = plan.add_column("score");
  for (size_t u = 0; u < plan.unit_cluster.size(); ++u) {
    plan.columns[n][u] = 1.0;
    plan.columns[correct][u] = (u * 11) % 5 != 0;
    plan.columns[score][u] = 0.0001 * static_cast<double>((u * 7919) % 10000);
  }
  plan.statistics = {StatisticDef{{"acc"}, ratio_program(correct, n)}, StatisticDef{{"score"}, ratio_program(score, n)},
                     StatisticDef{{"gap"}, difference_program(ratio_program(correct, n), ratio_program(score, n))}};
  return plan;
}

}  // namespace

// The device case's shape, checked on every machine: the 5,000 clusters the tile kernel's shared
// histogram is sized for, and 64-bit sums (several byte planes), so that on a device the case
// fails only on what the kernel computes.
TEST(SanitizerCases, FiveThousandClusterPlanNeedsSeveralBytePlanes) {
  const Plan source = five_thousand_cluster_plan();
  EXPECT_EQ(source.n_strata(), 2);
  EXPECT_EQ(source.n_units(), 1667 * 1 + 1667 * 2 + 1666 * 3);  // c mod 3 = 0, 1, 2: 1, 2, 3 units
  const CompiledPlan plan = compile(source);
  EXPECT_EQ(plan.n_clusters, 5000);
  EXPECT_EQ(plan.n_statistics, 3);
  EXPECT_FALSE(plan.fits_int32);
}

// The tile kernel forced at 5,000 clusters: 20 replicates from replicate 777, one full tile of 16
// and a partial one of 4 (its idle rows must not be read uninitialised or written).
TEST(CudaSanitizer, FiveThousandClusterTileMatchesCpu) {
  REQUIRE_CUDA();
#ifdef JUDGESTAT_HAVE_CUDA
  const CompiledPlan plan = compile(five_thousand_cluster_plan());
  ASSERT_EQ(plan.n_clusters, 5000);
  ASSERT_FALSE(plan.fits_int32);  // real column: 64-bit sums, several byte planes
  const int32_t S = plan.n_statistics;
  const uint64_t first = 777, count = 20, seed = 5;
  std::vector<double> expected(count * S), got(count * S, -1.0);
  make_cpu_backend(1)->run_replicates(plan, seed, first, count, expected.data());
  make_cuda_backend_with_path(0, 0, CudaKernelPath::kMultiplicityTile)
      ->run_replicates(plan, seed, first, count, got.data());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)), 0);
#endif
}

// The sign-flip kernel on 5,000 clusters (lanes take several blocks) over 300 replicates from a
// first replicate that is not a multiple of the block, and one replicate alone.
TEST(CudaSanitizer, SignFlipMatchesCpu) {
  REQUIRE_CUDA();
  const testing_support::PairedCase paired = testing_support::paired_case(5000, 11);
  const CompiledPlan plan = compile(paired.plan);
  auto gpu = make_cuda_backend(0);
  auto cpu = make_cpu_backend(1);
  const uint64_t seed = 0x5eed5eedull;
  for (auto [first, count] : {std::pair<uint64_t, uint64_t>{37, 300}, {4294967295ull, 1}}) {
    const std::vector<uint64_t> want = cpu->count_sign_flip_exceedances(plan, seed, first, count);
    ASSERT_EQ(want.size(), 2u);
    EXPECT_EQ(gpu->count_sign_flip_exceedances(plan, seed, first, count), want)
        << "replicates " << first << " + " << count;
  }
  // The spec's explicit loop for the first test, so that the CPU twin is not the only witness.
  EXPECT_EQ(gpu->count_sign_flip_exceedances(plan, seed, 37, 300)[0],
            testing_support::reference_exceedances(paired.d[0], seed, 37, 300));
}

// The compare kernel on the JudgeBench size (350 items, 11 bitmap words) at k = 50 and k = n
// (every item drawn), 300 draws from draw 1,001: draw by draw the CPU twin's sums and sides.
TEST(CudaSanitizer, CompareMatchesCpu) {
  REQUIRE_CUDA();
  std::vector<double> d(350);
  for (size_t i = 0; i < d.size(); ++i) d[i] = (static_cast<int>((i * 7) % 5) - 2) / 2.0;
  const CompareProblem problem = make_compare_problem(d, 2);
  auto cpu = make_cpu_compare_engine(problem, 1);
  auto cuda = make_cuda_compare_engine(problem, 0);
  for (uint32_t k : {50u, 350u}) {
    CompareRun run;
    run.k = k;
    run.seed = 17;
    CompareOutcomes expected, got;
    cpu->run(run, 1001, 300, expected);
    cuda->run(run, 1001, 300, got);
    ASSERT_EQ(expected.sum.size(), 300u);
    EXPECT_EQ(got.sum, expected.sum) << "k " << k;
    EXPECT_EQ(got.sum_sq, expected.sum_sq) << "k " << k;
    EXPECT_EQ(got.side, expected.side) << "k " << k;
  }
}

}  // namespace judgestat
