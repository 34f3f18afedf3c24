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
// The CPU engine (host/budget.cpp) performs the same integer steps, so outcomes are identical.
//
// Two variants of steps 1 and 2 (JUDGESTAT_BUDGET_KERNEL=1|2, read when an engine is made; 1 is
// the default until a GPU session has measured and checked 2 — bench/NOTES.md):
//   1: each lane computes the whole Philox block of its step (4x the Philox work: the 4 lanes of
//      a block compute it alike); the rule sums the levels above g for each g (O(grid²));
//   2: a lane computes one block per 128 steps and the words reach their steps by shuffles;
//      per-level totals, then suffix sums per stratum, so each (stratum, g) reads its sums (O(grid)).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "../detail/cuda_check.cuh"
#include "judgestat/budget.hpp"

namespace judgestat {
namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kWarpsPerBlockMax = 8;

struct KernelArgs {
  const uint32_t* item_code;
  const int64_t* fee_first;
  const int64_t* fee_fallback;
  const int64_t* total_accepted_2d;  // n_strata × n_choices
  const int64_t* total_cascade_fee;  // n_strata × n_choices
  const int64_t* total_escalated;    // n_strata × n_choices
  int64_t total_fallback_fee;
  uint32_t n_items, k;
  int32_t n_grid, n_strata;
  RuleSettings rule;
  uint32_t key0, key1;
  uint32_t first_draw, count;
  int64_t* out_heldout_2d;
  int64_t* out_heldout_escalated;
  double* out_fee_ratio;
  uint8_t* out_chosen;  // count × n_strata
};

// Shared memory of one warp, in 32-bit words: counts, then per-stratum choices, then picks, then
// (variant 2) per-(stratum, level) suffix sums of counts, 2d and 4d².
__host__ __device__ inline size_t warp_words(uint32_t k, int32_t n_grid, int32_t n_strata) {
  const size_t words = static_cast<size_t>(n_strata) * (n_grid + 1) * 8 + n_strata + k;
  return (words + 3) & ~size_t{3};  // keep every warp's area 16-byte aligned
}

__device__ __forceinline__ int64_t warp_sum(int64_t value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullMask, value, offset);
  return value;
}

