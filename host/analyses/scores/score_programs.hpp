// Postfix pieces the score statistics share (docs/statistics.md §8.2). Every statistic of a score
// judge is a polynomial in column sums of counts and score moments, and for Spearman's ρ and
// Kendall's τ_b rank terms (plan.hpp's RankTerm), finished with a division and at most one square
// root. Rank statistics (Spearman, Kendall, ordinal α, Kendall's W) read each level's rank off
// running-total columns (units at or below the level), so a replicate re-ranks its own sample (ties
// get average ranks) rather than reusing the original data's ranks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

/// Appends a · b (each a program leaving one value).
std::vector<Op> product(const std::vector<Op>& a, const std::vector<Op>& b);

/// Appends `term` to the running sum `sum` (kAdd after the first): depth stays bounded.
void add_program_term(std::vector<Op>& sum, const std::vector<Op>& term);

/// {kColumn, k}
inline std::vector<Op> column_op(int32_t k) { return {{OpCode::kColumn, k}}; }
inline std::vector<Op> constant_op(double v) { return {{OpCode::kConstant, 0, v}}; }

/// a / sqrt(b · c): correlations from a covariance and two variances (NaN when either is 0).
std::vector<Op> correlation(const std::vector<Op>& covariance, const std::vector<Op>& variance_x,
                            const std::vector<Op>& variance_y);

/// Over ordered levels with running-total columns C_0 … C_last (C_i = the counts at levels ≤ i):
/// C_i, 0 for i = −1.
std::vector<Op> cumulative_sum(const std::vector<int32_t>& at_or_below, int32_t i);
/// C_i − C_{i−1}: the count at level i.
std::vector<Op> cumulative_step(const std::vector<int32_t>& at_or_below, int32_t i);
/// C_{i−1} + C_i − C_last: (count below i) − (count above i), twice the centred average rank of
/// level i. A replicate's ranks come from its own sums of the C columns, each a few operations.
std::vector<Op> twice_centred_rank(const std::vector<int32_t>& at_or_below, int32_t i);

/// Appends a column of `values` named `name` and returns its index.
int32_t add_score_column(Plan& plan, const std::string& name, const std::vector<double>& values);

}  // namespace judgestat
