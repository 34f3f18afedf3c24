// CUDA engine of the label-budget simulation (docs/statistics.md §3.5): one fused kernel per (k, rule) batch
// of draws, one warp per draw. Per draw, nothing larger than the selection set (k indices) and
// the per-stratum selection counts lives anywhere; only per-draw outcomes leave the device.
//
// Per draw the warp
//   1. draws the selection set with Floyd's algorithm, 32 steps at a time: lane l computes step
//      i0 + l's Philox word and candidate j, checks j against the picks of earlier batches (in
//      shared memory), then the batch is resolved in step order by shuffles (a step takes t
//      instead of j when an earlier step of the batch picked j); each pick adds 1 to its
//      (stratum, level, 2d) count in shared memory;
//   2. evaluates the rule for every (stratum, grid threshold) pair across lanes and keeps, per
//      stratum, the preferred passing threshold with one atomicMax on (accepted << 8 | g);
//   3. scores the chosen policy on the held-out items as pool totals minus the selection's part,
//      in integers (Σ 2d, escalated items and fixed-point fees), reduced across the warp by shuffles.
// The CPU engine (host/engine/cpu_budget_engine.cpp) performs the same integer steps, so outcomes are
// identical. The steps are a BudgetWarpAgent's (detail/budget_agent.cuh); this file is the
// dispatch: the engine's device tables, the grid from occupancy, the launch and the copies back.
//
// Two variants of steps 1 and 2 (JUDGESTAT_BUDGET_KERNEL=1|2, in the execution target's
// CudaTuning; 1 is the default until a GPU session has measured and checked 2 — bench/NOTES.md):
//   1: each lane computes the whole Philox block of its step (4x the Philox work: the 4 lanes of
//      a block compute it alike); the rule sums the levels above g for each g (O(grid²));
//   2: a lane computes one block per 128 steps and the words reach their steps by shuffles;
//      per-level totals, then suffix sums per stratum, so each (stratum, g) reads its sums (O(grid)).
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "../detail/cuda_check.cuh"
#include "detail/budget_agent.cuh"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"

