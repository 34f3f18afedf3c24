// Fast path: one thread block computes a tile of 16 replicates at a time.
//
//   1. draw:     threads split the tile's (replicate, Philox block) pairs and count every drawn
//                cluster in a shared-memory multiplicity histogram, 16 rows x C uint16 counters;
//   2. multiply: warps form the column sums' byte planes as a tensor-core product
//                M (16 x C multiplicities) x U (C x N plane bytes) with mma.sync m16n8k32 u8;
//      ranks:    a warp per (replicate, rank term) turns the same multiplicities into the
//                term's 2U (warp_rank_term_2u), for bilinear statistics such as AUROC;
//   3. fold:     column sum k = C * min_k + sum_p 256^p * plane_sum[k, p]  (mod 2^64);
//   4. evaluate: one thread per (replicate, statistic) runs the statistic's program.
//
// Why the planes: per-cluster sums are int64 fixed point, and the tensor cores multiply bytes.
// Column k's values are stored as min_k + U[c][k] with 0 <= U < 256^P_k, U split into its P_k
// bytes (plane columns; a count column needs one). A multiplicity m < 65536 is split the same
// way into a low and a high byte; the high byte is nonzero only when one cluster is drawn 256+
// times, which the warp detects with a vote and then adds as a second product times 256. Every
// product and partial sum is an exact integer below 255 * C < 2^31, so the result does not
// depend on the order of the additions: it equals the CPU backend's sums bit for bit.
//
// Why 16 replicates per block: each U fragment loaded from L2 then serves 16 replicates, which
// keeps the product off the memory bus; 16 is also the M of the tensor-core instruction.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../../detail/device_runtime.cuh"
#include "byte_planes.hpp"
#include "replicate_common.cuh"
#include "tile_schedule.hpp"

namespace judgestat::cuda_detail {

constexpr int kTileThreads = 1024;
static_assert(kFragmentLanes == uint32_t(kWarpSize), "B fragments are per warp lane");

/// The fast path's view of an uploaded plan (device pointers and shapes).
struct TilePlanView {
  StratumTable strata;
  ProgramView program;
  RankView rank;
  uint32_t n_clusters;                // C, every stratum together
  uint32_t row_stride;                // uint16 counters per histogram row: round_up(C, 64) + 16
  uint32_t k_steps;                   // round_up(C, 64) / 32
  uint32_t n_tiles;                   // round_up(N, 8) / 8 plane-column tiles
  const uint2* b_fragments;           // [n_tile][k_step][lane]: b_fragments() of byte_planes.hpp
  const int32_t* column_first_plane;  // n_columns + 1: column k owns plane columns [f[k], f[k+1])
  const int64_t* column_min;          // n_columns
  uint32_t program_bytes;             // kTileSharedProgram: bytes of the tables' shared copy, else 0
  int32_t n_ops;                      // ops in program.ops (for that copy)
};

/// Performance switches (bench/NOTES.md), compiled into separate kernels so that the default
/// (0) keeps the registers and code it had: B fragments loaded kTilePrefetchDepth steps ahead
/// (JUDGESTAT_TILE_PREFETCH), the statistics' tables in shared memory
/// (JUDGESTAT_TILE_SHARED_PROGRAM).
constexpr int kTilePrefetch = 1, kTileSharedProgram = 2, kTileOptionCount = 4;

/// Dynamic shared memory of one block, in the order the agent carves it (each part a multiple
/// of 16 bytes, so the histogram stays 16-byte aligned for vector zeroing and 8-byte A loads).
/// The statistics' tables (program_bytes, a multiple of 16; 0 = not copied) sit before the
/// histogram, which is cleared as one block up to the end.
struct TileSharedLayout {
  size_t column_sums, extras, plane_sums, program, histogram, total;  // byte offsets, then the size