template <int Variant>
__global__ void budget_kernel(KernelArgs a) {
  extern __shared__ uint32_t shared_words[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps_per_block = blockDim.x >> 5;
  const int32_t n_choices = a.n_grid + 1;
  const int32_t n_counts = a.n_strata * n_choices * 5;

  uint32_t* area = shared_words + warp_words(a.k, a.n_grid, a.n_strata) * warp;
  int32_t* counts = reinterpret_cast<int32_t*>(area);  // [stratum][level][2d + 2]
  int32_t* best = counts + n_counts;                   // per stratum: packed choice, then index
  uint32_t* picks = reinterpret_cast<uint32_t*>(best + a.n_strata);
  const int32_t n_levels = a.n_strata * n_choices;
  int32_t* level_count = reinterpret_cast<int32_t*>(picks + a.k);  // variant 2: suffix sums
  int32_t* level_2d = level_count + n_levels;
  int32_t* level_4d2 = level_2d + n_levels;
  const PhiloxKey key(uint64_t{a.key0} | (uint64_t{a.key1} << 32));

  for (uint32_t r = blockIdx.x * warps_per_block + warp; r < a.count; r += gridDim.x * warps_per_block) {
    const uint32_t draw = a.first_draw + r;
    for (int32_t x = lane; x < n_counts; x += 32) counts[x] = 0;
    for (int32_t h = lane; h < a.n_strata; h += 32) best[h] = -1;
    __syncwarp();

    // 1. Floyd's selection, one batch of 32 steps per iteration.
    Words4 group_block{};  // variant 2: block (i0 & ~127) / 4 + lane, serving steps of 4 lanes
    for (uint32_t i0 = 0; i0 < a.k; i0 += 32) {
      const uint32_t i = i0 + lane;
      const bool active = i < a.k;
      Words4 block{};
      if constexpr (Variant == 2) {
        if ((i0 & 127u) == 0) {
          const uint32_t own = (i0 >> 2) + static_cast<uint32_t>(lane);
          if (own < (a.k + 3) / 4) group_block = draw_block(key, own, draw, kBudgetStream);
        }
        // Step i's block is i / 4 = i0 / 4 + lane / 4, held by lane (i0 & 127) / 4 + lane / 4.
        const int owner = static_cast<int>((i0 & 127u) >> 2) + (lane >> 2);
        for (int w = 0; w < 4; ++w) block.w[w] = __shfl_sync(kFullMask, group_block.w[w], owner);
      }
      uint32_t j = 0, t = 0;
      bool taken = false;
      if (active) {
        if constexpr (Variant == 1) block = draw_block(key, i >> 2, draw, kBudgetStream);
        j = floyd_candidate(block, i, a.n_items, a.k);
        t = a.n_items - a.k + i;
        for (uint32_t e = 0; e < i0; ++e) taken |= picks[e] == j;
      }
      const uint32_t batch = min(32u, a.k - i0);
      for (uint32_t m = 0; m < batch; ++m) {
        // Step i0 + m's pick is final once the steps before it have been applied.
        const uint32_t pick_m = __shfl_sync(kFullMask, taken ? t : j, m);
        if (static_cast<uint32_t>(lane) > m && j == pick_m) taken = true;
      }
      if (active) {
        const uint32_t pick = taken ? t : j;
        picks[i] = pick;
        const uint32_t code = a.item_code[pick];
        atomicAdd(&counts[(item_stratum(code) * n_choices + item_level(code)) * 5 + item_d_code(code)], 1);
      }
      __syncwarp();
    }

    // 2. The rule at every (stratum, threshold); accepted at g = levels above g.
    if constexpr (Variant == 1) {
      for (int32_t pair = lane; pair < a.n_strata * a.n_grid; pair += 32) {
        const int32_t h = pair / a.n_grid, g = pair % a.n_grid;
        const int32_t* stratum_counts = counts + h * n_choices * 5;
        int64_t labelled = 0, accepted = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t level = 0; level < n_choices; ++level) {
          for (int32_t b = 0; b < 5; ++b) {
            const int64_t count = stratum_counts[level * 5 + b], twice_d = b - 2;
            labelled += count;
            if (level > g) {
              accepted += count;
              sum_2d += count * twice_d;
              sum_4d2 += count * twice_d * twice_d;
            }
          }
        }
        // ThresholdChoice's order: more accepted first, then the larger grid index.
        if (rule_passes(a.rule, sum_2d, sum_4d2, labelled))
          atomicMax(&best[h], static_cast<int32_t>((accepted << 8) | g));
      }
    } else {
      // Per (stratum, level) totals over the five 2d bins ...
      for (int32_t x = lane; x < n_levels; x += 32) {
        const int32_t* bins = counts + x * 5;
        int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t b = 0; b < 5; ++b) {
          count += bins[b];
          sum_2d += bins[b] * (b - 2);
          sum_4d2 += bins[b] * (b - 2) * (b - 2);
        }
        level_count[x] = count;
        level_2d[x] = sum_2d;
        level_4d2[x] = sum_4d2;
      }
      __syncwarp();
      // ... then suffix sums, a lane per stratum: entry (h, L) holds the sums over levels >= L.
      for (int32_t h = lane; h < a.n_strata; h += 32) {
        int32_t count = 0, sum_2d = 0, sum_4d2 = 0;
        for (int32_t level = n_choices - 1; level >= 0; --level) {
          const int32_t x = h * n_choices + level;
          level_count[x] = count += level_count[x];
          level_2d[x] = sum_2d += level_2d[x];
          level_4d2[x] = sum_4d2 += level_4d2[x];
        }
      }
      __syncwarp();
      // Accepted at g: levels above g, the suffix at g + 1 (g + 1 <= n_grid, the `all` level).
      for (int32_t pair = lane; pair < a.n_strata * a.n_grid; pair += 32) {
        const int32_t h = pair / a.n_grid, g = pair % a.n_grid;
        const int32_t above = h * n_choices + g + 1;
        const int64_t accepted = level_count[above];
        if (rule_passes(a.rule, level_2d[above], level_4d2[above], level_count[h * n_choices]))
          atomicMax(&best[h], static_cast<int32_t>((accepted << 8) | g));
      }
    }
    __syncwarp();

    // 3. Pool totals under each stratum's choice ...
    int64_t heldout_2d = 0, escalated = 0, cascade_fee = 0, fallback_fee = lane == 0 ? a.total_fallback_fee : 0;
    for (int32_t h = lane; h < a.n_strata; h += 32) {
      const int32_t c = best[h] < 0 ? a.n_grid : (best[h] & 0xFF);
      best[h] = c;
      a.out_chosen[static_cast<size_t>(r) * a.n_strata + h] = static_cast<uint8_t>(c);
      heldout_2d += a.total_accepted_2d[h * n_choices + c];
      escalated += a.total_escalated[h * n_choices + c];
      cascade_fee += a.total_cascade_fee[h * n_choices + c];
    }
    __syncwarp();
    // ... minus the labelled items' part.
    for (uint32_t i = lane; i < a.k; i += 32) {
      const uint32_t pick = picks[i];
      const uint32_t code = a.item_code[pick];
      const bool accepted = item_level(code) > best[item_stratum(code)];
      if (accepted)
        heldout_2d -= item_twice_d(code);
      else
        --escalated;
      cascade_fee -= a.fee_first[pick] + (accepted ? 0 : a.fee_fallback[pick]);
      fallback_fee -= a.fee_fallback[pick];
    }
    heldout_2d = warp_sum(heldout_2d);
    escalated = warp_sum(escalated);
    cascade_fee = warp_sum(cascade_fee);
    fallback_fee = warp_sum(fallback_fee);
    if (lane == 0) {
      a.out_heldout_2d[r] = heldout_2d;
      a.out_heldout_escalated[r] = escalated;
      a.out_fee_ratio[r] = fee_ratio_of(cascade_fee, fallback_fee);
    }
    __syncwarp();
  }
}

