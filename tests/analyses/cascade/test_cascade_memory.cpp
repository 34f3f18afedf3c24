// Issue 26 part 7: a cascade run's sweep is sized before it is built. With the item matrix loaded and the pool
// drawn, a lower bound on the sweep's plan (its policies' accepted flags and the count columns it certainly has, a
// byte per pool item each), added to the matrix, is checked against the memory budget (JUDGESTAT_MEMORY_LIMIT
// here), and a run that cannot fit is refused with the figure before anything is resampled. The sweep, held-out
// and frozen plans are then built one at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::cpu_target;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";
constexpr int64_t kPoolItems = 350;  // the items both judges cover
// The default grid's 9 thresholds and `all`; per policy accepted, accepted_delta and accepted_errors, beside
// the pooled scope's n, c1, c2 and first_errors.
constexpr int64_t kPolicies = 10, kColumns = 4 + 3 * kPolicies;

/// Sets JUDGESTAT_MEMORY_LIMIT for the scope of a test.
class MemoryLimit {
 public:
  explicit MemoryLimit(const std::string& value) { ::setenv("JUDGESTAT_MEMORY_LIMIT", value.c_str(), 1); }
  ~MemoryLimit() { ::unsetenv("JUDGESTAT_MEMORY_LIMIT"); }
  MemoryLimit(const MemoryLimit&) = delete;
  MemoryLimit& operator=(const MemoryLimit&) = delete;
};

/// The item matrix's per-cell arrays in bytes, counted here from its shape: a 2-byte verdict and an 8-byte line
/// per cell, and 8 bytes per probability, fee, latency and rationale flag it holds.
double matrix_bytes(const ItemMatrix& m) {
  return static_cast<double>(m.verdict.size()) * 10.0 +
         8.0 * static_cast<double>(m.prob.size() + m.fee.size() + m.latency.size() + m.rationale_ok.size());
}

CascadeOptions options_with_progress(bool& resampled) {
  CascadeOptions options;
  options.first = kFirst;
  options.fallback = kFallback;
  options.bootstrap.replicates = 20;
  options.progress = [&resampled](uint64_t, uint64_t) { resampled = true; };
  return options;
}

