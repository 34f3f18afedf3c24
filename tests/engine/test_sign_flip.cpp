// docs/statistics.md §7.3's cluster sign-flip permutation test: counts against explicit loops on
// every host backend (1, 2, 3 threads, Backend's default, the split backend), perm_p in
// run_bootstrap, and the p-values' null distribution. The plan side: tests/plan/test_sign_flip_plan.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/philox_simd.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/plan.hpp"
#include "sign_flip_cases.hpp"
#include "simd_paths.hpp"

using namespace judgestat;
using judgestat::testing_support::paired_case;
using judgestat::testing_support::PairedCase;
using judgestat::testing_support::reference_exceedances;

namespace {

// A backend that leaves count_sign_flip_exceedances to Backend's default.
class DefaultCountsBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string device() const override { return "default"; }
  uint64_t max_chunk(const CompiledPlan& plan) const override { return cpu_->max_chunk(plan); }
  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) override {
    cpu_->run_replicates(plan, seed, first, count, out);
  }

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend(1);
};

std::vector<std::unique_ptr<Backend>> cpu_parts(int n) {
  std::vector<std::unique_ptr<Backend>> parts;
  for (int p = 0; p < n; ++p) parts.push_back(make_cpu_backend(p + 1));
  return parts;
}

std::vector<uint64_t> reference_counts(const PairedCase& paired, uint64_t seed, uint64_t first, uint64_t count) {
  std::vector<uint64_t> out;
  for (const std::vector<int64_t>& d : paired.d) out.push_back(reference_exceedances(d, seed, first, count));
  return out;
}

}  // namespace

TEST(SignFlip, CountsMatchExplicitLoopsOnEveryHostBackend) {
  // 300 clusters: three Philox blocks, the last one partly used; a seed with both key words set;
  // ranges from 0, from the middle, and up to the last replicate number, 2^32 − 1.
  const PairedCase paired = paired_case(300, 11);
  const CompiledPlan plan = compile(paired.plan);
  const uint64_t seed = 0x0123456789abcdefull;
  std::vector<std::unique_ptr<Backend>> backends;
  for (int threads : {1, 2, 3}) backends.push_back(make_cpu_backend(threads));
  backends.push_back(std::make_unique<DefaultCountsBackend>());
  backends.push_back(make_split_backend(cpu_parts(3)));
  for (auto [first, count] : {std::pair<uint64_t, uint64_t>{0, 1000}, {357, 101}, {(uint64_t{1} << 32) - 250, 250}}) {
    const std::vector<uint64_t> want = reference_counts(paired, seed, first, count);
    // Neither a count of 0 nor of every replicate: the comparison can fail either way.
    EXPECT_GT(want[0] + want[1], 0u);
    EXPECT_LT(want[0] + want[1], 2 * count);
    for (const auto& backend : backends)
      EXPECT_EQ(backend->count_sign_flip_exceedances(plan, seed, first, count), want)
          << backend->device() << ", replicates " << first << " + " << count;
  }
}

TEST(SignFlip, CountsMatchExplicitLoopsOnEverySimdPathAndWidth) {
  // 1,001 clusters (no multiple of 8, 32 or 128) and the CPU's two sums: int32 with the minus
  // signs as masks (Σ|d_c| < 2^31, as counts are), and int64 when the differences are scaled by
  // 2^27 so that Σ|d_c| passes 2^31.
  const testing_support::SimdPathRestorer restore;
  for (const int64_t scale : {int64_t{1}, int64_t{1} << 27}) {
    PairedCase paired = paired_case(1001, 5);
    for (size_t t = 0; t < paired.d.size(); ++t) {
      PlanColumn& column = paired.plan.columns[paired.plan.sign_flip_tests[t].column];
      for (size_t u = 0; u < column.size(); ++u) column[u] = column[u] * static_cast<double>(scale);
      for (int64_t& v : paired.d[t]) v *= scale;
    }
    int64_t magnitude = 0;
    for (int64_t v : paired.d[0]) magnitude += std::abs(v);
    EXPECT_EQ(magnitude < (int64_t{1} << 31), scale == 1);
    const CompiledPlan plan = compile(paired.plan);
    const std::vector<uint64_t> want = reference_counts(paired, 99, 40, 1000);
    EXPECT_GT(want[0] + want[1], 0u);
    EXPECT_LT(want[0] + want[1], 2000u);
    for (SimdPath path : testing_support::available_paths()) {
      set_simd_path_for_testing(path);
      EXPECT_EQ(make_cpu_backend(2)->count_sign_flip_exceedances(plan, 99, 40, 1000), want)
          << simd_path_name(path) << ", scale " << scale;
    }
  }
}

