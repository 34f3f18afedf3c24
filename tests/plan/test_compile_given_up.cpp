// compile(Plan&&) (issue 26 part 7): a plan given up has its columns' sums appended a column at a
// time as the columns are freed, then transposed in place into cluster_sums' row per cluster. The
// layout is checked against sums counted here, and every shape against compile() of a kept plan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/plan.hpp"
#include "test_plans.hpp"

using namespace judgestat;

namespace {

/// Units u = 0 … n − 1 in clusters (u · 7 + 3) mod C of strata with the given cluster counts.
Plan plan_of_units(const std::vector<int64_t>& clusters_per_stratum, int64_t n_units) {
  Plan plan = testing_support::plan_with_strata(clusters_per_stratum);
  for (int64_t u = 0; u < n_units; ++u)
    plan.unit_cluster.push_back(static_cast<int32_t>((u * 7 + 3) % plan.n_clusters()));
  return plan;
}

/// Column k's value at unit u: a whole number in −50 … 50 that differs between columns at unit 0
/// (k < 100), so no two columns are copies; odd columns hold it in quarters (exact at shift 2).
double value_of(int32_t k, int64_t u) {
  const double whole = static_cast<double>((u + 1) * (k + 1) % 101 - 50);
  return k % 2 == 1 ? whole / 4 : whole;
}

/// Adds `n_columns` columns of value_of and a statistic naming each.
void add_columns(Plan& plan, int32_t n_columns) {
  for (int32_t k = 0; k < n_columns; ++k) {
    const int32_t column = plan.add_column("c" + std::to_string(k));
    for (int64_t u = 0; u < plan.n_units(); ++u) plan.columns[column][u] = value_of(k, u);
    plan.statistics.push_back({StatLabel{"c" + std::to_string(k)}, {{OpCode::kColumn, column}}});
  }
}

}  // namespace

// Every count of columns around the groups of eight (and the batches of groups), clusters from one
// to a prime number, quarter columns kept as doubles or folded: cluster c's row holds column k's
// fixed-point sum at entry c · n_columns + k, as counted here (whole numbers at shift 0, quarters at
// shift 2: both Σ over c's units of the whole number).
TEST(CompileGivenUp, SumsLieARowPerClusterAsCountedByHand) {
  for (const std::vector<int64_t>& strata : std::vector<std::vector<int64_t>>{{1}, {2}, {3, 4}, {97}, {5, 1, 9}})
    for (int32_t n_columns : {1, 2, 7, 8, 9, 16, 17, 33})
      for (bool fold : {false, true}) {
        Plan plan = plan_of_units(strata, 211);
        add_columns(plan, n_columns);
        for (int32_t k = 1; fold && k < n_columns; k += 2) {
          ASSERT_TRUE(plan.fold_column(k));
        }
        const int64_t C = plan.n_clusters();
        std::vector<int64_t> expected(static_cast<size_t>(C) * n_columns, 0), totals(n_columns, 0);
        for (int64_t u = 0; u < plan.n_units(); ++u)
          for (int32_t k = 0; k < n_columns; ++k) {
            const auto whole = static_cast<int64_t>((u + 1) * (k + 1) % 101 - 50);
            expected[static_cast<size_t>(plan.unit_cluster[u]) * n_columns + k] += whole;
            totals[k] += whole;
          }
        const std::string what = std::to_string(C) + " clusters, " + std::to_string(n_columns) + " columns" +
                                 (fold ? ", quarters folded" : "");
        const CompiledPlan compiled = compile(std::move(plan));
        ASSERT_EQ(compiled.n_columns, n_columns) << what;
        EXPECT_EQ(compiled.n_clusters, C) << what;
        EXPECT_EQ(compiled.cluster_sums, expected) << what;
        EXPECT_EQ(compiled.totals, totals) << what;
        for (int32_t k = 0; k < n_columns; ++k)
          EXPECT_EQ(compiled.column_unscale[k], k % 2 == 1 ? 0.25 : 1.0) << what << ", column " << k;
        EXPECT_TRUE(plan.columns.empty()) << what << ": the plan was given up";
      }
}

