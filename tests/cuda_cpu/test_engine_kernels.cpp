// The other kernels run on the CPU runtime against their CPU twins, bit for bit: the sign-flip
// kernel (kernels/permutation/sign_flip_kernel.cuh), the label-budget kernel in both variants
// (kernels/budget/detail/budget_agent.cuh), the `budget --compare` kernel (compare_engine_kernel.cuh) and the
// device summaries' kernels (kernels/summaries/summary_kernels.cuh; CUB's radix sort between
// order_keys_kernel and pick_order_statistics_kernel runs on a device only, std::sort stands in).
// Launches mirror their .cu dispatch, with small grids; each runs under both schedules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "cuda_cpu_support.hpp"
#include "engine/fake_environment.hpp"
#include "engine/sign_flip_cases.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/replicate_summary.hpp"
#include "kernels/budget/compare_engine_kernel.cuh"
#include "kernels/budget/detail/budget_agent.cuh"
#include "kernels/permutation/sign_flip_kernel.cuh"
#include "kernels/summaries/summary_kernels.cuh"
#include "test_plans.hpp"
#include "test_support.hpp"
#include "w2_pool.hpp"

namespace judgestat::cuda_cpu {
namespace {

using namespace cuda_detail;

// ---- Sign flips ---------------------------------------------------------------------------------

/// sign_flip.cu's launch on `grid` blocks: the tests' d_c, T_obs, and one counter per test.
std::vector<uint64_t> sign_flip_on_runtime(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count,
                                           unsigned grid, Schedule schedule) {
  const size_t n_tests = plan.sign_flip_tests.size();
  const std::vector<int64_t> d = sign_flip_differences(plan);
  std::vector<int64_t> observed(n_tests);
  for (size_t t = 0; t < n_tests; ++t) observed[t] = plan.totals.at(plan.sign_flip_tests[t].column);
  std::vector<unsigned long long> exceed(n_tests, 0);
  emulation::launch({dim3(grid), dim3(kSignFlipThreads), 0, schedule}, sign_flip_kernel, d.data(), observed.data(),
                    plan.n_clusters, static_cast<uint32_t>(n_tests), seed, first, count, exceed.data());
  return std::vector<uint64_t>(exceed.begin(), exceed.end());
}

TEST(CudaCpuSignFlip, KernelCountsLikeTheHost) {
  // One cluster; fewer clusters than a warp's Philox blocks; several blocks per lane (> 4,096).
  for (const auto& [clusters, count, grid] :
       std::vector<std::tuple<int64_t, uint64_t, unsigned>>{{1, 40, 1}, {301, 53, 2}, {5000, 9, 1}}) {
    const CompiledPlan plan = compile(testing_support::paired_case(clusters, 17).plan);
    ASSERT_EQ(plan.sign_flip_tests.size(), 2u);
    const std::vector<uint64_t> expected = count_sign_flip_exceedances_on_host(plan, 11, 900, count, 1);
    for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
      SCOPED_TRACE(std::to_string(clusters) + " clusters, " + schedule_name(schedule));
      EXPECT_EQ(sign_flip_on_runtime(plan, 11, 900, count, grid, schedule), expected);
    }
    uint64_t total = 0;
    for (uint64_t e : expected) total += e;
    if (clusters > 1) {
      EXPECT_GT(total, 0u);  // the counts are not all zero: the comparison can fail
    }
  }
}

// ---- Label budget -------------------------------------------------------------------------------

using testing_support::w2_pool;

/// cuda_budget_engine.cu's launch of `kernel` (a budget_kernel<Variant>): `warps` warps per block on `grid` blocks.
DrawOutcomes budget_on_runtime(BudgetKernel kernel, const BudgetProblem& problem, const BudgetRun& run, uint32_t first,
                               uint32_t count, unsigned grid, int warps, Schedule schedule) {
  DrawOutcomes out;
  out.resize(count, problem.n_strata);
  BudgetKernelArgs args{};
  args.item_code = problem.item_code.data();
  args.fee_first = problem.fee_first_fx.data();
  args.fee_fallback = problem.fee_fallback_fx.data();
  args.total_accepted_2d = problem.total_accepted_2d.data();
  args.total_cascade_fee = problem.total_cascade_fee.data();
  args.total_escalated = problem.total_escalated.data();
  args.total_fallback_fee = problem.total_fallback_fee;
  args.n_items = static_cast<uint32_t>(problem.n_items);
  args.k = run.k;
  args.n_grid = problem.n_grid;
  args.n_strata = problem.n_strata;
  args.rule = run.rule;
  const PhiloxKey key(run.seed);
  args.key0 = key.k0;
  args.key1 = key.k1;
  args.first_draw = first;
  args.count = count;
  args.out_heldout_2d = out.heldout_2d.data();
  args.out_heldout_escalated = out.heldout_escalated.data();
  args.out_fee_ratio = out.fee_ratio.data();
  args.out_chosen = out.chosen.data();
  const size_t block_bytes = budget_warp_words(run.k, problem.n_grid, problem.n_strata) * sizeof(uint32_t) * warps;
  emulation::launch({dim3(grid), dim3(32 * warps), block_bytes, schedule}, kernel, args);
  return out;
}

void expect_same_outcomes(const DrawOutcomes& got, const DrawOutcomes& expected) {
  EXPECT_EQ(got.heldout_2d, expected.heldout_2d);
  EXPECT_EQ(got.heldout_escalated, expected.heldout_escalated);
  EXPECT_EQ(got.chosen, expected.chosen);
  EXPECT_TRUE(same_bytes(expected.fee_ratio, got.fee_ratio));
}

TEST(CudaCpuBudget, BothKernelVariantsMatchTheCpuEngine) {
  const CascadePool pool = w2_pool();
  for (bool per_stratum : {false, true}) {
    const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
    auto cpu = make_cpu_budget_engine(problem, 1);
    // k = 7: one batch of Floyd steps; 96: three batches, the last short; 200: variant 2's
    // second group of 128 steps.
    for (uint32_t k : {7u, 96u, 200u})
      for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
        BudgetRun run;
        run.k = k;
        run.rule.rule = rule;
        run.seed = 31;
        DrawOutcomes expected;
        const uint32_t first = 777, count = 13;  // not a multiple of the warps: idle warps
        cpu->run(run, first, count, expected);
        for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
          SCOPED_TRACE("k " + std::to_string(k) + " " + rule_name(rule) + (per_stratum ? " per stratum, " : ", ") +
                       schedule_name(schedule));
          expect_same_outcomes(budget_on_runtime(budget_kernel<1>, problem, run, first, count, 2, 4, schedule),
                               expected);
          expect_same_outcomes(budget_on_runtime(budget_kernel<2>, problem, run, first, count, 2, 4, schedule),
                               expected);
        }
      }
  }
}

