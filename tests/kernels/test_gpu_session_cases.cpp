// Small CUDA cases for the first GPU session (bench/gpu_session.sh): the sanitizers
// (racecheck, synccheck, memcheck) multiply a kernel's run time by 10-100x, so they get these
// cases instead of the full CudaBackend / BudgetDeterminism suites, which would hit their caps.
// Each still compares every value with the CPU backend bit for bit. Also two backends or budget
// engines on one device (cuda:0,0), so that --devices is exercised on a machine with one GPU.
// Every test skips, saying why, where no usable CUDA device exists.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "engine/fake_environment.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"
#include "w2_pool.hpp"
#ifdef JUDGESTAT_HAVE_CUDA
#include "kernels/bootstrap/cuda_backend_paths.hpp"
#endif

namespace judgestat {
namespace {

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

using testing_support::fake_environment;
using testing_support::w2_pool;

void expect_same_outcomes(const DrawOutcomes& got, const DrawOutcomes& expected) {
  EXPECT_EQ(got.heldout_2d, expected.heldout_2d);
  EXPECT_EQ(got.heldout_escalated, expected.heldout_escalated);
  EXPECT_EQ(got.chosen, expected.chosen);
  EXPECT_TRUE(same_bits(got.fee_ratio, expected.fee_ratio));
}

// A plan with two strata, a real and a count column, and a rank term with ties (AUROC's 2U):
// every kernel phase of both bootstrap paths in a few microseconds.
Plan ranked_plan() {
  Plan plan = testing_support::two_strata_plan();
  std::vector<int32_t> units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (int32_t u = 0; u < static_cast<int32_t>(plan.n_units()); ++u) {
    units.push_back(u);
    scores.push_back(static_cast<double>((u * 7) % 5));  // five tie groups
    positive.push_back(u % 3 == 0 ? 1 : 0);
  }
  const int32_t term = plan.add_rank_term(units, scores, positive);
  StatisticDef twice_u;
  twice_u.label.name = "twice_u";
  twice_u.program = {{OpCode::kRank, term}};
  plan.statistics.push_back(twice_u);
  return plan;
}

#ifdef JUDGESTAT_HAVE_CUDA  // used only by the switch test, which needs the CUDA paths
// A W1-sized plan: 5,000 clusters in two strata (158 k steps of the tile product, so the
// prefetch groups are full), a count and two real columns (several byte planes), a rank term.
Plan five_thousand_cluster_plan() {
  Plan plan = testing_support::plan_with_strata({3000, 2000});
  for (int32_t c = 0; c < 5000; ++c)
    for (int u = 0; u < 1 + c % 2; ++u) plan.unit_cluster.push_back(c);
  const auto n_units = static_cast<int32_t>(plan.n_units());
  const int32_t n = plan.add_column("n"), correct = plan.add_column("correct"), conf = plan.add_column("conf");
  std::vector<int32_t> units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (int32_t u = 0; u < n_units; ++u) {
    plan.columns[n][u] = 1.0;
    plan.columns[correct][u] = (u * 7) % 4 != 0;
    plan.columns[conf][u] = 0.001 * ((u * 389) % 1000);
    units.push_back(u);
    scores.push_back(static_cast<double>((u * 13) % 17));
    positive.push_back(plan.columns[correct][u] == 0.0);
  }
  const int32_t term = plan.add_rank_term(units, scores, positive);
  for (auto [name, program] : {std::pair<const char*, std::vector<Op>>{"acc", ratio_program(correct, n)},
                               {"conf", ratio_program(conf, n)},
                               {"gap", difference_program(ratio_program(correct, n), ratio_program(conf, n))},
                               {"twice_u", {{OpCode::kRank, term}}}}) {
    StatisticDef stat;
    stat.label.name = name;
    stat.program = program;
    plan.statistics.push_back(stat);
  }
  return plan;
}
#endif

}  // namespace

// The performance switches (bench/NOTES.md) turned on, one at a time: both kernel paths still
// give the CPU's bits (their logic is also emulated on the host: test_kernel_emulation.cpp).
TEST(CudaSession, PerformanceSwitchesKeepTheCpuBits) {
  REQUIRE_CUDA();
#ifdef JUDGESTAT_HAVE_CUDA
  for (const Plan& source : {ranked_plan(), five_thousand_cluster_plan()}) {
    const CompiledPlan plan = compile(source);
    const int32_t S = plan.n_statistics;
    const uint64_t count = 64, first = 4242;
    std::vector<double> expected(count * S);
    make_cpu_backend(2)->run_replicates(plan, 8, first, count, expected.data());
    for (const char* name : {"JUDGESTAT_TILE_PREFETCH", "JUDGESTAT_TILE_SHARED_PROGRAM", "JUDGESTAT_GATHER_ROWS"})
      for (CudaKernelPath path : {CudaKernelPath::kMultiplicityTile, CudaKernelPath::kGather}) {
        auto gpu = make_cuda_backend_with_path(0, 0, path, cuda_tuning_from(fake_environment({{name, "1"}})));
        std::vector<double> got(count * S, -1.0);
        gpu->run_replicates(plan, 8, first, count, got.data());
        EXPECT_TRUE(same_bits(got, expected)) << name << ", " << (path == CudaKernelPath::kGather ? "gather" : "tile")
                                              << ", " << plan.n_clusters << " clusters";
      }
  }
  // A mistyped switch is an error, not the default.
  EXPECT_THROW(make_cuda_backend(0, 0, cuda_tuning_from(fake_environment({{"JUDGESTAT_TILE_PREFETCH", "yes"}}))),
               std::runtime_error);
#endif
}

// The sanitizers' budget case: k in {7, 96}, 200 draws, both kernel variants, pooled and per
// stratum, both rules: 16 short launches against the CPU engine.
TEST(BudgetDeterminism, CudaMatchesCpuSmall) {
  REQUIRE_CUDA();
  const CascadePool pool = w2_pool();
  for (const char* variant : {"1", "2"})
    for (bool per_stratum : {false, true}) {
      const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
      auto cpu = make_cpu_budget_engine(problem, 0);
      auto cuda = make_cuda_budget_engine(problem, 0,
                                          cuda_tuning_from(fake_environment({{"JUDGESTAT_BUDGET_KERNEL", variant}})));
      for (uint32_t k : {7u, 96u})
        for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
          BudgetRun run;
          run.k = k;
          run.rule.rule = rule;
          run.seed = 31;
          DrawOutcomes expected, got;
          cpu->run(run, 777, 200, expected);
          cuda->run(run, 777, 200, got);
          SCOPED_TRACE(std::string("kernel ") + variant + ", k " + std::to_string(k) + " " + rule_name(rule) +
                       (per_stratum ? " per stratum" : ""));
          expect_same_outcomes(got, expected);
          // The engine timed its kernel with CUDA events (bench w2's kernel-only rate).
          EXPECT_GT(cuda->kernel_seconds(), 0.0);
        }
    }
}

