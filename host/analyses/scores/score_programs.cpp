#include "analyses/scores/score_programs.hpp"

namespace judgestat {

std::vector<Op> product(const std::vector<Op>& a, const std::vector<Op>& b) {
  std::vector<Op> out = a;
  out.insert(out.end(), b.begin(), b.end());
  out.push_back({OpCode::kMul});
  return out;
}

void add_program_term(std::vector<Op>& sum, const std::vector<Op>& term) {
  const bool first = sum.empty();
  sum.insert(sum.end(), term.begin(), term.end());
  if (!first) sum.push_back({OpCode::kAdd});
}

std::vector<Op> correlation(const std::vector<Op>& covariance, const std::vector<Op>& variance_x,
                            const std::vector<Op>& variance_y) {
  std::vector<Op> out = covariance;
  const std::vector<Op> variances = product(variance_x, variance_y);
  out.insert(out.end(), variances.begin(), variances.end());
  out.push_back({OpCode::kSqrt});
  out.push_back({OpCode::kDiv});
  return out;
}

std::vector<Op> cumulative_sum(const std::vector<int32_t>& at_or_below, int32_t i) {
  return i < 0 ? constant_op(0) : column_op(at_or_below[i]);
}

std::vector<Op> cumulative_step(const std::vector<int32_t>& at_or_below, int32_t i) {
  std::vector<Op> out = cumulative_sum(at_or_below, i);
  const std::vector<Op> below = cumulative_sum(at_or_below, i - 1);
  out.insert(out.end(), below.begin(), below.end());
  out.push_back({OpCode::kSub});
  return out;
}

std::vector<Op> twice_centred_rank(const std::vector<int32_t>& at_or_below, int32_t i) {
  std::vector<Op> out = cumulative_sum(at_or_below, i - 1);
  const std::vector<Op> through = cumulative_sum(at_or_below, i);
  out.insert(out.end(), through.begin(), through.end());
  out.push_back({OpCode::kAdd});
  out.push_back({OpCode::kColumn, at_or_below.back()});
  out.push_back({OpCode::kSub});
  return out;
}

int32_t add_score_column(Plan& plan, const std::string& name, const std::vector<double>& values) {
  const int32_t k = plan.add_column(name);
  plan.columns[k] = values;
  return k;
}

}  // namespace judgestat
