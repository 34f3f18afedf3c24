// host/distributed and the two drivers on several MPI ranks (ctest runs this binary under
// `mpirun -n 3`; any rank count works): chunked gathers in rank order, broadcasts and sums,
// failure agreement naming the failing rank, and run_bootstrap / simulate_budget / simulate_compare giving every
// rank exactly the one-process result. Every rank runs every test; collectives come before any
// ASSERT so that a failing check cannot leave the other ranks waiting.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "../test_plans.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "distributed/distributed.hpp"
#include "distributed/rank_replicates.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/records.hpp"

using namespace judgestat;
using judgestat::testing_support::two_strata_plan;
using judgestat::testing_support::two_strata_pool;
namespace distributed = judgestat::distributed;

namespace {

bool same_bits(const double* x, const double* y, size_t n) { return std::memcmp(x, y, n * sizeof(double)) == 0; }

// The CPU backend, except on one rank, which runs out of memory (a device that fails).
class OutOfMemoryOnRank final : public Backend {
 public:
  explicit OutOfMemoryOnRank(int failing_rank) : failing_rank_(failing_rank), cpu_(make_cpu_backend(1)) {}
  std::string name() const override { return "cpu"; }
  std::string device() const override { return cpu_->device(); }
  uint64_t max_chunk(const CompiledPlan& plan) const override { return cpu_->max_chunk(plan); }
  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) override {
    if (distributed::rank() == failing_rank_) throw std::bad_alloc();
    cpu_->run_replicates(plan, seed, first, count, out);
  }

 private:
  int failing_rank_;
  std::unique_ptr<Backend> cpu_;
};

}  // namespace

TEST(Ranks, GatherConcatenatesInRankOrder) {
  // Rank r holds r + 2 doubles numbered by their place in the whole.
  const int P = distributed::size(), r = distributed::rank();
  const uint64_t before = static_cast<uint64_t>(r) * (r + 3) / 2;  // Σ_{q<r} (q + 2)
  std::vector<double> local(r + 2);
  std::iota(local.begin(), local.end(), static_cast<double>(before));
  const uint64_t total = static_cast<uint64_t>(P) * (P + 3) / 2;
  std::vector<double> gathered(distributed::is_root() ? total : 0);
  distributed::gather_to_root(local.data(), local.size(), gathered.data(), gathered.size());
  for (uint64_t i = 0; i < gathered.size(); ++i) EXPECT_EQ(gathered[i], static_cast<double>(i));
}

TEST(Ranks, GatherSplitsMessagesAboveTheBound) {
  // Every rank but 0 sends more bytes than one message may carry.
  const uint64_t big = distributed::kMaxMessageBytes + 3;
  const int P = distributed::size(), r = distributed::rank();
  std::vector<uint8_t> local(r == 0 ? 1 : big, static_cast<uint8_t>(r + 1));
  const uint64_t total = 1 + (P - 1) * big;
  std::vector<uint8_t> gathered(distributed::is_root() ? total : 0);
  distributed::gather_to_root(local.data(), local.size(), gathered.data(), gathered.size());
  if (distributed::is_root()) {
    EXPECT_EQ(gathered[0], 1);
    for (int q = 1; q < P; ++q) {
      const uint64_t at = 1 + (q - 1) * big;
      EXPECT_EQ(gathered[at], q + 1);
      EXPECT_EQ(gathered[at + big - 1], q + 1);
    }
  }
}

TEST(Ranks, BroadcastAndSum) {
  const int P = distributed::size(), r = distributed::rank();
  std::vector<double> values = {r == 0 ? 0.25 : -1.0, r == 0 ? 1e300 : 0.0};
  distributed::broadcast_from_root(values.data(), values.size());
  EXPECT_EQ(values, (std::vector<double>{0.25, 1e300}));
  std::vector<uint64_t> counts = {1, static_cast<uint64_t>(r)};
  distributed::sum_to_root(counts.data(), counts.size());
  if (distributed::is_root()) {
    EXPECT_EQ(counts, (std::vector<uint64_t>{static_cast<uint64_t>(P), uint64_t(P) * (P - 1) / 2}));
  }
}

