// Pieces of the multiplicity tile agent (multiplicity_tile_agent.cuh) that are plain index and
// byte arithmetic, written once for host and device so that tests/kernels/test_kernel_emulation.cpp
// can run them on the host, lane by lane, against a direct reference: the k-step schedule of
// the tensor-core product (with or without B prefetch), the A-fragment counter offsets, the
// byte split of the counters, and the statistics' tables copied to shared memory.
// No CUDA headers: this compiles in CPU-only builds too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "byte_planes.hpp"
#include "judgestat/philox.hpp"  // JS_HD
#include "judgestat/plan.hpp"

#if defined(__CUDA_ARCH__)
#define JS_UNROLL _Pragma("unroll")
#else
#define JS_UNROLL
#endif

namespace judgestat::cuda_detail {

/// B fragments loaded ahead per warp when JUDGESTAT_TILE_PREFETCH=1: every load of a group is
/// issued before the group's first product, so a warp waits on one L2 latency per group of
/// kTilePrefetchDepth steps instead of one per step.
constexpr int kTilePrefetchDepth = 4;

/// The k steps a warp's work unit visits, ks = slice, slice + slices, ... < k_steps, in groups
/// of Depth: load(u, ks) for every step of a group, then use(u, ks) for each in the same order
/// (u = the step's place in its group, 0 .. Depth - 1). Depth 1 is load-then-use per step.
/// Integer sums of the products do not depend on the grouping.
template <int Depth, typename Load, typename Use>
JS_HD void for_each_k_step(uint32_t slice, uint32_t slices, uint32_t k_steps, Load&& load, Use&& use) {
  for (uint32_t ks = slice; ks < k_steps; ks += uint32_t(Depth) * slices) {
    JS_UNROLL
    for (int u = 0; u < Depth; ++u) {
      const uint32_t k = ks + uint32_t(u) * slices;
      if (k < k_steps) load(u, k);
    }
    JS_UNROLL
    for (int u = 0; u < Depth; ++u) {
      const uint32_t k = ks + uint32_t(u) * slices;
      if (k < k_steps) use(u, k);
    }
  }
}

/// uint16 counter index of A-fragment load i (0..3) of `lane` at cluster k0: four consecutive
/// counters of row g (i = 0, 2) or g + 8 (i = 1, 3), clusters k0 + 4t (i < 2) or k0 + 16 + 4t,
/// g = lane / 4, t = lane % 4 (mma.m16n8k32's A layout; multiplicity_tile_agent.cuh).
JS_HD uint32_t a_counter_index(uint32_t row_stride, uint32_t lane, uint32_t k0, int i) {
  const uint32_t g = lane / 4, t = lane % 4;
  return (g + (i & 1) * 8) * row_stride + t * 4 + k0 + (i >> 1) * 16;
}

/// Index of `lane`'s B fragment (one uint2) of plane-column tile `tile` at k step `ks`.
JS_HD size_t b_fragment_index(uint32_t tile, uint32_t ks, uint32_t k_steps, uint32_t lane) {
  return (size_t(tile) * k_steps + ks) * kFragmentLanes + lane;
}

/// Low / high bytes of four consecutive uint16 counters held in two words, packed in k order
/// (__byte_perm(x, y, 0x6420) and 0x7531 on the device).
JS_HD uint32_t counter_low_bytes(uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, 0x6420);
#else
  return (x & 0xFFu) | ((x >> 8) & 0xFF00u) | ((y & 0xFFu) << 16) | ((y << 8) & 0xFF000000u);
#endif
}
JS_HD uint32_t counter_high_bytes(uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, 0x7531);
#else
  return ((x >> 8) & 0xFFu) | ((x >> 16) & 0xFF00u) | ((y << 8) & 0xFF0000u) | (y & 0xFF000000u);
#endif
}

/// The statistics' tables (ops, op offsets, column unscale) as copied into shared memory when
/// JUDGESTAT_TILE_SHARED_PROGRAM=1: the evaluate phase then reads them at shared-memory latency
/// instead of through L1/L2 for every op of every (replicate, statistic).
struct SharedProgramLayout {
  size_t ops, op_offset, unscale, total;  // byte offsets in the section, then its size

  JS_HD static size_t round16(size_t bytes) { return (bytes + 15) & ~size_t(15); }
  JS_HD static SharedProgramLayout of(int32_t n_ops, int32_t n_statistics, int32_t n_columns) {
    SharedProgramLayout layout{};
    layout.ops = 0;
    layout.op_offset = round16(size_t(n_ops) * sizeof(Op));
    layout.unscale = layout.op_offset + round16((size_t(n_statistics) + 1) * sizeof(int32_t));
    layout.total = layout.unscale + round16(size_t(n_columns) * sizeof(double));
    return layout;
  }
};

/// Thread `thread` of `n_threads` copies its share (a stride of n_threads) of the tables into
/// `section` (16-byte aligned, SharedProgramLayout::of(...).total bytes). The caller
/// synchronises the block before anything reads the copy.
JS_HD void copy_program_share(const Op* ops, int32_t n_ops, const int32_t* op_offset, int32_t n_statistics,
                              const double* unscale, int32_t n_columns, unsigned char* section, uint32_t thread,
                              uint32_t n_threads) {
  const SharedProgramLayout layout = SharedProgramLayout::of(n_ops, n_statistics, n_columns);
  Op* ops_copy = reinterpret_cast<Op*>(section + layout.ops);
  int32_t* offset_copy = reinterpret_cast<int32_t*>(section + layout.op_offset);
  double* unscale_copy = reinterpret_cast<double*>(section + layout.unscale);
  for (uint32_t i = thread; i < uint32_t(n_ops); i += n_threads) ops_copy[i] = ops[i];
  for (uint32_t i = thread; i < uint32_t(n_statistics) + 1; i += n_threads) offset_copy[i] = op_offset[i];
  for (uint32_t i = thread; i < uint32_t(n_columns); i += n_threads) unscale_copy[i] = unscale[i];
}

/// Statistic s from tables read with plain loads (shared memory: the device's read-only
/// global loads must not be given shared addresses).
template <typename Sum>
JS_HD double evaluate_from_tables(const Op* ops, const int32_t* op_offset, const double* unscale, int32_t s,
                                  const Sum* sums, const double* extras) {
  const int32_t begin = op_offset[s], end = op_offset[s + 1];
  return evaluate(ops + begin, end - begin, sums, unscale, extras);
}

}  // namespace judgestat::cuda_detail
