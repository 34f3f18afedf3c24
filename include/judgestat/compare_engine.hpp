// How many labels tell two judges apart (docs/statistics.md §7.6): each draw labels k items of a
// pool with §3.5's Floyd procedure (on its own stream), forms the paired difference of the two
// judges' correctness on them and asks whether its z-interval excludes 0.
//
// A draw's outcome is counts: d_i = value_B − value_A times the problem's `scale` is an integer
// (acc: d ∈ {−1, 0, 1}; pa over two orders: d ∈ {−1, −½, 0, ½, 1}; scale 2 for both), so the
// draw's sums of scaled d and of its squares are exact integers, and the interval test is one
// fixed sequence of correctly rounded operations on them (compare_interval_side, shared by host
// and device; no fused multiply-add on either). The CPU twin and the CUDA kernel call the same
// compare_draw, so their per-draw outcomes are identical on every thread count, device and rank.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/philox.hpp"

namespace judgestat {

/// The comparison's label draws: stream 2^30 + 1 (docs/statistics.md §7.6). The cascade's
/// selection split uses the same number (§3.3) in another command, so no run draws both.
inline constexpr uint32_t kCompareStream = kBudgetStream + 1;
/// scaled d lives in int8: scale <= kMaxCompareScale.
inline constexpr int32_t kMaxCompareScale = 127;

/// The comparison's pool in exact units (an analysis derives it from records).
struct CompareProblem {
  int32_t n_items = 0;
  int32_t scale = 2;             // d · scale is an integer for every item
  std::vector<int8_t> scaled_d;  // per pool item: scale · (value_B − value_A), in [−scale, scale]
  int64_t pool_scaled_sum = 0;   // Σ scaled_d: the sign of the full-pool difference
};

/// A CompareProblem from per-item values d_i = value_B − value_A (each a multiple of 1/scale):
/// std::invalid_argument ("compare: …") for a value that is not, a scale outside
/// [1, kMaxCompareScale] or an empty pool.
CompareProblem make_compare_problem(const std::vector<double>& d, int32_t scale);

/// One k's batch of draws.
struct CompareRun {
  uint32_t k = 50;
  double z = 1.959963984540054;  // Φ⁻¹(1 − α/2) of the interval's level (0.95 here)
  uint64_t seed = 1;
};

/// std::invalid_argument ("k: …") unless 2 <= k <= n_items and k · scale² < 2^31 (the draw's
/// sums are int32).
void check_compare_k(const CompareProblem& problem, uint32_t k);

/// Where a draw's z-interval mean ± z·SE lies (mean = sum / (scale·k), SE = sd/√k with sd's
/// divisor k − 1): +1 wholly above 0, −1 wholly below, 0 when it contains 0. From the exact sums
/// of scaled d (sum) and of its squares (sum_sq) over the k >= 2 labelled items.
JS_HD int32_t compare_interval_side(int64_t sum, int64_t sum_sq, uint32_t k, int32_t scale, double z) {
  const double kd = static_cast<double>(k), scaled = static_cast<double>(scale);
  const double mean = static_cast<double>(sum) / (scaled * kd);
  // Σ (x − x̄)² · k = k·Σx² − (Σx)²: an exact non-negative integer.
  const int64_t spread = static_cast<int64_t>(k) * sum_sq - sum * sum;
  const double variance = static_cast<double>(spread) / (scaled * scaled * kd * (kd - 1.0));
  const double half_width = z * (sqrt(variance) / sqrt(kd));
  if (mean - half_width > 0.0) return 1;
  if (mean + half_width < 0.0) return -1;
  return 0;
}

/// 32-bit words of a draw's bitmap over a pool of n_items.
JS_HD uint32_t compare_bitmap_words(uint32_t n_items) { return (n_items + 31u) / 32u; }

/// Sums of one draw over its k labelled items: Σ scaled d and Σ (scaled d)².
struct CompareDraw {
  int32_t sum = 0, sum_sq = 0;
};

/// Draw `draw` of docs/statistics.md §7.6: Floyd's selection of k of the n_items (step i takes
/// j = floyd_candidate of word i mod 4 of Philox(counter = (i div 4, draw, kCompareStream, 0)),
/// or t = n − k + i when an earlier step took j) and the sums of scaled d over it. `taken` is a
/// bitmap over the pool, clear on entry and cleared again before returning; its word w lives at
/// taken[w · stride] (the CUDA kernel interleaves its threads' bitmaps, the CPU twin's stride is 1).
JS_HD CompareDraw compare_draw(PhiloxKey key, uint32_t draw, const int8_t* scaled_d, uint32_t n_items, uint32_t k,
                               uint32_t* taken, size_t stride) {
  CompareDraw out;
  Words4 block{};
  for (uint32_t i = 0; i < k; ++i) {
    if ((i & 3u) == 0) block = draw_block(key, i >> 2, draw, kCompareStream);
    const uint32_t j = floyd_candidate(block, i, n_items, k);
    const bool j_taken = (taken[(j >> 5) * stride] >> (j & 31u)) & 1u;
    const uint32_t pick = j_taken ? n_items - k + i : j;
    taken[(pick >> 5) * stride] |= 1u << (pick & 31u);
    const int32_t x = scaled_d[pick];
    out.sum += x;
    out.sum_sq += x * x;
  }
  // Clear the bitmap: word by word when it is short, else by replaying the steps (every pick
  // is some step's j or t, so clearing both bits of every step clears them all).
  const uint32_t words = compare_bitmap_words(n_items);
  if (words <= k) {
    for (uint32_t w = 0; w < words; ++w) taken[w * stride] = 0;
  } else {
    for (uint32_t i = 0; i < k; ++i) {
      if ((i & 3u) == 0) block = draw_block(key, i >> 2, draw, kCompareStream);
      const uint32_t j = floyd_candidate(block, i, n_items, k), t = n_items - k + i;
      taken[(j >> 5) * stride] &= ~(1u << (j & 31u));
      taken[(t >> 5) * stride] &= ~(1u << (t & 31u));
    }
  }
  return out;
}

/// Per-draw outcomes of draws [first, first + count).
struct CompareOutcomes {
  std::vector<int32_t> sum, sum_sq;  // CompareDraw's sums
  std::vector<int8_t> side;          // compare_interval_side
  void resize(uint32_t count) {
    sum.resize(count);
    sum_sq.resize(count);
    side.resize(count);
  }
};

/// Runs draws of a CompareProblem (kept by reference: it must outlive the engine).
class CompareEngine {
 public:
  virtual ~CompareEngine() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // "2 threads", "NVIDIA H200"
  /// Most draws one run() call takes within the engine's memory bound.
  virtual uint32_t max_chunk(const CompareRun& run) const = 0;
  /// Outcomes of draws [first_draw, first_draw + count) into out (resized).
  virtual void run(const CompareRun& run, uint32_t first_draw, uint32_t count, CompareOutcomes& out) = 0;
};

/// The CPU twin: compare_draw on host threads (0 = every hardware thread).
std::unique_ptr<CompareEngine> make_cpu_compare_engine(const CompareProblem& problem, int threads = 0);
/// The fused CUDA kernel (kernels/budget/cuda_compare_engine.cu), one draw per thread; std::runtime_error
/// when this build has no CUDA or the device is not usable.
std::unique_ptr<CompareEngine> make_cuda_compare_engine(const CompareProblem& problem, int device = 0);
/// One engine over several: each run() splits its draws into contiguous parts run at once;
/// outcomes equal any single engine's. std::invalid_argument for an empty list.
std::unique_ptr<CompareEngine> make_split_compare_engine(const CompareProblem& problem,
                                                         std::vector<std::unique_ptr<CompareEngine>> parts);
/// The engine of an execution target (CPU threads, one device or split over several).
std::unique_ptr<CompareEngine> make_compare_engine(const CompareProblem& problem, const ExecTarget& target);

/// docs/statistics.md §7.6's outputs for one k.
struct CompareSummary {
  uint32_t k = 0;
  uint64_t draws = 0;
  double power = 0;                // share of draws whose interval excludes 0 on the pool difference's side
  double wrong_sign = 0;           // share that exclude 0 on the other side (either side when pool_diff = 0)
  double d_median = 0;             // type-7 quantiles of the draws' mean d
  double d_q[2] = {0, 0};          // 2.5 and 97.5 %
  double pool_diff = 0;            // mean d over the whole pool
  uint64_t above = 0, below = 0;   // draws whose interval lies above / below 0
  std::vector<uint64_t> sum_hist;  // sum_hist[x] draws had Σ scaled d = x − scale·k
  double resample_s = 0;
};

/// Per-draw outcomes into a CompareSummary, chunk by chunk (integer counts only, so the order
/// of chunks and ranks does not matter).
class CompareSummarizer {
 public:
  CompareSummarizer(const CompareProblem& problem, const CompareRun& run);
  void add(const CompareOutcomes& chunk, uint32_t count);
  /// Under MPI (host/distributed/distributed.hpp): sums every rank's counts and gives every rank the totals.
  /// Collective; nothing in one process.
  void combine_ranks();
  CompareSummary finish() const;

 private:
  const CompareProblem& problem_;
  CompareRun run_;
  std::vector<uint64_t> sum_hist_;
  uint64_t above_ = 0, below_ = 0, added_ = 0;
};

/// Runs `draws` draws of one k on the engine in chunks and summarises them; under MPI each rank
/// runs its share and every rank returns the whole run's summary. progress(draws done) after
/// each chunk. std::invalid_argument ("k: …", "draws: …") for a k that check_compare_k refuses
/// or draws outside [1, 2^32].
CompareSummary simulate_compare(CompareEngine& engine, const CompareProblem& problem, const CompareRun& run,
                                uint64_t draws, const std::function<void(uint64_t)>& progress = {});

}  // namespace judgestat
