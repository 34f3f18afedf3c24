// Kendall's τ-b and Spearman's ρ between two rankings of S systems as finishing programs
// (docs/statistics.md §8.4). A replicate's ranking is of ratio statistics (each system's mean), so
// its ranks change from replicate to replicate: they are written with sign(x_s − x_t) = d / |d| (0
// at d = 0: kDivOrZero), which the plan's ops already have, so every backend evaluates the same
// program and the replicates stay bit-identical. Both programs grow as S² (ρ recomputes each rank
// where the stack cannot keep it: about 100 S² ops), small for the tens of systems a study has.
#include "analyses/systems/systems_plan.hpp"

namespace judgestat {

namespace {

void append(std::vector<Op>& out, const std::vector<Op>& part) { out.insert(out.end(), part.begin(), part.end()); }

// Σ terms (left to right; the stack holds the running sum and one term).
std::vector<Op> sum_of(const std::vector<std::vector<Op>>& terms) {
  std::vector<Op> out;
  for (size_t k = 0; k < terms.size(); ++k) {
    append(out, terms[k]);
    if (k > 0) out.push_back({OpCode::kAdd});
  }
  if (terms.empty()) out.push_back({OpCode::kConstant, 0, 0.0});
  return out;
}

std::vector<Op> product_of(const std::vector<Op>& a, const std::vector<Op>& b) {
  std::vector<Op> out = a;
  append(out, b);
  out.push_back({OpCode::kMul});
  return out;
}

std::vector<Op> abs_of(std::vector<Op> a) {
  a.push_back({OpCode::kAbs});
  return a;
}

// num / √(den_a · den_b).
std::vector<Op> normalised(const std::vector<Op>& num, const std::vector<Op>& den_a, const std::vector<Op>& den_b) {
  std::vector<Op> out = num;
  append(out, product_of(den_a, den_b));
  out.push_back({OpCode::kSqrt});
  out.push_back({OpCode::kDiv});
  return out;
}

// a_s = Σ_{t ≠ s} sign(x_s − x_t): twice system s's average rank less S + 1.
std::vector<Op> centred_rank(const std::vector<std::vector<Op>>& x, size_t s) {
  std::vector<std::vector<Op>> terms;
  for (size_t t = 0; t < x.size(); ++t)
    if (t != s) terms.push_back(sign_of_difference(x[s], x[t]));
  return sum_of(terms);
}

}  // namespace

std::vector<Op> sign_of_difference(const std::vector<Op>& a, const std::vector<Op>& b) {
  const std::vector<Op> d = difference_program(a, b);
  std::vector<Op> out = d;
  append(out, abs_of(d));
  out.push_back({OpCode::kDivOrZero});
  return out;
}

std::vector<Op> kendall_tau_b_program(const std::vector<std::vector<Op>>& x, const std::vector<std::vector<Op>>& y) {
  std::vector<std::vector<Op>> concordance, x_untied, y_untied;
  for (size_t s = 0; s < x.size(); ++s)
    for (size_t t = s + 1; t < x.size(); ++t) {
      const std::vector<Op> sx = sign_of_difference(x[s], x[t]), sy = sign_of_difference(y[s], y[t]);
      concordance.push_back(product_of(sx, sy));
      x_untied.push_back(abs_of(sx));
      y_untied.push_back(abs_of(sy));
    }
  return normalised(sum_of(concordance), sum_of(x_untied), sum_of(y_untied));
}

std::vector<Op> spearman_rho_program(const std::vector<std::vector<Op>>& x, const std::vector<std::vector<Op>>& y) {
  std::vector<std::vector<Op>> cross, x_square, y_square;
  for (size_t s = 0; s < x.size(); ++s) {
    const std::vector<Op> a = centred_rank(x, s), b = centred_rank(y, s);
    cross.push_back(product_of(a, b));
    x_square.push_back(product_of(a, a));
    y_square.push_back(product_of(b, b));
  }
  return normalised(sum_of(cross), sum_of(x_square), sum_of(y_square));
}

}  // namespace judgestat
