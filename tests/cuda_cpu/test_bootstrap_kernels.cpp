// The bootstrap kernels (kernels/bootstrap/detail/*_agent.cuh) run on the CPU runtime against
// the CPU backend, bit for bit: the multiplicity tile kernel with each of its four option sets,
// the gather kernel in uint32 and uint64 words with and without rows in flight, at the edges
// (one cluster, empty strata, many byte planes, more than 128 columns, replicate counts that are
// not a multiple of the tile or the grid, rank terms, normal draws), and the tile agent's
// high-byte product for counters of 256 and more. Each launch runs under both schedules. And the
// planted race: one barrier removed under a test-only switch is caught.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cuda_cpu_support.hpp"
#include "judgestat/plan.hpp"
#include "kernels/bootstrap/detail/byte_planes.hpp"
#include "kernels/bootstrap/detail/plan_tables.hpp"
// The tile agent's phases are private; the high-byte test below drives two of them directly.
#define private public
#include "kernels/bootstrap/detail/multiplicity_tile_agent.cuh"
#undef private
#include "engine/fake_environment.hpp"
#include "kernels/bootstrap/detail/gather_agent.cuh"
#include "kernels/bootstrap/detail/kernel_choice.cuh"

namespace judgestat::cuda_cpu {
namespace {

using namespace cuda_detail;

/// The host-side tables and views the CUDA backend uploads (plan_upload.cu's upload_common),
/// here pointing at host memory: the CPU runtime's "device" is the host.
struct CommonTables {
  explicit CommonTables(const CompiledPlan& plan) : strata_vectors(stratum_vectors(plan)) {
    strata = {strata_vectors.cluster_offset.data(), strata_vectors.block_offset.data(), plan.n_strata(),
              strata_vectors.block_offset.back()};
    program = {plan.ops.data(), plan.op_offset.data(), plan.column_unscale.data(), plan.n_statistics,
               plan.n_columns,  plan.n_normals,        plan.n_rank_terms};
    rank = {plan.rank_offset.data(),   plan.rank_cluster.data(),   nullptr,
            plan.rank_positive.data(), plan.rank_tie_start.data(), plan.n_rank_terms};
  }
  StratumVectors strata_vectors;
  StratumTable strata{};
  ProgramView program{};
  RankView rank{};
};

/// The tile kernel's view of `plan`: its tables, its B fragments and `program_bytes` of program in
/// shared memory (0: the program is read from global memory).
TilePlanView tile_view(const CompiledPlan& plan, const CommonTables& common, const PlaneLayout& layout,
                       const std::vector<uint32_t>& fragments, uint32_t program_bytes) {
  return TilePlanView{common.strata,
                      common.program,
                      common.rank,
                      static_cast<uint32_t>(plan.n_clusters),
                      layout.row_stride,
                      layout.k_steps,
                      layout.n_tiles,
                      reinterpret_cast<const uint2*>(fragments.data()),
                      layout.column_first_plane.data(),
                      layout.column_min.data(),
                      program_bytes,
                      static_cast<int32_t>(plan.ops.size())};
}

/// multiplicity_tile_kernel<options>, as the dispatch picks it (tile_kernel), over replicates
/// [first, first + count) on a grid of `grid` blocks (fewer than the tiles: the grid-stride loop runs).
std::vector<double> run_tile(const CompiledPlan& plan, int options, uint64_t seed, uint64_t first, uint64_t count,
                             unsigned grid, Schedule schedule) {
  EXPECT_EQ(tile_counter_refusal(plan), "");
  const CommonTables common(plan);
  const PlaneLayout layout = plane_layout(plan);
  const std::vector<uint32_t> fragments = b_fragments(plan, layout);
  size_t program_bytes = 0;
  if (options & kTileSharedProgram)
    program_bytes =
        SharedProgramLayout::of(static_cast<int32_t>(plan.ops.size()), plan.n_statistics, plan.n_columns).total;
  const size_t shared_bytes =
      TileSharedLayout::of(plan.n_columns, common.program.n_extras(), layout.n_tiles, layout.row_stride, program_bytes)
          .total;
  const TilePlanView view = tile_view(plan, common, layout, fragments, static_cast<uint32_t>(program_bytes));
  std::vector<double> out(count * plan.n_statistics, -7.0);
  emulation::launch({dim3(grid), dim3(kTileThreads), shared_bytes, schedule}, tile_kernel(options), view, seed, first,
                    count, out.data());
  return out;
}

/// `kernel`, one of gather_kernel<Word, …>, over replicates [first, first + count).
template <typename Word>
std::vector<double> run_gather_kernel(GatherKernel<Word> kernel, const CompiledPlan& plan, uint64_t seed,
                                      uint64_t first, uint64_t count, unsigned grid, Schedule schedule) {
  CommonTables common(plan);
  const std::vector<Word> values = gather_words<Word>(plan);
  const RankSlots slots = rank_slots(plan);
  common.rank.entry_slot = slots.entry_slot.data();
  std::vector<uint32_t> slot_counts(size_t(grid) * std::max<uint32_t>(1, slots.n_slots), 0xDEADBEEFu);
  const GatherPlanView<Word> view{
      common.strata, common.program,    common.rank, values.data(), slots.cluster_slot.data(),
      slots.n_slots, slot_counts.data()};
  std::vector<double> out(count * plan.n_statistics, -7.0);
  const size_t shared_bytes = gather_shared_bytes<Word>(plan.n_columns, common.program.n_extras());
  emulation::launch({dim3(grid), dim3(kGatherThreads), shared_bytes, schedule}, kernel, view, seed, first, count,
                    out.data());
  return out;
}

/// gather_kernel<Word, rows_in_flight> likewise (cuda_backend.cu's try_gather_path), as the
/// dispatch picks it (gather_kernel_for).
template <typename Word, bool RowsInFlight>
std::vector<double> run_gather(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, unsigned grid,
                               Schedule schedule) {
  return run_gather_kernel<Word>(gather_kernel_for<Word>(RowsInFlight), plan, seed, first, count, grid, schedule);
}

struct Case {
  std::string name;
  PlanShape shape;
  uint64_t first, count;
  unsigned tile_grid, gather_grid;
};

std::vector<Case> bootstrap_cases() {
  std::vector<Case> cases;
  PlanShape mixed{{9, 14}, false, 2, true, true, 3};  // ranks, normals, two strata: every path's pieces
  cases.push_back({"mixed, 37 replicates from 1000", mixed, 1000, 37, 2, 5});
  PlanShape one_cluster{{1}, false, 0, false, false, 4};
  cases.push_back({"one cluster", one_cluster, 0, 17, 1, 3});
  PlanShape empty_strata{{0, 6, 0, 11, 0}, false, 1, false, true, 5};
  cases.push_back({"empty strata", empty_strata, 5, 20, 2, 4});
  PlanShape counts_only{{40}, true, 0, false, true, 6};  // fits_int32: uint32 gather words
  cases.push_back({"counts only", counts_only, 77, 16, 1, 4});
  PlanShape wide{{30, 35}, false, 136, false, false, 7};  // 143 columns: two gather passes, 100+ planes
  cases.push_back({"143 columns", wide, 3, 9, 1, 4});
  PlanShape many_clusters{{700}, false, 3, false, false, 8};  // 11 k steps per plane tile
  cases.push_back({"700 clusters", many_clusters, 0, 18, 1, 3});
  return cases;
}

TEST(CudaCpuBootstrap, TileKernelMatchesCpuBackendForEveryOptionSet) {
  for (const Case& c : bootstrap_cases()) {
    const CompiledPlan plan = compile(make_plan(c.shape));
    const std::vector<double> expected = cpu_replicates(plan, 42, c.first, c.count);
    for (int options = 0; options < kTileOptionCount; ++options)
      for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
        if (c.name == "143 columns" && options != 0 && schedule == Schedule::kReverse) continue;  // time
        SCOPED_TRACE(c.name + ", options " + std::to_string(options) + ", " + schedule_name(schedule));
        EXPECT_TRUE(same_bytes(expected, run_tile(plan, options, 42, c.first, c.count, c.tile_grid, schedule),
                               plan.n_statistics));
      }
  }
}

TEST(CudaCpuBootstrap, GatherKernelMatchesCpuBackendInBothWordsWithAndWithoutRowsInFlight) {
  int narrow_plans = 0;  // plans that take the uint32 words
  for (const Case& c : bootstrap_cases()) {
    const CompiledPlan plan = compile(make_plan(c.shape));
    narrow_plans += plan.fits_int32;
    const std::vector<double> expected = cpu_replicates(plan, 43, c.first, c.count);
    for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
      SCOPED_TRACE(c.name + ", " + schedule_name(schedule));
      // uint64 words always; uint32 words exactly where the backend takes them (fits_int32).
      EXPECT_TRUE(same_bytes(expected,
                             run_gather<unsigned long long, false>(plan, 43, c.first, c.count, c.gather_grid, schedule),
                             plan.n_statistics));
      EXPECT_TRUE(same_bytes(expected,
                             run_gather<unsigned long long, true>(plan, 43, c.first, c.count, c.gather_grid, schedule),
                             plan.n_statistics));
      if (plan.fits_int32) {
        EXPECT_TRUE(same_bytes(expected,
                               run_gather<unsigned int, false>(plan, 43, c.first, c.count, c.gather_grid, schedule),
                               plan.n_statistics));
        EXPECT_TRUE(same_bytes(expected,
                               run_gather<unsigned int, true>(plan, 43, c.first, c.count, c.gather_grid, schedule),
                               plan.n_statistics));
      }
    }
  }
  EXPECT_GT(narrow_plans, 0);
}

