// Summaries of replicate values in host memory (include/judgestat/replicate_summary.hpp): the
// facts in two replicate-major passes (no strided reads), order statistics by selection per
// statistic; both on all cores.
#include "judgestat/replicate_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "support/parallel.hpp"

namespace judgestat {
namespace {

// The number of distinct keys inserted: open addressing with linear probing, the table doubled
// when half full (at most 4 slots a distinct key). Count statistics take few distinct values, so
// their table stays in cache (a sort of all B keys cost ≈ 5× more on W1). Key 0 belongs to no non-NaN value (order_key)
// and marks an empty slot.
class DistinctKeys {
 public:
  void insert(uint64_t key) {
    if (place(slots_, bits_, key) && 2 * ++size_ > slots_.size()) grow();
  }
  uint64_t size() const { return size_; }

 private:
  // Puts key into the table of 2^bits slots unless it is there; true when it was new. The
  // product's top bits index the table (Fibonacci hashing).
  static bool place(std::vector<uint64_t>& table, int bits, uint64_t key) {
    const size_t mask = table.size() - 1;
    for (size_t i = (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);; i = (i + 1) & mask) {
      if (table[i] == key) return false;
      if (table[i] == 0) {
        table[i] = key;
        return true;
      }
    }
  }
  void grow() {
    std::vector<uint64_t> bigger(slots_.size() << 1, 0);
    for (uint64_t key : slots_)
      if (key != 0) place(bigger, bits_ + 1, key);
    slots_.swap(bigger);
    bits_ += 1;
  }

  int bits_ = 10;
  std::vector<uint64_t> slots_ = std::vector<uint64_t>(size_t{1} << 10, 0);
  uint64_t size_ = 0;
};

// Order statistics k and k + 1 (0-based, as if sorted; k + 1 clamped to the last) of `values`,
// which it reorders. Large inputs: a sorted stride sample brackets rank k between two sample
// values, one pass counts what lies below the bracket and keeps what lies inside, and only that
// small part is selected from; every element below the bracket ranks before every element in
// it, so the result is exactly the sorted vector's. A bracket that misses (possible, improbable
// for replicate values, which are exchangeable) falls back to selecting from everything.
std::pair<double, double> order_statistics_at(std::vector<double>& values, size_t k) {
  const size_t n = values.size();
  const bool need_next = k + 1 < n;
  auto from = [&](std::vector<double>& pool, size_t rank) {
    std::nth_element(pool.begin(), pool.begin() + rank, pool.end());
    const double at = pool[rank];
    return std::pair{at, need_next ? *std::min_element(pool.begin() + rank + 1, pool.end()) : at};
  };
  constexpr size_t kSample = 1024;
  if (n >= 16 * kSample) {
    std::vector<double> sample(kSample);
    for (size_t i = 0; i < kSample; ++i) sample[i] = values[i * (n / kSample)];
    std::sort(sample.begin(), sample.end());
    const double p = (static_cast<double>(k) + 0.5) / static_cast<double>(n);
    const double margin = 5.0 * std::sqrt(kSample * p * (1 - p)) + 4.0;
    const double first = std::floor(p * kSample - margin), last = std::ceil(p * kSample + margin);
    const double low = first < 0 ? -std::numeric_limits<double>::infinity() : sample[size_t(first)];
    const double high = last >= kSample ? std::numeric_limits<double>::infinity() : sample[size_t(last)];
    size_t below = 0;
    std::vector<double> inside;
    inside.reserve(static_cast<size_t>((last - first + 2) * (n / kSample)) + 16);
    for (double v : values) {
      below += v < low;
      if (v >= low && v <= high) inside.push_back(v);
    }
    if (below <= k && k + (need_next ? 1 : 0) < below + inside.size()) return from(inside, k - below);
  }
  return from(values, k);
}

class HostKeptReplicates final : public KeptReplicates {
 public:
  HostKeptReplicates(const double* values, uint64_t B, int32_t S) : values_(values), B_(B), S_(S) {}

  std::vector<ReplicateFacts> facts(const std::vector<double>& reference) override {
    if (reference.size() != size_t(S_)) throw std::invalid_argument("facts: one reference per statistic");
    const uint64_t n_blocks = (B_ + kSummaryBlock - 1) / kSummaryBlock;
    std::vector<ReplicateFacts> out(S_);
    // Pass 1: per block, the defined values' sum and count; blocks split between threads.
    std::vector<double> block_sum(n_blocks * S_, 0.0);
    std::vector<uint64_t> block_defined(n_blocks * S_, 0);
    for_blocks(n_blocks, [&](uint64_t b, const double* row) {
      double* sum = block_sum.data() + b * S_;  // data(): S_ may be 0
      uint64_t* defined = block_defined.data() + b * S_;
      for (int32_t s = 0; s < S_; ++s)
        if (!std::isnan(row[s])) {
          sum[s] += row[s];
          ++defined[s];
        }
    });
    // Statistic s's block entries added in block order.
    const auto over_blocks = [&](const auto& per_block, int32_t s) {
      typename std::decay_t<decltype(per_block)>::value_type total = 0;
      for (uint64_t b = 0; b < n_blocks; ++b) total += per_block[b * S_ + s];
      return total;
    };
    std::vector<double> mean(S_);
    for (int32_t s = 0; s < S_; ++s) {
      out[s].defined = over_blocks(block_defined, s);
      mean[s] = out[s].mean = out[s].defined
                                  ? canonical_nan(over_blocks(block_sum, s) / static_cast<double>(out[s].defined))
                                  : std::numeric_limits<double>::quiet_NaN();
    }
    // Pass 2: squared deviations from the mean, and the counts against the reference.
    std::vector<double>& block_squares = block_sum;
    std::fill(block_squares.begin(), block_squares.end(), 0.0);
    std::vector<uint64_t> block_below(n_blocks * S_, 0), block_at_or_below(n_blocks * S_, 0);
    for_blocks(n_blocks, [&](uint64_t b, const double* row) {
      for (int32_t s = 0; s < S_; ++s) {
        const double v = row[s];
        if (std::isnan(v)) continue;
        const double d = v - mean[s];
        block_squares[b * S_ + s] += d * d;
        block_below[b * S_ + s] += v < reference[s];
        block_at_or_below[b * S_ + s] += v <= reference[s];
      }
    });
    for (int32_t s = 0; s < S_; ++s) {
      out[s].below = over_blocks(block_below, s);
      out[s].at_or_below = over_blocks(block_at_or_below, s);
      out[s].sum_squares =
          out[s].defined ? canonical_nan(over_blocks(block_squares, s)) : std::numeric_limits<double>::quiet_NaN();
    }
    return out;
  }

