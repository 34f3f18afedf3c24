// Device summaries of kept replicate values (detail/device_summary.hpp), bit-identical to the
// host's (host/engine/host_summaries.cpp) because both follow replicate_summary.hpp's definitions:
//   * facts: one thread per (summary block, statistic) adds its block's defined values in
//     replicate order; one thread per statistic adds the block totals in block order; the mean
//     (a division) is taken on the host, as the host path does. --fmad=false keeps (v − m)² a
//     multiply then an add, as on the host.
//   * order statistics: exact values are unique whatever the method, so each statistic's column
//     is turned into order keys (−0 as +0, NaN last) and radix-sorted by CUB, and the queried
//     ranks are read off; only those come back.
// The kernels are in summary_kernels.cuh (the CPU runtime of tests/cuda_cpu/ runs them; CUB's sort
// runs on a device only).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "../detail/cuda_check.cuh"
#include "device_summary.hpp"
#include "judgestat/replicate_summary.hpp"
#include "summary_kernels.cuh"

namespace judgestat::cuda_detail {
namespace {

using Count = SummaryCount;
constexpr int kThreads = kSummaryThreads;

unsigned grid_for(uint64_t n) {
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((n + kThreads - 1) / kThreads, 1u << 30)));
}

}  // namespace

/// The working buffers of one facts() or order_statistics() call; kept by the backend across
/// stores when JUDGESTAT_SUMMARY_REUSE=1 (make_summary_scratch), else made and freed per call.
struct SummaryScratch {
  DeviceBuffer<double> block_real, real, mean_and_reference, picked;
  DeviceBuffer<Count> block_a, block_b, a, b;
  DeviceBuffer<uint64_t> ranks, keys, spare_keys;
  DeviceBuffer<unsigned char> sort_temp;
};

