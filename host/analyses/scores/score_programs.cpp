#include "analyses/scores/score_programs.hpp"

namespace judgestat {

void push_signed_sum(std::vector<Op>& program, const SignedSum& sum) {
  if (sum.empty()) {
    program.push_back({OpCode::kConstant, 0, 0.0});
    return;
  }
  // A leading minus is 0 − column, so every term after the first is one add or subtract.
  if (sum.signs[0] < 0) program.push_back({OpCode::kConstant, 0, 0.0});
  program.push_back({OpCode::kColumn, sum.columns[0]});
  if (sum.signs[0] < 0) program.push_back({OpCode::kSub});
  for (size_t i = 1; i < sum.columns.size(); ++i) {
    program.push_back({OpCode::kColumn, sum.columns[i]});
    program.push_back({sum.signs[i] > 0 ? OpCode::kAdd : OpCode::kSub});
  }
}

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

int32_t add_score_column(Plan& plan, const std::string& name, const std::vector<double>& values) {
  const int32_t k = plan.add_column(name);
  plan.columns[k] = values;
  return k;
}

}  // namespace judgestat