// Two budget engines on one device (--devices 0,0): each takes half of every run's draws.
TEST(BudgetDeterminism, CudaTwoEnginesOnOneDeviceMatchCpu) {
  REQUIRE_CUDA();
  const CascadePool pool = w2_pool();
  const BudgetProblem problem = make_budget_problem(pool, default_grid(), true);
  auto cpu = make_cpu_budget_engine(problem, 0);
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCuda;
  target.devices = {0, 0};
  auto split = make_budget_engine(problem, target);
  EXPECT_EQ(split->name(), "cuda");
  EXPECT_EQ(split->device().rfind("2 × ", 0), 0u) << split->device();
  BudgetRun run;
  run.k = 96;
  run.rule.rule = ThresholdRule::kLower;
  for (const auto& [first, count] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 3001}, {4000, 1}}) {
    DrawOutcomes expected, got;
    cpu->run(run, first, count, expected);
    split->run(run, first, count, got);
    SCOPED_TRACE("draws " + std::to_string(first) + " + " + std::to_string(count));
    expect_same_outcomes(got, expected);
  }
  const BudgetSummary a = simulate_budget(*cpu, problem, run, 5000);
  const BudgetSummary b = simulate_budget(*split, problem, run, 5000);
  EXPECT_EQ(a.delta_hist, b.delta_hist);
  EXPECT_EQ(a.tau_hist, b.tau_hist);
  EXPECT_EQ(std::memcmp(&a.fee_ratio_median, &b.fee_ratio_median, sizeof(double)), 0);
}