// A test kernel around the real agent: histogram rows set to chosen multiplicities (some of
// 256 and more, which real draws practically never reach: the high-byte product), then the
// agent's own multiply_planes and fold_column_sums; column sums out.
template <int Options>
__global__ void high_byte_kernel(TilePlanView plan, const uint16_t* multiplicities, int64_t* column_sums) {
  JS_DYNAMIC_SHARED(unsigned char, shared, 16);
  MultiplicityTileAgent<Options> agent(plan, PhiloxKey(1), shared);
  agent.clear_and_draw_normals(0, kTileReplicates);
  __syncthreads();
  uint16_t* counters = reinterpret_cast<uint16_t*>(agent.histogram_);
  for (uint32_t i = threadIdx.x; i < kTileReplicates * plan.n_clusters; i += blockDim.x)
    counters[i / plan.n_clusters * plan.row_stride + i % plan.n_clusters] = multiplicities[i];
  __syncthreads();
  if constexpr ((Options & kTilePrefetch) != 0)
    agent.template multiply_planes<kTilePrefetchDepth>();
  else
    agent.template multiply_planes<1>();
  __syncthreads();
  agent.fold_column_sums();
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < kTileReplicates * uint32_t(plan.program.n_columns); i += blockDim.x)
    column_sums[i] = agent.column_sums_[i];
}