TEST(SignFlip, RunBootstrapFillsPermPOfTestedStatisticsOnly) {
  const PairedCase paired = paired_case(150, 3);
  BootstrapOptions options;
  options.replicates = 999;
  options.seed = 42;
  auto one = make_cpu_backend(1);
  auto split = make_split_backend(cpu_parts(2));
  const BootstrapResult a = run_bootstrap(paired.plan, *one, options);
  const BootstrapResult b = run_bootstrap(paired.plan, *split, options);
  EXPECT_TRUE(std::isnan(a.intervals[0].perm_p));  // acc: no test
  for (int t = 0; t < 2; ++t) {
    const double want = (1.0 + reference_exceedances(paired.d[t], 42, 0, 999)) / 1000.0;
    EXPECT_EQ(a.intervals[t + 1].perm_p, want) << "test " << t;
    EXPECT_EQ(b.intervals[t + 1].perm_p, want) << "split, test " << t;
  }
}

TEST(SignFlip, ObservedTotalOfZeroGivesPOne) {
  // Every d_c = 0: every |T_r| ≥ |T_obs| = 0.
  Plan plan;
  plan.stratum_offset = {0, 5};
  plan.unit_cluster = {0, 1, 2, 3, 4};
  const int32_t d = plan.add_column("d"), ones = plan.add_column("ones");
  plan.columns[ones].fill(1.0);
  plan.statistics = {{{"diff"}, ratio_program(d, ones)}};
  plan.sign_flip_tests = {{0, d}};
  BootstrapOptions options;
  options.replicates = 50;
  auto backend = make_cpu_backend(1);
  EXPECT_EQ(run_bootstrap(plan, *backend, options).intervals[0].perm_p, 1.0);
}

TEST(SignFlip, ClearDifferenceGivesTheSmallestP) {
  // 60 clusters, each d_c = +1: T_obs = 60 and |T_r| = 60 only when every sign agrees
  // (probability 2^-59), so no replicate reaches it and perm_p = 1 / (1 + R).
  Plan plan;
  plan.stratum_offset = {0, 60};
  for (int32_t c = 0; c < 60; ++c) plan.unit_cluster.push_back(c);
  const int32_t d = plan.add_column("d"), ones = plan.add_column("ones");
  plan.columns[d].fill(1.0);
  plan.columns[ones].fill(1.0);
  plan.statistics = {{{"diff"}, ratio_program(d, ones)}};
  plan.sign_flip_tests = {{0, d}};
  BootstrapOptions options;
  options.replicates = 499;
  auto backend = make_cpu_backend(2);
  EXPECT_EQ(run_bootstrap(plan, *backend, options).intervals[0].perm_p, 1.0 / 500.0);
}

TEST(SignFlip, NullPValuesAreUniform) {
  // 200 datasets without a true difference: 200 clusters of 1–3 units whose differences are
  // −1, 0, +1 with probabilities 0.3, 0.4, 0.3 (symmetric around 0). Under the null the p-values
  // are (super-)uniform: #{p ≤ 0.05} ~ Binomial(200, 0.05), mean 10, sd √(200·0.05·0.95) = 3.08,
  // checked within 4 sd; and the Kolmogorov–Smirnov distance to U(0, 1) below 0.12 (1.63/√200 =
  // 0.115 is its 1 % critical value, plus the p-values' 1/(R + 1) = 0.001 steps).
  std::mt19937 random(2024);
  const int n_datasets = 200;
  std::vector<double> p;
  auto backend = make_cpu_backend(2);
  for (int k = 0; k < n_datasets; ++k) {
    Plan plan;
    plan.stratum_offset = {0, 200};
    for (int32_t c = 0; c < 200; ++c)
      for (uint32_t u = 0, units = 1 + random() % 3; u < units; ++u) plan.unit_cluster.push_back(c);
    const int32_t d = plan.add_column("d"), ones = plan.add_column("ones");
    for (size_t u = 0; u < plan.columns[d].size(); ++u) {
      const uint32_t draw = random() % 10;
      plan.columns[d][u] = draw < 3 ? -1.0 : draw < 7 ? 0.0 : 1.0;
    }
    plan.columns[ones].fill(1.0);
    plan.statistics = {{{"diff"}, ratio_program(d, ones)}};
    plan.sign_flip_tests = {{0, d}};
    BootstrapOptions options;
    options.replicates = 999;
    options.seed = 1000 + k;
    p.push_back(run_bootstrap(plan, *backend, options).intervals[0].perm_p);
  }
  const auto at_most_5 = std::count_if(p.begin(), p.end(), [](double v) { return v <= 0.05; });
  EXPECT_LE(std::abs(static_cast<double>(at_most_5) - 10.0), 4 * 3.08) << at_most_5 << " of 200 at most 0.05";
  std::sort(p.begin(), p.end());
  double distance = 0;
  for (int i = 0; i < n_datasets; ++i)
    distance = std::max({distance, (i + 1.0) / n_datasets - p[i], p[i] - static_cast<double>(i) / n_datasets});
  EXPECT_LT(distance, 0.12);
}