TEST(Ranks, FailureAgreementNamesTheLowestFailingRank) {
  const int P = distributed::size(), r = distributed::rank();
  EXPECT_NO_THROW(distributed::fail_together([] {}));
  if (P == 1) GTEST_SKIP() << "needs two ranks or more";
  // The last rank fails: every rank learns it, with its message and exit code.
  std::string seen;
  int exit_code = 0, failed = -1;
  try {
    distributed::fail_together([&] {
      if (r == P - 1) throw InputError("x.csv:7: no verdict column");
    });
  } catch (const distributed::RankFailure& e) {
    seen = e.what();
    exit_code = e.exit_code();
    failed = e.failed_rank();
  }
  EXPECT_EQ(failed, P - 1);
  EXPECT_EQ(exit_code, 3);
  EXPECT_EQ(seen,
            "rank " + std::to_string(P - 1) + " of " + std::to_string(P) + ": bad input: x.csv:7: no verdict column");
  // Every rank but 0 fails: rank 1 is named.
  failed = -1;
  try {
    distributed::fail_together([&] {
      if (r > 0) throw std::runtime_error("device " + std::to_string(r) + " lost");
    });
  } catch (const distributed::RankFailure& e) {
    failed = e.failed_rank();
    seen = e.what();
    exit_code = e.exit_code();
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(exit_code, 1);
  EXPECT_EQ(seen, "rank 1 of " + std::to_string(P) + ": error: device 1 lost");
}

TEST(Ranks, BootstrapEqualsOneProcess) {
  const Plan plan = two_strata_plan();
  const CompiledPlan compiled = compile(plan);
  const int32_t S = compiled.n_statistics;
  std::vector<StatLabel> labels;
  for (const auto& stat : plan.statistics) labels.push_back(stat.label);
  for (CiMethod ci : {CiMethod::kPercentile, CiMethod::kBca}) {
    BootstrapOptions options;
    options.replicates = 1001;  // not a multiple of the rank count
    options.seed = 77;
    options.ci = ci;
    options.keep_replicates = true;
    auto backend = make_cpu_backend(1, 64);  // several chunks per rank
    const BootstrapResult got = run_bootstrap(compiled, labels, *backend, options);

    // One process's result, computed here from every replicate.
    std::vector<double> values(options.replicates * S);
    backend->run_replicates(compiled, options.seed, 0, options.replicates, values.data());
    ASSERT_EQ(got.replicates.size(), values.size());
    EXPECT_TRUE(same_bits(got.replicates.data(), values.data(), values.size()));
    ASSERT_EQ(got.intervals.size(), static_cast<size_t>(S));
    const std::vector<JackknifeValues> jack = jackknife(compiled);
    for (int32_t s = 0; s < S; ++s) {
      std::vector<double> column;
      for (uint64_t rep = 0; rep < options.replicates; ++rep) column.push_back(values[rep * S + s]);
      std::vector<double> extras = point_extras(compiled);
      extras.push_back(0.0);
      const double estimate =
          evaluate(compiled.ops.data() + compiled.op_offset[s], compiled.op_offset[s + 1] - compiled.op_offset[s],
                   compiled.totals.data(), compiled.column_unscale.data(), extras.data());
      const Interval expected = summarize(estimate, column, ci, options.level, &jack[s]);
      const Interval& interval = got.intervals[s];
      const double a[] = {interval.estimate, interval.lo, interval.hi, interval.se};
      const double b[] = {expected.estimate, expected.lo, expected.hi, expected.se};
      EXPECT_TRUE(same_bits(a, b, 4)) << "statistic " << s << " on rank " << distributed::rank();
      EXPECT_EQ(interval.undefined, expected.undefined);
    }
  }
}

TEST(Ranks, BootstrapFailsOnEveryRankWhenOneRunsOutOfMemory) {
  const int P = distributed::size();
  if (P == 1) GTEST_SKIP() << "needs two ranks or more";
  OutOfMemoryOnRank backend(1);
  BootstrapOptions options;
  options.replicates = 500;
  std::string seen;
  bool returned = false;
  try {
    run_bootstrap(two_strata_plan(), backend, options);
    returned = true;
  } catch (const distributed::RankFailure& e) {
    seen = e.what();
  }
  EXPECT_FALSE(returned) << "no rank may return a result";
  EXPECT_EQ(seen, "rank 1 of " + std::to_string(P) + ": error: std::bad_alloc");
}

TEST(Ranks, SignFlipCountsEqualOneProcess) {
  // Each rank counts its share of the replicates; the summed counts, and so perm_p, are one
  // process's on every rank.
  const testing_support::PairedCase paired = testing_support::paired_case(200, 17);
  const CompiledPlan compiled = compile(paired.plan);
  const uint64_t B = 1001, seed = 0x5eed00000001ull;  // B not a multiple of the rank count
  auto backend = make_cpu_backend(1);
  const std::vector<uint64_t> got = distributed::count_sign_flip_exceedances_everywhere(*backend, compiled, seed, B);
  BootstrapOptions options;
  options.replicates = B;
  options.seed = seed;
  const BootstrapResult result = run_bootstrap(paired.plan, *backend, options);
  const std::vector<uint64_t> one_process = count_sign_flip_exceedances_on_host(compiled, seed, 0, B, 1);
  EXPECT_EQ(got, one_process) << "rank " << distributed::rank();
  ASSERT_EQ(one_process.size(), 2u);
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(one_process[t], testing_support::reference_exceedances(paired.d[t], seed, 0, B));
    EXPECT_EQ(result.intervals[t + 1].perm_p, (1.0 + one_process[t]) / (1.0 + B)) << "rank " << distributed::rank();
  }
}

