// Device pieces both bootstrap agents share: SPEC §2's draws of one replicate, numbered across
// strata, and the statistics' programs.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "judgestat/philox.hpp"
#include "judgestat/plan.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "judgestat's CUDA kernels need compute capability 8.0 or newer (mma.sync m16n8k32)"
#endif

namespace judgestat::cuda_detail {

constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kWarpSize = 32;
constexpr uint32_t kDrawsPerPhiloxBlock = 4;  // one Philox call yields four 32-bit words

/// The strata as the draw loops see them. A replicate's Philox blocks are numbered across
/// strata: stratum h owns the ceil(C_h / 4) blocks [block_offset[h], block_offset[h + 1]), so
/// threads can split one flat range of blocks without caring where strata begin.
struct StratumTable {
  const uint32_t* cluster_offset;  // H + 1 entries: first cluster of each stratum
  const uint32_t* block_offset;    // H + 1 entries: first flat Philox block of each stratum
  int32_t n_strata;
  uint32_t n_blocks;               // block_offset[H]: Philox blocks per replicate
};

/// Up to four drawn clusters (global numbers) from one Philox block.
struct ClusterDraws {
  uint32_t cluster[kDrawsPerPhiloxBlock];
  uint32_t count;  // the stratum's last block holds C_h mod 4 draws when that is not 0
};

/// Read-only load through the non-coherent cache on the device; a plain load in host code (the
/// draw helpers below are __host__ __device__ so host-side checks can run the same code).
template <typename T>
__host__ __device__ __forceinline__ T load_readonly(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

/// The stratum that owns flat Philox block `block` (< n_blocks). Binary search for the last h
/// with block_offset[h] <= block; an empty stratum owns no block and is never returned.
__host__ __device__ __forceinline__ int32_t stratum_of_block(const StratumTable& strata,
                                                             uint32_t block) {
  int32_t lo = 0, hi = strata.n_strata;  // block_offset[lo] <= block < block_offset[hi]
  while (hi - lo > 1) {
    const int32_t mid = (lo + hi) >> 1;
    if (load_readonly(strata.block_offset + mid) <= block)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// Draws 4b .. 4b+3 of `replicate` in the stratum owning flat block `block` (local block b):
/// word d mod 4 of Philox(counter = (d div 4, r, h, 0)), scaled to the stratum's C_h clusters.
__host__ __device__ __forceinline__ ClusterDraws draw_clusters(PhiloxKey key, uint32_t replicate,
                                                               uint32_t block,
                                                               const StratumTable& strata) {
  const int32_t h = stratum_of_block(strata, block);
  const uint32_t first_cluster = load_readonly(strata.cluster_offset + h);
  const uint32_t size = load_readonly(strata.cluster_offset + h + 1) - first_cluster;
  const uint32_t local_block = block - load_readonly(strata.block_offset + h);
  const Words4 words =
      draw_block(key, local_block, replicate, bootstrap_stream(static_cast<uint32_t>(h)));
  ClusterDraws draws;
  const uint32_t left = size - kDrawsPerPhiloxBlock * local_block;
  draws.count = left < kDrawsPerPhiloxBlock ? left : kDrawsPerPhiloxBlock;
#pragma unroll
  for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i)
    draws.cluster[i] = first_cluster + scale_to(words.w[i], size);
  return draws;
}

/// The statistics' finishing programs (plan.hpp's evaluate) as uploaded to the device.
struct ProgramView {
  const Op* ops;
  const int32_t* op_offset;       // n_statistics + 1
  const double* column_unscale;   // n_columns
  int32_t n_statistics;
  int32_t n_columns;
  int32_t n_normals;
};

/// Statistic `s` of one replicate from its column sums (fixed point) and normal draws.
template <typename Sum>
__host__ __device__ __forceinline__ double evaluate_statistic(const ProgramView& program, int32_t s,
                                                     const Sum* sums, const double* normals) {
  const int32_t begin = load_readonly(program.op_offset + s);
  const int32_t end = load_readonly(program.op_offset + s + 1);
  return evaluate(program.ops + begin, end - begin, sums, program.column_unscale, normals);
}

}  // namespace judgestat::cuda_detail
