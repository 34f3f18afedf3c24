// Label-budget simulation of threshold rules (docs/statistics.md §3.5): how often a threshold chosen on k
// labelled items loses more than `tol` accuracy against the fallback on the other N − k items.
//
// Every draw is independent of every other: draw d's selection set comes from Philox counters
// (step/4, d, kBudgetStream, 0), so a draw's outcome is the same on every backend, thread count
// and chunking. All per-draw arithmetic is on exact integers (half-counts of d, fees in fixed
// point) up to one final division, so outcomes are bit-identical between the CPU and CUDA engines.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "judgestat/philox.hpp"
#include "judgestat/rules.hpp"

namespace judgestat {

/// Ascending thresholds in [0, 1] as the user wrote them; the choice `all` (escalate every item)
/// follows the last one and has index size().
struct ThresholdGrid {
  std::vector<double> values;
  std::vector<std::string> labels;  // the values' text, e.g. "0.85"
  int32_t size() const { return static_cast<int32_t>(values.size()); }
  /// labels[index], or "all" for index == size().
  std::string label(int32_t index) const { return index < size() ? labels[index] : "all"; }
};

/// docs/statistics.md §3.3's default grid {0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1}.
ThresholdGrid default_grid();
/// The grid of thresholds written as `values` (kept as labels, e.g. "0.85"):
/// std::invalid_argument ("grid: …") for an entry that is not a number, a value outside [0, 1],
/// values that do not strictly ascend, or more than kMaxGrid values.
ThresholdGrid threshold_grid(const std::vector<std::string>& values);

inline constexpr int32_t kMaxGrid = 254;        // chosen indices (grid + `all`) fit in uint8
inline constexpr int32_t kMaxStrata = 1 << 21;  // stratum field of ItemCode

/// Per-item code: level (bits 0–7) = how many grid thresholds accept the item (0 when its gate
/// fails; the item is accepted at grid index g iff g < level), 2d + 2 (bits 8–10) where
/// d = c1 − c2 is the item's cascade-minus-fallback correctness when accepted, and the stratum
/// (bits 11–31).
JS_HD uint32_t pack_item(int32_t level, int32_t twice_d, int32_t stratum) {
  return static_cast<uint32_t>(level) | (static_cast<uint32_t>(twice_d + 2) << 8) |
         (static_cast<uint32_t>(stratum) << 11);
}
JS_HD int32_t item_level(uint32_t code) { return static_cast<int32_t>(code & 0xFFu); }
JS_HD int32_t item_d_code(uint32_t code) { return static_cast<int32_t>((code >> 8) & 7u); }  // 2d + 2
JS_HD int32_t item_twice_d(uint32_t code) { return item_d_code(code) - 2; }
JS_HD int32_t item_stratum(uint32_t code) { return static_cast<int32_t>(code >> 11); }

/// The simulation's input in exact units (an analysis derives it: make_budget_problem).
struct BudgetProblem {
  int32_t n_items = 0;
  int32_t n_grid = 0;               // grid thresholds; choice index n_grid = `all`
  int32_t n_strata = 1;             // strata choosing their own τ; 1 = pooled rule
  int fee_shift = 0;                // fees are stored as llround(fee · 2^fee_shift); sums fit in int64
  std::vector<uint32_t> item_code;  // per item, pack_item
  std::vector<int64_t> fee_first_fx, fee_fallback_fx;  // per item, fixed point
  // Pool totals per stratum h and choice c in [0, n_grid], index h * (n_grid + 1) + c:
  std::vector<int64_t> total_accepted_2d;  // Σ 2d over the stratum's items accepted at c
  std::vector<int64_t> total_cascade_fee;  // Σ (fee_first + (accepted at c ? 0 : fee_fallback))
  std::vector<int64_t> total_escalated;    // the stratum's items not accepted at c
  int64_t total_fallback_fee = 0;          // Σ fee_fallback over the pool
  std::vector<std::string> strata_names;