TEST(CascadeMemory, SweepBeyondTheBudgetIsRefusedWithItsFigureBeforeResampling) {
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  bool resampled = false;
  const CascadeOptions options = options_with_progress(resampled);
  // The sweep alone is at least (10 + 34) × 350 = 15,400 bytes: a byte short of that beside the matrix is refused,
  // exactly that passes the check.
  const double plan_bytes = static_cast<double>((kPolicies + kColumns) * kPoolItems);
  ASSERT_EQ(plan_bytes, 15400.0);
  {
    const MemoryLimit limit(std::to_string(static_cast<int64_t>(matrix_bytes(matrix) + plan_bytes) - 1));
    const std::string message = thrown_message<InputError>([&] { run_cascade(matrix, options, cpu_target(1)); });
    EXPECT_EQ(message.rfind("cascade: the plan needs about 1.5e-05 GB (at least 10 policies x 350 items x 1 byte + 34 "
                            "count columns x 350 items x 1 byte) on top of the item matrix's ",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find("is available (JUDGESTAT_MEMORY_LIMIT)"), std::string::npos) << message;
    EXPECT_FALSE(resampled);
  }
  const MemoryLimit limit(std::to_string(static_cast<int64_t>(matrix_bytes(matrix) + plan_bytes)));
  const CascadeReport report = run_cascade(matrix, options, cpu_target(1));
  EXPECT_TRUE(resampled);
  EXPECT_EQ(report.items, kPoolItems);
}

TEST(CascadeMemory, EstimateIsALowerBoundOnTheSweepAndARunThatFitsIsUnchanged) {
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  bool resampled = false;
  CascadeOptions options = options_with_progress(resampled);
  options.tau = parse_frozen_tau({"0.8"});  // a frozen plan too: three plans built one after another
  const CascadePool pool = build_cascade_pool(matrix, kFirst, kFallback);
  ASSERT_EQ(pool.size(), kPoolItems);
  const CascadePlanSize size = minimum_sweep_size(pool, options);
  EXPECT_EQ(size.items, kPoolItems);
  EXPECT_EQ(size.policies, kPolicies);
  EXPECT_EQ(size.columns, kColumns);
  // What the sweep really holds: its policies' flags and its columns.
  const std::vector<CascadePolicy> policies = sweep_policies(pool, options.grid);
  const CascadePlan sweep =
      build_cascade_plan(pool, number_pool_clusters(matrix, pool), policies, {true, true, nullptr});
  int64_t held = 0;
  for (const CascadePolicy& policy : policies) held += static_cast<int64_t>(policy.accepted.size());
  for (const PlanColumn& column : sweep.plan.columns)
    held += static_cast<int64_t>(column.size()) * (column.kind() == PlanColumn::Kind::kByte ? 1 : 8);
  EXPECT_EQ(static_cast<int64_t>(policies.size()), kPolicies);
  EXPECT_GE(static_cast<int64_t>(sweep.plan.columns.size()), kColumns);
  EXPECT_GE(held, (size.policies + size.columns) * size.items);

  const CascadeReport unlimited = run_cascade(matrix, options, cpu_target(1));
  EXPECT_TRUE(resampled);
  ASSERT_TRUE(unlimited.frozen.has_value());
  ASSERT_TRUE(unlimited.rules.has_value());
  const MemoryLimit limit("1G");
  const CascadeReport limited = run_cascade(matrix, options, cpu_target(1));
  const auto expect_same = [](const BootstrapResult& a, const BootstrapResult& b, const std::string& what) {
    ASSERT_EQ(a.intervals.size(), b.intervals.size()) << what;
    ASSERT_GT(a.intervals.size(), 0u) << what;
    for (size_t s = 0; s < a.intervals.size(); ++s)
      for (auto field : {&Interval::estimate, &Interval::lo, &Interval::hi})
        EXPECT_TRUE(a.intervals[s].*field == b.intervals[s].*field ||
                    (std::isnan(a.intervals[s].*field) && std::isnan(b.intervals[s].*field)))
            << what << " " << s;
  };
  expect_same(limited.sweep.result, unlimited.sweep.result, "sweep");
  expect_same(limited.rules->heldout, unlimited.rules->heldout, "held out");
  expect_same(limited.frozen->result, unlimited.frozen->result, "frozen");
}

// A report's JSON without its timing (two runs differ only there).
nlohmann::json json_without_timing(const CascadeReport& report) {
  nlohmann::json json = nlohmann::json::parse(dump_json(to_json(report, {})));
  json.erase("timing");
  return json;
}

// run_cascade on a matrix given up (the CLI's call): the same report as on the matrix lent, and the matrix already
// emptied when the first replicates are counted, so that the matrix is not held through the resampling.
void expect_given_up_matrix_freed_before_resampling(const ItemMatrix& matrix, CascadeOptions options) {
  options.progress = {};
  const CascadeReport lent = run_cascade(matrix, options, cpu_target(1));
  ItemMatrix given = matrix;
  int calls = 0;
  bool empty_at_first_call = false;
  options.progress = [&](uint64_t, uint64_t) {
    if (calls++ == 0) empty_at_first_call = given.items.empty() && given.verdict.empty() && given.prob.empty();
  };
  const CascadeReport freed = run_cascade(std::move(given), options, cpu_target(1));
  EXPECT_GT(calls, 0);
  EXPECT_TRUE(empty_at_first_call);
  EXPECT_EQ(json_without_timing(freed), json_without_timing(lent));
  // Three plans (sweep, held out, frozen): the lent run resampled them too.
  ASSERT_TRUE(lent.rules.has_value());
  ASSERT_TRUE(lent.frozen.has_value());
  EXPECT_GT(lent.rules->heldout_items, 0);
}

TEST(CascadeMemory, AMatrixGivenUpIsFreedBeforeResamplingAndGivesTheSameReport) {
  const ItemMatrix matrix = load_item_matrix(kJudgeBench);
  bool resampled = false;
  CascadeOptions options = options_with_progress(resampled);
  options.tau = parse_frozen_tau({"0.8"});
  expect_given_up_matrix_freed_before_resampling(matrix, options);
  options.by = "benchmark";
  expect_given_up_matrix_freed_before_resampling(matrix, options);
}

TEST(CascadeMemory, AMatrixGivenUpWithItemsWithoutGoldIsFreedToo) {
  // Items without gold make the cascade copy the items with gold; the given-up input goes as well as that copy.
  ItemMatrix matrix = load_item_matrix(kJudgeBench);
  ASSERT_EQ(matrix.items_without_gold, 0);
  for (int32_t i = 0; i < matrix.n_items(); i += 7) matrix.gold[i] = kNoGold, ++matrix.items_without_gold;
  bool resampled = false;
  CascadeOptions options = options_with_progress(resampled);
  options.tau = parse_frozen_tau({"0.8"});
  const CascadeReport lent = run_cascade(matrix, options, cpu_target(1));
  EXPECT_LT(lent.items, kPoolItems);  // every seventh item left out
  expect_given_up_matrix_freed_before_resampling(matrix, options);
}

}  // namespace
}  // namespace judgestat
