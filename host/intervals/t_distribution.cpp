// Student's t distribution for docs/statistics.md §2's `t` interval: the regularised incomplete beta
// function by Lentz's continued fraction (Numerical Recipes §6.4), the quantile by inverting it.
#include <cmath>
#include <limits>

#include "judgestat/bootstrap.hpp"

namespace judgestat {
namespace {

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

double incomplete_beta(double x, double a, double b) {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0 || x == 1) return x;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(x, a, b) / a;
  return 1 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  // P(|T| > |t|) = I_(df / (df + t²))(df/2, 1/2); for small t the complement's form keeps digits.
  const double t2 = t * t;
  const double tail =
      t2 < df ? 1 - incomplete_beta(t2 / (df + t2), 0.5, df / 2) : incomplete_beta(df / (df + t2), df / 2, 0.5);
  return t > 0 ? 1 - tail / 2 : tail / 2;
}

double student_t_quantile(double p, double df) {
  if (!(df > 0) || !(p >= 0 && p <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Upper half: bracket, bisect to a few digits, then Newton steps with the t density.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e300) hi *= 2;
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  double t = 0.5 * (lo + hi);
  const double log_norm = std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * M_PI);
  for (int step = 0; step < 6; ++step) {
    const double density = std::exp(log_norm - (df + 1) / 2 * std::log1p(t * t / df));
    const double next = t - (student_t_cdf(t, df) - p) / density;
    if (!(next > lo && next < hi)) break;  // stay inside the bracket
    if (next == t) break;
    t = next;
  }
  return t;
}

}  // namespace judgestat