// JUDGESTAT_BUDGET_KERNEL, as cuda_tuning_from reads it, picks the variant cuda_budget_engine.cu launches
// (budget_kernel_for), and the variant launched gives the CPU engine's outcomes.
TEST(CudaCpuBudget, TheTuningsVariantIsTheKernelLaunched) {
  struct Setting {
    std::map<std::string, std::string> environment;
    BudgetKernel expected;
  };
  const std::vector<Setting> settings = {{{}, budget_kernel<1>},
                                         {{{"JUDGESTAT_BUDGET_KERNEL", "1"}}, budget_kernel<1>},
                                         {{{"JUDGESTAT_BUDGET_KERNEL", "2"}}, budget_kernel<2>},
                                         {{{"JUDGESTAT_BUDGET_KERNEL", ""}}, budget_kernel<1>}};
  const BudgetProblem problem = make_budget_problem(w2_pool(), default_grid(), true);
  BudgetRun run;
  run.k = 96;
  run.rule.rule = ThresholdRule::kLower;
  run.seed = 32;
  DrawOutcomes expected;
  make_cpu_budget_engine(problem, 1)->run(run, 5, 9, expected);
  for (const Setting& setting : settings) {
    const CudaTuning tuning = cuda_tuning_from(testing_support::fake_environment(setting.environment));
    SCOPED_TRACE("variant " + std::to_string(tuning.budget_kernel));
    EXPECT_EQ(tuning.budget_error, "");
    EXPECT_TRUE(budget_kernel_for(tuning) == setting.expected);
    expect_same_outcomes(budget_on_runtime(budget_kernel_for(tuning), problem, run, 5, 9, 2, 4, Schedule::kReverse),
                         expected);
  }
}

