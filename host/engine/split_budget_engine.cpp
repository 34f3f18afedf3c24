// One label-budget engine (and one `budget --compare` engine) over several, one per device: each
// run() splits its draws into contiguous parts (split_range), one per engine, run at once on host
// threads.
#include <algorithm>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <vector>

#include "engine/split_range.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

// Every part takes at most an even share of a call, so the smallest part bounds the whole.
template <typename Parts, typename Run>
uint32_t split_max_chunk(const Parts& parts, const Run& run) {
  uint64_t smallest = UINT32_MAX;
  for (const auto& part : parts) smallest = std::min<uint64_t>(smallest, part->max_chunk(run));
  return static_cast<uint32_t>(std::min<uint64_t>(UINT32_MAX, smallest * parts.size()));
}

// Draws [first_draw, first_draw + count) in contiguous parts (split_range), one per engine, at
// once on host threads; place(mine, begin) copies a part's outcomes into the caller's at `begin`.
template <typename Outcomes, typename Parts, typename Run, typename Place>
void run_split(const Parts& parts, const Run& run, uint32_t first_draw, uint32_t count, const Place& place) {
  const uint64_t n = parts.size();
  std::vector<Outcomes> part_out(n);
  std::vector<std::future<void>> running;
  for (uint64_t p = 0; p < n; ++p) {
    const SplitRange range = split_range(count, p, n);
    if (range.empty()) continue;
    const uint32_t begin = static_cast<uint32_t>(range.begin), end = static_cast<uint32_t>(range.end);
    running.push_back(std::async(std::launch::async, [&, p, begin, end] {
      parts[p]->run(run, first_draw + begin, end - begin, part_out[p]);
      place(part_out[p], begin);
    }));
  }
  wait_all_then_rethrow(running);  // the parts write into the caller's outcomes
}

class SplitBudgetEngine final : public BudgetEngine {
 public:
  SplitBudgetEngine(const BudgetProblem& problem, std::vector<std::unique_ptr<BudgetEngine>> parts)
      : problem_(problem), parts_(std::move(parts)) {
    if (parts_.empty()) throw std::invalid_argument("make_split_budget_engine: no engines");
  }

  std::string name() const override { return parts_.front()->name(); }
  std::string device() const override { return split_device_name_of(parts_); }

  uint32_t max_chunk(const BudgetRun& run) const override { return split_max_chunk(parts_, run); }

  void run(const BudgetRun& run, uint32_t first_draw, uint32_t count, DrawOutcomes& out) override {
    out.resize(count, problem_.n_strata);
    const size_t strata = static_cast<size_t>(problem_.n_strata);
    run_split<DrawOutcomes>(parts_, run, first_draw, count, [&](const DrawOutcomes& mine, uint32_t begin) {
      std::copy(mine.heldout_2d.begin(), mine.heldout_2d.end(), out.heldout_2d.begin() + begin);
      std::copy(mine.heldout_escalated.begin(), mine.heldout_escalated.end(), out.heldout_escalated.begin() + begin);
      std::copy(mine.fee_ratio.begin(), mine.fee_ratio.end(), out.fee_ratio.begin() + begin);
      std::copy(mine.chosen.begin(), mine.chosen.end(), out.chosen.begin() + begin * strata);
    });
  }

 private:
  const BudgetProblem& problem_;
  std::vector<std::unique_ptr<BudgetEngine>> parts_;
};

class SplitCompareEngine final : public CompareEngine {
 public:
  explicit SplitCompareEngine(std::vector<std::unique_ptr<CompareEngine>> parts) : parts_(std::move(parts)) {
    if (parts_.empty()) throw std::invalid_argument("make_split_compare_engine: no engines");
  }

  std::string name() const override { return parts_.front()->name(); }
  std::string device() const override { return split_device_name_of(parts_); }

  uint32_t max_chunk(const CompareRun& run) const override { return split_max_chunk(parts_, run); }

  void run(const CompareRun& run, uint32_t first_draw, uint32_t count, CompareOutcomes& out) override {
    out.resize(count);
    run_split<CompareOutcomes>(parts_, run, first_draw, count, [&](const CompareOutcomes& mine, uint32_t begin) {
      std::copy(mine.sum.begin(), mine.sum.end(), out.sum.begin() + begin);
      std::copy(mine.sum_sq.begin(), mine.sum_sq.end(), out.sum_sq.begin() + begin);
      std::copy(mine.side.begin(), mine.side.end(), out.side.begin() + begin);
    });
  }

 private:
  std::vector<std::unique_ptr<CompareEngine>> parts_;
};

}  // namespace

std::unique_ptr<CompareEngine> make_split_compare_engine(const CompareProblem&,
                                                         std::vector<std::unique_ptr<CompareEngine>> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<SplitCompareEngine>(std::move(parts));
}

std::unique_ptr<BudgetEngine> make_split_budget_engine(const BudgetProblem& problem,
                                                       std::vector<std::unique_ptr<BudgetEngine>> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<SplitBudgetEngine>(problem, std::move(parts));
}

}  // namespace judgestat
