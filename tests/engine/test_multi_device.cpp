// Several devices in one process (--devices) with CPU backends standing in for GPUs: split
// backends and budget engines give the values of one, and the single-process side of
// host/distributed (one rank: shares, copies, failures rethrown as they are).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "distributed/distributed.hpp"
#include "engine/split_range.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "requests/text_lists.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::two_strata_plan;
using judgestat::testing_support::two_strata_pool;

namespace {

std::vector<std::unique_ptr<Backend>> cpu_parts(int n, uint64_t max_chunk) {
  std::vector<std::unique_ptr<Backend>> parts;
  for (int p = 0; p < n; ++p) parts.push_back(make_cpu_backend(1, max_chunk));
  return parts;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

// `judgestat ARGS`: exit code and stdout with stderr.
std::pair<int, std::string> run_cli(const std::string& args) {
  FILE* pipe = popen((judgestat::testing_support::kBinary + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

// A stand-in for a device that runs out of memory.
class FailingBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string device() const override { return "failing"; }
  uint64_t max_chunk(const CompiledPlan&) const override { return 1000; }
  void run_replicates(const CompiledPlan&, uint64_t, uint64_t, uint64_t, double*) override { throw std::bad_alloc(); }
};

}  // namespace

// The one range arithmetic of the split backend, the split budget engine and the CPU engine's
// threads: contiguous, in order, covering [0, count), sizes within one of each other.
TEST(SplitRange, PartsAreContiguousAndEven) {
  for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000}, uint64_t{1} << 33}) {
    for (uint64_t parts : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{8}}) {
      uint64_t next = 0, smallest = UINT64_MAX, largest = 0;
      for (uint64_t p = 0; p < parts; ++p) {
        const SplitRange range = split_range(count, p, parts);
        EXPECT_EQ(range.begin, next) << count << " " << parts << " " << p;
        next = range.end;
        smallest = std::min(smallest, range.size());
        largest = std::max(largest, range.size());
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(largest - smallest, 1u);
    }
  }
  EXPECT_TRUE(split_range(1, 0, 2).empty());
}

// make_budget_engine: the CPU engine of a CPU target; a CPU target naming devices is refused.
TEST(ExecTargetBudget, CpuTargetMakesTheCpuEngine) {
  const BudgetProblem problem = make_budget_problem(two_strata_pool(), default_grid(), true);
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 3;
  const auto engine = make_budget_engine(problem, target);
  EXPECT_EQ(engine->name(), "cpu");
  EXPECT_EQ(engine->device(), "3 threads");
  target.devices = {0};
  EXPECT_THROW(make_budget_engine(problem, target), std::invalid_argument);
}

TEST(SplitBackend, ValuesEqualOneBackendForAnyRange) {
  const CompiledPlan plan = compile(two_strata_plan());
  const int32_t S = plan.n_statistics;
  auto single = make_cpu_backend(1);
  auto split = make_split_backend(cpu_parts(3, 7));
  EXPECT_EQ(split->name(), "cpu");
  EXPECT_EQ(split->device(), "3 × 1 thread");
  EXPECT_EQ(split->max_chunk(plan), 21u);
  for (const auto& [first, count] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 21}, {5, 2}, {1000, 20}, {77, 1}}) {
    std::vector<double> expected(count * S), got(count * S);
    single->run_replicates(plan, 9, first, count, expected.data());
    split->run_replicates(plan, 9, first, count, got.data());
    EXPECT_TRUE(same_bits(got, expected)) << "replicates [" << first << ", " << first + count << ")";
  }
}

TEST(SplitBackend, BootstrapEqualsOneBackend) {
  const Plan plan = two_strata_plan();
  BootstrapOptions options;
  options.replicates = 1001;
  options.seed = 4;
  options.keep_replicates = true;
  auto single = make_cpu_backend(2);
  auto split = make_split_backend(cpu_parts(2, 50));
  const BootstrapResult expected = run_bootstrap(plan, *single, options);
  const BootstrapResult got = run_bootstrap(plan, *split, options);
  EXPECT_TRUE(same_bits(got.replicates, expected.replicates));
  ASSERT_EQ(got.intervals.size(), expected.intervals.size());
  for (size_t s = 0; s < got.intervals.size(); ++s) {
    EXPECT_EQ(got.intervals[s].lo, expected.intervals[s].lo);
    EXPECT_EQ(got.intervals[s].hi, expected.intervals[s].hi);
    EXPECT_EQ(got.intervals[s].se, expected.intervals[s].se);
  }
}

TEST(SplitBackend, PartFailureReachesTheCaller) {
  std::vector<std::unique_ptr<Backend>> parts = cpu_parts(2, 100);
  parts.push_back(std::make_unique<FailingBackend>());
  auto split = make_split_backend(std::move(parts));
  EXPECT_EQ(split->device(), "1 thread + 1 thread + failing");
  const CompiledPlan plan = compile(two_strata_plan());
  std::vector<double> out(30 * plan.n_statistics);
  EXPECT_THROW(split->run_replicates(plan, 1, 0, 30, out.data()), std::bad_alloc);
  EXPECT_THROW(make_split_backend({}), std::invalid_argument);
}

