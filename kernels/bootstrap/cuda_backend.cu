// CUDA backend: replicate statistics of a compiled plan (docs/statistics.md §2) on one GPU, bit-identical to
// the CPU backend (host/cpu_backend.cpp) for the same seed.
//
// Layering, in the spirit of CUB (dispatch -> kernel -> per-block agent):
//   * dispatch (this file, CudaBackend): validates and uploads a plan once, picks the kernel
//     path for it, sizes grids from occupancy, splits a call into slices so that copying one
//     slice's results to the host overlaps the next slice's kernel, and checks every CUDA call.
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
#include <cstdlib>
#include <cstring>
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
#include "detail/gather_agent.cuh"
#include "detail/multiplicity_tile_agent.cuh"
#include "detail/plan_tables.hpp"
#include "detail/replicate_common.cuh"
#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"

namespace judgestat {
namespace {

using cuda_detail::b_fragments;
using cuda_detail::DeviceBuffer;
using cuda_detail::gather_words;
using cuda_detail::plane_layout;
using cuda_detail::PlaneLayout;
using cuda_detail::rank_slots;
using cuda_detail::RankSlots;
using cuda_detail::stratum_vectors;
using cuda_detail::StratumVectors;
using cuda_detail::tile_counter_refusal;

// The kernels of each path, one per combination of its performance switches (bench/NOTES.md):
// separate instantiations, so that the default's registers and code stay as they were.
using TileKernel = void (*)(cuda_detail::TilePlanView, uint64_t, uint64_t, uint64_t, double*);
template <typename Word>
using GatherKernel = void (*)(cuda_detail::GatherPlanView<Word>, uint64_t, uint64_t, uint64_t, double*);

TileKernel tile_kernel(int options) {
  static const TileKernel kernels[cuda_detail::kTileOptionCount] = {
      cuda_detail::multiplicity_tile_kernel<0>, cuda_detail::multiplicity_tile_kernel<1>,
      cuda_detail::multiplicity_tile_kernel<2>, cuda_detail::multiplicity_tile_kernel<3>};
  return kernels[options];
}
template <typename Word>
GatherKernel<Word> gather_kernel_for(bool rows_in_flight) {
  return rows_in_flight ? cuda_detail::gather_kernel<Word, true> : cuda_detail::gather_kernel<Word, false>;
}

/// A performance switch (bench/NOTES.md): `name` set to 1 turns it on; anything but 0 or 1 is an
/// error, so a mistyped session setting cannot silently time the default twice.
bool switch_on(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value || std::string(value) == "0") return false;
  if (std::string(value) == "1") return true;
  throw std::runtime_error(std::string(name) + ": expected 0 or 1, got '" + value + "'");
}

// ---------------------------------------------------------------------------------------------
// Plan checks: a malformed plan must fail here with a message, not as an illegal address in a
// kernel.

[[noreturn]] void reject_plan(const std::string& why) {
  throw std::invalid_argument("CUDA backend: malformed compiled plan: " + why);
}

void validate_plan(const CompiledPlan& plan) {
  if (plan.n_columns < 0 || plan.n_statistics < 0 || plan.n_normals < 0 || plan.n_rank_terms < 0)
    reject_plan("negative column, statistic, normal or rank-term count");
  if (plan.stratum_offset.size() < 2 || plan.stratum_offset.front() != 0 ||
      plan.stratum_offset.back() != plan.n_clusters)
    reject_plan("stratum_offset must run from 0 to n_clusters");
  for (size_t h = 1; h < plan.stratum_offset.size(); ++h)
    if (plan.stratum_offset[h] < plan.stratum_offset[h - 1])
      reject_plan("stratum_offset decreases at stratum " + std::to_string(h - 1));
  // Draws and clusters are numbered in uint32 on the device (Philox counter words are 32 bits).
  if (plan.n_clusters >= (int64_t(1) << 31))
    reject_plan("more than 2^31 - 1 clusters (" + std::to_string(plan.n_clusters) + ")");
  if (plan.cluster_sums.size() != size_t(plan.n_clusters) * size_t(plan.n_columns))
    reject_plan("cluster_sums is not n_clusters x n_columns");
  if (plan.column_unscale.size() != size_t(plan.n_columns))
    reject_plan("column_unscale does not have n_columns entries");
  const size_t n_entries = plan.rank_cluster.size();
  if (plan.rank_offset.size() != size_t(plan.n_rank_terms) + 1 || plan.rank_offset.front() != 0 ||
      plan.rank_offset.back() != int64_t(n_entries) || plan.rank_positive.size() != n_entries ||
      plan.rank_tie_start.size() != n_entries)
    reject_plan("rank_offset must run from 0 to the entry count over n_rank_terms + 1 entries");
  for (int32_t t = 0; t < plan.n_rank_terms; ++t)
    if (plan.rank_offset[t + 1] < plan.rank_offset[t])
      reject_plan("rank_offset decreases at term " + std::to_string(t));
  for (int32_t c : plan.rank_cluster)
    if (c < 0 || c >= plan.n_clusters) reject_plan("a rank entry names cluster " + std::to_string(c));
  if (plan.op_offset.size() != size_t(plan.n_statistics) + 1 || plan.op_offset.front() != 0 ||
      plan.op_offset.back() != int64_t(plan.ops.size()))
    reject_plan("op_offset must run from 0 to ops.size() over n_statistics + 1 entries");
  for (int32_t s = 0; s < plan.n_statistics; ++s) {
    if (plan.op_offset[s + 1] < plan.op_offset[s]) reject_plan("op_offset decreases at statistic " + std::to_string(s));
    // The stack discipline evaluate() relies on: no underflow, no overflow past kMaxStack.
    int depth = 0;
    for (int32_t i = plan.op_offset[s]; i < plan.op_offset[s + 1]; ++i) {
      const Op& op = plan.ops[i];
      switch (op.code) {
        case OpCode::kColumn:
          if (op.arg < 0 || op.arg >= plan.n_columns)
            reject_plan("statistic " + std::to_string(s) + " reads column " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kNormal:
          if (op.arg < 0 || op.arg >= plan.n_normals)
            reject_plan("statistic " + std::to_string(s) + " reads normal draw " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kRank:  // extras[n_normals + t] holds rank term t's 2U
          if (op.arg < plan.n_normals || op.arg >= plan.n_normals + plan.n_rank_terms)
            reject_plan("statistic " + std::to_string(s) + " reads rank extra " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kConstant:
          ++depth;
          break;
        case OpCode::kAbs:
          if (depth < 1) reject_plan("statistic " + std::to_string(s) + ": abs of nothing");
          break;
        default:
          if (depth < 2) reject_plan("statistic " + std::to_string(s) + ": binary op on a short stack");
          --depth;
      }
      if (depth > kMaxStack) reject_plan("statistic " + std::to_string(s) + " needs more than kMaxStack slots");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Plan identity: the cache is keyed on the plan's address and a hash of its whole content, so
// a different plan that happens to reuse an address (a plan rebuilt in a loop) is re-uploaded.

class ContentHash {
 public:
  void add(uint64_t word) {
    // Four interleaved multiply-xorshift lanes keep long arrays near memory speed.
    uint64_t& lane = lanes_[count_++ & 3];
    lane = (lane ^ word) * 0x9E3779B97F4A7C15ull;
    lane ^= lane >> 29;
  }
  template <typename T>
  void add_all(const std::vector<T>& values) {
    add(values.size());
    for (const T& v : values) add(static_cast<uint64_t>(v));
  }
  void add_all(const std::vector<double>& values) {
    add(values.size());
    for (double v : values) {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      add(bits);
    }
  }
  uint64_t value() const {
    uint64_t h = count_;
    for (uint64_t lane : lanes_) h = (h ^ lane) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
    return h;
  }

 private:
  uint64_t lanes_[4] = {1, 2, 3, 4};
  uint64_t count_ = 0;
};

uint64_t plan_fingerprint(const CompiledPlan& plan) {
  ContentHash hash;
  hash.add(uint64_t(plan.n_clusters));
  hash.add(uint64_t(uint32_t(plan.n_columns)) << 32 | uint32_t(plan.n_statistics));
  hash.add(uint64_t(uint32_t(plan.n_normals)) << 1 | (plan.fits_int32 ? 1u : 0u));
  hash.add(uint64_t(uint32_t(plan.n_rank_terms)));
  hash.add_all(plan.rank_offset);
  hash.add_all(plan.rank_cluster);
  hash.add_all(plan.rank_positive);
  hash.add_all(plan.rank_tie_start);
  hash.add_all(plan.stratum_offset);
  hash.add_all(plan.cluster_sums);
  hash.add_all(plan.column_unscale);
  hash.add_all(plan.op_offset);
  hash.add(plan.ops.size());
  for (const Op& op : plan.ops) {
    uint64_t value_bits;
    std::memcpy(&value_bits, &op.value, sizeof value_bits);
    hash.add(uint64_t(op.code) << 32 | uint32_t(op.arg));
    hash.add(value_bits);
  }
  return hash.value();
}

// ---------------------------------------------------------------------------------------------
// Host-side tables the kernels read: detail/plan_tables.hpp.

// ---------------------------------------------------------------------------------------------
// A plan as uploaded for one kernel path.

struct UploadedPlan {
  const CompiledPlan* address = nullptr;
  uint64_t fingerprint = 0;
  CudaKernelPath path = CudaKernelPath::kGather;
  bool narrow_words = false;  // gather path: uint32 per-cluster sums
  size_t shared_bytes = 0;    // dynamic shared memory per block
  int threads = 0;            // per block
  int blocks_per_sm = 0;      // resident blocks per multiprocessor at that shared memory
  uint32_t replicates_per_block = 1;
  int tile_options = 0;      // tile path: its kernel (kTilePrefetch | kTileSharedProgram)
  bool gather_rows = false;  // gather path: the rows-in-flight kernel

  DeviceBuffer<uint32_t> cluster_offset, block_offset;
  DeviceBuffer<int64_t> rank_offset;
  DeviceBuffer<int32_t> rank_cluster, rank_entry_slot, rank_cluster_slot;
  DeviceBuffer<uint8_t> rank_positive, rank_tie_start;
  DeviceBuffer<uint32_t> rank_slot_counts;  // gather path: per resident block, n_slots counters
  uint32_t rank_slots = 0;
  uint64_t max_gather_blocks = 0;  // gather path: blocks the counters were allocated for
  DeviceBuffer<Op> ops;
  DeviceBuffer<int32_t> op_offset;
  DeviceBuffer<double> column_unscale;
  DeviceBuffer<uint32_t> fragments;  // two words (one uint2) per [tile][k_step][lane]
  DeviceBuffer<int32_t> column_first_plane;
  DeviceBuffer<int64_t> column_min;
  DeviceBuffer<unsigned int> values32;
  DeviceBuffer<unsigned long long> values64;

  cuda_detail::StratumTable strata{};
  cuda_detail::ProgramView program{};
  cuda_detail::RankView rank{};
  cuda_detail::TilePlanView tile{};
  cuda_detail::GatherPlanView<unsigned int> gather32{};
  cuda_detail::GatherPlanView<unsigned long long> gather64{};
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, uint64_t max_chunk, CudaKernelPath path)
      : device_(device),
        max_chunk_(max_chunk),
        forced_path_(path),
        tile_prefetch_(switch_on("JUDGESTAT_TILE_PREFETCH")),
        tile_shared_program_(switch_on("JUDGESTAT_TILE_SHARED_PROGRAM")),
        gather_rows_(switch_on("JUDGESTAT_GATHER_ROWS")),
        summary_scratch_(switch_on("JUDGESTAT_SUMMARY_REUSE") ? cuda_detail::make_summary_scratch() : nullptr) {
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
    if (count == 0 || plan.n_statistics == 0 || (max_chunk_ && max_chunk_ < count)) return nullptr;
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
    const uint64_t fingerprint = plan_fingerprint(plan);
    if (uploaded_ && uploaded_->address == &plan && uploaded_->fingerprint == fingerprint) return *uploaded_;
    uploaded_.reset();  // free the old plan's device memory before taking the new one's
    validate_plan(plan);
    auto up = std::make_unique<UploadedPlan>();
    up->address = &plan;
    up->fingerprint = fingerprint;
    upload_common(plan, *up);
    const std::string refusal = choose_path(plan, *up);
    if (!refusal.empty()) throw std::invalid_argument("CUDA backend: " + refusal);
    // The uploads are pageable cudaMemcpy on the legacy stream, which may return before the
    // DMA lands; compute_stream_ is non-blocking and so not ordered after them.
    JS_CUDA_CHECK(cudaDeviceSynchronize());
    uploaded_ = std::move(up);
    return *uploaded_;
  }

  void upload_common(const CompiledPlan& plan, UploadedPlan& up) {
    const StratumVectors tables = stratum_vectors(plan);
    up.cluster_offset.upload(tables.cluster_offset);
    up.block_offset.upload(tables.block_offset);
    up.ops.upload(plan.ops);
    up.op_offset.upload(plan.op_offset);
    up.column_unscale.upload(plan.column_unscale);
    up.strata = {up.cluster_offset.data(), up.block_offset.data(), plan.n_strata(), tables.block_offset.back()};
    up.program = {up.ops.data(),  up.op_offset.data(), up.column_unscale.data(), plan.n_statistics,
                  plan.n_columns, plan.n_normals,      plan.n_rank_terms};
    up.rank_offset.upload(plan.rank_offset);
    up.rank_cluster.upload(plan.rank_cluster);
    up.rank_positive.upload(plan.rank_positive);
    up.rank_tie_start.upload(plan.rank_tie_start);
    up.rank = {up.rank_offset.data(),   up.rank_cluster.data(),   nullptr,
               up.rank_positive.data(), up.rank_tie_start.data(), plan.n_rank_terms};
  }

  /// Uploads the path-specific data; returns why the requested path is impossible, or "".
  std::string choose_path(const CompiledPlan& plan, UploadedPlan& up) {
    if (forced_path_ != CudaKernelPath::kGather) {
      std::string refusal = tile_counter_refusal(plan);
      PlaneLayout layout;
      size_t shared_bytes = 0;
      size_t program_bytes = 0;
      if (refusal.empty()) {
        layout = plane_layout(plan);
        shared_bytes =
            cuda_detail::TileSharedLayout::of(plan.n_columns, up.program.n_extras(), layout.n_tiles, layout.row_stride)
                .total;
        // The tables' shared copy only where it fits beside the histograms.
        const size_t program = cuda_detail::SharedProgramLayout::of(static_cast<int32_t>(plan.ops.size()),
                                                                    plan.n_statistics, plan.n_columns)
                                   .total;
        if (tile_shared_program_ && shared_bytes + program <= size_t(props_.sharedMemPerBlockOptin)) {
          program_bytes = program;
          shared_bytes += program;
        }
        if (shared_bytes > size_t(props_.sharedMemPerBlockOptin))
          refusal = "16 multiplicity histograms of " + std::to_string(plan.n_clusters) + " clusters need " +
                    std::to_string(shared_bytes) + " bytes of shared memory; the device offers " +
                    std::to_string(props_.sharedMemPerBlockOptin);
      }
      int blocks_per_sm = 0;
      const int options =
          (tile_prefetch_ ? cuda_detail::kTilePrefetch : 0) | (program_bytes ? cuda_detail::kTileSharedProgram : 0);
      if (refusal.empty()) {
        JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, tile_kernel(options),
                                                                    cuda_detail::kTileThreads, shared_bytes));
        if (blocks_per_sm == 0) refusal = "the tile kernel cannot be resident on this device";
      }
      if (refusal.empty()) {
        up.fragments.upload(b_fragments(plan, layout));
        up.column_first_plane.upload(layout.column_first_plane);
        up.column_min.upload(layout.column_min);
        up.tile = {up.strata,
                   up.program,
                   up.rank,
                   static_cast<uint32_t>(plan.n_clusters),
                   layout.row_stride,
                   layout.k_steps,
                   layout.n_tiles,
                   reinterpret_cast<const uint2*>(up.fragments.data()),  // cudaMalloc: aligned
                   up.column_first_plane.data(),
                   up.column_min.data(),
                   static_cast<uint32_t>(program_bytes),
                   static_cast<int32_t>(plan.ops.size())};
        up.path = CudaKernelPath::kMultiplicityTile;
        up.tile_options = options;
        up.shared_bytes = shared_bytes;
        up.threads = cuda_detail::kTileThreads;
        up.blocks_per_sm = blocks_per_sm;
        up.replicates_per_block = cuda_detail::kTileReplicates;
        return "";
      }
      if (forced_path_ == CudaKernelPath::kMultiplicityTile)
        return "the multiplicity-tile path cannot run this plan: " + refusal;
    }
    return upload_gather(plan, up);
  }

  std::string upload_gather(const CompiledPlan& plan, UploadedPlan& up) {
    // fits_int32: every replicate sum fits int32, so sums modulo 2^32 of the per-cluster sums
    // modulo 2^32 are exact; half the bytes to gather.
    up.narrow_words = plan.fits_int32;
    const int32_t n_extras = up.program.n_extras();
    up.shared_bytes = up.narrow_words ? cuda_detail::gather_shared_bytes<unsigned int>(plan.n_columns, n_extras)
                                      : cuda_detail::gather_shared_bytes<unsigned long long>(plan.n_columns, n_extras);
    if (up.shared_bytes > size_t(props_.sharedMemPerBlockOptin))
      return "a plan of " + std::to_string(plan.n_columns) + " columns and " + std::to_string(n_extras) +
             " normal draws and rank terms needs " + std::to_string(up.shared_bytes) +
             " bytes of shared memory per block; the " + "device offers " +
             std::to_string(props_.sharedMemPerBlockOptin);
    if (up.narrow_words) {
      up.values32.upload(gather_words<unsigned int>(plan));
      JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&up.blocks_per_sm,
                                                                  gather_kernel_for<unsigned int>(gather_rows_),
                                                                  cuda_detail::kGatherThreads, up.shared_bytes));
    } else {
      up.values64.upload(gather_words<unsigned long long>(plan));
      JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&up.blocks_per_sm,
                                                                  gather_kernel_for<unsigned long long>(gather_rows_),
                                                                  cuda_detail::kGatherThreads, up.shared_bytes));
    }
    if (up.blocks_per_sm == 0) return "the gather kernel cannot be resident on this device";
    up.max_gather_blocks = uint64_t(up.blocks_per_sm) * props_.multiProcessorCount;
    if (plan.n_rank_terms > 0) {
      // Each block counts its replicate's draws of the rank terms' clusters in its own
      // counters; fewer blocks run when all of them would take over 1/8 of free memory.
      const RankSlots slots = rank_slots(plan);
      up.rank_slots = slots.n_slots;
      up.rank_cluster_slot.upload(slots.cluster_slot);
      up.rank_entry_slot.upload(slots.entry_slot);
      up.rank.entry_slot = up.rank_entry_slot.data();
      size_t free_bytes = 0, total_bytes = 0;
      JS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const uint64_t per_block = std::max<uint64_t>(1, slots.n_slots) * sizeof(uint32_t);
      up.max_gather_blocks =
          std::max<uint64_t>(1, std::min<uint64_t>(up.max_gather_blocks, free_bytes / 8 / per_block));
      up.rank_slot_counts.allocate(up.max_gather_blocks * std::max<uint32_t>(1, slots.n_slots));
    }
    const cuda_detail::ProgramView& program = up.program;
    up.gather32 = {up.strata,
                   program,
                   up.rank,
                   up.values32.data(),
                   up.rank_cluster_slot.data(),
                   up.rank_slots,
                   up.rank_slot_counts.data()};
    up.gather64 = {up.strata,
                   program,
                   up.rank,
                   up.values64.data(),
                   up.rank_cluster_slot.data(),
                   up.rank_slots,
                   up.rank_slot_counts.data()};
    up.path = CudaKernelPath::kGather;
    up.gather_rows = gather_rows_;
    up.threads = cuda_detail::kGatherThreads;
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
  bool tile_prefetch_, tile_shared_program_, gather_rows_;        // the switches, read when made
  std::shared_ptr<cuda_detail::SummaryScratch> summary_scratch_;  // JUDGESTAT_SUMMARY_REUSE
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

std::unique_ptr<Backend> make_cuda_backend_with_path(int device, uint64_t max_chunk, CudaKernelPath path) {
  std::string why;
  if (!cuda_available(&why)) throw std::runtime_error("CUDA backend unavailable: " + why);
  return std::make_unique<CudaBackend>(device, max_chunk, path);
}

std::unique_ptr<Backend> make_cuda_backend(int device, uint64_t max_chunk) {
  return make_cuda_backend_with_path(device, max_chunk, CudaKernelPath::kAuto);
}

}  // namespace judgestat