namespace {

class DeviceKept final : public DeviceKeptReplicates {
 public:
  DeviceKept(int device, uint64_t B, int32_t S, std::shared_ptr<SummaryScratch> scratch)
      : device_(device), B_(B), S_(S), kept_scratch_(std::move(scratch)) {
    JS_CUDA_CHECK(cudaSetDevice(device_));
    values_.allocate(B * uint64_t(S));
    JS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~DeviceKept() override {
    cudaSetDevice(device_);
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }

  double* values() override { return values_.data(); }

  void copy_from_host(const double* host) override {
    JS_CUDA_CHECK(cudaSetDevice(device_));
    // On the store's own stream: a plain cudaMemcpy is not ordered with work on a
    // cudaStreamNonBlocking stream, so later kernels could read values still in flight.
    JS_CUDA_CHECK(cudaMemcpyAsync(values_.data(), host, values_.bytes(), cudaMemcpyHostToDevice, stream_));
    JS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::vector<ReplicateFacts> facts(const std::vector<double>& reference) override {
    if (reference.size() != size_t(S_)) throw std::invalid_argument("facts: one reference per statistic");
    JS_CUDA_CHECK(cudaSetDevice(device_));
    return synchronized_on_error([&] { return compute_facts(reference); });
  }

  std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& queries) override {
    if (queries.empty()) return {};
    for (const OrderStatisticQuery& q : queries)
      if (q.statistic < 0 || q.statistic >= S_) throw std::invalid_argument("order_statistics: no such statistic");
    JS_CUDA_CHECK(cudaSetDevice(device_));
    return synchronized_on_error([&] { return pick_order_statistics(queries); });
  }

 private:
  // Work queued on stream_ must end before the buffers it uses are freed by an unwinding stack.
  template <typename Work>
  auto synchronized_on_error(const Work& work) -> decltype(work()) {
    try {
      return work();
    } catch (...) {
      cudaStreamSynchronize(stream_);
      throw;
    }
  }

  std::vector<ReplicateFacts> compute_facts(const std::vector<double>& reference) {
    const uint64_t n_blocks = (B_ + kSummaryBlock - 1) / kSummaryBlock, cells = n_blocks * S_;
    SummaryScratch scratch_here;  // this call's, unless the backend keeps them
    SummaryScratch& w = kept_scratch_ ? *kept_scratch_ : scratch_here;
    DeviceBuffer<double>& block_real = sized(w.block_real, cells);
    DeviceBuffer<double>& real = sized(w.real, S_);
    DeviceBuffer<double>& mean_and_reference = sized(w.mean_and_reference, 2 * size_t(S_));
    DeviceBuffer<Count>& block_a = sized(w.block_a, cells);
    DeviceBuffer<Count>& block_b = sized(w.block_b, cells);
    DeviceBuffer<Count>& a = sized(w.a, S_);
    DeviceBuffer<Count>& b = sized(w.b, S_);
    std::vector<double> totals(S_), squares(S_);
    std::vector<Count> defined(S_), below(S_), at_or_below(S_);

    block_sums_kernel<<<grid_for(cells), kThreads, 0, stream_>>>(values_.data(), B_, S_, n_blocks, block_real.data(),
                                                                 block_a.data());
    JS_CUDA_CHECK(cudaGetLastError());
    add_blocks_kernel<<<grid_for(S_), kThreads, 0, stream_>>>(block_real.data(), block_a.data(), nullptr, n_blocks, S_,
                                                              real.data(), a.data(), nullptr);
    JS_CUDA_CHECK(cudaGetLastError());
    copy_back(totals, real);
    copy_back(defined, a);
    JS_CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<ReplicateFacts> out(S_);
    std::vector<double> mean_then_reference(2 * size_t(S_));
    for (int32_t s = 0; s < S_; ++s) {
      out[s].defined = defined[s];
      if (defined[s]) out[s].mean = canonical_nan(totals[s] / static_cast<double>(defined[s]));
      mean_then_reference[s] = out[s].mean;
      mean_then_reference[S_ + s] = reference[s];
    }
    // Pageable source: the call returns once the values are staged, so the vector may go.
    JS_CUDA_CHECK(cudaMemcpyAsync(mean_and_reference.data(), mean_then_reference.data(),
                                  mean_then_reference.size() * sizeof(double), cudaMemcpyHostToDevice, stream_));
    block_squares_kernel<<<grid_for(cells), kThreads, 0, stream_>>>(
        values_.data(), B_, S_, n_blocks, mean_and_reference.data(), mean_and_reference.data() + S_, block_real.data(),
        block_a.data(), block_b.data());
    JS_CUDA_CHECK(cudaGetLastError());
    add_blocks_kernel<<<grid_for(S_), kThreads, 0, stream_>>>(block_real.data(), block_a.data(), block_b.data(),
                                                              n_blocks, S_, real.data(), a.data(), b.data());
    JS_CUDA_CHECK(cudaGetLastError());
    copy_back(squares, real);
    copy_back(below, a);
    copy_back(at_or_below, b);
    JS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int32_t s = 0; s < S_; ++s) {
      if (out[s].defined) out[s].sum_squares = canonical_nan(squares[s]);
      out[s].below = below[s];
      out[s].at_or_below = at_or_below[s];
    }
    return out;
  }

  std::vector<std::pair<double, double>> pick_order_statistics(const std::vector<OrderStatisticQuery>& queries) {
    // Queries grouped by statistic: one sort per statistic serves all of its queries.
    std::vector<size_t> order(queries.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return queries[x].statistic < queries[y].statistic; });
    std::vector<uint64_t> ranks(queries.size());
    for (size_t i = 0; i < order.size(); ++i) ranks[i] = queries[order[i]].rank;

