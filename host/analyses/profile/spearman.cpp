#include "analyses/profile/spearman.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "judgestat/bootstrap.hpp"

namespace judgestat {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double student_t_two_sided(double t, double dof) {
  if (std::isnan(t) || !(dof > 0)) return kNaN;
  if (std::isinf(t)) return 0.0;
  // P(|T| >= |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
  return incomplete_beta(dof / (dof + t * t), 0.5 * dof, 0.5);
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && values[order[end]] == values[order[start]]) ++end;
    const double rank = 0.5 * static_cast<double>(start + 1 + end);  // mean of start+1..end
    for (size_t k = start; k < end; ++k) ranks[order[k]] = rank;
    start = end;
  }
  return ranks;
}

// The t statistic of a correlation r with n − 2 degrees of freedom and its two-sided p (scipy's
// rule: infinite t, p = 0 at |r| = 1).
double correlation_p(double r, int n) {
  if (n < 3 || std::isnan(r)) return kNaN;
  const double dof = n - 2;
  const double t = std::fabs(r) == 1.0 ? std::copysign(std::numeric_limits<double>::infinity(), r)
                                       : r * std::sqrt(dof / ((r + 1.0) * (1.0 - r)));
  return student_t_two_sided(t, dof);
}

PearsonResult pearson(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson: x and y differ in length");
  PearsonResult out{kNaN, kNaN};
  const size_t n = x.size();
  if (n < 2) return out;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return out;
  out.r = std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
  out.p = correlation_p(out.r, static_cast<int>(n));
  return out;
}

SpearmanResult spearman(const std::vector<double>& x, const std::vector<double>& y, int exact_max_n) {
  if (x.size() != y.size()) throw std::invalid_argument("spearman: x and y differ in length");
  if (exact_max_n > 10) throw std::invalid_argument("spearman: exact test limited to n <= 10");
  SpearmanResult out;
  out.n = static_cast<int>(x.size());
  out.rho = out.p_t = out.p_exact = kNaN;
  const int n = out.n;
  if (n < 2) return out;
  // Doubled, centred ranks are integers (average ranks are multiples of 1/2), so the pairing
  // sums of the permutation test compare exactly.
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  std::vector<int64_t> cx(n), cy(n);
  for (int i = 0; i < n; ++i) {
    cx[i] = std::llround(2.0 * rx[i]) - (n + 1);
    cy[i] = std::llround(2.0 * ry[i]) - (n + 1);
  }
  int64_t sxx = 0, syy = 0, sxy = 0;
  for (int i = 0; i < n; ++i) {
    sxx += cx[i] * cx[i];
    syy += cy[i] * cy[i];
    sxy += cx[i] * cy[i];
  }
  if (sxx == 0 || syy == 0) return out;  // a constant side: no ranking to correlate
  out.rho = static_cast<double>(sxy) / std::sqrt(static_cast<double>(sxx) * static_cast<double>(syy));
  out.rho = std::clamp(out.rho, -1.0, 1.0);

  // scipy: t = rho * sqrt(dof / ((1 + rho)(1 - rho))), infinite at |rho| = 1.
  out.p_t = correlation_p(out.rho, n);

  if (n <= exact_max_n) {
    // Every pairing of y's ranks with x's: p = 2 min(P(S <= s), P(S >= s)), capped at 1
    // (scipy.stats.permutation_test's two-sided rule).
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    int64_t at_most = 0, at_least = 0, total = 0;
    do {
      int64_t s = 0;
      for (int i = 0; i < n; ++i) s += cx[i] * cy[perm[i]];
      at_most += s <= sxy;
      at_least += s >= sxy;
      ++total;
    } while (std::next_permutation(perm.begin(), perm.end()));
    const double p = 2.0 * static_cast<double>(std::min(at_most, at_least)) / static_cast<double>(total);
    out.p_exact = std::min(1.0, p);
    out.exact = true;
  }
  return out;
}

}  // namespace judgestat
