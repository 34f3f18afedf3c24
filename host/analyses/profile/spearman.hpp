// Spearman rank correlation with the two p-values docs/statistics.md §3.6 asks for: scipy's t approximation
// (scipy.stats.spearmanr) and the exact permutation test over all n! pairings
// (scipy.stats.permutation_test(..., permutation_type='pairings', n_resamples=inf)).
// Used on point estimates: a rank correlation is not a ratio of sums, so it has no place in a
// bootstrap plan.
#pragma once
#include <cstdint>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/profile.hpp"

namespace judgestat {

/// Ranks 1..n with ties given their average rank (scipy.stats.rankdata's 'average').
std::vector<double> average_ranks(const std::vector<double>& values);

// SpearmanResult: judgestat/profile.hpp (a profile report holds them).

/// Spearman's rho of paired values and its p-values; x and y must have the same length.
/// The exact test enumerates all n! pairings, so it runs only for n <= exact_max_n (at most 10).
SpearmanResult spearman(const std::vector<double>& x, const std::vector<double>& y, int exact_max_n = 9);

/// Pearson r of paired values and its two-sided p (t with n − 2 df, as scipy.stats.pearsonr);
/// both NaN when a side is constant or n < 2 (p also for n < 3).
struct PearsonResult {
  double r = 0, p = 0;
};
PearsonResult pearson(const std::vector<double>& x, const std::vector<double>& y);

/// Two-sided p of a correlation r from n pairs: t = r √((n − 2)/(1 − r²)), NaN for n < 3.
double correlation_p(double r, int n);

/// Two-sided p-value of Student's t: P(|T| >= |t|) with `dof` degrees of freedom (0 for t = ±inf).
double student_t_two_sided(double t, double dof);

/// Regularized incomplete beta I_x(a, b): the intervals' incomplete_beta (judgestat/bootstrap.hpp).
inline double regularized_incomplete_beta(double x, double a, double b) { return incomplete_beta(x, a, b); }

}  // namespace judgestat