// Outcome buffers grow to the largest chunk seen and are reused after that.
template <class T>
void reserve(cuda_detail::DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() < count) buffer.allocate(count);
}

class CudaBudgetEngine final : public BudgetEngine {
 public:
  CudaBudgetEngine(const BudgetProblem& problem, int device) : problem_(problem), device_(device) {
    int devices = 0;
    JS_CUDA_CHECK(cudaGetDeviceCount(&devices));
    if (device < 0 || device >= devices)
      throw std::runtime_error("CUDA budget engine: device " + std::to_string(device) + " does not exist (" +
                               std::to_string(devices) + " devices)");
    JS_CUDA_CHECK(cudaSetDevice(device));
    JS_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device));
    if (const char* chosen = std::getenv("JUDGESTAT_BUDGET_KERNEL"); chosen && *chosen) {
      const std::string text = chosen;
      if (text != "1" && text != "2")
        throw std::runtime_error("JUDGESTAT_BUDGET_KERNEL: expected 1 or 2, got '" + text + "'");
      kernel_ = text == "2" ? budget_kernel<2> : budget_kernel<1>;
    }
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

    const size_t warp_bytes = warp_words(run.k, problem_.n_grid, problem_.n_strata) * sizeof(uint32_t);
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

    KernelArgs args{};
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
  void (*kernel_)(KernelArgs) = budget_kernel<1>;  // JUDGESTAT_BUDGET_KERNEL picks the variant
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

std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem& problem, int device) {
  return std::make_unique<CudaBudgetEngine>(problem, device);
}

}  // namespace judgestat
