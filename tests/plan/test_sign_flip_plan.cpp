// Sign-flip tests (docs/statistics.md §7.3) through compile(): the compiled test names the
// deduplicated column whose per-cluster sums are d_c, and malformed tests are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"

using namespace judgestat;
using judgestat::testing_support::paired_case;
using judgestat::testing_support::PairedCase;

TEST(SignFlipPlan, CompiledTestsNameTheDeduplicatedColumn) {
  // The test's column equals an earlier column value for value, so compile() keeps one copy and
  // the test must name it; d_c and T_obs are then that column's sums.
  PairedCase paired = paired_case(40, 5);
  Plan& plan = paired.plan;
  const int32_t copy = plan.add_column("copy of d1");
  plan.columns[copy] = plan.columns[plan.sign_flip_tests[0].column];
  plan.sign_flip_tests[0].column = copy;
  const CompiledPlan compiled = compile(plan);
  ASSERT_EQ(compiled.sign_flip_tests.size(), 2u);
  EXPECT_EQ(compiled.sign_flip_tests[0].statistic, 1);
  EXPECT_LT(compiled.sign_flip_tests[0].column, compiled.n_columns);
  const std::vector<int64_t> d = sign_flip_differences(compiled);
  ASSERT_EQ(d.size(), 2u * 40u);
  for (int t = 0; t < 2; ++t) {
    int64_t total = 0;
    for (int64_t c = 0; c < 40; ++c) {
      EXPECT_EQ(d[t * 40 + c], paired.d[t][c]) << "test " << t << ", cluster " << c;
      total += paired.d[t][c];
    }
    EXPECT_EQ(compiled.totals[compiled.sign_flip_tests[t].column], total);
  }
}

TEST(SignFlipPlan, BadTestsAreBuildersBugs) {
  const PairedCase paired = paired_case(10, 1);
  Plan missing_statistic = paired.plan, missing_column = paired.plan, twice = paired.plan;
  missing_statistic.sign_flip_tests.push_back({3, 0});
  missing_column.sign_flip_tests[0].column = 99;
  twice.sign_flip_tests.push_back({1, 0});
  EXPECT_THROW(compile(missing_statistic), std::logic_error);
  EXPECT_THROW(compile(missing_column), std::logic_error);
  EXPECT_THROW(compile(twice), std::logic_error);
  // A compiled plan edited by hand is refused where the counts start, not read out of bounds.
  CompiledPlan compiled = compile(paired.plan);
  compiled.sign_flip_tests[0].column = compiled.n_columns;
  auto backend = make_cpu_backend(1);
  EXPECT_THROW(backend->count_sign_flip_exceedances(compiled, 1, 0, 10), std::logic_error);
}
