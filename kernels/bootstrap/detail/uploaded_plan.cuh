// Upload half of the CUDA backend's dispatch (kernels/bootstrap/cuda_backend.cu): a compiled plan
// as it lives on the device for one kernel path, and the copies that put it there (defined in
// ../plan_upload.cu). The dispatch chooses the path and sizes the grid; these only copy tables
// and build the views the kernels read. No kernel is named here, so every kernel's registration
// and launch stay in the dispatch's translation unit.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../../detail/cuda_check.cuh"
#include "../cuda_backend_paths.hpp"
#include "byte_planes.hpp"
#include "gather_agent.cuh"
#include "judgestat/plan.hpp"
#include "multiplicity_tile_agent.cuh"

namespace judgestat::cuda_detail {

/// A plan as uploaded for one kernel path.
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

  StratumTable strata{};
  ProgramView program{};
  RankView rank{};
  TilePlanView tile{};
  GatherPlanView<unsigned int> gather32{};
  GatherPlanView<unsigned long long> gather64{};
};

/// The tables every path reads: strata, the statistics' program, rank terms.
void upload_common(const CompiledPlan& plan, UploadedPlan& up);
/// The tile path's B fragments and plane bounds, and its view (`program_bytes`: the size of the
/// tables' shared copy, 0 without one).
void upload_tile_tables(const CompiledPlan& plan, const PlaneLayout& layout, size_t program_bytes, UploadedPlan& up);
/// The gather path's per-cluster sums, in up.narrow_words' width.
void upload_gather_words(const CompiledPlan& plan, UploadedPlan& up);
/// The gather path's rank counters, one set per resident block, within up.max_gather_blocks
/// (lowered when they would take over 1/8 of free memory), and the gather views.
void upload_gather_counters(const CompiledPlan& plan, UploadedPlan& up);

}  // namespace judgestat::cuda_detail
