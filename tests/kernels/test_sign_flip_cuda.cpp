// docs/statistics.md §7.3's sign-flip counts on the CUDA backend (kernels/permutation/sign_flip.cu)
// against the CPU backend: the same integers for any replicate range, and the same perm_p from
// run_bootstrap. Skipped, with the reason, where no usable CUDA device exists; the kernel's
// pieces are emulated everywhere (KernelEmulation.SignFlipWarpsCountLikeTheHost).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

TEST(SignFlipCuda, MatchesCpu) {
  REQUIRE_CUDA();
  auto gpu = make_cuda_backend(0);
  auto cpu = make_cpu_backend(0);
  // 300 clusters (lanes idle), 5,000 (lanes take several blocks) and 70,001 (a partial last block).
  for (int64_t clusters : {300, 5000, 70001}) {
    const testing_support::PairedCase paired = testing_support::paired_case(clusters, 7);
    const CompiledPlan plan = compile(paired.plan);
    const uint64_t seed = 0xfeedface12345678ull;
    for (auto [first, count] : {std::pair<uint64_t, uint64_t>{0, 1}, {0, 4096}, {977, 20011}, {4294967000ull, 296}}) {
      const std::vector<uint64_t> want = cpu->count_sign_flip_exceedances(plan, seed, first, count);
      EXPECT_EQ(gpu->count_sign_flip_exceedances(plan, seed, first, count), want)
          << clusters << " clusters, replicates " << first << " + " << count;
    }
    if (clusters == 300) {  // the explicit loops, where they are quick
      EXPECT_EQ(gpu->count_sign_flip_exceedances(plan, seed, 5, 300)[0],
                testing_support::reference_exceedances(paired.d[0], seed, 5, 300));
    }
    if (clusters > 5000) continue;  // the CPU's bootstrap of the largest would take a while
    BootstrapOptions options;
    options.replicates = 10000;
    options.seed = 3;
    const BootstrapResult a = run_bootstrap(paired.plan, *gpu, options);
    const BootstrapResult b = run_bootstrap(paired.plan, *cpu, options);
    for (size_t s = 0; s < a.intervals.size(); ++s) {
      EXPECT_EQ(a.intervals[s].p, b.intervals[s].p) << clusters << " clusters, statistic " << s;
      if (s > 0) {
        EXPECT_EQ(a.intervals[s].perm_p, b.intervals[s].perm_p) << clusters << " clusters, statistic " << s;
      }
    }
  }
}

}  // namespace
}  // namespace judgestat
