// CUDA backend: replicate statistics of a compiled plan (docs/statistics.md §2) on one GPU, bit-identical to
// the CPU backend (host/engine/cpu_backend.cpp) for the same seed.
//
// Layering, in the spirit of CUB (dispatch -> kernel -> per-block agent):
//   * dispatch (this file, CudaBackend): picks the kernel path for a plan and its kernel under
//     the execution target's CudaTuning (detail/kernel_choice.cuh), sizes grids from occupancy,
//     splits a call into slices so that copying one slice's results to the host overlaps the
//     next slice's kernel, and checks every CUDA call. Beside it, a plan is checked once by
//     plan_validation.cu (detail/plan_validation.hpp) and copied to the device by plan_upload.cu
//     (detail/uploaded_plan.cuh); every kernel is named in this file alone.
//   * kernels (detail/*_agent.cuh, bottom of each): a grid-stride loop over work units of the
//     chunk (tiles of 16 replicates, or single replicates) that hands each unit to an agent.
//   * agents: what one thread block does for one unit, phase by phase, with its shared memory:
//       MultiplicityTileAgent (detail/multiplicity_tile_agent.cuh), the fast path: multiplicity
//         histograms of 16 replicates in shared memory, column sums as a tensor-core product of
//         multiplicities and per-cluster sums split into bytes, then the statistics;
//       GatherAgent (detail/gather_agent.cuh), the general path: rows of drawn clusters added
//         directly, for plans too large for the histograms (tens of millions of clusters).
//     Both draw clusters from the same Philox stream as the CPU, and turn multiplicities into
//     rank terms' 2U (AUROC) with the same warp routine (detail/replicate_common.cuh).
//
// Why the sums are fixed point: a replicate's column sum adds thousands of per-cluster sums in
// an order that differs by backend, thread count and path (histogram product, per-lane
// partials, atomics). Integer addition is associative, so with the plan's int64 fixed-point
// per-cluster sums every order gives the same sum, and the statistic's finishing program then
// sees identical inputs on every backend. The agents go further and add modulo 2^32 or 2^64
// (or in byte planes); the result is still exact because the true sum fits the signed type.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../detail/cuda_check.cuh"
#include "../permutation/sign_flip.hpp"
#include "../summaries/device_summary.hpp"
#include "cuda_backend_paths.hpp"
#include "detail/byte_planes.hpp"
#include "detail/kernel_choice.cuh"
#include "detail/plan_tables.hpp"
#include "detail/plan_validation.hpp"
#include "detail/uploaded_plan.cuh"
#include "judgestat/backend.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/plan.hpp"

namespace judgestat {
namespace {

using cuda_detail::DeviceBuffer;
using cuda_detail::gather_kernel_for;
using cuda_detail::kGatherThreads;
using cuda_detail::kTileThreads;
using cuda_detail::plane_layout;
using cuda_detail::PlaneLayout;
using cuda_detail::tile_counter_refusal;
using cuda_detail::tile_kernel;
using cuda_detail::UploadedPlan;

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, uint64_t max_chunk, CudaKernelPath path, const CudaTuning& tuning)
      : device_(device),
        max_chunk_(max_chunk),
        forced_path_(path),
        tuning_(tuning),
        summary_scratch_(tuning.summary_reuse ? cuda_detail::make_summary_scratch() : nullptr) {
    int n_devices = 0;
    JS_CUDA_CHECK(cudaGetDeviceCount(&n_devices));
    if (device < 0 || device >= n_devices)
      throw std::runtime_error("CUDA backend: no device " + std::to_string(device) + " (" + std::to_string(n_devices) +
                               " present)");
    JS_CUDA_CHECK(cudaGetDeviceProperties(&props_, device));
    if (props_.major < 8)
      throw std::runtime_error("CUDA backend: " + std::string(props_.name) + " has compute capability " +
                               std::to_string(props_.major) + "." + std::to_string(props_.minor) +
                               "; 8.0 or newer is needed");
    JS_CUDA_CHECK(cudaSetDevice(device_));
    try {
      create_streams_and_kernel_limits();
    } catch (...) {
      release();  // a constructor that throws gets no destructor call
      throw;
    }
  }

