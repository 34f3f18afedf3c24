// The CPU backend: replicates bit-identical on every SIMD path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "engine/philox_simd.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "simd_paths.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"

using namespace judgestat;
using testing_support::available_paths;
using testing_support::SimdPathRestorer;

namespace {

// W1's shape (items in clusters; per judge accuracy, pass average, both-correct; their ratios
// to the item count) over the given strata, optionally with a large real column (several int16
// planes per cluster sum) and a rank term (AUROC-like).
Plan w1_like_plan(const std::vector<int64_t>& stratum_sizes, int64_t items, int judges, bool big_column,
                  bool rank_term) {
  std::mt19937_64 rng(11);
  Plan plan = testing_support::plan_with_strata(stratum_sizes);
  const int64_t C = plan.stratum_offset.back();
  for (int64_t i = 0; i < items; ++i) plan.unit_cluster.push_back(static_cast<int32_t>(i < C ? i : int64_t(rng() % C)));
  const int32_t ones = plan.add_column("items");
  plan.columns[ones].fill(1.0);
  for (int j = 0; j < judges; ++j) {
    const int32_t acc = plan.add_column("acc"), pa = plan.add_column("pa"), bc = plan.add_column("bc");
    for (int64_t i = 0; i < items; ++i) {
      const int a = rng() % 4 != 0, b = rng() % 3 != 0;
      plan.columns[acc][i] = a;
      plan.columns[pa][i] = (a + b) / 2.0;
      plan.columns[bc][i] = a && b;
    }
    for (int32_t column : {acc, pa, bc}) plan.statistics.push_back({{"stat"}, ratio_program(column, ones)});
  }
  if (big_column) {
    const int32_t big = plan.add_column("big");
    for (int64_t i = 0; i < items; ++i)
      plan.columns[big][i] = static_cast<double>(int64_t(rng() % 2000001) - 1000000) / 8.0;
    plan.statistics.push_back({{"big"}, ratio_program(big, ones)});
  }
  if (rank_term) {
    std::vector<int32_t> units;
    std::vector<double> scores;
    std::vector<uint8_t> positive;
    for (int64_t i = 0; i < items; ++i) {
      units.push_back(static_cast<int32_t>(i));
      scores.push_back(static_cast<double>(rng() % 50));
      positive.push_back(plan.columns[1][i] != 0);
    }
    const int32_t term = plan.add_rank_term(units, scores, positive);
    plan.statistics.push_back({{"rank"}, {{OpCode::kRank, term}, {OpCode::kConstant, 0, 1e-6}, {OpCode::kMul}}});
  }
  return plan;
}

}  // namespace

TEST(CpuBackend, ReplicatesBitIdenticalOnEverySimdPath) {
  // Each plan takes a different branch of the CPU backend: int32 sums with one int16 plane per
  // column (W1); several planes recombined in int64; a stratum over 32767 clusters (gather
  // path, the rank term's draws counted in int32). Strata of 37 and 4963 clusters exercise the
  // 16-wide, 8-wide and one-block loops of count_draws.
  const SimdPathRestorer restore;
  struct Case {
    const char* name;
    Plan plan;
    uint64_t replicates;
  };
  const Case cases[] = {
      {"w1", w1_like_plan({37, 4963}, 6000, 4, false, false), 400},
      {"w1 odd", w1_like_plan({5000}, 6000, 3, false, false), 401},  // a thread's last replicate alone
      {"planes", w1_like_plan({70, 1111}, 1500, 2, true, true), 400},
      {"gather", w1_like_plan({33000, 45}, 33100, 1, false, true), 40},
  };
  for (const Case& c : cases) {
    const CompiledPlan compiled = compile(c.plan);
    const size_t n = c.replicates * compiled.n_statistics;
    std::vector<double> reference;
    for (SimdPath path : available_paths()) {
      set_simd_path_for_testing(path);
      std::vector<double> out(n, -1.0);
      make_cpu_backend(2)->run_replicates(compiled, 0x0123456789ABCDEFull, 1000, c.replicates, out.data());
      if (path == SimdPath::scalar) {
        reference = out;
        continue;
      }
      EXPECT_EQ(0, std::memcmp(out.data(), reference.data(), n * sizeof(double)))
          << c.name << ": " << simd_path_name(path) << " differs from scalar";
    }
  }
}

TEST(CpuBackend, BatchesEqualOneReplicateAtATime) {
  // Replicates are computed in batches of up to four (their dot products share the digits'
  // loads): every branch's batch layout (sums, rank terms' extras, normals) must give each
  // replicate exactly what a call for that replicate alone gives, on every SIMD path. 11
  // replicates on one thread: batches of 4, 4 and 3.
  const SimdPathRestorer restore;
  const Plan plans[] = {w1_like_plan({37, 4963}, 6000, 4, false, false), w1_like_plan({70, 1111}, 1500, 2, true, true),
                        w1_like_plan({33000, 45}, 33100, 1, false, true)};
  for (Plan plan : plans) {
    plan.statistics.push_back({{"normal"}, {{OpCode::kNormal, 0, 1.0}}});  // a normal draw per replicate
    const CompiledPlan compiled = compile(plan);
    ASSERT_EQ(compiled.n_normals, 1);
    const size_t S = compiled.n_statistics;
    const uint64_t first = 0xFFFFFFF0ull, count = 11;  // replicate numbers up to 2^32 − 6
    for (SimdPath path : available_paths()) {
      set_simd_path_for_testing(path);
      const auto backend = make_cpu_backend(1);
      std::vector<double> together(count * S, -1.0), alone(S, -2.0);
      backend->run_replicates(compiled, 99, first, count, together.data());
      for (uint64_t i = 0; i < count; ++i) {
        backend->run_replicates(compiled, 99, first + i, 1, alone.data());
        EXPECT_EQ(0, std::memcmp(alone.data(), together.data() + i * S, S * sizeof(double)))
            << simd_path_name(path) << ", replicate " << first + i << " of " << compiled.n_clusters << " clusters";
      }
    }
  }
}