TEST(Ranks, BudgetEqualsOneProcess) {
  const CascadePool pool = two_strata_pool();
  for (bool per_stratum : {false, true}) {
    const BudgetProblem problem = make_budget_problem(pool, default_grid(), per_stratum);
    auto engine = make_cpu_budget_engine(problem, 1);
    BudgetRun run;
    run.k = 10;
    run.rule.rule = ThresholdRule::kLower;
    run.seed = 5;
    const uint64_t draws = 10007;
    const BudgetSummary got = simulate_budget(*engine, problem, run, draws);

    // One process's summary, from every draw on this rank alone.
    DrawOutcomes outcomes;
    engine->run(run, 0, static_cast<uint32_t>(draws), outcomes);
    BudgetSummarizer summarizer(problem, run, draws);
    summarizer.add(outcomes, 0, static_cast<uint32_t>(draws));
    const BudgetSummary expected = summarizer.finish();
    EXPECT_EQ(got.draws, expected.draws);
    EXPECT_EQ(got.delta_hist, expected.delta_hist);
    EXPECT_EQ(got.tau_hist, expected.tau_hist);
    EXPECT_EQ(got.fee_ratio_undefined, expected.fee_ratio_undefined);
    EXPECT_EQ(got.escalated_hist, expected.escalated_hist);
    const double a[] = {got.loss_share,         got.delta_mean,       got.delta_q[0],      got.delta_q[1],
                        got.delta_q[2],         got.fee_ratio_median, got.fee_ratio_q[0],  got.fee_ratio_q[2],
                        got.escalate_all_share, got.delta_p10,        got.escalated_median};
    const double b[] = {expected.loss_share,     expected.delta_mean,      expected.delta_q[0],
                        expected.delta_q[1],     expected.delta_q[2],      expected.fee_ratio_median,
                        expected.fee_ratio_q[0], expected.fee_ratio_q[2],  expected.escalate_all_share,
                        expected.delta_p10,      expected.escalated_median};
    EXPECT_TRUE(same_bits(a, b, 11)) << "rank " << distributed::rank() << (per_stratum ? ", per stratum" : "");
  }
}

// `budget --compare` (docs/statistics.md §7.6) over the ranks: every rank returns one process's summary.
TEST(Ranks, CompareEqualsOneProcess) {
  std::vector<double> d;
  for (int i = 0; i < 60; ++i) d.push_back(i % 5 == 0 ? -1.0 : i % 3 == 0 ? 0.5 : i % 4 == 0 ? 1.0 : 0.0);
  const CompareProblem problem = make_compare_problem(d, 2);
  auto engine = make_cpu_compare_engine(problem, 1);
  CompareRun run;
  run.k = 12;
  run.seed = 8;
  const uint64_t draws = 10007;
  const CompareSummary got = simulate_compare(*engine, problem, run, draws);

  CompareOutcomes outcomes;
  engine->run(run, 0, static_cast<uint32_t>(draws), outcomes);
  CompareSummarizer summarizer(problem, run);
  summarizer.add(outcomes, static_cast<uint32_t>(draws));
  const CompareSummary expected = summarizer.finish();
  EXPECT_EQ(got.draws, draws);
  EXPECT_EQ(got.sum_hist, expected.sum_hist);
  EXPECT_EQ(got.above, expected.above);
  EXPECT_EQ(got.below, expected.below);
  const double a[] = {got.power, got.wrong_sign, got.d_median, got.d_q[0], got.d_q[1], got.pool_diff};
  const double b[] = {expected.power,  expected.wrong_sign, expected.d_median,
                      expected.d_q[0], expected.d_q[1],     expected.pool_diff};
  EXPECT_TRUE(same_bits(a, b, 6)) << "rank " << distributed::rank();
  EXPECT_GT(expected.above, 0u);
}

namespace {

// Ranks other than 0 print only their failures, each line tagged with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::printf("[rank %d] %s:%d: %s\n", distributed::rank(), result.file_name() ? result.file_name() : "?",
                result.line_number(), result.summary());
    std::fflush(stdout);
  }
};

}  // namespace

int main(int argc, char** argv) {
  distributed::Session session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!distributed::is_root()) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  }
  return RUN_ALL_TESTS();
}