  void create_streams_and_kernel_limits() {
    JS_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));
    JS_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& event : slice_done_) JS_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    // Permission to use the device's whole opt-in shared memory; each launch asks for its own.
    const int optin = static_cast<int>(props_.sharedMemPerBlockOptin);
    for (int options = 0; options < cuda_detail::kTileOptionCount; ++options)
      JS_CUDA_CHECK(cudaFuncSetAttribute(tile_kernel(options), cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    for (bool rows : {false, true}) {
      JS_CUDA_CHECK(cudaFuncSetAttribute(gather_kernel_for<unsigned int>(rows),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
      JS_CUDA_CHECK(cudaFuncSetAttribute(gather_kernel_for<unsigned long long>(rows),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    }
  }

  ~CudaBackend() override { release(); }

  // Errors here have nowhere to go (destructors and failed constructors do not throw).
  void release() noexcept {
    cudaSetDevice(device_);
    for (cudaEvent_t& event : slice_done_)
      if (event) cudaEventDestroy(std::exchange(event, nullptr));
    if (copy_stream_) cudaStreamDestroy(std::exchange(copy_stream_, nullptr));
    if (compute_stream_) cudaStreamDestroy(std::exchange(compute_stream_, nullptr));
    if (pinned_) cudaFreeHost(std::exchange(pinned_, nullptr));
  }

  // Page-locked, so the slices' copies are true DMA at bus speed, overlapping the next kernel
  // (pageable copies stage through a driver buffer and block the host). Falls back to pageable
  // memory when the system will not lock that much.
  double* replicate_buffer(size_t n) override {
    if (n <= pinned_size_) return pinned_;
    if (pinned_) cudaFreeHost(pinned_);
    pinned_ = nullptr;
    pinned_size_ = 0;
    JS_CUDA_CHECK(cudaSetDevice(device_));
    void* memory = nullptr;
    if (cudaHostAlloc(&memory, std::max<size_t>(n, 1) * sizeof(double), cudaHostAllocPortable) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it and use ordinary memory
      return Backend::replicate_buffer(n);
    }
    pinned_ = static_cast<double*>(memory);
    pinned_size_ = n;
    return pinned_;
  }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return props_.name; }

  uint64_t max_chunk(const CompiledPlan& plan) const override {
    JS_CUDA_CHECK(cudaSetDevice(device_));
    size_t free_bytes = 0, total_bytes = 0;
    JS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Our own output buffer is reused, so it counts as free; a plan not yet uploaded will
    // take at most 8 bytes per per-cluster sum, its tables, and rank-term counters that
    // upload_gather keeps under 1/8 of free memory.
    uint64_t usable = uint64_t(free_bytes) + output_.bytes();
    if (!uploaded_ || uploaded_->address != &plan) {
      const uint64_t plan_bytes = plan.cluster_sums.size() * sizeof(int64_t) + plan.stratum_offset.size() * 8 +
                                  plan.ops.size() * sizeof(Op) + plan.rank_cluster.size() * 16 +
                                  (plan.n_rank_terms > 0 ? uint64_t(plan.n_clusters) * 4 + free_bytes / 8 : 0);
      usable = usable > plan_bytes ? usable - plan_bytes : 0;
    }
    const uint64_t per_replicate = uint64_t(std::max<int32_t>(1, plan.n_statistics)) * sizeof(double);
    uint64_t chunk = std::max<uint64_t>(1, usable / 4 / per_replicate);
    if (max_chunk_) chunk = std::min(chunk, max_chunk_);
    return chunk;
  }

  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) override {
    if (count == 0) return;
    JS_CUDA_CHECK(cudaSetDevice(device_));
    const UploadedPlan& uploaded = prepare(plan);
    const uint64_t n_statistics = uint64_t(plan.n_statistics);
    if (n_statistics == 0) return;
    if (count > std::numeric_limits<uint64_t>::max() / sizeof(double) / n_statistics)
      throw std::invalid_argument("CUDA backend: replicate count too large");
    if (output_.size() < count * n_statistics) output_.allocate(count * n_statistics);

    // Slices: copying slice i to the host overlaps the kernel of slice i + 1 (fully when `out`
    // is page-locked, as replicate_buffer's is; a pageable copy blocks the host meanwhile). Each slice fills the GPU
    // several times over.
    const uint64_t slice = slice_size(uploaded, count);
    const uint64_t n_slices = (count + slice - 1) / slice;
    auto slice_count = [&](uint64_t i) { return std::min(slice, count - i * slice); };
    try {
      launch(uploaded, seed, first, slice_count(0), output_.data());
      JS_CUDA_CHECK(cudaEventRecord(slice_done_[0], compute_stream_));
      for (uint64_t i = 0; i < n_slices; ++i) {
        if (i + 1 < n_slices) {
          const uint64_t next = (i + 1) * slice;
          launch(uploaded, seed, first + next, slice_count(i + 1), output_.data() + next * n_statistics);
          JS_CUDA_CHECK(cudaEventRecord(slice_done_[(i + 1) % 2], compute_stream_));
        }
        JS_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, slice_done_[i % 2], 0));
        const uint64_t begin = i * slice * n_statistics;
        JS_CUDA_CHECK(cudaMemcpyAsync(out + begin, output_.data() + begin,
                                      slice_count(i) * n_statistics * sizeof(double), cudaMemcpyDeviceToHost,
                                      copy_stream_));
      }
      JS_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));
      JS_CUDA_CHECK(cudaStreamSynchronize(compute_stream_));
    } catch (...) {
      // Nothing may still write into `out` once the caller sees the error.
      cudaStreamSynchronize(copy_stream_);
      cudaStreamSynchronize(compute_stream_);
      throw;
    }
  }

  // The values stay in device memory for device summaries when they fit there with their
  // working space (and the caller set no smaller chunk); otherwise nullptr and the host path.
  std::unique_ptr<KeptReplicates> run_replicates_kept(const CompiledPlan& plan, uint64_t seed, uint64_t count,
                                                      const std::function<void(uint64_t)>& progress) override {
    if (!tuning_.device_summaries || count == 0 || plan.n_statistics == 0 || (max_chunk_ && max_chunk_ < count))
      return nullptr;
    JS_CUDA_CHECK(cudaSetDevice(device_));
    const UploadedPlan& uploaded = prepare(plan);
    output_.allocate(0);  // the chunk buffer is not needed on this path
    size_t free_bytes = 0, total_bytes = 0;
    JS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (count > std::numeric_limits<uint64_t>::max() / 64 / uint64_t(plan.n_statistics) ||
        cuda_detail::DeviceKeptReplicates::bytes_needed(count, plan.n_statistics) > free_bytes / 10 * 9)
      return nullptr;
    std::unique_ptr<cuda_detail::DeviceKeptReplicates> kept;
    try {
      kept = cuda_detail::DeviceKeptReplicates::create(device_, count, plan.n_statistics, summary_scratch_);
    } catch (const std::runtime_error&) {
      return nullptr;  // memory taken meanwhile (by another process): the host path
    }
    // Slices, so that a long run reports progress.
    const uint64_t slice = slice_size(uploaded, count);
    try {
      for (uint64_t done = 0; done < count;) {
        const uint64_t n = std::min(slice, count - done);
        launch(uploaded, seed, done, n, kept->values() + done * uint64_t(plan.n_statistics));
        JS_CUDA_CHECK(cudaStreamSynchronize(compute_stream_));
        done += n;
        if (progress) progress(done);
      }
    } catch (...) {
      cudaStreamSynchronize(compute_stream_);  // nothing may write into freed memory
      throw;
    }
    return kept;
  }

  // docs/statistics.md §7.3's sign flips by their own kernel (kernels/permutation/sign_flip.cu).
  std::vector<uint64_t> count_sign_flip_exceedances(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                    uint64_t count) override {
    return cuda_detail::count_sign_flip_exceedances_on_device(device_, plan, seed, first, count);
  }

 private:
  static constexpr uint64_t kWavesPerSlice = 4;
  static constexpr uint64_t kMaxSlices = 8;

  /// Replicates per launch when a call of `count` is split: at most kMaxSlices slices, each
  /// filling the GPU kWavesPerSlice times over.
  uint64_t slice_size(const UploadedPlan& uploaded, uint64_t count) const {
    const uint64_t resident =
        uint64_t(uploaded.blocks_per_sm) * props_.multiProcessorCount * uploaded.replicates_per_block;
    return std::max(resident * kWavesPerSlice, (count + kMaxSlices - 1) / kMaxSlices);
  }

  /// The uploaded form of `plan`, uploading it when it is not the cached one.
  const UploadedPlan& prepare(const CompiledPlan& plan) {
    const uint64_t fingerprint = cuda_detail::plan_fingerprint(plan);
    if (uploaded_ && uploaded_->address == &plan && uploaded_->fingerprint == fingerprint) return *uploaded_;
    uploaded_.reset();  // free the old plan's device memory before taking the new one's
    cuda_detail::validate_plan(plan);
    auto up = std::make_unique<UploadedPlan>();
    up->address = &plan;
    up->fingerprint = fingerprint;
    cuda_detail::upload_common(plan, *up);
    const std::string refusal = choose_path(plan, *up);
    if (!refusal.empty()) throw std::invalid_argument("CUDA backend: " + refusal);
    // The uploads are pageable cudaMemcpy on the legacy stream, which may return before the
    // DMA lands; compute_stream_ is non-blocking and so not ordered after them.
    JS_CUDA_CHECK(cudaDeviceSynchronize());
    uploaded_ = std::move(up);
    return *uploaded_;
  }

  /// Uploads the path-specific data; returns why the requested path is impossible, or "".
  std::string choose_path(const CompiledPlan& plan, UploadedPlan& up) {
    if (forced_path_ != CudaKernelPath::kGather) {
      const std::string refusal = try_tile_path(plan, up);
      if (refusal.empty()) return "";
      if (forced_path_ == CudaKernelPath::kMultiplicityTile)
        return "the multiplicity-tile path cannot run this plan: " + refusal;
    }
    return try_gather_path(plan, up);
  }

  /// The multiplicity-tile path when the plan's counters and histograms fit: "" and `up` set for
  /// it, else why not.
  std::string try_tile_path(const CompiledPlan& plan, UploadedPlan& up) {
    const std::string refusal = tile_counter_refusal(plan);
    if (!refusal.empty()) return refusal;
    const size_t optin = props_.sharedMemPerBlockOptin;
    const PlaneLayout layout = plane_layout(plan);
    size_t shared_bytes =
        cuda_detail::TileSharedLayout::of(plan.n_columns, up.program.n_extras(), layout.n_tiles, layout.row_stride)
            .total;
    // The tables' shared copy only where it fits beside the histograms.
    const size_t program =
        cuda_detail::SharedProgramLayout::of(static_cast<int32_t>(plan.ops.size()), plan.n_statistics, plan.n_columns)
            .total;
    const int options = cuda_detail::tile_kernel_options(tuning_, shared_bytes + program <= optin);
    const size_t program_bytes = (options & cuda_detail::kTileSharedProgram) ? program : 0;
    shared_bytes += program_bytes;
    if (shared_bytes > optin)
      return "16 multiplicity histograms of " + std::to_string(plan.n_clusters) + " clusters need " +
             std::to_string(shared_bytes) + " bytes of shared memory; the device offers " + std::to_string(optin);
    int blocks_per_sm = 0;
    JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, tile_kernel(options), kTileThreads,
                                                                shared_bytes));
    if (blocks_per_sm == 0) return "the tile kernel cannot be resident on this device";
    cuda_detail::upload_tile_tables(plan, layout, program_bytes, up);
    up.path = CudaKernelPath::kMultiplicityTile;
    up.tile_options = options;
    up.shared_bytes = shared_bytes;
    up.threads = kTileThreads;
    up.blocks_per_sm = blocks_per_sm;
    up.replicates_per_block = cuda_detail::kTileReplicates;
    return "";
  }

  /// The gather path, which runs any plan whose columns fit one block's shared memory.
  std::string try_gather_path(const CompiledPlan& plan, UploadedPlan& up) {
    // fits_int32: every replicate sum fits int32, so sums modulo 2^32 of the per-cluster sums
    // modulo 2^32 are exact; half the bytes to gather.
    up.narrow_words = plan.fits_int32;
    up.gather_rows = tuning_.gather_rows;
    const int32_t n_extras = up.program.n_extras();
    up.shared_bytes = up.narrow_words ? cuda_detail::gather_shared_bytes<unsigned int>(plan.n_columns, n_extras)
                                      : cuda_detail::gather_shared_bytes<unsigned long long>(plan.n_columns, n_extras);
    if (up.shared_bytes > size_t(props_.sharedMemPerBlockOptin))
      return "a plan of " + std::to_string(plan.n_columns) + " columns and " + std::to_string(n_extras) +
             " normal draws and rank terms needs " + std::to_string(up.shared_bytes) +
             " bytes of shared memory per block; the " + "device offers " +
             std::to_string(props_.sharedMemPerBlockOptin);
    cuda_detail::upload_gather_words(plan, up);
    if (up.narrow_words)
      JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &up.blocks_per_sm, gather_kernel_for<unsigned int>(up.gather_rows), kGatherThreads, up.shared_bytes));
    else
      JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &up.blocks_per_sm, gather_kernel_for<unsigned long long>(up.gather_rows), kGatherThreads, up.shared_bytes));
    if (up.blocks_per_sm == 0) return "the gather kernel cannot be resident on this device";
    up.max_gather_blocks = uint64_t(up.blocks_per_sm) * props_.multiProcessorCount;
    cuda_detail::upload_gather_counters(plan, up);
    up.path = CudaKernelPath::kGather;
    up.threads = kGatherThreads;
    up.replicates_per_block = 1;
    return "";
  }

  /// Replicates [first, first + count) into device `out` (count x n_statistics), asynchronously.
  void launch(const UploadedPlan& up, uint64_t seed, uint64_t first, uint64_t count, double* out) {
    uint64_t resident_blocks = uint64_t(up.blocks_per_sm) * props_.multiProcessorCount;
    if (up.path == CudaKernelPath::kGather)  // each block owns rank counters: no more blocks
      resident_blocks = std::min(resident_blocks, up.max_gather_blocks);
    const uint64_t units = (count + up.replicates_per_block - 1) / up.replicates_per_block;
    const auto grid = static_cast<unsigned>(std::max<uint64_t>(1, std::min(units, resident_blocks)));
    if (up.path == CudaKernelPath::kMultiplicityTile) {
      tile_kernel(up.tile_options)<<<grid, up.threads, up.shared_bytes, compute_stream_>>>(up.tile, seed, first, count,
                                                                                           out);
    } else if (up.narrow_words) {
      gather_kernel_for<unsigned int>(up.gather_rows)<<<grid, up.threads, up.shared_bytes, compute_stream_>>>(
          up.gather32, seed, first, count, out);
    } else {
      gather_kernel_for<unsigned long long>(up.gather_rows)<<<grid, up.threads, up.shared_bytes, compute_stream_>>>(
          up.gather64, seed, first, count, out);
    }
    JS_CUDA_CHECK(cudaGetLastError());
  }

  int device_;
  uint64_t max_chunk_;
  CudaKernelPath forced_path_;
  CudaTuning tuning_;                                             // the execution target's switches
  std::shared_ptr<cuda_detail::SummaryScratch> summary_scratch_;  // tuning_.summary_reuse
  cudaDeviceProp props_{};
  cudaStream_t compute_stream_ = nullptr, copy_stream_ = nullptr;
  cudaEvent_t slice_done_[2] = {nullptr, nullptr};
  std::unique_ptr<UploadedPlan> uploaded_;
  DeviceBuffer<double> output_;  // one chunk's replicate values, count x n_statistics
  double* pinned_ = nullptr;     // replicate_buffer's page-locked host memory
  size_t pinned_size_ = 0;
};

}  // namespace