  int32_t n_choices() const { return n_grid + 1; }
};

/// std::invalid_argument ("k: …") unless 1 <= rule_min_labels(rule) <= k < n_items.
void check_budget_k(const BudgetProblem& problem, uint32_t k, ThresholdRule rule);

/// One (k, rule) batch of draws.
struct BudgetRun {
  uint32_t k = 96;
  RuleSettings rule;
  uint64_t seed = 1;
};

/// Floyd's step i of draw `draw` (docs/statistics.md §3.5): the candidate j = (u · (t + 1)) >> 32 with
/// t = n − k + i and u = word i mod 4 of Philox(counter = (i div 4, draw, kBudgetStream, 0)).
/// The step takes j unless an earlier step took it, then t.
JS_HD uint32_t floyd_candidate(const Words4& block, uint32_t step, uint32_t n_items, uint32_t k) {
  const uint32_t t = n_items - k + step;
  return scale_to(block.w[step & 3u], t + 1u);
}

/// Draw `draw`'s selection set in step order (host reference; the engines inline the same steps).
std::vector<uint32_t> floyd_sample(uint64_t seed, uint32_t draw, uint32_t n_items, uint32_t k);

/// Held-out Δ of a draw: Σ 2d over the held-out items / (2 · held-out count).
JS_HD double heldout_delta(int64_t heldout_twice_d, int64_t heldout_items) {
  return static_cast<double>(heldout_twice_d) / (2.0 * static_cast<double>(heldout_items));
}
/// Fee ratio of a draw: held-out cascade fee / held-out fallback fee (NaN when the latter is 0).
JS_HD double fee_ratio_of(int64_t cascade_fee, int64_t fallback_fee) {
  return fallback_fee == 0 ? static_cast<double>(NAN)
                           : static_cast<double>(cascade_fee) / static_cast<double>(fallback_fee);
}

/// Per-draw outcomes of draws [first, first + count).
struct DrawOutcomes {
  std::vector<int64_t> heldout_2d;         // Σ 2d over the N − k held-out items under the chosen policy
  std::vector<int64_t> heldout_escalated;  // held-out items the chosen policy escalates
  std::vector<double> fee_ratio;           // held-out cascade fee / held-out fallback fee
  std::vector<uint8_t> chosen;             // count × n_strata chosen indices (n_grid = `all`)
  void resize(uint32_t count, int32_t n_strata) {
    heldout_2d.resize(count);
    heldout_escalated.resize(count);
    fee_ratio.resize(count);
    chosen.resize(static_cast<size_t>(count) * n_strata);
  }
};

/// Runs draws of a BudgetProblem. The engine keeps a reference to the problem, which must
/// outlive it.
class BudgetEngine {
 public:
  virtual ~BudgetEngine() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // "2 threads", "NVIDIA H200"
  /// Most draws one run() call takes within the engine's memory bound.
  virtual uint32_t max_chunk(const BudgetRun& run) const = 0;
  /// Outcomes of draws [first_draw, first_draw + count) into out (resized).
  virtual void run(const BudgetRun& run, uint32_t first_draw, uint32_t count, DrawOutcomes& out) = 0;
  /// Seconds spent in the device kernel over this engine's run() calls so far (CUDA events
  /// around each launch), so a benchmark can tell kernel from host time; 0 where not measured
  /// (the CPU engine, split engines).
  virtual double kernel_seconds() const { return 0.0; }
};

/// threads = 0: every hardware thread. Outcomes do not depend on the thread count.
std::unique_ptr<BudgetEngine> make_cpu_budget_engine(const BudgetProblem& problem, int threads = 0);
/// std::runtime_error when this build has no CUDA or no device is usable.
std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem& problem, int device = 0);
/// One engine over several (one per device): each run() splits its draws into contiguous parts,
/// one per engine, run at once on host threads; outcomes equal any single engine's.
/// std::invalid_argument for an empty list.
std::unique_ptr<BudgetEngine> make_split_budget_engine(const BudgetProblem& problem,
                                                       std::vector<std::unique_ptr<BudgetEngine>> parts);
// The engine of an execution target (CPU, one device or split over several):
// make_budget_engine in judgestat/exec_target.hpp.

/// docs/statistics.md §3.5's outputs for one (k, rule).
struct BudgetSummary {
  uint32_t k = 0;
  ThresholdRule rule = ThresholdRule::kLower;
  bool per_stratum = false;
  uint64_t draws = 0;
  double loss_share = 0;  // share of draws with Δ < −tol
  double delta_mean = 0;
  double delta_q[3] = {0, 0, 0};  // 2.5, 50, 97.5 % (type 7)
  double delta_p10 = 0;           // 10 % (type 7): how bad a bad draw is
  double fee_ratio_median = 0;
  double fee_ratio_q[3] = {0, 0, 0};  // 2.5, 50, 97.5 % (type 7) over draws with a defined ratio
  uint64_t fee_ratio_undefined = 0;   // draws whose held-out fallback fee is 0
  std::vector<uint64_t> tau_hist;     // per choice index (n_grid = `all`); per-stratum: summed
                                      // over strata, so it totals draws × strata
  double escalate_all_share = 0;      // draws in which every stratum chose `all`
  double escalated_median = 0;        // median (type 7) share of the held-out items escalated
  // Distribution of Δ for plots: delta_hist[x] draws had Σ 2d = x − 2·heldout_items.
  int64_t heldout_items = 0;
  std::vector<uint64_t> delta_hist;
  std::vector<uint64_t> escalated_hist;  // escalated_hist[x] draws escalated x held-out items
  double resample_s = 0;
};

/// Turns per-draw outcomes into a BudgetSummary, chunk by chunk. Memory: the Δ and escalation
/// histograms (5·(N − k) + 2 counts) and one double per draw for the fee-ratio quantiles.
class BudgetSummarizer {
 public:
  BudgetSummarizer(const BudgetProblem& problem, const BudgetRun& run, uint64_t draws);
  void add(const DrawOutcomes& chunk, uint64_t first_draw, uint32_t count);
  /// A run over MPI ranks (host/distributed/distributed.hpp) gives each rank a contiguous range of draws:
  /// adds every rank's counts into rank 0's and appends their fee ratios after its own, in rank
  /// (= draw) order, so rank 0's finish() is that of one process. Collective; nothing in one.
  void combine_ranks();
  BudgetSummary finish();

 private:
  const BudgetProblem& problem_;
  BudgetRun run_;
  BudgetSummary summary_;
  std::vector<double> fee_ratios_;
  uint64_t escalate_all_ = 0, added_ = 0;
};

/// Quantile type 7 of a histogram over consecutive integers: hist[x] values equal x + offset.
double histogram_quantile(const std::vector<uint64_t>& hist, int64_t offset, double p);

/// Runs `draws` draws of one (k, rule) on the engine in chunks and summarises them; under MPI
/// each rank runs its share and every rank returns rank 0's summary (equal to one process's).
/// progress(draws done) is called after each chunk. std::invalid_argument ("k: …", "draws: …")
/// for a k that check_budget_k refuses or draws outside [1, 2^32].
BudgetSummary simulate_budget(BudgetEngine& engine, const BudgetProblem& problem, const BudgetRun& run, uint64_t draws,
                              const std::function<void(uint64_t)>& progress = {});

}  // namespace judgestat
