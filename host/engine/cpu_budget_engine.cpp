// The CPU label-budget engine (docs/statistics.md §3.5): every draw's Floyd selection, rule and held-out totals
// on host threads, exactly as the CUDA engine (kernels/budget/cuda_budget_engine.cu) computes them;
// see budget_engine.hpp.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "judgestat/budget_engine.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

// Per-thread working memory of the CPU engine.
struct CpuScratch {
  std::vector<uint64_t> taken;                     // bitmap over the pool: picked in this draw
  std::vector<uint32_t> picks;                     // this draw's selection set
  std::vector<int32_t> bins;                       // per stratum × level × (2d + 2): labelled item counts
  std::vector<int32_t> choice;                     // per stratum: chosen index
  std::vector<int64_t> accepted, sum_2d, sum_4d2;  // per grid threshold, one stratum at a time
};

// Draw phase: Floyd's selection of the k labelled items into scratch.picks (marked in the
// bitmap), counted into the per stratum × level × (2d + 2) bins.
void draw_labels(const BudgetProblem& problem, const BudgetRun& run, PhiloxKey key, uint32_t draw,
                 CpuScratch& scratch) {
  const uint32_t n_items = static_cast<uint32_t>(problem.n_items), k = run.k;
  const int32_t n_choices = problem.n_choices();
  uint64_t* taken = scratch.taken.data();
  Words4 block{};
  for (uint32_t i = 0; i < k; ++i) {
    if ((i & 3u) == 0) block = draw_block(key, i >> 2, draw, kBudgetStream);
    const uint32_t j = floyd_candidate(block, i, n_items, k);
    const uint32_t pick = (taken[j >> 6] >> (j & 63)) & 1u ? n_items - k + i : j;
    taken[pick >> 6] |= uint64_t{1} << (pick & 63);
    scratch.picks[i] = pick;
    const uint32_t code = problem.item_code[pick];
    ++scratch.bins[(item_stratum(code) * n_choices + item_level(code)) * 5 + item_d_code(code)];
  }
}

// Choose phase for stratum h: selection sums per grid threshold from its bins, then the rule's
// choice (n_grid = `all`). Clears the stratum's bins for the next draw.
int32_t choose_threshold(const BudgetProblem& problem, const BudgetRun& run, int32_t h, CpuScratch& scratch) {
  const int32_t n_choices = problem.n_choices(), n_grid = problem.n_grid;
  int32_t* stratum_bins = scratch.bins.data() + static_cast<size_t>(h) * n_choices * 5;
  int64_t labelled = 0;  // the stratum's labelled items, accepted anywhere or not
  for (int32_t b = 0; b < n_choices * 5; ++b) labelled += stratum_bins[b];
  // Selection sums per grid threshold, from the strictest down: at g the accepted items are
  // those with level > g, so the accepted count never grows with g.
  int64_t accepted = 0, sum_2d = 0, sum_4d2 = 0;
  for (int32_t g = n_grid - 1; g >= 0; --g) {
    const int32_t* level_bins = stratum_bins + (g + 1) * 5;
    for (int32_t b = 0; b < 5; ++b) {
      const int64_t count = level_bins[b], twice_d = b - 2;
      accepted += count;
      sum_2d += count * twice_d;
      sum_4d2 += count * twice_d * twice_d;
    }
    scratch.accepted[g] = accepted;
    scratch.sum_2d[g] = sum_2d;
    scratch.sum_4d2[g] = sum_4d2;
  }
  // ThresholdChoice's order with an early exit: the first passing threshold from the most
  // permissive accepts the most; later ones can only tie it (then the stricter wins) or fall short.
  ThresholdChoice choice;
  for (int32_t g = 0; g < n_grid; ++g) {
    if (choice.index >= 0 && scratch.accepted[g] < choice.accepted) break;
    if (rule_passes(run.rule, scratch.sum_2d[g], scratch.sum_4d2[g], labelled)) choice.offer(g, scratch.accepted[g]);
  }
  std::fill(stratum_bins, stratum_bins + n_choices * 5, 0);
  return choice.chosen(n_grid);
}

