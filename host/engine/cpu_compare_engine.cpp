// `budget --compare` engines (docs/statistics.md §7.6): the CPU twin of the CUDA kernel
// (kernels/budget/cuda_compare_engine.cu), both calling compare_draw, and the engine of an execution target.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "judgestat/compare_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

class CpuCompareEngine final : public CompareEngine {
 public:
  CpuCompareEngine(const CompareProblem& problem, int threads) : problem_(problem), threads_(capped_threads(threads)) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override { return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads"); }
  uint32_t max_chunk(const CompareRun&) const override { return 1u << 20; }

  void run(const CompareRun& run, uint32_t first_draw, uint32_t count, CompareOutcomes& out) override {
    out.resize(count);
    const PhiloxKey key(run.seed);
    const uint32_t n_items = static_cast<uint32_t>(problem_.n_items);
    // Each thread a contiguous range of draws and its own bitmap (stride 1).
    auto work = [&](uint32_t begin, uint32_t end) {
      std::vector<uint32_t> taken(compare_bitmap_words(n_items), 0);
      for (uint32_t r = begin; r < end; ++r) {
        const CompareDraw draw =
            compare_draw(key, first_draw + r, problem_.scaled_d.data(), n_items, run.k, taken.data(), 1);
        out.sum[r] = draw.sum;
        out.sum_sq[r] = draw.sum_sq;
        out.side[r] = static_cast<int8_t>(compare_interval_side(draw.sum, draw.sum_sq, run.k, problem_.scale, run.z));
      }
    };
    run_in_ranges(count, static_cast<uint32_t>(std::max(threads_, 1)), work);
  }

 private:
  const CompareProblem& problem_;
  int threads_;
};

}  // namespace

#ifndef JUDGESTAT_HAVE_CUDA
// kernels/budget/cuda_compare_engine.cu implements it in CUDA builds.
std::unique_ptr<CompareEngine> make_cuda_compare_engine(const CompareProblem&, int) {
  throw std::runtime_error("this judgestat was built without CUDA (use --backend cpu)");
}
#endif

std::unique_ptr<CompareEngine> make_cpu_compare_engine(const CompareProblem& problem, int threads) {
  return std::make_unique<CpuCompareEngine>(problem, threads);
}

std::unique_ptr<CompareEngine> make_compare_engine(const CompareProblem& problem, const ExecTarget& target) {
  if (!exec_target_uses_cuda(target)) return make_cpu_compare_engine(problem, target.threads);
  const std::vector<int> devices = target.devices.empty() ? std::vector<int>{default_cuda_device()} : target.devices;
  std::vector<std::unique_ptr<CompareEngine>> parts;
  for (int device : devices) parts.push_back(make_cuda_compare_engine(problem, device));
  return make_split_compare_engine(problem, std::move(parts));
}

}  // namespace judgestat
