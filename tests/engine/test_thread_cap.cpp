// Issue #19 part 2: a huge --threads used to abort (joinable threads destroyed after a thread
// failed to start). Threads are capped at 4 × the hardware threads, every started thread is
// joined, and a thread the system refuses runs its range on the caller: same bits throughout.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "support/parallel.hpp"
#include "test_plans.hpp"

namespace judgestat {
namespace {

TEST(ThreadCap, CapIsFourTimesTheHardwareThreads) {
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(capped_threads(0), hardware);
  EXPECT_EQ(capped_threads(1), 1);
  EXPECT_EQ(capped_threads(40000), 4 * hardware);
  EXPECT_EQ(capped_threads(4 * hardware), 4 * hardware);
}

TEST(ThreadCap, HugeThreadCountGivesTheSameBitsAsOneThread) {
  const CompiledPlan plan = compile(testing_support::two_strata_plan());
  const uint64_t B = 4000;
  std::vector<double> one(B * plan.n_statistics), many(B * plan.n_statistics, -1.0);
  make_cpu_backend(1)->run_replicates(plan, 7, 0, B, one.data());
  const auto backend = make_cpu_backend(40000);
  backend->run_replicates(plan, 7, 0, B, many.data());
  EXPECT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(double)));
  EXPECT_EQ(backend->device(), std::to_string(capped_threads(40000)) + " threads");
}

TEST(ThreadCap, RangesCoverEveryIndexOnceWhateverTheWorkers) {
  std::vector<std::atomic<int>> seen(1000);
  run_in_ranges(1000u, 40000u, [&](uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i) ++seen[i];
  });
  for (const auto& count : seen) EXPECT_EQ(count.load(), 1);
}

TEST(ThreadCap, JoiningThreadsJoinsOnEveryPath) {
  std::atomic<int> done{0};
  try {
    JoiningThreads pool;
    for (int t = 0; t < 8; ++t) pool.run_or_start([&](int) { ++done; }, t);
    throw std::runtime_error("leaving the scope early");  // the destructor joins; no terminate
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(done.load(), 8);
}

}  // namespace
}  // namespace judgestat
