// Upload half of the CUDA backend's dispatch (detail/uploaded_plan.cuh): the plan's tables copied
// to the device and the views the kernels read. cuda_backend.cu decides what to upload.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "detail/plan_tables.hpp"
#include "detail/uploaded_plan.cuh"

namespace judgestat::cuda_detail {

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

void upload_tile_tables(const CompiledPlan& plan, const PlaneLayout& layout, size_t program_bytes, UploadedPlan& up) {
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
}

void upload_gather_words(const CompiledPlan& plan, UploadedPlan& up) {
  if (up.narrow_words)
    up.values32.upload(gather_words<unsigned int>(plan));
  else
    up.values64.upload(gather_words<unsigned long long>(plan));
}

void upload_gather_counters(const CompiledPlan& plan, UploadedPlan& up) {
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
    up.max_gather_blocks = std::max<uint64_t>(1, std::min<uint64_t>(up.max_gather_blocks, free_bytes / 8 / per_block));
    up.rank_slot_counts.allocate(up.max_gather_blocks * std::max<uint32_t>(1, slots.n_slots));
  }
  const ProgramView& program = up.program;
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
}

}  // namespace judgestat::cuda_detail
