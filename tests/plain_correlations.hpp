// Correlations by their plain formulas, for tests that check the library's against them: average
// ranks by counting, Pearson's r from centred sums, Spearman's ρ as Pearson's r of the ranks.
#pragma once
#include <cmath>
#include <vector>

namespace judgestat::plain_formulas {

/// Average ranks: 1 + (values below) + (ties − 1) / 2.
inline std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<double> out;
  for (double a : v) {
    double below = 0, equal = 0;
    for (double b : v) below += b < a, equal += b == a;
    out.push_back(1 + below + (equal - 1) / 2);
  }
  return out;
}

inline double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / double(x.size()), my += y[i] / double(y.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  return sxy / std::sqrt(sxx * syy);
}

/// Tie-corrected Spearman: Pearson's r of the average ranks.
inline double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  return pearson(average_ranks(x), average_ranks(y));
}

}  // namespace judgestat::plain_formulas