// ---- budget --compare ---------------------------------------------------------------------------

CompareOutcomes compare_on_runtime(const CompareProblem& problem, const CompareRun& run, uint32_t first, uint32_t count,
                                   uint32_t threads, unsigned block, Schedule schedule) {
  CompareOutcomes out;
  out.resize(count);
  std::vector<uint32_t> taken(size_t(threads) * compare_bitmap_words(static_cast<uint32_t>(problem.n_items)), 0);
  CompareArgs args{};
  args.scaled_d = problem.scaled_d.data();
  args.n_items = static_cast<uint32_t>(problem.n_items);
  args.k = run.k;
  args.scale = problem.scale;
  args.z = run.z;
  const PhiloxKey key(run.seed);
  args.key0 = key.k0;
  args.key1 = key.k1;
  args.first_draw = first;
  args.count = count;
  args.taken = taken.data();
  args.threads = threads;
  args.out_sum = out.sum.data();
  args.out_sum_sq = out.sum_sq.data();
  args.out_side = out.side.data();
  // More threads launched than args.threads: the kernel's early return runs too.
  emulation::launch({dim3((threads + block) / block), dim3(block), 0, schedule}, compare_kernel, args);
  EXPECT_EQ(std::count(taken.begin(), taken.end(), 0u), std::ptrdiff_t(taken.size())) << "bitmaps left clear";
  return out;
}

TEST(CudaCpuCompare, KernelMatchesTheCpuTwinPerDraw) {
  std::mt19937 random(3);
  for (uint32_t n : {350u, 2000u}) {
    std::vector<double> d(n);
    for (double& x : d) x = (static_cast<int>(random() % 5) - 2) / 2.0;
    const CompareProblem problem = make_compare_problem(d, 2);
    auto cpu = make_cpu_compare_engine(problem, 1);
    for (uint32_t k : {2u, 50u, n - 1}) {
      CompareRun run;
      run.k = k;
      run.seed = 99;
      CompareOutcomes expected;
      cpu->run(run, 12345, 100, expected);
      for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k) + ", " + schedule_name(schedule));
        const CompareOutcomes got = compare_on_runtime(problem, run, 12345, 100, 40, 32, schedule);
        EXPECT_EQ(got.sum, expected.sum);
        EXPECT_EQ(got.sum_sq, expected.sum_sq);
        EXPECT_EQ(got.side, expected.side);
      }
    }
  }
}

// ---- Device summaries ---------------------------------------------------------------------------

/// device_summary.cu's compute_facts with its kernels on the runtime (the mean between the two
/// rounds is taken on the host, as there).
std::vector<ReplicateFacts> facts_on_runtime(const std::vector<double>& values, uint64_t B, int32_t S,
                                             const std::vector<double>& reference, Schedule schedule) {
  const uint64_t n_blocks = (B + kSummaryBlock - 1) / kSummaryBlock, cells = n_blocks * S;
  std::vector<double> block_real(cells), real(S);
  std::vector<SummaryCount> block_a(cells), block_b(cells), a(S), b(S);
  auto grid = [](uint64_t n) { return dim3(unsigned((n + kSummaryThreads - 1) / kSummaryThreads)); };
  emulation::launch({grid(cells), dim3(kSummaryThreads), 0, schedule}, block_sums_kernel, values.data(), B, S, n_blocks,
                    block_real.data(), block_a.data());
  emulation::launch({grid(S), dim3(kSummaryThreads), 0, schedule}, add_blocks_kernel, block_real.data(), block_a.data(),
                    nullptr, n_blocks, S, real.data(), a.data(), nullptr);
  std::vector<ReplicateFacts> out(S);
  std::vector<double> mean_then_reference(2 * size_t(S));
  for (int32_t s = 0; s < S; ++s) {
    out[s].defined = a[s];
    if (a[s]) out[s].mean = canonical_nan(real[s] / static_cast<double>(a[s]));
    mean_then_reference[s] = out[s].mean;
    mean_then_reference[S + s] = reference[s];
  }
  emulation::launch({grid(cells), dim3(kSummaryThreads), 0, schedule}, block_squares_kernel, values.data(), B, S,
                    n_blocks, mean_then_reference.data(), mean_then_reference.data() + S, block_real.data(),
                    block_a.data(), block_b.data());
  emulation::launch({grid(S), dim3(kSummaryThreads), 0, schedule}, add_blocks_kernel, block_real.data(), block_a.data(),
                    block_b.data(), n_blocks, S, real.data(), a.data(), b.data());
  for (int32_t s = 0; s < S; ++s) {
    if (out[s].defined) out[s].sum_squares = canonical_nan(real[s]);
    out[s].below = a[s];
    out[s].at_or_below = b[s];
  }
  return out;
}

