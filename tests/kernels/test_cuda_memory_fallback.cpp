// Issue #19: CUDA out of memory falls back to smaller chunks with the same bits. With device
// memory scarce (a forced small chunk, or most of the device taken by another allocation) the
// bootstrap leaves the device-kept path for host chunks sized from free memory, and every
// interval is bit for bit the CPU backend's. Skips without a usable device.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#ifdef JUDGESTAT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/plan.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_intervals(const BootstrapResult& expected, const BootstrapResult& actual, const char* what) {
  ASSERT_EQ(expected.intervals.size(), actual.intervals.size()) << what;
  for (size_t s = 0; s < expected.intervals.size(); ++s) {
    const Interval &e = expected.intervals[s], &a = actual.intervals[s];
    EXPECT_TRUE(same_bits(e.lo, a.lo) && same_bits(e.hi, a.hi) && same_bits(e.se, a.se) && e.undefined == a.undefined)
        << what << ": statistic " << s << " (" << e.lo << ", " << e.hi << ") vs (" << a.lo << ", " << a.hi << ")";
  }
}

BootstrapOptions options_for(uint64_t replicates) {
  BootstrapOptions options;
  options.replicates = replicates;
  options.seed = 19;
  return options;
}

TEST(CudaMemoryFallback, ForcedSmallChunkGivesTheCpuBits) {
  REQUIRE_CUDA();
  const Plan plan = testing_support::two_strata_plan();
  const BootstrapOptions options = options_for(50001);
  const auto cpu = make_cpu_backend(2);
  const BootstrapResult expected = run_bootstrap(plan, *cpu, options);
  for (uint64_t chunk : {uint64_t(0), uint64_t(997)}) {
    const auto gpu = make_cuda_backend(0, chunk);
    expect_same_intervals(expected, run_bootstrap(plan, *gpu, options), chunk ? "chunk 997" : "sized from memory");
  }
}

TEST(CudaMemoryFallback, ScarceDeviceMemoryFallsBackToHostChunksWithTheCpuBits) {
  REQUIRE_CUDA();
#ifdef JUDGESTAT_HAVE_CUDA
  const Plan plan = testing_support::two_strata_plan();
  const BootstrapOptions options = options_for(400000);
  const auto cpu = make_cpu_backend(2);
  const BootstrapResult expected = run_bootstrap(plan, *cpu, options);
  // Take all but 16 MiB of the device: the replicates no longer fit beside their summaries'
  // working space, and chunks are sized from what is left (a quarter of it: 262144 replicates
  // of 2 statistics).
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const size_t keep_free = size_t(16) << 20;
  void* hog = nullptr;
  if (free_bytes > keep_free) ASSERT_EQ(cudaMalloc(&hog, free_bytes - keep_free), cudaSuccess);
  struct Release {
    void* p;
    ~Release() {
      if (p) cudaFree(p);
    }
  } release{hog};
  const auto gpu = make_cuda_backend(0, 0);
  ASSERT_LT(gpu->max_chunk(compile(plan)), options.replicates) << "the chunk is sized from the memory left";
  expect_same_intervals(expected, run_bootstrap(plan, *gpu, options), "16 MiB free");
#endif
}

}  // namespace
}  // namespace judgestat
