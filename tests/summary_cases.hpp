// Replicate values that reach every corner of the summary contract (replicate_summary.hpp):
// a continuous statistic, heavy ties, signed zeros with NaNs, half undefined, one defined
// value, none, and rare infinities of both signs (their sums overflow to NaN). Shared by the
// host summary tests and the CUDA ones, which must give the same bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"

namespace judgestat::testing_support {

struct AwkwardReplicates {
  static constexpr int32_t S = 7;
  uint64_t B = 0;
  std::vector<double> values;     // B × S, replicate-major
  std::vector<double> estimates;  // one per statistic, some tied with replicate values
  std::vector<JackknifeValues> jack;
};

inline AwkwardReplicates awkward_replicates(uint64_t B) {
  const double inf = std::numeric_limits<double>::infinity();
  AwkwardReplicates out;
  out.B = B;
  out.values.resize(B * out.S);
  for (uint64_t r = 0; r < B; ++r) {
    const uint32_t w = draw_word(PhiloxKey(21), uint32_t(r), 0, 0), x = draw_word(PhiloxKey(21), uint32_t(r), 1, 0);
    double* row = &out.values[r * out.S];
    row[0] = std::ldexp(double(w), -32) * 3 - 1;  // continuous on [−1, 2)
    row[1] = (w % 500) / 500.0;                   // heavy ties
    row[2] = x % 13 == 0 ? NAN : (w % 3 == 0 ? -0.0 : (w % 3 == 1 ? 0.0 : 1e-3 * (w % 7)));
    row[3] = x % 2 == 0 ? NAN : (w % 41) - 20.0;  // half undefined
    row[4] = r == 77 ? 0.125 : NAN;               // one defined value
    row[5] = NAN;                                 // never defined
    row[6] = x % 1009 == 0 ? (w % 2 ? inf : -inf) : (w % 1000) * 1e-3;
  }
  out.estimates = {0.5, 0.37, 0.0, -0.5, 0.125, NAN, 0.25};
  out.jack.resize(out.S);
  for (int32_t s = 0; s < out.S; ++s) out.jack[s] = {{0.1 + s, 0.3, 0.35 * s, 0.2}, {0.25, 0.5 - 0.1 * s, 0.3}};
  return out;
}

}  // namespace judgestat::testing_support