/// Statistic s's order statistics at `ranks`: order_keys_kernel, a sort (CUB's on a device),
/// pick_order_statistics_kernel.
std::vector<double> order_statistics_on_runtime(const std::vector<double>& values, uint64_t B, int32_t S, int32_t s,
                                                const std::vector<uint64_t>& ranks, Schedule schedule) {
  std::vector<uint64_t> keys(B);
  emulation::launch({dim3(3), dim3(kSummaryThreads), 0, schedule}, order_keys_kernel, values.data(), B, S, s,
                    keys.data());
  std::sort(keys.begin(), keys.end());
  std::vector<double> picked(2 * ranks.size());
  emulation::launch({dim3(1), dim3(kSummaryThreads), 0, schedule}, pick_order_statistics_kernel, keys.data(), B,
                    ranks.data(), static_cast<int64_t>(ranks.size()), picked.data());
  return picked;
}

TEST(CudaCpuSummaries, KernelsMatchTheHostSummaries) {
  // B = 1,000 (a short last summary block), S = 3: values with NaNs, ±0, infinities and ties.
  const uint64_t B = 1000;
  const int32_t S = 3;
  std::vector<double> values(B * S);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (uint64_t r = 0; r < B; ++r) {
    values[r * S + 0] = uniform(rng);
    values[r * S + 1] = r % 7 == 0 ? std::numeric_limits<double>::quiet_NaN() : std::round(4 * uniform(rng)) / 4;
    values[r * S + 2] = r % 2 ? 0.0 : -0.0;
  }
  values[5 * S + 0] = std::numeric_limits<double>::infinity();
  values[6 * S + 0] = -std::numeric_limits<double>::infinity();
  const std::vector<double> reference = {0.1, 0.0, 0.0};
  auto host = host_kept_replicates(values.data(), B, S);
  const std::vector<ReplicateFacts> expected = host->facts(reference);
  std::vector<OrderStatisticQuery> queries;
  for (int32_t s = 0; s < S; ++s)
    for (uint64_t rank : {uint64_t(0), uint64_t(24), uint64_t(499), expected[s].defined - 1})
      queries.push_back({s, rank});
  const std::vector<std::pair<double, double>> expected_order = host->order_statistics(queries);
  for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
    SCOPED_TRACE(schedule_name(schedule));
    const std::vector<ReplicateFacts> got = facts_on_runtime(values, B, S, reference, schedule);
    for (int32_t s = 0; s < S; ++s) {
      EXPECT_EQ(got[s].defined, expected[s].defined) << s;
      EXPECT_TRUE(same_bytes({expected[s].mean, expected[s].sum_squares}, {got[s].mean, got[s].sum_squares})) << s;
      EXPECT_EQ(got[s].below, expected[s].below) << s;
      EXPECT_EQ(got[s].at_or_below, expected[s].at_or_below) << s;
    }
    for (int32_t s = 0; s < S; ++s) {
      std::vector<uint64_t> ranks;
      std::vector<double> wanted;
      for (size_t q = 0; q < queries.size(); ++q)
        if (queries[q].statistic == s) {
          ranks.push_back(queries[q].rank);
          wanted.push_back(expected_order[q].first);
          wanted.push_back(expected_order[q].second);
        }
      EXPECT_TRUE(same_bytes(wanted, order_statistics_on_runtime(values, B, S, s, ranks, schedule))) << s;
    }
  }
}

}  // namespace
}  // namespace judgestat::cuda_cpu
