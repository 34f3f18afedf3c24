// Host emulation of `budget --compare`'s CUDA kernel (kernels/budget/cuda_compare_engine.cu), run everywhere:
// its grid of threads, each walking the draws r = thread, thread + threads, … with its bitmap
// interleaved in one buffer (word w of thread t at w · threads + t), driven thread by thread
// through the same compare_draw and compare_interval_side the kernel calls. The threads of a
// launch touch disjoint words, so the order in which they run cannot matter; every launch must
// give the CPU twin's outcomes and leave the whole buffer clear for the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "judgestat/compare_engine.hpp"

namespace judgestat {
namespace {

// One launch of `threads` threads over draws [first, first + count), in an order of threads
// chosen by `order_seed` (the device runs them in any order).
CompareOutcomes compare_kernel_emulated(const CompareProblem& problem, const CompareRun& run, uint32_t first,
                                        uint32_t count, uint32_t threads, std::vector<uint32_t>& taken,
                                        uint32_t order_seed) {
  CompareOutcomes out;
  out.resize(count);
  std::vector<uint32_t> order(threads);
  for (uint32_t t = 0; t < threads; ++t) order[t] = t;
  std::shuffle(order.begin(), order.end(), std::mt19937(order_seed));
  const PhiloxKey key(run.seed);
  const uint32_t n_items = static_cast<uint32_t>(problem.n_items);
  for (uint32_t thread : order) {
    uint32_t* mine = taken.data() + thread;
    for (uint32_t r = thread; r < count; r += threads) {
      const CompareDraw draw = compare_draw(key, first + r, problem.scaled_d.data(), n_items, run.k, mine, threads);
      out.sum[r] = draw.sum;
      out.sum_sq[r] = draw.sum_sq;
      out.side[r] = static_cast<int8_t>(compare_interval_side(draw.sum, draw.sum_sq, run.k, problem.scale, run.z));
    }
  }
  return out;
}

TEST(KernelEmulation, CompareThreadsDrawLikeTheCpuTwin) {
  std::mt19937 random(11);
  // 90 items (3 bitmap words: cleared word by word) and 5,000 (157 words: cleared by replaying
  // the steps for k below that); launches with fewer threads than draws and with more.
  for (uint32_t n : {90u, 5000u}) {
    std::vector<double> d(n);
    for (double& x : d) x = (static_cast<int>(random() % 5) - 2) / 2.0;
    const CompareProblem problem = make_compare_problem(d, 2);
    auto cpu = make_cpu_compare_engine(problem, 2);
    for (uint32_t k : {2u, 33u, n / 3, n}) {
      CompareRun run;
      run.k = k;
      run.seed = 0x1234567890ull;
      const uint32_t first = 4242, count = 700;
      CompareOutcomes expected;
      cpu->run(run, first, count, expected);
      for (uint32_t threads : {256u, 512u, 1024u}) {
        std::vector<uint32_t> taken(size_t{threads} * compare_bitmap_words(n), 0);
        const CompareOutcomes got = compare_kernel_emulated(problem, run, first, count, threads, taken, threads + k);
        SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + ", " + std::to_string(threads) +
                     " threads");
        EXPECT_EQ(got.sum, expected.sum);
        EXPECT_EQ(got.sum_sq, expected.sum_sq);
        EXPECT_EQ(got.side, expected.side);
        EXPECT_TRUE(std::all_of(taken.begin(), taken.end(), [](uint32_t w) { return w == 0; }));
        // The next launch (fewer threads over the same, still clear, buffer) continues alike.
        CompareOutcomes next_expected;
        cpu->run(run, first + count, 300, next_expected);
        const CompareOutcomes next = compare_kernel_emulated(problem, run, first + count, 300, 256, taken, 7);
        EXPECT_EQ(next.side, next_expected.side);
        EXPECT_EQ(next.sum, next_expected.sum);
      }
    }
  }
}

}  // namespace
}  // namespace judgestat