  __host__ __device__ static TileSharedLayout of(int32_t n_columns, int32_t n_extras, uint32_t n_tiles,
                                                 uint32_t row_stride, size_t program_bytes = 0) {
    TileSharedLayout layout{};
    size_t offset = 0;
    layout.column_sums = offset;
    offset += size_t(kTileReplicates) * n_columns * sizeof(int64_t);
    layout.extras = offset;
    offset += size_t(kTileReplicates) * n_extras * sizeof(double);
    layout.plane_sums = offset;
    offset += size_t(kTileReplicates) * n_tiles * kPlaneColumnsPerNTile * sizeof(int32_t);
    layout.program = offset;
    offset += program_bytes;
    layout.histogram = offset;
    offset += size_t(kTileReplicates) * row_stride * sizeof(uint16_t);
    layout.total = offset;
    return layout;
  }
};

/// D += A * B for one m16n8k32 tile: A 16 x 32 u8 (row major), B 32 x 8 u8 (column major),
/// D 16 x 8 int32. Fragment layouts (PTX ISA, "mma.m16n8k32"), g = lane / 4, t = lane % 4:
///   a[0]: row g,     k 4t..4t+3     a[1]: row g + 8, k 4t..4t+3
///   a[2]: row g,     k 16+4t..      a[3]: row g + 8, k 16+4t..      (byte i = k offset i)
///   b[0]: column g,  k 4t..4t+3     b[1]: column g,  k 16+4t..
///   d[0], d[1]: row g, columns 2t, 2t+1     d[2], d[3]: row g + 8, columns 2t, 2t+1
/// The CPU runtime computes it from the PTX ISA's layout (kernels/emulation/mma_reference.hpp).
__device__ __forceinline__ void mma_u8_m16n8k32(int32_t (&d)[4], const uint32_t (&a)[4], uint2 b) {
#if defined(JUDGESTAT_CUDA_EMULATION)
  ::judgestat::emulation::mma_sync_m16n8k32_u8(d, a, b.x, b.y);
#else
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
#endif
}

template <int Options>
class MultiplicityTileAgent {
 public:
  __device__ MultiplicityTileAgent(const TilePlanView& plan, PhiloxKey key, unsigned char* shared)
      : plan_(plan), key_(key) {
    const TileSharedLayout layout = TileSharedLayout::of(plan.program.n_columns, plan.program.n_extras(), plan.n_tiles,
                                                         plan.row_stride, plan.program_bytes);
    program_section_ = shared + layout.program;
    column_sums_ = reinterpret_cast<int64_t*>(shared + layout.column_sums);
    extras_ = reinterpret_cast<double*>(shared + layout.extras);
    plane_sums_ = reinterpret_cast<int32_t*>(shared + layout.plane_sums);
    histogram_ = reinterpret_cast<uint32_t*>(shared + layout.histogram);
    histogram_bytes_ = layout.total - layout.histogram;
  }

  /// Once per block, before the first tile: the statistics' tables into shared memory (when
  /// that switch is on).
  __device__ void load_program() {
    if constexpr ((Options & kTileSharedProgram) != 0) {
      const ProgramView& p = plan_.program;
      copy_program_share(p.ops, plan_.n_ops, p.op_offset, p.n_statistics, p.column_unscale, p.n_columns,
                         program_section_, threadIdx.x, blockDim.x);
      __syncthreads();
    }
  }

  /// Replicates first + tile_begin .. + rows - 1 (rows <= 16) into out[(tile_begin + i) * S + s].
  __device__ void run_tile(uint64_t first, uint64_t tile_begin, uint32_t rows, double* out) {
    clear_and_draw_normals(first + tile_begin, rows);
    __syncthreads();
    count_draws(first + tile_begin, rows);
    JS_REMOVABLE_SYNCTHREADS();  // the CPU runtime's planted-race test removes this one
    if constexpr ((Options & kTilePrefetch) != 0)
      multiply_planes<kTilePrefetchDepth>();
    else
      multiply_planes<1>();
    rank_terms(rows);  // reads the same counters; no barrier needed in between
    __syncthreads();
    fold_column_sums();
    __syncthreads();
    evaluate_statistics(rows, out + tile_begin * plan_.program.n_statistics);
    __syncthreads();  // the next tile overwrites extras and counters
  }

 private:
  __device__ void clear_and_draw_normals(uint64_t tile_first, uint32_t rows) {
    uint4* words = reinterpret_cast<uint4*>(histogram_);
    const size_t n_words = histogram_bytes_ / sizeof(uint4);
    for (size_t i = threadIdx.x; i < n_words; i += blockDim.x) words[i] = make_uint4(0, 0, 0, 0);
    const uint32_t plane_width = plan_.n_tiles * kPlaneColumnsPerNTile;
    for (uint32_t i = threadIdx.x; i < kTileReplicates * plane_width; i += blockDim.x) plane_sums_[i] = 0;
    const int32_t n_normals = plan_.program.n_normals, n_extras = plan_.program.n_extras();
    for (uint32_t i = threadIdx.x; i < rows * uint32_t(n_normals); i += blockDim.x) {
      const uint32_t row = i / n_normals, k = i % n_normals;
      extras_[row * n_extras + k] = normal_draw(key_, static_cast<uint32_t>(tile_first + row), k);
    }
  }

