// Host emulation of the CUDA kernels' changed pieces (the performance switches of
// bench/NOTES.md), run everywhere: the __host__ __device__ helpers of kernels/detail/
// (tile_schedule.hpp, gather_rows.hpp) are compiled here and driven lane by lane, a warp at a
// time, exactly as the agents drive them; mma.m16n8k32 (kernels/emulation/mma_reference.hpp) and the
// warp shuffles are emulated from the PTX ISA's fragment layouts. tests/cuda_cpu/ runs the kernels
// themselves on the CPU runtime. Each path, switch off and on, must give the sums that a
// direct reference gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../engine/sign_flip_cases.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "kernels/bootstrap/detail/byte_planes.hpp"
#include "kernels/bootstrap/detail/gather_rows.hpp"
#include "kernels/bootstrap/detail/tile_schedule.hpp"
#include "kernels/emulation/mma_reference.hpp"
#include "kernels/permutation/sign_flip_warp.hpp"
#include "test_plans.hpp"

namespace judgestat {
namespace {

using namespace cuda_detail;

struct Pair {
  uint32_t x = 0, y = 0;  // the device's uint2
};

// One mma.m16n8k32.row.col.s32.u8.u8.s32 of a warp, D += A B, from the lanes' fragments: the
// CPU runtime's reference (kernels/emulation/mma_reference.hpp, written from the PTX ISA).
void mma_emulated(int32_t (&d)[32][4], const uint32_t (&a)[32][4], const Pair (&b)[32]) {
  uint32_t registers[32][2];
  for (uint32_t l = 0; l < 32; ++l) registers[l][0] = b[l].x, registers[l][1] = b[l].y;
  emulation::mma_m16n8k32_u8_warp(d, a, registers);
}

// The tile agent's multiply_planes<Depth>() for a block of 1,024 threads (32 warps), lane by
// lane: plane sums [16][n_tiles * 8] from the histogram and the B fragments.
template <int Depth>
std::vector<int32_t> multiply_planes_emulated(const PlaneLayout& layout, const std::vector<uint32_t>& words,
                                              const std::vector<uint16_t>& counters) {
  const uint32_t n_warps = 32, n_tiles = layout.n_tiles, k_steps = layout.k_steps;
  const uint32_t plane_width = n_tiles * kPlaneColumnsPerNTile;
  std::vector<int32_t> plane_sums(size_t(kTileReplicates) * plane_width, 0);
  if (n_tiles == 0) return plane_sums;
  const uint32_t slices = std::max(1u, n_warps / n_tiles);
  for (uint32_t warp = 0; warp < n_warps; ++warp)
    for (uint32_t unit = warp; unit < n_tiles * slices; unit += n_warps) {
      const uint32_t tile = unit % n_tiles, slice = unit / n_tiles;
      int32_t acc[32][4] = {};
      Pair b[Depth][32];
      for_each_k_step<Depth>(
          slice, slices, k_steps,
          [&](int u, uint32_t ks) {
            for (uint32_t lane = 0; lane < 32; ++lane) {
              const size_t i = b_fragment_index(tile, ks, k_steps, lane);
              b[u][lane] = {words[2 * i], words[2 * i + 1]};
            }
          },
          [&](int u, uint32_t ks) {
            uint32_t a_low[32][4], a_high[32][4];
            bool any_high = false;
            for (uint32_t lane = 0; lane < 32; ++lane)
              for (int i = 0; i < 4; ++i) {
                const uint32_t c = a_counter_index(layout.row_stride, lane, ks * kClustersPerKStep, i);
                const uint32_t x = counters[c] | uint32_t(counters[c + 1]) << 16;
                const uint32_t y = counters[c + 2] | uint32_t(counters[c + 3]) << 16;
                a_low[lane][i] = counter_low_bytes(x, y);
                a_high[lane][i] = counter_high_bytes(x, y);
                any_high |= a_high[lane][i] != 0;  // __any_sync
              }
            mma_emulated(acc, a_low, b[u]);
            if (any_high) {
              int32_t carry[32][4] = {};
              mma_emulated(carry, a_high, b[u]);
              for (uint32_t lane = 0; lane < 32; ++lane)
                for (int i = 0; i < 4; ++i) acc[lane][i] += carry[lane][i] * 256;
            }
          });
      for (uint32_t lane = 0; lane < 32; ++lane) {  // the atomicAdds
        const uint32_t g = lane / 4, t = lane % 4;
        int32_t* top = plane_sums.data() + g * plane_width + tile * kPlaneColumnsPerNTile + 2 * t;
        int32_t* bottom = top + 8 * plane_width;
        top[0] += acc[lane][0];
        top[1] += acc[lane][1];
        bottom[0] += acc[lane][2];
        bottom[1] += acc[lane][3];
      }
    }
  return plane_sums;
}

CompiledPlan random_sums_plan(int64_t clusters, int32_t columns, uint64_t seed) {
  CompiledPlan plan;
  plan.n_clusters = clusters;
  plan.n_columns = columns;
  plan.stratum_offset = {0, clusters};
  std::mt19937_64 rng(seed);
  for (int64_t c = 0; c < clusters; ++c)
    for (int32_t k = 0; k < columns; ++k) {
      const int64_t range = k % 4 == 0 ? 2 : k % 4 == 1 ? 300 : k % 4 == 2 ? (int64_t(1) << 40) : 7;
      const int64_t offset = k % 4 == 2 ? -(int64_t(1) << 39) : k % 4 == 3 ? 5 : 0;  // k % 4 == 3: 5..11
      plan.cluster_sums.push_back(offset + static_cast<int64_t>(rng() % uint64_t(range)));
    }
  return plan;
}

// The product and fold with and without B prefetch give every replicate's exact column sums:
// plane sums against sum_c m[r][c] * byte_p(U[c][k]), column sums against sum_c m[r][c] * v[c][k]
// (mod 2^64), including counters of 256 and more (the high-byte product).
TEST(KernelEmulation, TileProductWithAndWithoutPrefetchGivesExactSums) {
  for (const auto& [clusters, columns] :
       std::vector<std::pair<int64_t, int32_t>>{{5, 3}, {300, 9}, {1000, 2}, {3000, 14}}) {
    const CompiledPlan plan = random_sums_plan(clusters, columns, uint64_t(clusters) * 31 + columns);
    const PlaneLayout layout = plane_layout(plan);
    const std::vector<uint32_t> words = b_fragments(plan, layout);
    const uint32_t n_planes = static_cast<uint32_t>(layout.plane_column.size());
    const uint32_t plane_width = layout.n_tiles * kPlaneColumnsPerNTile;
    std::mt19937_64 rng(clusters);
    std::vector<uint16_t> counters(size_t(kTileReplicates) * layout.row_stride, 0);  // padding stays 0
    for (uint32_t r = 0; r < kTileReplicates; ++r)
      for (int64_t c = 0; c < clusters; ++c) counters[r * layout.row_stride + c] = static_cast<uint16_t>(rng() % 4);
    if (clusters >= 300) {  // a cluster drawn 256+ times, and the largest count a stratum allows
      counters[3 * layout.row_stride + 7] = 300;
      counters[12 * layout.row_stride + uint32_t(clusters - 1)] =
          static_cast<uint16_t>(std::min<int64_t>(clusters, 65535));
    }
    std::vector<int32_t> reference(size_t(kTileReplicates) * plane_width, 0);
    for (uint32_t r = 0; r < kTileReplicates; ++r)
      for (uint32_t n = 0; n < n_planes; ++n) {
        const int32_t k = layout.plane_column[n];
        uint32_t sum = 0;  // the device's int32 adds, modulo 2^32
        for (int64_t c = 0; c < clusters; ++c) {
          const uint64_t offset = uint64_t(plan.cluster_sums[c * columns + k]) - uint64_t(layout.column_min[k]);
          sum +=
              uint32_t(counters[r * layout.row_stride + c]) * uint32_t((offset >> (8 * layout.plane_byte[n])) & 0xFF);
        }
        reference[r * plane_width + n] = static_cast<int32_t>(sum);
      }
    const std::vector<int32_t> one = multiply_planes_emulated<1>(layout, words, counters);
    const std::vector<int32_t> ahead = multiply_planes_emulated<kTilePrefetchDepth>(layout, words, counters);
    SCOPED_TRACE(std::to_string(clusters) + " clusters, " + std::to_string(columns) + " columns");
    EXPECT_EQ(one, reference);
    EXPECT_EQ(ahead, reference);
    // The fold (fold_column_sums) of the prefetched product: the exact int64 column sums.
    for (uint32_t r = 0; r < kTileReplicates; ++r)
      for (int32_t k = 0; k < columns; ++k) {
        uint64_t sum = uint64_t(clusters) * uint64_t(layout.column_min[k]), want = 0;
        for (int32_t p = layout.column_first_plane[k]; p < layout.column_first_plane[k + 1]; ++p)
          sum += uint64_t(static_cast<uint32_t>(ahead[r * plane_width + p]))
                 << (8 * (p - layout.column_first_plane[k]));
        for (int64_t c = 0; c < clusters; ++c)
          want += uint64_t(counters[r * layout.row_stride + c]) * uint64_t(plan.cluster_sums[c * columns + k]);
        // The fold's C * min_k assumes a row's counts sum to C, as a replicate's do; these
        // random rows need not, so the expectation carries the difference.
        uint64_t drawn = 0;
        for (int64_t c = 0; c < clusters; ++c) drawn += counters[r * layout.row_stride + c];
        const uint64_t expected = want + (uint64_t(clusters) - drawn) * uint64_t(layout.column_min[k]);
        ASSERT_EQ(sum, expected) << "row " << r << " column " << k;
      }
  }
}

// Every step is visited once, in order within its slice, whatever the depth and slicing.
TEST(KernelEmulation, PrefetchScheduleVisitsEveryStepOnce) {
  for (uint32_t k_steps : {0u, 1u, 2u, 5u, 158u})
    for (uint32_t slices : {1u, 3u, 8u, 32u})
      for (uint32_t slice = 0; slice < slices; ++slice) {
        std::vector<uint32_t> loads, uses, want;
        for (uint32_t ks = slice; ks < k_steps; ks += slices) want.push_back(ks);
        int loaded_u[kTilePrefetchDepth] = {};
        for_each_k_step<kTilePrefetchDepth>(
            slice, slices, k_steps,
            [&](int u, uint32_t ks) {
              loads.push_back(ks);
              loaded_u[u] = int(ks);
            },
            [&](int u, uint32_t ks) {
              uses.push_back(ks);
              EXPECT_EQ(loaded_u[u], int(ks)) << "a use reads the fragment loaded for its own step";
            });
        EXPECT_EQ(uses, want) << k_steps << " steps, slice " << slice << " of " << slices;
        EXPECT_EQ(loads, want);
      }
}

// The statistics' tables copied by any number of threads: byte-identical copies, and every
// statistic evaluated from the copy gives the original's bits on random column sums.
TEST(KernelEmulation, SharedProgramCopyEvaluatesLikeTheOriginal) {
  Plan source = testing_support::two_strata_plan();
  StatisticDef wide;  // a longer program: constants, abs, a division by a possibly zero sum
  wide.label.name = "wide";
  wide.program = {{OpCode::kColumn, 0}, {OpCode::kConstant, 0, 0.25}, {OpCode::kSub},       {OpCode::kAbs},
                  {OpCode::kColumn, 1}, {OpCode::kDivOrZero},         {OpCode::kColumn, 0}, {OpCode::kMul}};
  source.statistics.push_back(wide);
  const CompiledPlan plan = compile(source);
  const auto n_ops = static_cast<int32_t>(plan.ops.size());
  const SharedProgramLayout layout = SharedProgramLayout::of(n_ops, plan.n_statistics, plan.n_columns);
  ASSERT_EQ(layout.total % 16, 0u);
  for (uint32_t n_threads : {1024u, 7u, 1u}) {
    std::vector<uint64_t> storage(layout.total / 8 + 2, 0xA5A5A5A5A5A5A5A5ull);  // poisoned
    unsigned char* section = reinterpret_cast<unsigned char*>(storage.data());
    for (uint32_t thread = 0; thread < n_threads; ++thread)
      copy_program_share(plan.ops.data(), n_ops, plan.op_offset.data(), plan.n_statistics, plan.column_unscale.data(),
                         plan.n_columns, section, thread, n_threads);
    const Op* ops = reinterpret_cast<const Op*>(section + layout.ops);
    const int32_t* op_offset = reinterpret_cast<const int32_t*>(section + layout.op_offset);
    const double* unscale = reinterpret_cast<const double*>(section + layout.unscale);
    EXPECT_EQ(std::memcmp(op_offset, plan.op_offset.data(), plan.op_offset.size() * sizeof(int32_t)), 0);
    EXPECT_EQ(std::memcmp(unscale, plan.column_unscale.data(), plan.column_unscale.size() * sizeof(double)), 0);
    for (int32_t i = 0; i < n_ops; ++i) {
      EXPECT_EQ(ops[i].code, plan.ops[i].code) << i;
      EXPECT_EQ(ops[i].arg, plan.ops[i].arg) << i;
      EXPECT_EQ(std::memcmp(&ops[i].value, &plan.ops[i].value, sizeof(double)), 0) << i;
    }
    std::mt19937_64 rng(n_threads);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<int64_t> sums(plan.n_columns);
      for (int64_t& v : sums) v = trial % 10 == 0 ? 0 : static_cast<int64_t>(rng() % 100000) - 20000;
      for (int32_t s = 0; s < plan.n_statistics; ++s) {
        const double copy = evaluate_from_tables(ops, op_offset, unscale, s, sums.data(), nullptr);
        const double original = evaluate(plan.ops.data() + plan.op_offset[s], plan.op_offset[s + 1] - plan.op_offset[s],
                                         sums.data(), plan.column_unscale.data(), nullptr);
        EXPECT_TRUE(std::memcmp(&copy, &original, sizeof(double)) == 0 || (copy != copy && original != original))
            << "statistic " << s << ": " << copy << " vs " << original;
      }
    }
  }
}

// The gather agent's walk over one Philox block per lane (four draws each, fewer at a
// stratum's end), one row at a time and kGatherRowsInFlight rows at a time: the same lanes in
// the same order, the same per-lane sums, equal to the direct sums (modulo 2^w).
template <typename Word>
void check_gather_walk(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t clusters = 997;
  for (int32_t n_columns : {5, 32, 40, 130}) {
    std::vector<Word> values(size_t(clusters) * n_columns);
    for (Word& v : values) v = static_cast<Word>(rng());
    uint32_t count[32], cluster[32][4];
    for (uint32_t lane = 0; lane < 32; ++lane) {
      count[lane] = lane % 9 == 0 ? 0 : lane % 7 == 0 ? 3 : 4;  // lanes past the end, a short block
      for (uint32_t i = 0; i < 4; ++i) cluster[lane][i] = static_cast<uint32_t>(rng() % clusters);
    }
    for (int32_t first_column = 0; first_column < n_columns; first_column += 128) {
      std::vector<Word> serial(32 * 4, 0), grouped(32 * 4, 0), direct(32 * 4, 0);
      std::vector<int> serial_order, grouped_order;
      auto add_row = [&](std::vector<Word>& acc, uint32_t c) {
        for (uint32_t lane = 0; lane < 32; ++lane)
          for (int q = 0; q < 4; ++q) {
            const int32_t col = first_column + q * 32 + int32_t(lane);
            if (col < n_columns) acc[lane * 4 + q] += values[size_t(c) * n_columns + col];
          }
      };
      for (uint32_t i = 0; i < 4; ++i) {
        uint32_t ballot = 0;  // __ballot_sync(i < draws.count)
        for (uint32_t lane = 0; lane < 32; ++lane) ballot |= uint32_t(i < count[lane]) << lane;
        for (uint32_t pending = ballot; pending;) {  // gather_columns' one-row walk
          const int source = __builtin_ffs(int(pending)) - 1;
          pending &= pending - 1;
          serial_order.push_back(source);
          add_row(serial, cluster[source][i]);
        }
        for (uint32_t pending = ballot; pending;) {  // add_rows_grouped
          int source[kGatherRowsInFlight];
          const int n = take_lowest_lanes(pending, source);
          ASSERT_GE(n, 1);
          for (int r = 0; r < kGatherRowsInFlight; ++r) {
            if (r >= n) {
              EXPECT_EQ(source[r], 0) << "unused slots shuffle from lane 0";
              continue;
            }
            grouped_order.push_back(source[r]);
            add_row(grouped, cluster[source[r]][i]);
          }
        }
        for (uint32_t lane = 0; lane < 32; ++lane)
          if (i < count[lane]) add_row(direct, cluster[lane][i]);
      }
      SCOPED_TRACE(std::to_string(n_columns) + " columns from " + std::to_string(first_column));
      EXPECT_EQ(grouped_order, serial_order);
      EXPECT_EQ(serial, direct);
      EXPECT_EQ(grouped, direct);
    }
  }
}

TEST(KernelEmulation, GatherRowsInFlightAddTheSameSums) {
  check_gather_walk<uint32_t>(5);
  check_gather_walk<uint64_t>(6);
}

// The sign-flip kernel (kernels/permutation/sign_flip.cu) on a grid of `n_warps` warps, lane by
// lane: each warp's grid-stride walk over the (test, replicate) units, every lane's part from
// sign_flip_sum over every 32nd Philox block, the butterfly of __shfl_xor_sync (after which every
// lane must hold the whole T_r), and lane 0's count added to its test when the warp's test
// changes and at the end (the atomicAdds).
std::vector<uint64_t> sign_flip_kernel_emulated(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count,
                                                uint64_t n_warps) {
  const std::vector<int64_t> d = sign_flip_differences(plan);
  const int64_t C = plan.n_clusters;
  const auto n_tests = static_cast<uint32_t>(plan.sign_flip_tests.size());
  const PhiloxKey key(seed);
  std::vector<uint64_t> exceed(n_tests, 0);
  for (uint64_t warp = 0; warp < n_warps; ++warp) {
    uint32_t test = 0;
    uint64_t counted = 0;
    for (uint64_t u = warp; u < count * n_tests; u += n_warps) {
      const SignFlipUnit unit = sign_flip_unit(u, count);
      if (unit.test != test) {
        exceed[test] += counted;
        test = unit.test;
        counted = 0;
      }
      const auto replicate = static_cast<uint32_t>(first + unit.replicate);
      int64_t lanes[kSignFlipLanes];
      for (uint32_t lane = 0; lane < kSignFlipLanes; ++lane)
        lanes[lane] = sign_flip_sum(key, replicate, d.data() + int64_t(test) * C, C, lane, kSignFlipLanes);
      for (int step = 0; step < kSignFlipButterflySteps; ++step) {
        int64_t next[kSignFlipLanes];
        for (uint32_t lane = 0; lane < kSignFlipLanes; ++lane)
          next[lane] = lanes[lane] + lanes[lane ^ sign_flip_butterfly_offset(step)];
        std::copy(next, next + kSignFlipLanes, lanes);
      }
      const int64_t whole = sign_flip_sum(key, replicate, d.data() + int64_t(test) * C, C);
      for (uint32_t lane = 0; lane < kSignFlipLanes; ++lane) EXPECT_EQ(lanes[lane], whole) << "lane " << lane;
      counted += sign_flip_exceeds(lanes[0], plan.totals[plan.sign_flip_tests[test].column]);
    }
    exceed[test] += counted;
  }
  return exceed;
}

TEST(KernelEmulation, SignFlipWarpsCountLikeTheHost) {
  // 300 clusters (3 Philox blocks: most lanes idle) and 5,000 (40 blocks: lanes 0–7 take two);
  // grids of one warp, of a few (warps change test part-way) and of more warps than units.
  for (int64_t clusters : {300, 5000}) {
    const testing_support::PairedCase paired = testing_support::paired_case(clusters, 21);
    const CompiledPlan plan = compile(paired.plan);
    const uint64_t seed = 99, first = 1234, count = 60;
    const std::vector<uint64_t> host = count_sign_flip_exceedances_on_host(plan, seed, first, count, 1);
    EXPECT_EQ(host[0], testing_support::reference_exceedances(paired.d[0], seed, first, count));
    EXPECT_EQ(host[1], testing_support::reference_exceedances(paired.d[1], seed, first, count));
    for (uint64_t n_warps : {1, 7, 500})
      EXPECT_EQ(sign_flip_kernel_emulated(plan, seed, first, count, n_warps), host)
          << clusters << " clusters, " << n_warps << " warps";
  }
}

}  // namespace
}  // namespace judgestat