TEST(SplitBudgetEngine, OutcomesEqualOneEngine) {
  const CascadePool pool = two_strata_pool();
  for (bool per_stratum : {false, true}) {
    const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
    std::vector<std::unique_ptr<BudgetEngine>> parts;
    for (int p = 0; p < 3; ++p) parts.push_back(make_cpu_budget_engine(problem, 1));
    auto split = make_split_budget_engine(problem, std::move(parts));
    auto single = make_cpu_budget_engine(problem, 1);
    EXPECT_EQ(split->device(), "3 × 1 thread");
    BudgetRun run;
    run.k = 12;
    run.rule.rule = ThresholdRule::kLower;
    for (const auto& [first, count] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 1000}, {123, 2}, {7, 1}}) {
      DrawOutcomes expected, got;
      single->run(run, first, count, expected);
      split->run(run, first, count, got);
      EXPECT_EQ(got.heldout_2d, expected.heldout_2d);
      EXPECT_EQ(got.chosen, expected.chosen);
      EXPECT_TRUE(same_bits(got.fee_ratio, expected.fee_ratio));
    }
    const BudgetSummary a = simulate_budget(*single, problem, run, 5000);
    const BudgetSummary b = simulate_budget(*split, problem, run, 5000);
    EXPECT_EQ(a.delta_hist, b.delta_hist);
    EXPECT_EQ(a.tau_hist, b.tau_hist);
    EXPECT_EQ(a.fee_ratio_median, b.fee_ratio_median);
  }
}

TEST(Devices, ListsParseAndBadOnesAreUsageErrors) {
  EXPECT_EQ(parse_device_list("0,1,3"), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(parse_device_list("2"), std::vector<int>{2});
  for (const char* bad : {"", "a", "-1", "1,,2", "0,", "1.5", "9999999"})
    EXPECT_THROW(parse_device_list(bad), UsageError) << bad;
  if (!cuda_available()) {
    ExecTarget two;
    two.kind = ExecTarget::Kind::kCuda;
    two.devices = {0, 1};
    EXPECT_THROW(make_backend(two), std::invalid_argument);
    EXPECT_EQ(default_cuda_device(), 0);
  }
  const std::string file = judgestat::testing_support::kRoot + "/data/judgebench/gpt4o_split.csv";
  const auto listed = run_cli("metrics " + file + " --backend cuda:x --quiet");
  EXPECT_EQ(listed.first, 2) << listed.second;
  EXPECT_NE(listed.second.find("--devices: 'x' is not a device number"), std::string::npos) << listed.second;
  const auto unknown = run_cli("metrics " + file + " --backend gpu --quiet");
  EXPECT_EQ(unknown.first, 2) << unknown.second;
  EXPECT_NE(unknown.second.find("--backend: expected auto, cpu, cuda or cuda:DEVICES"), std::string::npos)
      << unknown.second;
}

TEST(Devices, CliRejectsDevicesWithTheCpuBackend) {
  const std::string file = judgestat::testing_support::kRoot + "/data/judgebench/gpt4o_split.csv";
  auto [status, out] = run_cli("metrics " + file + " --backend cpu --devices 0 --quiet");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("--devices"), std::string::npos) << out;
  std::tie(status, out) = run_cli("metrics " + file + " --devices 0,x --quiet");
  EXPECT_EQ(status, 2) << out;
  std::tie(status, out) = run_cli("budget " + file +
                                  " --first Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12 "
                                  "--backend cpu --devices 0 --quiet");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("--devices"), std::string::npos) << out;
}

TEST(OneRank, CollectivesAreLocal) {
  namespace distributed = judgestat::distributed;
  EXPECT_EQ(distributed::rank(), 0);
  EXPECT_EQ(distributed::size(), 1);
  EXPECT_EQ(distributed::my_share(10).first, 0u);
  EXPECT_EQ(distributed::my_share(10).count, 10u);
  EXPECT_EQ(distributed::run_progress(3, 10, 10), 3u);

  // Shares of 10 among 3 ranks: 3, 3, 4 in order, covering everything.
  uint64_t next = 0;
  for (int r = 0; r < 3; ++r) {
    const distributed::Range range = distributed::share(10, r, 3);
    EXPECT_EQ(range.first, next);
    EXPECT_EQ(range.count, r == 2 ? 4u : 3u);
    next += range.count;
  }
  EXPECT_EQ(distributed::share(2, 0, 3).count, 0u);  // more ranks than items: some get none

  const std::vector<double> local = {1.5, 2.5, 3.5};
  std::vector<double> gathered(3);
  distributed::gather_to_root(local.data(), 3, gathered.data(), 3);
  EXPECT_EQ(gathered, local);
  EXPECT_THROW(distributed::gather_to_root(local.data(), 3, gathered.data(), 2), std::logic_error);

  EXPECT_NO_THROW(distributed::agree_on_failure(nullptr));
  // One process: the failure comes back as it was thrown.
  EXPECT_THROW(distributed::fail_together([] { throw InputError("bad line"); }), InputError);
  const auto report = distributed::describe_failure(std::make_exception_ptr(InputError("x.csv:3: no verdict")));
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_EQ(report.message, "bad input: x.csv:3: no verdict");
  EXPECT_EQ(distributed::describe_failure(std::make_exception_ptr(UsageError("--k"))).exit_code, 2);
  EXPECT_EQ(distributed::describe_failure(std::make_exception_ptr(std::bad_alloc())).message, "error: std::bad_alloc");
}
