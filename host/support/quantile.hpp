// The type-7 quantile (R's default, numpy's "linear"), one definition for every room.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace judgestat {

/// Between order statistics `below` and `above` at `fraction` (the type-7 interpolation).
inline double type7_between(double below, double above, double fraction) { return below + fraction * (above - below); }

/// Of `values` (any order, no NaN), reordering them: a partial selection, O(n). NaN for an
/// empty list or p outside [0, 1].
inline double quantile_type7_unsorted(std::vector<double>& values, double p) {
  if (values.empty() || !(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  const double h = (static_cast<double>(values.size()) - 1.0) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  std::nth_element(values.begin(), values.begin() + lo, values.end());
  const double below = values[lo];
  if (lo + 1 >= values.size()) return below;
  const double above = *std::min_element(values.begin() + lo + 1, values.end());
  return type7_between(below, above, h - static_cast<double>(lo));
}

}  // namespace judgestat
