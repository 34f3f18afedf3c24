#include "analyses/spearman.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace judgestat {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the incomplete beta (modified Lentz), valid for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300, kEps = 1e-16;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kEps) break;
  }
  return h;
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
  if (!(x >= 0.0 && x <= 1.0) || !(a > 0) || !(b > 0)) return kNaN;
  if (x == 0.0 || x == 1.0) return x;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The fraction converges fast on the side of the symmetry point; use I_x(a,b) = 1 - I_{1-x}(b,a).
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(x, a, b) / a;
  return 1.0 - front * beta_continued_fraction(1.0 - x, b, a) / b;
}

double student_t_two_sided(double t, double dof) {
  if (std::isnan(t) || !(dof > 0)) return kNaN;
  if (std::isinf(t)) return 0.0;
  // P(|T| >= |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
  return regularized_incomplete_beta(dof / (dof + t * t), 0.5 * dof, 0.5);
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

  if (n >= 3) {
    // scipy: t = rho * sqrt(dof / ((1 + rho)(1 - rho))), infinite at |rho| = 1.
    const double dof = n - 2;
    const double t = std::fabs(out.rho) == 1.0 ? std::copysign(std::numeric_limits<double>::infinity(), out.rho)
                                               : out.rho * std::sqrt(dof / ((out.rho + 1.0) * (1.0 - out.rho)));
    out.p_t = student_t_two_sided(t, dof);
  }

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