TEST(CudaCpuBootstrap, TileProductCarriesCountersOf256AndMoreIntoTheHighByte) {
  const CompiledPlan plan = compile(make_plan({{300}, false, 2, false, false, 9}));
  const CommonTables common(plan);
  const PlaneLayout layout = plane_layout(plan);
  const std::vector<uint32_t> fragments = b_fragments(plan, layout);
  const TilePlanView view = tile_view(plan, common, layout, fragments, 0);
  const auto C = static_cast<uint32_t>(plan.n_clusters);
  const auto K = static_cast<uint32_t>(plan.n_columns);
  // Rows of C draws, as a replicate has (the fold adds C · min_k): one cluster drawn 256, 300
  // (the last cluster, every draw), 257 or 290 times in four rows, the rest spread at random.
  std::vector<uint16_t> m(kTileReplicates * C, 0);
  const std::vector<std::pair<uint32_t, uint32_t>> heavy = {{7, 256}, {299, 300}, {0, 257}, {100, 290}};
  const uint32_t heavy_rows[] = {0, 3, 9, 15};
  std::mt19937 random(5);
  for (uint32_t r = 0; r < kTileReplicates; ++r) {
    uint32_t left = C;
    for (int i = 0; i < 4; ++i)
      if (heavy_rows[i] == r)
        m[r * C + heavy[i].first] = static_cast<uint16_t>(heavy[i].second), left -= heavy[i].second;
    for (; left > 0; --left) ++m[r * C + random() % C];
  }
  // Expected: sum_c m[r][c] * cluster_sums[c][k], modulo 2^64 (the exact int64 sum).
  std::vector<int64_t> expected(kTileReplicates * K);
  for (uint32_t r = 0; r < kTileReplicates; ++r)
    for (uint32_t k = 0; k < K; ++k) {
      uint64_t sum = 0;
      for (uint32_t c = 0; c < C; ++c) sum += uint64_t(m[r * C + c]) * uint64_t(plan.cluster_sums[size_t(c) * K + k]);
      expected[r * K + k] = static_cast<int64_t>(sum);
    }
  const size_t shared_bytes =
      TileSharedLayout::of(plan.n_columns, common.program.n_extras(), layout.n_tiles, layout.row_stride).total;
  for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
    std::vector<int64_t> got(kTileReplicates * K, -1), got_prefetch(kTileReplicates * K, -1);
    emulation::launch({dim3(1), dim3(kTileThreads), shared_bytes, schedule}, high_byte_kernel<0>, view, m.data(),
                      got.data());
    emulation::launch({dim3(1), dim3(kTileThreads), shared_bytes, schedule}, high_byte_kernel<kTilePrefetch>, view,
                      m.data(), got_prefetch.data());
    EXPECT_EQ(got, expected) << schedule_name(schedule);
    EXPECT_EQ(got_prefetch, expected) << schedule_name(schedule);
  }
}