  std::vector<uint64_t> distinct_counts(const std::vector<uint64_t>& defined) override {
    if (defined.size() != size_t(S_)) throw std::invalid_argument("distinct_counts: one count per statistic");
    std::vector<uint64_t> out(S_, 0);
    run_in_parts(std::max<uint64_t>(1, std::min<uint64_t>(S_, B_ * S_ / 100000)), [&](int32_t part, int32_t n_parts) {
      for (int32_t s = S_ * part / n_parts; s < S_ * (part + 1) / n_parts; ++s) {
        DistinctKeys keys;
        for (uint64_t r = 0; r < B_; ++r)
          if (!std::isnan(values_[r * S_ + s])) keys.insert(order_key(values_[r * S_ + s]));  // −0 → +0
        out[s] = keys.size();
      }
    });
    return out;
  }

  std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& queries) override {
    std::map<int32_t, std::vector<size_t>> by_statistic;  // query indices per statistic
    for (size_t i = 0; i < queries.size(); ++i) {
      if (queries[i].statistic < 0 || queries[i].statistic >= S_)
        throw std::invalid_argument("order_statistics: no such statistic");
      by_statistic[queries[i].statistic].push_back(i);
    }
    const std::vector<std::pair<const int32_t, std::vector<size_t>>> work(by_statistic.begin(), by_statistic.end());
    std::vector<std::pair<double, double>> out(queries.size());
    // Statistics are independent: each thread takes a contiguous share and copies the columns
    // of up to kGroup statistics out of the replicate-major values in one pass over the rows
    // (neighbouring statistics share cache lines; one column at a time read a line per value).
    // The copies stay within kGroupBytes per thread.
    constexpr uint64_t kGroup = 16, kGroupBytes = 32ull << 20;
    const uint64_t group = std::clamp<uint64_t>(kGroupBytes / (sizeof(double) * std::max<uint64_t>(B_, 1)), 1, kGroup);
    run_in_parts(std::min<uint64_t>(work.size(), std::max<uint64_t>(1, work.size() * B_ / 100000)),
                 [&](int32_t part, int32_t n_parts) {
                   const size_t first = work.size() * part / n_parts, last = work.size() * (part + 1) / n_parts;
                   std::vector<std::vector<double>> columns(group);
                   for (size_t w0 = first; w0 < last; w0 += group) {
                     const size_t n = std::min<size_t>(group, last - w0);
                     for (size_t c = 0; c < n; ++c) columns[c].clear();
                     for (uint64_t r = 0; r < B_; ++r) {
                       const double* row = values_ + r * S_;
                       for (size_t c = 0; c < n; ++c) {
                         const double v = row[work[w0 + c].first];
                         if (!std::isnan(v)) columns[c].push_back(v);
                       }
                     }
                     for (size_t c = 0; c < n; ++c)
                       for (size_t i : work[w0 + c].second) {
                         if (queries[i].rank >= columns[c].size())
                           throw std::invalid_argument("order_statistics: rank beyond the defined values");
                         // Selection reorders the column, which leaves its order statistics as they are.
                         const auto [at, next] = order_statistics_at(columns[c], queries[i].rank);
                         out[i] = {at + 0.0, next + 0.0};  // −0 → +0
                       }
                   }
                 });
    return out;
  }

 private:
  // visit(block, row) for every replicate row, a thread per contiguous range of blocks. Each
  // block's sums are one thread's, in replicate order.
  template <typename Visit>
  void for_blocks(uint64_t n_blocks, const Visit& visit) const {
    run_in_parts(std::max<uint64_t>(1, B_ * S_ / 1000000), [&](int32_t part, int32_t n_parts) {
      const uint64_t first = n_blocks * part / n_parts, last = n_blocks * (part + 1) / n_parts;
      for (uint64_t b = first; b < last; ++b) {
        const uint64_t end = std::min(B_, (b + 1) * kSummaryBlock);
        for (uint64_t r = b * kSummaryBlock; r < end; ++r) visit(b, values_ + r * S_);
      }
    });
  }

  const double* values_;
  uint64_t B_;
  int32_t S_;
};

}  // namespace

std::unique_ptr<KeptReplicates> host_kept_replicates(const double* values, uint64_t B, int32_t S) {
  return std::make_unique<HostKeptReplicates>(values, B, S);
}

}  // namespace judgestat
