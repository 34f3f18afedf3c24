// CUDA engine of `budget --compare` (docs/statistics.md §7.6): one fused kernel per batch of draws,
// one draw per thread. A thread draws its k items with Floyd's algorithm against its own bitmap
// over the pool, sums scaled d and its square over them, and writes the draw's sums and the side of
// its z-interval; nothing else leaves the device. Every step is compare_draw and
// compare_interval_side (include/judgestat/compare_engine.hpp), the functions the CPU twin
// (host/engine/cpu_compare_engine.cpp) calls, so per-draw outcomes are identical;
// tests/kernels/test_budget_compare_emulation.cpp drives this kernel's thread layout on the host, and
// tests/cuda_cpu/ runs the kernel itself (compare_engine_kernel.cuh) on the CPU runtime.
//
// The bitmaps live in global memory, interleaved: word w of thread t at taken[w · threads + t], so
// the threads of a warp touch neighbouring words when their picks fall in the same word. They
// are cleared once when allocated and left clear by every draw.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "../detail/cuda_check.cuh"
#include "compare_engine_kernel.cuh"
#include "judgestat/compare_engine.hpp"

namespace judgestat {
namespace {

constexpr int kCompareBlock = 256;
constexpr size_t kMaxBitmapBytes = size_t{1} << 30;  // bitmaps take at most this much device memory

using cuda_detail::compare_kernel;
using cuda_detail::CompareArgs;

template <class T>
void reserve(cuda_detail::DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() < count) buffer.allocate(count);
}

class CudaCompareEngine final : public CompareEngine {
 public:
  CudaCompareEngine(const CompareProblem& problem, int device) : problem_(problem), device_(device) {
    int devices = 0;
    JS_CUDA_CHECK(cudaGetDeviceCount(&devices));
    if (device < 0 || device >= devices)
      throw std::runtime_error("CUDA compare engine: device " + std::to_string(device) + " does not exist (" +
                               std::to_string(devices) + " devices)");
    JS_CUDA_CHECK(cudaSetDevice(device));
    JS_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device));
    scaled_d_.upload(problem.scaled_d);
    // As many threads as the device keeps resident, in whole blocks, within the bitmaps' bound.
    const size_t words = compare_bitmap_words(static_cast<uint32_t>(problem.n_items));
    const size_t resident = static_cast<size_t>(properties_.multiProcessorCount) *
                            static_cast<size_t>(properties_.maxThreadsPerMultiProcessor);
    const size_t fits = kMaxBitmapBytes / (words * sizeof(uint32_t));
    max_threads_ = std::min(resident, fits) / kCompareBlock * kCompareBlock;
    if (max_threads_ == 0)
      throw std::runtime_error(
          "CUDA compare engine: a pool of " + std::to_string(problem.n_items) +
          " items needs more bitmap memory than one block of threads may take (use --backend cpu)");
    taken_.allocate(max_threads_ * words);
    JS_CUDA_CHECK(cudaMemset(taken_.data(), 0, taken_.bytes()));
  }

  ~CudaCompareEngine() override { cudaSetDevice(device_); }  // the buffers are freed on this device

  std::string name() const override { return "cuda"; }
  std::string device() const override { return properties_.name; }

  uint32_t max_chunk(const CompareRun&) const override {
    size_t free_bytes = 0, total_bytes = 0;
    JS_CUDA_CHECK(cudaSetDevice(device_));
    JS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const size_t per_draw = 2 * sizeof(int32_t) + sizeof(int8_t);
    const size_t fits = free_bytes / 4 / per_draw;
    return static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(fits, size_t{1} << 24)));
  }

  void run(const CompareRun& run, uint32_t first_draw, uint32_t count, CompareOutcomes& out) override {
    check_compare_k(problem_, run.k);
    JS_CUDA_CHECK(cudaSetDevice(device_));
    out.resize(count);
    if (count == 0) return;
    reserve(sum_, count);
    reserve(sum_sq_, count);
    reserve(side_, count);
    const size_t wanted = (static_cast<size_t>(count) + kCompareBlock - 1) / kCompareBlock * kCompareBlock;
    const uint32_t threads = static_cast<uint32_t>(std::min(wanted, max_threads_));

    CompareArgs args{};
    args.scaled_d = scaled_d_.data();
    args.n_items = static_cast<uint32_t>(problem_.n_items);
    args.k = run.k;
    args.scale = problem_.scale;
    args.z = run.z;
    const PhiloxKey key(run.seed);
    args.key0 = key.k0;
    args.key1 = key.k1;
    args.first_draw = first_draw;
    args.count = count;
    args.taken = taken_.data();
    args.threads = threads;
    args.out_sum = sum_.data();
    args.out_sum_sq = sum_sq_.data();
    args.out_side = side_.data();
    compare_kernel<<<threads / kCompareBlock, kCompareBlock>>>(args);
    JS_CUDA_CHECK(cudaGetLastError());
    JS_CUDA_CHECK(cudaMemcpy(out.sum.data(), sum_.data(), count * sizeof(int32_t), cudaMemcpyDeviceToHost));
    JS_CUDA_CHECK(cudaMemcpy(out.sum_sq.data(), sum_sq_.data(), count * sizeof(int32_t), cudaMemcpyDeviceToHost));
    JS_CUDA_CHECK(cudaMemcpy(out.side.data(), side_.data(), count * sizeof(int8_t), cudaMemcpyDeviceToHost));
  }

 private:
  const CompareProblem& problem_;
  int device_;
  cudaDeviceProp properties_{};
  size_t max_threads_ = 0;
  cuda_detail::DeviceBuffer<int8_t> scaled_d_, side_;
  cuda_detail::DeviceBuffer<uint32_t> taken_;
  cuda_detail::DeviceBuffer<int32_t> sum_, sum_sq_;
};

}  // namespace

std::unique_ptr<CompareEngine> make_cuda_compare_engine(const CompareProblem& problem, int device) {
  return std::make_unique<CudaCompareEngine>(problem, device);
}

}  // namespace judgestat
