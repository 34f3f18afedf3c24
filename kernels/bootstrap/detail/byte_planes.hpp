// Host side of the fast path's tensor-core product (multiplicity_tile_agent.cuh): the byte
// planes of a plan's per-cluster sums, laid out as B fragments of mma.m16n8k32. Plain C++ (no
// CUDA headers), so tests can check the layout on machines without a GPU.
//
// Column k's per-cluster sums are stored as min_k + U[c][k], 0 <= U < 256^P_k; plane column n
// holds byte p of U for its column k (columns with P_k = 0, constant over clusters, have none).
// A replicate's column sum is then C * min_k + sum_p 256^p * sum_c m_c * byte_p(U[c][k]), all
// modulo 2^64, which is the exact int64 sum.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat::cuda_detail {

constexpr uint32_t kTileReplicates = 16;            // M of mma.m16n8k32: one row per replicate
constexpr uint32_t kClustersPerKStep = 32;          // K of mma.m16n8k32
constexpr uint32_t kPlaneColumnsPerNTile = 8;       // N of mma.m16n8k32
constexpr uint32_t kFragmentLanes = 32;             // one warp
constexpr uint32_t kClusterPadding = 64;            // histogram rows are padded to this multiple...
constexpr uint32_t kRowSkew = 16;                   // ...plus 16 counters, so that the eight rows a
                                                    // warp's A-fragment load touches hit distinct banks
constexpr uint32_t kMaxStratumForCounters = 65535;  // uint16 counters cannot overflow below this

struct PlaneLayout {
  std::vector<int64_t> column_min;          // n_columns
  std::vector<int32_t> column_first_plane;  // n_columns + 1: column k owns [f[k], f[k + 1])
  std::vector<int32_t> plane_column;        // per plane column: its column
  std::vector<int32_t> plane_byte;          // per plane column: which byte of (value - min)
  uint32_t n_tiles = 0;                     // plane-column tiles of 8
  uint32_t k_steps = 0;                     // cluster steps of 32 over the padded clusters
  uint32_t row_stride = 0;                  // uint16 counters per histogram row
};

inline PlaneLayout plane_layout(const CompiledPlan& plan) {
  const int32_t K = plan.n_columns;
  const int64_t C = plan.n_clusters;
  PlaneLayout layout;
  layout.column_min.assign(K, 0);
  layout.column_first_plane.assign(K + 1, 0);
  for (int32_t k = 0; k < K; ++k) {
    int64_t lo = 0, hi = 0;
    for (int64_t c = 0; c < C; ++c) {
      const int64_t v = plan.cluster_sums[size_t(c) * K + k];
      if (c == 0 || v < lo) lo = v;
      if (c == 0 || v > hi) hi = v;
    }
    const uint64_t range = uint64_t(hi) - uint64_t(lo);  // exact: hi >= lo
    int32_t bytes = 0;
    while (bytes < 8 && (range >> (8 * bytes)) != 0) ++bytes;
    layout.column_min[k] = lo;
    layout.column_first_plane[k + 1] = layout.column_first_plane[k] + bytes;
    for (int32_t p = 0; p < bytes; ++p) {
      layout.plane_column.push_back(k);
      layout.plane_byte.push_back(p);
    }
  }
  const auto n_planes = static_cast<uint32_t>(layout.plane_column.size());
  const auto padded_clusters = static_cast<uint32_t>((C + kClusterPadding - 1) / kClusterPadding * kClusterPadding);
  layout.n_tiles = (n_planes + kPlaneColumnsPerNTile - 1) / kPlaneColumnsPerNTile;
  layout.k_steps = padded_clusters / kClustersPerKStep;
  layout.row_stride = padded_clusters + kRowSkew;
  return layout;
}

/// The plane bytes in the order lanes load B fragments of mma.m16n8k32 (PTX ISA: lane l holds
/// column l / 4 and, in its two registers, k rows 4 (l % 4) + i and 16 + 4 (l % 4) + i, byte i
/// of each register for i = 0..3). Two 32-bit words per [tile][k_step][lane], that is uint2.
inline std::vector<uint32_t> b_fragments(const CompiledPlan& plan, const PlaneLayout& layout) {
  const int32_t K = plan.n_columns;
  const auto C = static_cast<uint32_t>(plan.n_clusters);
  const auto n_planes = static_cast<uint32_t>(layout.plane_column.size());
  auto plane_byte = [&](uint32_t c, uint32_t n) -> uint32_t {
    if (c >= C || n >= n_planes) return 0;  // padding meets zero counters
    const int32_t k = layout.plane_column[n];
    const uint64_t offset = uint64_t(plan.cluster_sums[size_t(c) * K + k]) - uint64_t(layout.column_min[k]);
    return static_cast<uint32_t>((offset >> (8 * layout.plane_byte[n])) & 0xFFu);
  };
  std::vector<uint32_t> words(size_t(layout.n_tiles) * layout.k_steps * kFragmentLanes * 2);
  size_t i = 0;
  for (uint32_t tile = 0; tile < layout.n_tiles; ++tile)
    for (uint32_t ks = 0; ks < layout.k_steps; ++ks)
      for (uint32_t lane = 0; lane < kFragmentLanes; ++lane) {
        const uint32_t n = tile * kPlaneColumnsPerNTile + lane / 4;
        const uint32_t c0 = ks * kClustersPerKStep + 4 * (lane % 4);
        uint32_t low = 0, high = 0;
        for (uint32_t b = 0; b < 4; ++b) {
          low |= plane_byte(c0 + b, n) << (8 * b);
          high |= plane_byte(c0 + 16 + b, n) << (8 * b);
        }
        words[i++] = low;
        words[i++] = high;
      }
  return words;
}

}  // namespace judgestat::cuda_detail