// The sanitizers' bootstrap case: both kernel paths on a small stratified plan with a rank
// term, 40 replicates from a first replicate that is not 0, in chunks of 7 and whole.
TEST(CudaSession, SmallPlanOnBothPathsMatchesCpu) {
  REQUIRE_CUDA();
#ifdef JUDGESTAT_HAVE_CUDA
  const CompiledPlan plan = compile(ranked_plan());
  ASSERT_EQ(plan.n_rank_terms, 1);
  const int32_t S = plan.n_statistics;
  const uint64_t count = 40, first = 1001;
  std::vector<double> expected(count * S);
  make_cpu_backend(1)->run_replicates(plan, 11, first, count, expected.data());
  for (CudaKernelPath path : {CudaKernelPath::kMultiplicityTile, CudaKernelPath::kGather})
    for (uint64_t chunk : {uint64_t(7), uint64_t(0)}) {
      auto gpu = make_cuda_backend_with_path(0, chunk, path);
      std::vector<double> got(count * S, -1.0);
      for (uint64_t done = 0; done < count;) {
        const uint64_t n = std::min<uint64_t>(chunk ? chunk : count, count - done);
        gpu->run_replicates(plan, 11, first + done, n, got.data() + done * S);
        done += n;
      }
      EXPECT_TRUE(same_bits(got, expected))
          << (path == CudaKernelPath::kGather ? "gather" : "tile") << ", chunk " << chunk;
    }
#endif
}

// JUDGESTAT_DEVICE_SUMMARIES=0 in the target's tuning: the backend declines to keep the values,
// so the intervals summarise on the host (distributed::run_replicates_kept_everywhere).
TEST(CudaSession, DeviceSummariesOffKeepsNothingOnTheDevice) {
  REQUIRE_CUDA();
  const CompiledPlan plan = compile(ranked_plan());
  auto on = make_cuda_backend(0, 0, cuda_tuning_from(fake_environment({})));
  EXPECT_NE(on->run_replicates_kept(plan, 3, 1000), nullptr);
  auto off = make_cuda_backend(0, 0, cuda_tuning_from(fake_environment({{"JUDGESTAT_DEVICE_SUMMARIES", "0"}})));
  EXPECT_EQ(off->run_replicates_kept(plan, 3, 1000), nullptr);
}

// The sanitizers' device-summary case (memcheck): a few thousand kept replicates summarised on
// the device, against the host's summary of the same values; with JUDGESTAT_SUMMARY_REUSE off
// and on (then two stores in turn share the backend's working buffers, the second B larger).
TEST(CudaSession, SmallDeviceSummariesMatchHost) {
  REQUIRE_CUDA();
  const CompiledPlan plan = compile(ranked_plan());
  const int32_t S = plan.n_statistics;
  for (const char* reuse : {"0", "1"}) {
    auto gpu = make_cuda_backend(0, 0, cuda_tuning_from(fake_environment({{"JUDGESTAT_SUMMARY_REUSE", reuse}})));
    for (uint64_t B : {uint64_t(3001), uint64_t(5003)}) {  // 12 and 20 summary blocks, the last partial
      std::vector<double> values(B * S);
      make_cpu_backend(1)->run_replicates(plan, 3, 0, B, values.data());
      auto host = host_kept_replicates(values.data(), B, S);
      auto device = gpu->run_replicates_kept(plan, 3, B);
      ASSERT_NE(device, nullptr);
      SCOPED_TRACE(std::string("reuse ") + reuse + ", B " + std::to_string(B));
      std::vector<double> reference(values.begin() + 2 * S, values.begin() + 3 * S);
      const auto want = host->facts(reference), got = device->facts(reference);
      std::vector<OrderStatisticQuery> queries;
      for (int32_t s = 0; s < S; ++s) {
        EXPECT_EQ(got[s].defined, want[s].defined) << s;
        EXPECT_EQ(std::memcmp(&got[s].mean, &want[s].mean, sizeof(double)), 0) << s;
        EXPECT_EQ(std::memcmp(&got[s].sum_squares, &want[s].sum_squares, sizeof(double)), 0) << s;
        EXPECT_EQ(got[s].below, want[s].below) << s;
        EXPECT_EQ(got[s].at_or_below, want[s].at_or_below) << s;
        for (uint64_t rank : {uint64_t(0), want[s].defined / 3, want[s].defined - 1})
          if (rank < want[s].defined) queries.push_back({s, rank});
      }
      ASSERT_FALSE(queries.empty());
      for (int call = 0; call < 2; ++call) {  // the second call meets buffers already there
        const auto host_pairs = host->order_statistics(queries), device_pairs = device->order_statistics(queries);
        for (size_t i = 0; i < queries.size(); ++i)
          EXPECT_TRUE(std::memcmp(&host_pairs[i], &device_pairs[i], sizeof host_pairs[i]) == 0)
              << "call " << call << " stat " << queries[i].statistic << " rank " << queries[i].rank;
      }
    }
  }
}