// One draw, exactly as the CUDA kernel computes it: the draw phase, the choose phase per
// stratum, then the score phase: held-out totals as pool totals minus the selection's part.
void simulate_draw(const BudgetProblem& problem, const BudgetRun& run, PhiloxKey key, uint32_t draw,
                   CpuScratch& scratch, int64_t* heldout_2d, int64_t* heldout_escalated, double* fee_ratio,
                   uint8_t* chosen) {
  const int32_t n_choices = problem.n_choices();
  draw_labels(problem, run, key, draw, scratch);

  int64_t heldout_twice_d = 0, escalated = 0, cascade_fee = 0, fallback_fee = problem.total_fallback_fee;
  for (int32_t h = 0; h < problem.n_strata; ++h) {
    const int32_t c = choose_threshold(problem, run, h, scratch);
    scratch.choice[h] = c;
    chosen[h] = static_cast<uint8_t>(c);
    heldout_twice_d += problem.total_accepted_2d[static_cast<size_t>(h) * n_choices + c];
    escalated += problem.total_escalated[static_cast<size_t>(h) * n_choices + c];
    cascade_fee += problem.total_cascade_fee[static_cast<size_t>(h) * n_choices + c];
  }

  // Remove the labelled items' part of the totals; clear the bitmap for the next draw.
  uint64_t* taken = scratch.taken.data();
  for (uint32_t i = 0; i < run.k; ++i) {
    const uint32_t pick = scratch.picks[i];
    const uint32_t code = problem.item_code[pick];
    const int32_t c = scratch.choice[item_stratum(code)];
    const bool accepted = item_level(code) > c;
    if (accepted)
      heldout_twice_d -= item_twice_d(code);
    else
      --escalated;
    cascade_fee -= problem.fee_first_fx[pick] + (accepted ? 0 : problem.fee_fallback_fx[pick]);
    fallback_fee -= problem.fee_fallback_fx[pick];
    taken[pick >> 6] &= ~(uint64_t{1} << (pick & 63));
  }
  *heldout_2d = heldout_twice_d;
  *heldout_escalated = escalated;
  *fee_ratio = fee_ratio_of(cascade_fee, fallback_fee);
}

class CpuBudgetEngine final : public BudgetEngine {
 public:
  CpuBudgetEngine(const BudgetProblem& problem, int threads) : problem_(problem), threads_(capped_threads(threads)) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override { return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads"); }
  uint32_t max_chunk(const BudgetRun&) const override { return 1u << 20; }

  void run(const BudgetRun& run, uint32_t first_draw, uint32_t count, DrawOutcomes& out) override {
    out.resize(count, problem_.n_strata);
    const PhiloxKey key(run.seed);
    auto work = [&](uint32_t begin, uint32_t end) {
      CpuScratch scratch;
      scratch.taken.assign((static_cast<size_t>(problem_.n_items) + 63) / 64, 0);
      scratch.picks.resize(run.k);
      scratch.bins.assign(static_cast<size_t>(problem_.n_strata) * problem_.n_choices() * 5, 0);
      scratch.choice.resize(problem_.n_strata);
      scratch.accepted.resize(problem_.n_grid);
      scratch.sum_2d.resize(problem_.n_grid);
      scratch.sum_4d2.resize(problem_.n_grid);
      for (uint32_t r = begin; r < end; ++r)
        simulate_draw(problem_, run, key, first_draw + r, scratch, &out.heldout_2d[r], &out.heldout_escalated[r],
                      &out.fee_ratio[r], &out.chosen[static_cast<size_t>(r) * problem_.n_strata]);
    };
    run_in_ranges(count, static_cast<uint32_t>(std::max(threads_, 1)), work);
  }

 private:
  const BudgetProblem& problem_;
  int threads_;
};

}  // namespace

std::vector<uint32_t> floyd_sample(uint64_t seed, uint32_t draw, uint32_t n_items, uint32_t k) {
  if (k > n_items) throw std::invalid_argument("floyd_sample: k exceeds the pool");
  const PhiloxKey key(seed);
  std::vector<uint8_t> taken(n_items, 0);
  std::vector<uint32_t> picks(k);
  Words4 block{};
  for (uint32_t i = 0; i < k; ++i) {
    if ((i & 3u) == 0) block = draw_block(key, i >> 2, draw, kBudgetStream);
    const uint32_t j = floyd_candidate(block, i, n_items, k);
    picks[i] = taken[j] ? n_items - k + i : j;
    taken[picks[i]] = 1;
  }
  return picks;
}

std::unique_ptr<BudgetEngine> make_cpu_budget_engine(const BudgetProblem& problem, int threads) {
  return std::make_unique<CpuBudgetEngine>(problem, threads);
}

}  // namespace judgestat