bool cuda_available(std::string* why) {
  int n_devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&n_devices);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (why) *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    return false;
  }
  if (n_devices == 0) {
    if (why) *why = "no CUDA device is present";
    return false;
  }
  std::string first_device;
  for (int d = 0; d < n_devices; ++d) {
    cudaDeviceProp props{};
    const cudaError_t query = cudaGetDeviceProperties(&props, d);
    if (query != cudaSuccess) {
      (void)cudaGetLastError();
      if (d == 0) first_device = std::string("device 0: ") + cudaGetErrorString(query);
      continue;
    }
    if (props.major >= 8) return true;
    if (d == 0)
      first_device = std::string(props.name) + " has compute capability " + std::to_string(props.major) + "." +
                     std::to_string(props.minor);
  }
  if (why) *why = "no CUDA device of compute capability 8.0 or newer (" + first_device + ")";
  return false;
}

std::unique_ptr<Backend> make_cuda_backend_with_path(int device, uint64_t max_chunk, CudaKernelPath path,
                                                     const CudaTuning& tuning) {
  std::string why;
  if (!cuda_available(&why)) throw std::runtime_error("CUDA backend unavailable: " + why);
  if (!tuning.bootstrap_error.empty()) throw std::runtime_error(tuning.bootstrap_error);
  return std::make_unique<CudaBackend>(device, max_chunk, path, tuning);
}

std::unique_ptr<Backend> make_cuda_backend(int device, uint64_t max_chunk, const CudaTuning& tuning) {
  return make_cuda_backend_with_path(device, max_chunk, CudaKernelPath::kAuto, tuning);
}

}  // namespace judgestat
