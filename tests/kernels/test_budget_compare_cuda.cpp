// `budget --compare`'s CUDA kernel (kernels/budget/cuda_compare_engine.cu) against its CPU twin: the same sums
// and interval sides draw by draw, on one engine and on two engines of one device, and the same
// summaries. Skipped, with the reason, where no usable CUDA device exists; the kernel's thread
// layout is emulated everywhere (KernelEmulation.CompareThreadsDrawLikeTheCpuTwin).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/compare_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

void expect_same(const CompareOutcomes& got, const CompareOutcomes& expected) {
  EXPECT_EQ(got.sum, expected.sum);
  EXPECT_EQ(got.sum_sq, expected.sum_sq);
  EXPECT_EQ(got.side, expected.side);
}

TEST(BudgetCompareCuda, MatchesCpuPerDraw) {
  REQUIRE_CUDA();
  std::mt19937 random(3);
  // The JudgeBench size (11 bitmap words), and a pool whose bitmap outgrows k (replayed clears).
  for (uint32_t n : {350u, 20000u}) {
    std::vector<double> d(n);
    for (double& x : d) x = (static_cast<int>(random() % 5) - 2) / 2.0;
    const CompareProblem problem = make_compare_problem(d, 2);
    auto cpu = make_cpu_compare_engine(problem, 0);
    auto cuda = make_cuda_compare_engine(problem, 0);
    EXPECT_EQ(cuda->name(), "cuda");
    for (uint32_t k : {2u, 50u, 333u, n}) {
      CompareRun run;
      run.k = k;
      run.seed = 99;
      const uint32_t many = k > 1000 ? 2000 : 50000;  // the CPU's share of the time
      for (const auto& [first, count] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {12345, many}}) {
        CompareOutcomes expected, got;
        cpu->run(run, first, count, expected);
        cuda->run(run, first, count, got);
        SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + ", draws " + std::to_string(first) +
                     " + " + std::to_string(count));
        expect_same(got, expected);
      }
    }
    // A launch larger than the device keeps resident: threads walk several draws each.
    CompareRun run;
    run.k = 50;
    CompareOutcomes expected, got;
    cpu->run(run, 7, 2000000, expected);
    cuda->run(run, 7, 2000000, got);
    expect_same(got, expected);
    // Two engines on one device (--devices 0,0) and whole summaries.
    ExecTarget target;
    target.kind = ExecTarget::Kind::kCuda;
    target.devices = {0, 0};
    auto split = make_compare_engine(problem, target);
    EXPECT_EQ(split->device().rfind("2 × ", 0), 0u) << split->device();
    const CompareSummary a = simulate_compare(*cpu, problem, run, 300001);
    const CompareSummary b = simulate_compare(*split, problem, run, 300001);
    EXPECT_EQ(a.sum_hist, b.sum_hist);
    EXPECT_EQ(a.above, b.above);
    EXPECT_EQ(a.below, b.below);
  }
}

}  // namespace
}  // namespace judgestat
