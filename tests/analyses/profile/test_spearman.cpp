// Spearman ρ, its t-approximation p-value and the exact permutation p-value against scipy 1.10.1.
// Reference values: /usr/bin/python3 tests/scripts/spearman_reference.py, which prints (rho from
// scipy.stats.spearmanr, p_t its p-value, p_exact from scipy.stats.permutation_test over all n!
// pairings with permutation_type='pairings', n_resamples=inf, alternative='two-sided'):
//   paper_c7_like: rho=0.64285714285714302 p_t=0.11939237342741094 p_exact=0.1388888888888889
//   ties_both: rho=0.90077751054014765 p_t=0.0022640090646742633 p_exact=0.0047619047619047623
//   negative_n9: rho=-0.95000000000000007 p_t=8.7625239650861766e-05 p_exact=0.00035273368606701942
//   perfect_n5: rho=0.99999999999999989 p_t=1.4042654220543672e-24 p_exact=0.016666666666666666
//   weak_n6: rho=0.028571428571428574 p_t=0.95715451895043735 p_exact=1
//   n12_t_only: rho=0.14157968636401569 p_t=0.66072682928682291
#include <gtest/gtest.h>

#include <cmath>

#include "analyses/profile/spearman.hpp"

using namespace judgestat;

namespace {

struct Case {
  const char* name;
  std::vector<double> x, y;
  double rho, p_t, p_exact;  // p_exact NaN: n > 9
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases{
      {"paper_c7_like",
       {0.252, 0.148, 0.860, 0.734, 0.634, 0.623, 0.347},
       {0.511, 0.357, 0.683, 0.664, 0.816, 0.868, 0.368},
       0.64285714285714302,
       0.11939237342741094,
       0.1388888888888889},
      {"ties_both",
       {1, 2, 2, 3, 4, 4, 4, 5},
       {2, 1, 3, 3, 5, 4, 6, 6},
       0.90077751054014765,
       0.0022640090646742633,
       0.0047619047619047623},
      {"negative_n9",
       {9, 8, 7, 6, 5, 4, 3, 2, 1},
       {1, 3, 2, 4, 6, 5, 8, 7, 9},
       -0.95000000000000007,
       8.7625239650861766e-05,
       0.00035273368606701942},
      {"perfect_n5",
       {0.1, 0.2, 0.3, 0.4, 0.5},
       {10, 20, 30, 40, 50},
       0.99999999999999989,
       1.4042654220543672e-24,
       0.016666666666666666},
      {"weak_n6",
       {0.5, 0.1, 0.9, 0.3, 0.7, 0.2},
       {0.4, 0.6, 0.5, 0.1, 0.3, 0.2},
       0.028571428571428574,
       0.95715451895043735,
       1.0},
      {"n12_t_only",
       {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8},
       {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5},
       0.14157968636401569,
       0.66072682928682291,
       NAN},
  };
  return kCases;
}

}  // namespace

TEST(Spearman, AverageRanksForTies) {
  EXPECT_EQ(average_ranks({10, 20, 20, 5, 20}), (std::vector<double>{2, 4, 4, 1, 4}));
  EXPECT_EQ(average_ranks({1, 1}), (std::vector<double>{1.5, 1.5}));
}

TEST(Spearman, MatchesScipyRhoAndBothPValues) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const SpearmanResult r = spearman(c.x, c.y);
    EXPECT_EQ(r.n, static_cast<int>(c.x.size()));
    EXPECT_NEAR(r.rho, c.rho, 1e-14);
    // scipy rounds rho = 1 to 0.99999999999999989 and so gets p = 1.4e-24 instead of 0.
    EXPECT_NEAR(r.p_t, c.p_t, 1e-12 + 1e-10 * c.p_t);
    if (std::isnan(c.p_exact)) {
      EXPECT_FALSE(r.exact);
      EXPECT_TRUE(std::isnan(r.p_exact));
    } else {
      EXPECT_TRUE(r.exact);
      EXPECT_NEAR(r.p_exact, c.p_exact, 1e-15);
    }
  }
}

TEST(Spearman, UndefinedForConstantOrTinyInput) {
  const SpearmanResult constant = spearman({1, 2, 3, 4}, {5, 5, 5, 5});
  EXPECT_TRUE(std::isnan(constant.rho));
  EXPECT_TRUE(std::isnan(constant.p_t));
  EXPECT_TRUE(std::isnan(constant.p_exact));
  const SpearmanResult two = spearman({1, 2}, {3, 4});
  EXPECT_DOUBLE_EQ(two.rho, 1.0);
  EXPECT_TRUE(std::isnan(two.p_t));  // n − 2 = 0 degrees of freedom
  EXPECT_THROW(spearman({1, 2, 3}, {1, 2}), std::invalid_argument);
}

TEST(Spearman, StudentTAndIncompleteBeta) {
  // Known values: I_0.5(2, 3) = 11/16; two-sided t with 1 df is 1 − 2 atan(|t|)/π.
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 2, 3), 11.0 / 16.0, 1e-15);
  for (double t : {0.3, 1.0, 4.0, 25.0}) EXPECT_NEAR(student_t_two_sided(t, 1), 1 - 2 * std::atan(t) / M_PI, 1e-14);
  // 2 df: p = 1 − |t| / sqrt(2 + t²).
  for (double t : {0.5, 2.0, 10.0}) EXPECT_NEAR(student_t_two_sided(t, 2), 1 - t / std::sqrt(2 + t * t), 1e-14);
  EXPECT_EQ(student_t_two_sided(INFINITY, 5), 0.0);
}
