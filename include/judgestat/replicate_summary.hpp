// What an interval needs from one statistic's replicate values (docs/statistics.md §2), defined so that any
// backend computes it where the values are and gets the same bits: the count of defined
// (non-NaN) values, the SE's sums in a fixed blocked order, counts against a reference (BCa's
// z0), and order statistics (percentile endpoints). The host summarises values a backend wrote
// to memory; the CUDA backend can keep them on the device and summarise there, bringing back
// only these few numbers per statistic.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "judgestat/philox.hpp"  // JS_HD

namespace judgestat {

/// SE sums run in blocks of this many replicates: in replicate order inside a block, then the
/// blocks' totals in block order. Fixed, so a device summing its blocks in parallel adds
/// exactly what a host thread adds in order.
constexpr uint64_t kSummaryBlock = 256;

struct ReplicateFacts {
  uint64_t defined = 0;                                    // values that are not NaN; the rest are undefined replicates
  double mean = std::numeric_limits<double>::quiet_NaN();  // of the defined values
  double sum_squares = std::numeric_limits<double>::quiet_NaN();  // Σ (v − mean)², defined v
  uint64_t below = 0, at_or_below = 0;                            // defined values < and ≤ the statistic's reference
};

/// Order statistics `rank` and min(rank + 1, defined − 1) (0-based, among the defined values
/// as if sorted) of one statistic: the two values a type-7 quantile interpolates between.
struct OrderStatisticQuery {
  int32_t statistic = 0;
  uint64_t rank = 0;
};

/// Replicate values [0, B) of every statistic, kept where they were made, and their summary.
class KeptReplicates {
 public:
  virtual ~KeptReplicates() = default;
  /// Facts per statistic; `reference[s]` is what statistic s's below/at_or_below count against.
  virtual std::vector<ReplicateFacts> facts(const std::vector<double>& reference) = 0;
  /// The pair of order statistics per query (a query needs rank < defined), −0 read as +0 so
  /// that which of two equal zeros a selection meets first cannot show.
  virtual std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& queries) = 0;
  /// Distinct defined values per statistic (−0 = +0), given each statistic's defined count.
  /// This default bisects the sorted ranks with order_statistics (a run of equal order
  /// statistics at both ends holds one value), a round of queries per halving, so it suits
  /// summaries that select cheaply (a device's); the host's counts directly.
  virtual std::vector<uint64_t> distinct_counts(const std::vector<uint64_t>& defined);
};

/// A NaN fact (overflowing replicates: inf − inf) as one bit pattern on every backend; x86 and
/// GPUs make different NaNs.
inline double canonical_nan(double x) { return x != x ? std::numeric_limits<double>::quiet_NaN() : x; }

/// Replicate-major host values (B × S, value of statistic s in replicate r at r·S + s),
/// summarised on all cores. The values must outlive the result.
std::unique_ptr<KeptReplicates> host_kept_replicates(const double* values, uint64_t B, int32_t S);

/// Doubles as unsigned keys in their numeric order, −0 as +0 and NaN after +∞: a radix sort of
/// the keys sorts the values, with the undefined ones last.
JS_HD uint64_t order_key(double v) {
  if (v != v) return ~uint64_t(0);
  if (v == 0.0) v = 0.0;  // −0 → +0
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (uint64_t(1) << 63);
}

JS_HD double from_order_key(uint64_t key) {
  const uint64_t bits = (key >> 63) ? key & ~(uint64_t(1) << 63) : ~key;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace judgestat