namespace judgestat {
namespace {

constexpr int kWarpsPerBlockMax = 8;
using cuda_detail::budget_kernel_for;
using cuda_detail::budget_warp_words;
using cuda_detail::BudgetKernelArgs;

// Outcome buffers grow to the largest chunk seen and are reused after that.
template <class T>
void reserve(cuda_detail::DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() < count) buffer.allocate(count);
}

class CudaBudgetEngine final : public BudgetEngine {
 public:
  CudaBudgetEngine(const BudgetProblem& problem, int device, const CudaTuning& tuning)
      : problem_(problem), device_(device), kernel_(budget_kernel_for(tuning)) {
    int devices = 0;
    JS_CUDA_CHECK(cudaGetDeviceCount(&devices));
    if (device < 0 || device >= devices)
      throw std::runtime_error("CUDA budget engine: device " + std::to_string(device) + " does not exist (" +
                               std::to_string(devices) + " devices)");
    JS_CUDA_CHECK(cudaSetDevice(device));
    JS_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device));
    item_code_.upload(problem.item_code);
    fee_first_.upload(problem.fee_first_fx);
    fee_fallback_.upload(problem.fee_fallback_fx);
    total_accepted_2d_.upload(problem.total_accepted_2d);
    total_cascade_fee_.upload(problem.total_cascade_fee);
    total_escalated_.upload(problem.total_escalated);
    JS_CUDA_CHECK(cudaEventCreate(&kernel_start_));
    JS_CUDA_CHECK(cudaEventCreate(&kernel_end_));
  }

  // The device arrays are freed after this body runs: on this engine's device, with several.
  ~CudaBudgetEngine() override {
    cudaSetDevice(device_);
    if (kernel_start_) cudaEventDestroy(kernel_start_);
    if (kernel_end_) cudaEventDestroy(kernel_end_);
  }

  double kernel_seconds() const override { return kernel_seconds_; }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return properties_.name; }

  uint32_t max_chunk(const BudgetRun&) const override {
    // Device outcome buffers within a quarter of free memory; host copies stay modest too.
    size_t free_bytes = 0, total_bytes = 0;
    JS_CUDA_CHECK(cudaSetDevice(device_));
    JS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const size_t per_draw = 2 * sizeof(int64_t) + sizeof(double) + static_cast<size_t>(problem_.n_strata);
    const size_t fits = free_bytes / 4 / per_draw;
    return static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(fits, size_t{1} << 22)));
  }

  void run(const BudgetRun& run, uint32_t first_draw, uint32_t count, DrawOutcomes& out) override {
    check_budget_shape(run);
    JS_CUDA_CHECK(cudaSetDevice(device_));
    out.resize(count, problem_.n_strata);
    if (count == 0) return;
    reserve(heldout_2d_, count);
    reserve(heldout_escalated_, count);
    reserve(fee_ratio_, count);
    reserve(chosen_, static_cast<size_t>(count) * problem_.n_strata);

    const size_t warp_bytes = budget_warp_words(run.k, problem_.n_grid, problem_.n_strata) * sizeof(uint32_t);
    const size_t shared_limit = properties_.sharedMemPerBlockOptin;
    if (warp_bytes > shared_limit)
      throw std::runtime_error("CUDA budget engine: k = " + std::to_string(run.k) + " with " +
                               std::to_string(problem_.n_strata) + " strata and " + std::to_string(problem_.n_grid) +
                               " thresholds needs more shared memory than one block has (use --backend cpu)");
    const int warps = static_cast<int>(std::min<size_t>(kWarpsPerBlockMax, shared_limit / warp_bytes));
    const size_t block_bytes = warp_bytes * warps;
    JS_CUDA_CHECK(
        cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(block_bytes)));
    int blocks_per_sm = 0;
    JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel_, warps * 32, block_bytes));
    const uint64_t needed = (static_cast<uint64_t>(count) + warps - 1) / warps;
    const uint64_t resident = static_cast<uint64_t>(std::max(blocks_per_sm, 1)) * properties_.multiProcessorCount;
    const unsigned blocks = static_cast<unsigned>(std::max<uint64_t>(1, std::min(needed, resident)));

    BudgetKernelArgs args{};
    args.item_code = item_code_.data();
    args.fee_first = fee_first_.data();
    args.fee_fallback = fee_fallback_.data();
    args.total_accepted_2d = total_accepted_2d_.data();
    args.total_cascade_fee = total_cascade_fee_.data();
    args.total_escalated = total_escalated_.data();
    args.total_fallback_fee = problem_.total_fallback_fee;
    args.n_items = static_cast<uint32_t>(problem_.n_items);
    args.k = run.k;
    args.n_grid = problem_.n_grid;
    args.n_strata = problem_.n_strata;
    args.rule = run.rule;
    const PhiloxKey key(run.seed);
    args.key0 = key.k0;
    args.key1 = key.k1;
    args.first_draw = first_draw;
    args.count = count;
    args.out_heldout_2d = heldout_2d_.data();
    args.out_heldout_escalated = heldout_escalated_.data();
    args.out_fee_ratio = fee_ratio_.data();
    args.out_chosen = chosen_.data();
    // Events around the launch alone: bench w2's end-to-end rate is mostly host work (copies,
    // the summarizer), and the kernel variants must be compared on the kernel's own time.
    JS_CUDA_CHECK(cudaEventRecord(kernel_start_, 0));
    kernel_<<<blocks, warps * 32, block_bytes>>>(args);
    JS_CUDA_CHECK(cudaGetLastError());
    JS_CUDA_CHECK(cudaEventRecord(kernel_end_, 0));
    JS_CUDA_CHECK(
        cudaMemcpy(out.heldout_2d.data(), heldout_2d_.data(), count * sizeof(int64_t), cudaMemcpyDeviceToHost));
    JS_CUDA_CHECK(cudaMemcpy(out.heldout_escalated.data(), heldout_escalated_.data(), count * sizeof(int64_t),
                             cudaMemcpyDeviceToHost));
    JS_CUDA_CHECK(cudaMemcpy(out.fee_ratio.data(), fee_ratio_.data(), count * sizeof(double), cudaMemcpyDeviceToHost));
    JS_CUDA_CHECK(cudaMemcpy(out.chosen.data(), chosen_.data(), out.chosen.size(), cudaMemcpyDeviceToHost));
    float kernel_ms = 0;  // the copies above were ordered after kernel_end_ on the same stream
    JS_CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, kernel_start_, kernel_end_));
    kernel_seconds_ += 1e-3 * kernel_ms;
  }

 private:
  void check_budget_shape(const BudgetRun& run) const {
    if (run.k < static_cast<uint32_t>(rule_min_labels(run.rule.rule)) ||
        run.k >= static_cast<uint32_t>(problem_.n_items))
      throw std::runtime_error("CUDA budget engine: k = " + std::to_string(run.k) + " does not fit a pool of " +
                               std::to_string(problem_.n_items) + " items and the " + rule_name(run.rule.rule) +
                               " rule");
    // The packed choice (accepted << 8 | g) must stay a non-negative int32.
    if (run.k >= (1u << 23)) throw std::runtime_error("CUDA budget engine: k must be below 2^23 (use --backend cpu)");
  }

  const BudgetProblem& problem_;
  int device_;
  cuda_detail::BudgetKernel kernel_;  // the tuning's variant (JUDGESTAT_BUDGET_KERNEL)
  cudaDeviceProp properties_{};
  cuda_detail::DeviceBuffer<uint32_t> item_code_;
  cuda_detail::DeviceBuffer<int64_t> fee_first_, fee_fallback_, total_accepted_2d_, total_cascade_fee_,
      total_escalated_;
  cuda_detail::DeviceBuffer<int64_t> heldout_2d_, heldout_escalated_;
  cuda_detail::DeviceBuffer<double> fee_ratio_;
  cuda_detail::DeviceBuffer<uint8_t> chosen_;
  cudaEvent_t kernel_start_ = nullptr, kernel_end_ = nullptr;
  double kernel_seconds_ = 0;  // accumulated over run() calls
};

}  // namespace

std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem& problem, int device,
                                                      const CudaTuning& tuning) {
  if (!tuning.budget_error.empty()) throw std::runtime_error(tuning.budget_error);
  return std::make_unique<CudaBudgetEngine>(problem, device, tuning);
}

}  // namespace judgestat