// Two backends on one device (--devices 0,0): the split backend's values and a whole
// bootstrap equal the CPU's.
TEST(CudaSession, TwoBackendsOnOneDeviceMatchCpu) {
  REQUIRE_CUDA();
  const Plan source = ranked_plan();
  const CompiledPlan plan = compile(source);
  const int32_t S = plan.n_statistics;
  auto cpu = make_cpu_backend(2);
  ExecTarget two_on_one;
  two_on_one.kind = ExecTarget::Kind::kCuda;
  two_on_one.devices = {0, 0};
  auto split = make_backend(two_on_one);
  EXPECT_EQ(split->name(), "cuda");
  EXPECT_EQ(split->device().rfind("2 × ", 0), 0u) << split->device();
  for (const auto& [first, count] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 1001}, {77, 1}}) {
    std::vector<double> expected(count * S), got(count * S, -1.0);
    cpu->run_replicates(plan, 9, first, count, expected.data());
    split->run_replicates(plan, 9, first, count, got.data());
    EXPECT_TRUE(same_bits(got, expected)) << "replicates " << first << " + " << count;
  }
  BootstrapOptions options;
  options.replicates = 2001;
  options.seed = 4;
  const BootstrapResult want = run_bootstrap(source, *cpu, options);
  const BootstrapResult got = run_bootstrap(source, *split, options);
  ASSERT_EQ(got.intervals.size(), want.intervals.size());
  for (size_t s = 0; s < got.intervals.size(); ++s) {
    EXPECT_EQ(std::memcmp(&got.intervals[s].lo, &want.intervals[s].lo, sizeof(double)), 0) << s;
    EXPECT_EQ(std::memcmp(&got.intervals[s].hi, &want.intervals[s].hi, sizeof(double)), 0) << s;
    EXPECT_EQ(std::memcmp(&got.intervals[s].se, &want.intervals[s].se, sizeof(double)), 0) << s;
  }
}

// bench w2's kernel-only rate (CUDA events around each budget launch) is absent where no
// kernel runs: null in the JSON, no column in the text.
TEST(BenchW2, NoKernelOnlyRateOnTheCpu) {
  const std::string args = "bench w2 --items 300 -k 16 --draws 3000 --backend cpu --warmup 0 --repeats 1";
  testing_support::CliRun r = testing_support::run_cli(args + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["kernel_draws_per_s"].is_null()) << r.out;
  EXPECT_TRUE(j["measurements"][0]["kernel_draws_per_s"].is_null()) << r.out;
  EXPECT_GT(j["draws_per_s"].get<double>(), 0);
  r = testing_support::run_cli(args);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("kernel only"), std::string::npos) << r.out;
}

// On a GPU the kernel's time is part of the end-to-end time, so its rate is the higher one.
TEST(CudaSession, BenchW2ReportsTheKernelOnlyRate) {
  REQUIRE_CUDA();
  const std::string args = "bench w2 --items 400 -k 16 --draws 200000 --backend cuda --warmup 0 --repeats 1";
  testing_support::CliRun r = testing_support::run_cli(args + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["kernel_draws_per_s"].is_number()) << r.out;
  EXPECT_GT(j["kernel_draws_per_s"].get<double>(), j["draws_per_s"].get<double>()) << r.out;
  r = testing_support::run_cli(args);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("kernel only"), std::string::npos) << r.out;
}

}  // namespace judgestat