// ---- The execution target's switches ------------------------------------------------------------

using testing_support::fake_environment;

// Each bootstrap switch, as cuda_tuning_from reads it, reaches the kernel the dispatch launches
// (kernel_choice.cuh, as cuda_backend.cu uses it), and that kernel gives the CPU backend's bits.
TEST(CudaCpuBootstrap, TuningSwitchesChooseTheKernelTheDispatchLaunches) {
  struct Setting {
    std::map<std::string, std::string> environment;
    int options_when_program_fits, options_when_it_does_not;
  };
  const std::vector<Setting> settings = {{{}, 0, 0},
                                         {{{"JUDGESTAT_TILE_PREFETCH", "1"}}, kTilePrefetch, kTilePrefetch},
                                         {{{"JUDGESTAT_TILE_SHARED_PROGRAM", "1"}}, kTileSharedProgram, 0},
                                         {{{"JUDGESTAT_TILE_PREFETCH", "1"}, {"JUDGESTAT_TILE_SHARED_PROGRAM", "1"}},
                                          kTilePrefetch | kTileSharedProgram,
                                          kTilePrefetch},
                                         {{{"JUDGESTAT_TILE_PREFETCH", "0"}, {"JUDGESTAT_GATHER_ROWS", "1"}}, 0, 0}};
  const CompiledPlan plan = compile(make_plan({{9, 14}, false, 2, true, true, 3}));
  const std::vector<double> expected = cpu_replicates(plan, 44, 1000, 37);
  for (const Setting& setting : settings) {
    const CudaTuning tuning = cuda_tuning_from(fake_environment(setting.environment));
    const int options = tile_kernel_options(tuning, true);
    SCOPED_TRACE("options " + std::to_string(options));
    EXPECT_EQ(options, setting.options_when_program_fits);
    EXPECT_EQ(tile_kernel_options(tuning, false), setting.options_when_it_does_not);
    EXPECT_TRUE(same_bytes(expected, run_tile(plan, options, 44, 1000, 37, 2, Schedule::kForward), plan.n_statistics));
    const bool rows = setting.environment.count("JUDGESTAT_GATHER_ROWS") > 0;
    EXPECT_EQ(tuning.gather_rows, rows);
    const GatherKernel<unsigned long long> gather = gather_kernel_for<unsigned long long>(tuning.gather_rows);
    EXPECT_TRUE(gather == (rows ? gather_kernel<unsigned long long, true> : gather_kernel<unsigned long long, false>));
    EXPECT_TRUE(
        same_bytes(expected, run_gather_kernel(gather, plan, 44, 1000, 37, 5, Schedule::kForward), plan.n_statistics));
  }
}

// ---- The planted race ---------------------------------------------------------------------------

struct PlantedRace {
  PlantedRace() { emulation::set_planted_race(true); }
  ~PlantedRace() { emulation::set_planted_race(false); }
};

// The barrier between counting the draws and multiplying the counters (run_tile's
// JS_REMOVABLE_SYNCTHREADS), removed: warps multiply counters other warps have not finished, so
// the values are wrong and differ between the two schedules; with the barrier both schedules
// give the CPU backend's values. Under ThreadSanitizer (scripts/ci-sanitizers.sh) the same
// removal is reported as a data race.
TEST(CudaCpuBootstrap, PlantedRaceIsCaught) {
  const CompiledPlan plan = compile(make_plan({{200}, false, 1, false, true, 2}));
  const std::vector<double> expected = cpu_replicates(plan, 5, 0, 16);
  EXPECT_TRUE(same_bytes(expected, run_tile(plan, 0, 5, 0, 16, 1, Schedule::kForward), plan.n_statistics));
  EXPECT_TRUE(same_bytes(expected, run_tile(plan, 0, 5, 0, 16, 1, Schedule::kReverse), plan.n_statistics));
  PlantedRace race;
  const std::vector<double> forward = run_tile(plan, 0, 5, 0, 16, 1, Schedule::kForward);
  const std::vector<double> reverse = run_tile(plan, 0, 5, 0, 16, 1, Schedule::kReverse);
  EXPECT_FALSE(same_bytes(expected, forward, plan.n_statistics));
  EXPECT_FALSE(same_bytes(expected, reverse, plan.n_statistics));
  EXPECT_FALSE(same_bytes(forward, reverse, plan.n_statistics));
}

}  // namespace
}  // namespace judgestat::cuda_cpu