// Copies merged, general reals folded or not, enough values for compile() to use threads: a plan
// given up compiles to what the same plan kept does, field for field.
TEST(CompileGivenUp, CompilesAsTheSamePlanKept) {
  for (const auto& [strata, n_units] :
       std::vector<std::pair<std::vector<int64_t>, int64_t>>{{{5, 1, 9}, 400}, {{3000, 1, 997}, 30000}}) {
    Plan plan = plan_of_units(strata, n_units);
    add_columns(plan, 41);
    for (int32_t copy = 0; copy < 5; ++copy) {  // copies of columns 3, 10, 17, 24, 31
      plan.columns.push_back(plan.columns[3 + 7 * copy]);
      plan.column_names.push_back("copy" + std::to_string(copy));
    }
    for (int32_t k = 0; k < 9; ++k) {  // tenths (real0 all zeros, bytes), every third folded
      const int32_t column = plan.add_column("real" + std::to_string(k));
      for (int64_t u = 0; u < plan.n_units(); ++u) plan.columns[column][u] = 0.1 * static_cast<double>((u * k) % 13);
      if (k % 3 == 0) {
        ASSERT_TRUE(plan.fold_column(column) || k == 0) << "real column " << k;
      }
      plan.statistics.push_back({StatLabel{"real"}, ratio_program(column, 0)});
    }
    const std::string what = std::to_string(plan.n_clusters()) + " clusters";
    const CompiledPlan kept = compile(plan);
    EXPECT_EQ(kept.n_columns, 41 + 9) << what << ": the five copies merged";
    Plan given_up = plan;
    const CompiledPlan compiled = compile(std::move(given_up));
    EXPECT_EQ(compiled.n_columns, kept.n_columns) << what;
    EXPECT_EQ(compiled.cluster_sums, kept.cluster_sums) << what;
    EXPECT_EQ(compiled.totals, kept.totals) << what;
    EXPECT_EQ(compiled.column_unscale, kept.column_unscale) << what;
    EXPECT_EQ(compiled.fits_int32, kept.fits_int32) << what;
    EXPECT_EQ(compiled.op_offset, kept.op_offset) << what;
    ASSERT_EQ(compiled.ops.size(), kept.ops.size()) << what;
    for (size_t i = 0; i < kept.ops.size(); ++i)
      EXPECT_EQ(compiled.ops[i].arg, kept.ops[i].arg) << what << ", op " << i;
  }
}

// The columns are compiled a batch of groups at a time; whichever fail, the error is the first
// failing column's, as for a plan kept.
TEST(CompileGivenUp, TheFirstFailingColumnDecidesTheErrorAsForAPlanKept) {
  const auto error_of = [](Plan plan, bool give_up) {
    try {
      if (give_up)
        compile(std::move(plan));
      else
        compile(plan);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string too_large = "plan: column 'c38' is too large for exact replicate sums";
  const std::string non_finite = "plan: non-finite value in a column";
  Plan plan = plan_of_units({3000, 1, 997}, 30000);
  add_columns(plan, 60);
  Plan late_nan = plan;  // column 38 (group 4) too large, column 50 (group 6) not finite
  late_nan.columns[38].fill(1e15);
  late_nan.columns[50].set(7, std::numeric_limits<double>::quiet_NaN());
  Plan early_nan = late_nan;  // and column 2 (group 0) not finite
  early_nan.columns[2].set(9, std::numeric_limits<double>::infinity());
  for (bool give_up : {false, true}) {
    EXPECT_EQ(error_of(late_nan, give_up), too_large) << (give_up ? "given up" : "kept");
    EXPECT_EQ(error_of(early_nan, give_up), non_finite) << (give_up ? "given up" : "kept");
  }
}
