// Postfix pieces the score statistics share (docs/statistics.md §8.2). Every statistic of a score
// judge is a polynomial in column sums of counts and score moments, finished with a division and
// at most one square root; rank statistics (Spearman, Kendall, ordinal α, Kendall's W) are written
// over per-level count columns, so a replicate re-ranks its own sample (ties get average ranks)
// rather than reusing the original data's ranks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

/// Σ sign_i · column_i: the columns added (+1) or subtracted (−1) left to right; 0 when empty.
struct SignedSum {
  std::vector<int32_t> columns;
  std::vector<int8_t> signs;
  void add(int32_t column, int8_t sign) {
    columns.push_back(column);
    signs.push_back(sign);
  }
  bool empty() const { return columns.empty(); }
};

/// Appends `sum`'s program (depth +1, at most +2 while it runs).
void push_signed_sum(std::vector<Op>& program, const SignedSum& sum);

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

/// Appends a column of `values` named `name` and returns its index.
int32_t add_score_column(Plan& plan, const std::string& name, const std::vector<double>& values);

}  // namespace judgestat