  // Work item w = (Philox block w / 16, row w % 16): a warp's lanes hit 16 different rows, and
  // every thread makes one Philox call per four draws.
  __device__ void count_draws(uint64_t tile_first, uint32_t rows) {
    const uint32_t n_items = kTileReplicates * plan_.strata.n_blocks;
    const uint32_t row_words = plan_.row_stride / 2;
    for (uint32_t w = threadIdx.x; w < n_items; w += blockDim.x) {
      const uint32_t row = w % kTileReplicates;
      if (row >= rows) continue;  // the chunk's last tile may be short
      const auto replicate = static_cast<uint32_t>(tile_first + row);
      const ClusterDraws draws = draw_clusters(key_, replicate, w / kTileReplicates, plan_.strata);
      uint32_t* counters = histogram_ + row * row_words;
#pragma unroll
      for (uint32_t i = 0; i < kDrawsPerPhiloxBlock; ++i) {
        if (i < draws.count) {
          const uint32_t c = draws.cluster[i];
          atomicAdd(counters + (c >> 1), 1u << ((c & 1u) * 16u));  // counter c: half c & 1
        }
      }
    }
  }

  // Work unit = (plane-column tile, slice of k steps). With few tiles the k steps are split
  // across warps so every warp has work; partial sums meet in shared memory (integer adds).
  // Depth: B fragments loaded per group of k steps before the group's products
  // (for_each_k_step, tile_schedule.hpp); 1 = load, multiply, next.
  template <int Depth>
  __device__ void multiply_planes() {
    const uint32_t lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const uint32_t n_warps = blockDim.x / kWarpSize;
    const uint32_t g = lane / 4, t = lane % 4;
    const uint32_t n_tiles = plan_.n_tiles, k_steps = plan_.k_steps;
    if (n_tiles == 0) return;
    const uint32_t slices = max(1u, n_warps / n_tiles);
    const uint16_t* counters = reinterpret_cast<const uint16_t*>(histogram_);
    const uint32_t plane_width = n_tiles * kPlaneColumnsPerNTile;

    for (uint32_t unit = warp; unit < n_tiles * slices; unit += n_warps) {
      const uint32_t tile = unit % n_tiles, slice = unit / n_tiles;
      const uint2* b_tile = plan_.b_fragments + b_fragment_index(tile, 0, k_steps, lane);
      int32_t acc[4] = {0, 0, 0, 0};
      uint2 b[Depth];
      for_each_k_step<Depth>(
          slice, slices, k_steps, [&](int u, uint32_t ks) { b[u] = __ldg(b_tile + size_t(ks) * kWarpSize); },
          [&](int u, uint32_t ks) {
            const uint32_t k0 = ks * kClustersPerKStep;
            uint2 q[4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
              q[i] = *reinterpret_cast<const uint2*>(counters + a_counter_index(plan_.row_stride, lane, k0, i));
            const uint32_t a_low[4] = {counter_low_bytes(q[0].x, q[0].y), counter_low_bytes(q[1].x, q[1].y),
                                       counter_low_bytes(q[2].x, q[2].y), counter_low_bytes(q[3].x, q[3].y)};
            mma_u8_m16n8k32(acc, a_low, b[u]);
            const uint32_t a_high[4] = {counter_high_bytes(q[0].x, q[0].y), counter_high_bytes(q[1].x, q[1].y),
                                        counter_high_bytes(q[2].x, q[2].y), counter_high_bytes(q[3].x, q[3].y)};
            // A cluster drawn 256+ times in a replicate (possible only when C_h >= 256, and
            // then rare): its high byte's product counts 256 times.
            if (__any_sync(kFullMask, (a_high[0] | a_high[1] | a_high[2] | a_high[3]) != 0u)) {
              int32_t carry[4] = {0, 0, 0, 0};
              mma_u8_m16n8k32(carry, a_high, b[u]);
#pragma unroll
              for (int i = 0; i < 4; ++i) acc[i] += carry[i] * 256;
            }
          });
      int32_t* top_sums = plane_sums_ + g * plane_width + tile * kPlaneColumnsPerNTile + 2 * t;
      int32_t* bottom_sums = top_sums + 8 * plane_width;
      atomicAdd(top_sums, acc[0]);
      atomicAdd(top_sums + 1, acc[1]);
      atomicAdd(bottom_sums, acc[2]);
      atomicAdd(bottom_sums + 1, acc[3]);
    }
  }

  // Extras n_normals + t of each row: 2U of rank term t from the row's multiplicities.
  __device__ void rank_terms(uint32_t rows) {
    const int32_t n_terms = plan_.rank.n_terms;
    if (n_terms == 0) return;
    const uint32_t warp = threadIdx.x / kWarpSize, n_warps = blockDim.x / kWarpSize;
    const int32_t n_normals = plan_.program.n_normals, n_extras = plan_.program.n_extras();
    const uint16_t* counters = reinterpret_cast<const uint16_t*>(histogram_);
    for (uint32_t pair = warp; pair < rows * uint32_t(n_terms); pair += n_warps) {
      const uint32_t row = pair / n_terms, t = pair % n_terms;
      const uint16_t* multiplicity = counters + row * plan_.row_stride;
      const int32_t* entry_cluster = plan_.rank.entry_cluster;
      const int64_t twice_u = warp_rank_term_2u(plan_.rank, static_cast<int32_t>(t), [=](int64_t e) {
        return uint32_t(multiplicity[load_readonly(entry_cluster + e)]);
      });
      if (threadIdx.x % kWarpSize == 0) extras_[row * n_extras + n_normals + t] = static_cast<double>(twice_u);
    }
  }

  // Column sums in uint64 arithmetic: the planes and C * min_k may wrap, the true sum (an
  // int64, as on the CPU) is what remains modulo 2^64.
  __device__ void fold_column_sums() {
    const int32_t n_columns = plan_.program.n_columns;
    const uint32_t plane_width = plan_.n_tiles * kPlaneColumnsPerNTile;
    for (uint32_t i = threadIdx.x; i < kTileReplicates * uint32_t(n_columns); i += blockDim.x) {
      const uint32_t row = i / n_columns, k = i % n_columns;
      const int32_t first_plane = __ldg(plan_.column_first_plane + k);
      const int32_t end_plane = __ldg(plan_.column_first_plane + k + 1);
      uint64_t sum = uint64_t(plan_.n_clusters) * uint64_t(__ldg(plan_.column_min + k));
      for (int32_t p = first_plane; p < end_plane; ++p) {
        const auto plane_sum = static_cast<uint32_t>(plane_sums_[row * plane_width + p]);
        sum += uint64_t(plane_sum) << (8 * (p - first_plane));
      }
      column_sums_[i] = static_cast<int64_t>(sum);
    }
  }

  __device__ void evaluate_statistics(uint32_t rows, double* tile_out) {
    const int32_t n_statistics = plan_.program.n_statistics;
    const int32_t n_columns = plan_.program.n_columns;
    const int32_t n_extras = plan_.program.n_extras();
    if constexpr ((Options & kTileSharedProgram) != 0) {  // the shared copy (load_program)
      const SharedProgramLayout layout = SharedProgramLayout::of(plan_.n_ops, n_statistics, n_columns);
      const Op* ops = reinterpret_cast<const Op*>(program_section_ + layout.ops);
      const int32_t* op_offset = reinterpret_cast<const int32_t*>(program_section_ + layout.op_offset);
      const double* unscale = reinterpret_cast<const double*>(program_section_ + layout.unscale);
      for (uint32_t i = threadIdx.x; i < rows * uint32_t(n_statistics); i += blockDim.x) {
        const uint32_t row = i / n_statistics, s = i % n_statistics;
        tile_out[i] = evaluate_from_tables(ops, op_offset, unscale, static_cast<int32_t>(s),
                                           column_sums_ + row * n_columns, extras_ + row * n_extras);
      }
    } else {
      for (uint32_t i = threadIdx.x; i < rows * uint32_t(n_statistics); i += blockDim.x) {
        const uint32_t row = i / n_statistics, s = i % n_statistics;
        tile_out[i] = evaluate_statistic(plan_.program, static_cast<int32_t>(s), column_sums_ + row * n_columns,
                                         extras_ + row * n_extras);
      }
    }
  }

  const TilePlanView plan_;
  PhiloxKey key_;
  int64_t* column_sums_;            // [16][n_columns]
  double* extras_;                  // [16][n_normals + n_rank_terms]
  int32_t* plane_sums_;             // [16][n_tiles * 8]
  uint32_t* histogram_;             // [16][row_stride / 2] words of two uint16 counters
  unsigned char* program_section_;  // the tables' shared copy (kTileSharedProgram)
  size_t histogram_bytes_;
};

/// Grid-stride loop over the chunk's tiles of 16 replicates.
template <int Options>
__global__ void __launch_bounds__(kTileThreads, 1)
    multiplicity_tile_kernel(TilePlanView plan, uint64_t seed, uint64_t first, uint64_t count, double* out) {
  JS_DYNAMIC_SHARED(unsigned char, shared, 16);
  MultiplicityTileAgent<Options> agent(plan, PhiloxKey(seed), shared);
  agent.load_program();
  const uint64_t n_tiles = (count + kTileReplicates - 1) / kTileReplicates;
  for (uint64_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
    const uint64_t begin = tile * kTileReplicates;
    const auto rows = static_cast<uint32_t>(min(uint64_t(kTileReplicates), count - begin));
    agent.run_tile(first, begin, rows, out);
  }
}

}  // namespace judgestat::cuda_detail