    SummaryScratch scratch_here;
    SummaryScratch& w = kept_scratch_ ? *kept_scratch_ : scratch_here;
    DeviceBuffer<uint64_t>& device_ranks = sized(w.ranks, ranks.size());
    DeviceBuffer<uint64_t>& keys = sized(w.keys, B_);
    DeviceBuffer<uint64_t>& spare_keys = sized(w.spare_keys, B_);
    DeviceBuffer<double>& picked = sized(w.picked, 2 * ranks.size());
    JS_CUDA_CHECK(cudaMemcpyAsync(device_ranks.data(), ranks.data(), ranks.size() * sizeof(uint64_t),
                                  cudaMemcpyHostToDevice, stream_));
    cub::DoubleBuffer<uint64_t> sort_keys(keys.data(), spare_keys.data());
    size_t temp_bytes = 0;
    JS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, sort_keys, B_, 0, 64, stream_));
    DeviceBuffer<unsigned char>& temp = sized(w.sort_temp, temp_bytes);

    for (size_t first = 0; first < order.size();) {
      const int32_t s = queries[order[first]].statistic;
      size_t last = first;
      while (last < order.size() && queries[order[last]].statistic == s) ++last;
      order_keys_kernel<<<grid_for(std::min<uint64_t>(B_, 1u << 22)), kThreads, 0, stream_>>>(values_.data(), B_, S_, s,
                                                                                              sort_keys.Current());
      JS_CUDA_CHECK(cudaGetLastError());
      JS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, sort_keys, B_, 0, 64, stream_));
      const auto n = static_cast<int64_t>(last - first);
      pick_order_statistics_kernel<<<grid_for(n), kThreads, 0, stream_>>>(
          sort_keys.Current(), B_, device_ranks.data() + first, n, picked.data() + 2 * first);
      JS_CUDA_CHECK(cudaGetLastError());
      first = last;
    }
    std::vector<double> grouped(2 * ranks.size());
    JS_CUDA_CHECK(cudaMemcpyAsync(grouped.data(), picked.data(), grouped.size() * sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_));
    JS_CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<std::pair<double, double>> out(queries.size());
    for (size_t i = 0; i < order.size(); ++i) {
      if (std::isnan(grouped[2 * i])) throw std::invalid_argument("order_statistics: rank beyond the defined values");
      out[order[i]] = {grouped[2 * i], grouped[2 * i + 1]};
    }
    return out;
  }

  // Copies host.size() elements (a kept buffer may be larger than this call needs).
  template <typename T>
  void copy_back(std::vector<T>& host, const DeviceBuffer<T>& device) {
    JS_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), device.data(), host.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  // At least `count` elements: grown (after the stream's earlier work that may use it) when
  // smaller. A kept buffer was last used by a call that synchronised its own stream before
  // returning, so another store's stream may take it.
  template <typename T>
  DeviceBuffer<T>& sized(DeviceBuffer<T>& buffer, size_t count) {
    if (buffer.size() < count) {
      JS_CUDA_CHECK(cudaStreamSynchronize(stream_));
      buffer.allocate(count);
    }
    return buffer;
  }

  int device_;
  uint64_t B_;
  int32_t S_;
  std::shared_ptr<SummaryScratch> kept_scratch_;  // the backend's, or null: per call
  DeviceBuffer<double> values_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

uint64_t DeviceKeptReplicates::bytes_needed(uint64_t B, int32_t S) {
  const uint64_t n_blocks = (B + kSummaryBlock - 1) / kSummaryBlock;
  // Values; two key buffers and the sort's working space (under one more key buffer); the
  // per-block sums and counts; slack for the allocator's rounding.
  return B * uint64_t(S) * 8 + 3 * B * 8 + n_blocks * uint64_t(S) * 24 + (64ull << 20);
}

std::unique_ptr<DeviceKeptReplicates> DeviceKeptReplicates::create(int device, uint64_t B, int32_t S,
                                                                   std::shared_ptr<SummaryScratch> scratch) {
  return std::make_unique<DeviceKept>(device, B, S, std::move(scratch));
}

std::shared_ptr<SummaryScratch> make_summary_scratch() { return std::make_shared<SummaryScratch>(); }

}  // namespace judgestat::cuda_detail
