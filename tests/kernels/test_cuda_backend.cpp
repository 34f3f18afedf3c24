// The CUDA backend against the CPU backend (docs/statistics.md §2): for the same seed every replicate value is
// bit for bit the same, whatever the kernel path, chunk size or first replicate. Statistics
// with normal draws agree to 1e-12 relative (device log/cos may differ in the last bit). Rank
// terms (AUROC's 2U) are exact integers and so bit-identical too.
// Skipped, with the reason, where no usable CUDA device exists; the fast path's host-side
// tensor-core tables are checked everywhere (CudaBackendTables).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"
#include "kernels/bootstrap/cuda_backend_paths.hpp"
#include "kernels/bootstrap/detail/byte_planes.hpp"
#include "rank_term_statistics.hpp"
#include "summary_cases.hpp"
#include "test_support.hpp"
#ifdef JUDGESTAT_HAVE_CUDA
#include "kernels/summaries/device_summary.hpp"
#endif

namespace judgestat {
namespace {

std::unique_ptr<Backend> cuda_backend(uint64_t max_chunk, CudaKernelPath path) {
#ifdef JUDGESTAT_HAVE_CUDA
  return make_cuda_backend_with_path(0, max_chunk, path);
#else
  (void)path;  // CPU-only build: cuda_available() is false, so tests skip before this
  return make_cuda_backend(0, max_chunk);
#endif
}

const char* path_name(CudaKernelPath path) {
  switch (path) {
    case CudaKernelPath::kAuto:
      return "auto";
    case CudaKernelPath::kMultiplicityTile:
      return "multiplicity-tile";
    case CudaKernelPath::kGather:
      return "gather";
  }
  return "?";
}

struct PlanShape {
  std::vector<int64_t> stratum_clusters;  // clusters per stratum
  bool counts_only = false;               // only count and half columns: the plan fits int32
  int extra_real_columns = 0;             // more real columns: more byte planes in the fast path
  bool normals = false;                   // statistics with normal draws (kNormal)
  bool rank_terms = true;                 // AUROC-style rank terms (kRank)
  uint64_t data_seed = 1;
};

StatisticDef statistic(const std::string& name, std::vector<Op> program) {
  StatisticDef def;
  def.label.name = name;
  def.program = std::move(program);
  return def;
}

// Units in clusters in strata; columns: n (1 per unit), correct (0/1), half (0, 1/2, 1), rare
// numerator and denominator (nonzero only in the last cluster, so replicates that miss it
// divide by zero), and unless counts_only: conf (reals in [0, 1)), signed (reals in [-1, 1))
// and extra reals of growing scale. Rank terms: errors ranked by a score on a grid of 8 values
// (long tie groups that straddle 32-entry chunks) over every unit, and by distinct scores over
// every other unit.
Plan make_plan(const PlanShape& shape) {
  Plan plan;
  plan.stratum_offset = {0};
  plan.stratum_names.clear();
  for (size_t h = 0; h < shape.stratum_clusters.size(); ++h) {
    plan.stratum_offset.push_back(plan.stratum_offset.back() + shape.stratum_clusters[h]);
    plan.stratum_names.push_back("s" + std::to_string(h));
  }
  const int64_t n_clusters = plan.stratum_offset.back();
  for (int64_t c = 0; c < n_clusters; ++c) {
    plan.cluster_names.push_back("c" + std::to_string(c));
    const int units = n_clusters > 10000 ? 1 : 1 + static_cast<int>(c % 3);
    for (int u = 0; u < units; ++u) plan.unit_cluster.push_back(static_cast<int32_t>(c));
  }
  const int64_t n_units = plan.n_units();
  const int32_t n = plan.add_column("n");
  const int32_t correct = plan.add_column("correct");
  const int32_t half = plan.add_column("half");
  const int32_t rare_num = plan.add_column("rare_num");
  const int32_t rare_den = plan.add_column("rare_den");
  std::mt19937_64 rng(shape.data_seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t u = 0; u < n_units; ++u) {
    plan.columns[n][u] = 1.0;
    plan.columns[correct][u] = rng() % 4 != 0 ? 1.0 : 0.0;
    plan.columns[half][u] = 0.5 * static_cast<double>(rng() % 3);
  }
  const int64_t last_unit = n_units - 1;  // belongs to the last cluster
  plan.columns[rare_num][last_unit] = 0.5;
  plan.columns[rare_den][last_unit] = 1.0;

  auto ratio = [](int32_t a, int32_t b) { return ratio_program(a, b); };
  plan.statistics.push_back(statistic("acc", ratio(correct, n)));
  plan.statistics.push_back(statistic("pa", ratio(half, n)));
  plan.statistics.push_back(statistic("acc_minus_pa", difference_program(ratio(correct, n), ratio(half, n))));
  plan.statistics.push_back(statistic("rare", ratio(rare_num, rare_den)));
  plan.statistics.push_back(
      statistic("rare_or_zero", {{OpCode::kColumn, rare_num}, {OpCode::kColumn, rare_den}, {OpCode::kDivOrZero}}));
  std::vector<Op> combo = ratio(correct, n);
  for (const Op& op : ratio(half, n)) combo.push_back(op);
  combo.push_back({OpCode::kMul});
  combo.push_back({OpCode::kConstant, 0, 0.25});
  combo.push_back({OpCode::kAdd});
  plan.statistics.push_back(statistic("acc_times_pa_plus_quarter", combo));

  if (shape.rank_terms) testing_support::add_rank_term_statistics(plan, correct, n_units, rng, uniform);

  if (!shape.counts_only) {
    const int32_t conf = plan.add_column("conf");
    const int32_t signed_values = plan.add_column("signed");
    for (int64_t u = 0; u < n_units; ++u) {
      plan.columns[conf][u] = uniform(rng);
      plan.columns[signed_values][u] = 2.0 * uniform(rng) - 1.0;
    }
    plan.statistics.push_back(statistic("conf", ratio(conf, n)));
    std::vector<Op> gap = difference_program(ratio(correct, n), ratio(conf, n));
    gap.push_back({OpCode::kAbs});
    plan.statistics.push_back(statistic("abs_acc_minus_conf", gap));
    plan.statistics.push_back(statistic("signed_mean", ratio(signed_values, n)));
    for (int i = 0; i < shape.extra_real_columns; ++i) {
      const int32_t extra = plan.add_column("extra" + std::to_string(i));
      const double scale = std::ldexp(1.0, 3 * i) * 1.37;
      for (int64_t u = 0; u < n_units; ++u) plan.columns[extra][u] = scale * uniform(rng);
      plan.statistics.push_back(statistic("extra" + std::to_string(i), ratio(extra, n)));
    }
  }
  if (shape.normals) {
    std::vector<Op> jittered = ratio(correct, n);
    jittered.push_back({OpCode::kNormal, 0, 0.01});
    jittered.push_back({OpCode::kAdd});
    plan.statistics.push_back(statistic("acc_jittered", jittered));
    std::vector<Op> scaled = ratio(half, n);
    scaled.push_back({OpCode::kNormal, 1, 0.5});
    scaled.push_back({OpCode::kMul});
    plan.statistics.push_back(statistic("pa_times_normal", scaled));
  }
  return plan;
}

// Replicates [first, first + count) in calls of at most backend.max_chunk(plan).
std::vector<double> run_in_chunks(Backend& backend, const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                  uint64_t count) {
  std::vector<double> out(count * plan.n_statistics, -12345.0);
  const uint64_t chunk = backend.max_chunk(plan);
  EXPECT_GE(chunk, 1u);
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = std::min(chunk, count - done);
    backend.run_replicates(plan, seed, first + done, n, out.data() + done * plan.n_statistics);
    done += n;
  }
  return out;
}

// Equal bit for bit (tolerance 0) or within `relative_tolerance`; NaN matches NaN only.
::testing::AssertionResult same_values(const std::vector<double>& expected, const std::vector<double>& actual,
                                       int32_t n_statistics, double relative_tolerance = 0.0) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
  size_t mismatches = 0;
  std::ostringstream first_few;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i], a = actual[i];
    bool same;
    if (std::isnan(e) || std::isnan(a))
      same = std::isnan(e) && std::isnan(a);
    else if (relative_tolerance == 0.0)
      same = std::memcmp(&e, &a, sizeof e) == 0;
    else
      same = std::fabs(e - a) <= relative_tolerance * std::max(std::fabs(e), std::fabs(a));
    if (!same && mismatches++ < 5) {
      char line[160];
      std::snprintf(line, sizeof line, "\n  replicate %zu statistic %zu: cpu %.17g, cuda %.17g", i / n_statistics,
                    i % n_statistics, e, a);
      first_few << line;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.size()
                                       << " values differ:" << first_few.str();
}

const uint64_t kSeeds[] = {1, 20240917, 0x9E3779B97F4A7C15ull};  // the last uses both key words
const uint64_t kFirsts[] = {0, 12345};
const uint64_t kChunkCaps[] = {1, 7, 1000};

// Every (seed, first, path, chunk cap) against the CPU backend.
void expect_matches_cpu(const CompiledPlan& plan, const std::vector<CudaKernelPath>& paths, uint64_t count,
                        double relative_tolerance = 0.0) {
  auto cpu = make_cpu_backend(2);
  for (uint64_t seed : kSeeds)
    for (uint64_t first : kFirsts) {
      const std::vector<double> expected = run_in_chunks(*cpu, plan, seed, first, count);
      for (CudaKernelPath path : paths)
        for (uint64_t cap : kChunkCaps) {
          auto gpu = cuda_backend(cap, path);
          const std::vector<double> actual = run_in_chunks(*gpu, plan, seed, first, count);
          EXPECT_TRUE(same_values(expected, actual, plan.n_statistics, relative_tolerance))
              << "path " << path_name(path) << ", max_chunk " << cap << ", seed " << seed << ", first " << first;
        }
    }
}

const std::vector<CudaKernelPath> kAllPaths = {CudaKernelPath::kAuto, CudaKernelPath::kMultiplicityTile,
                                               CudaKernelPath::kGather};

// The fast path's B fragments, read back through mma.m16n8k32's fragment layout (PTX ISA:
// lane l holds plane column l / 4 and clusters 4 (l % 4) + i, then 16 + 4 (l % 4) + i, in byte
// i of its two registers), give back every per-cluster sum as min + sum_p 256^p byte_p.
TEST(CudaBackendTables, BytePlaneFragmentsReproduceClusterSums) {
  using namespace cuda_detail;
  PlanShape wide{{700, 1300}};
  wide.extra_real_columns = 10;
  std::vector<CompiledPlan> plans = {compile(make_plan({{3, 4, 5}})), compile(make_plan(wide)),
                                     compile(make_plan({{1}})), compile(make_plan({{100}, /*counts_only=*/true}))};
  CompiledPlan extreme;  // full 64-bit ranges, negative values, a constant column
  extreme.n_clusters = 70;
  extreme.n_columns = 3;
  extreme.stratum_offset = {0, 70};
  for (int64_t c = 0; c < 70; ++c) {
    extreme.cluster_sums.push_back(c % 2 ? std::numeric_limits<int64_t>::max()
                                         : std::numeric_limits<int64_t>::min() + c);
    extreme.cluster_sums.push_back(-7);
    extreme.cluster_sums.push_back(-c * 1000003);
  }
  plans.push_back(extreme);

  for (const CompiledPlan& plan : plans) {
    const PlaneLayout layout = plane_layout(plan);
    const uint32_t padded_clusters = layout.k_steps * kClustersPerKStep;
    const uint32_t n_planes = static_cast<uint32_t>(layout.plane_column.size());
    ASSERT_GE(padded_clusters, uint64_t(plan.n_clusters));
    ASSERT_EQ(padded_clusters % kClusterPadding, 0u);
    EXPECT_EQ(layout.row_stride % 64, 16u);  // rows 8 banks apart: conflict-free A loads
    ASSERT_EQ(layout.n_tiles, (n_planes + 7) / 8);
    const std::vector<uint32_t> words = b_fragments(plan, layout);
    ASSERT_EQ(words.size(), size_t(layout.n_tiles) * layout.k_steps * 32 * 2);

    const uint32_t width = layout.n_tiles * kPlaneColumnsPerNTile;
    std::vector<int> seen(size_t(padded_clusters) * width, 0);
    std::vector<uint8_t> byte_at(size_t(padded_clusters) * width, 0);
    size_t i = 0;
    for (uint32_t tile = 0; tile < layout.n_tiles; ++tile)
      for (uint32_t ks = 0; ks < layout.k_steps; ++ks)
        for (uint32_t lane = 0; lane < 32; ++lane)
          for (uint32_t reg = 0; reg < 2; ++reg, ++i)
            for (uint32_t b = 0; b < 4; ++b) {
              const uint32_t c = ks * 32 + 16 * reg + 4 * (lane % 4) + b;
              const uint32_t n = tile * 8 + lane / 4;
              ++seen[size_t(c) * width + n];
              byte_at[size_t(c) * width + n] = static_cast<uint8_t>(words[i] >> (8 * b));
            }
    for (size_t e = 0; e < seen.size(); ++e) {
      ASSERT_EQ(seen[e], 1) << "every (cluster, plane column) once";
      const uint32_t c = static_cast<uint32_t>(e / width), n = static_cast<uint32_t>(e % width);
      if (c >= plan.n_clusters || n >= n_planes) {
        ASSERT_EQ(byte_at[e], 0) << "padding is zero";
      }
    }
    for (int64_t c = 0; c < plan.n_clusters; ++c)
      for (int32_t k = 0; k < plan.n_columns; ++k) {
        uint64_t value = static_cast<uint64_t>(layout.column_min[k]);
        for (int32_t n = layout.column_first_plane[k]; n < layout.column_first_plane[k + 1]; ++n)
          value += uint64_t(byte_at[size_t(c) * width + n]) << (8 * (n - layout.column_first_plane[k]));
        ASSERT_EQ(static_cast<int64_t>(value), plan.cluster_sums[size_t(c) * plan.n_columns + k])
            << "cluster " << c << " column " << k;
      }
  }
}

TEST(CudaBackend, DescribesItsDevice) {
  REQUIRE_CUDA();
  const CompiledPlan plan = compile(make_plan({{3, 4, 5}}));
  auto gpu = make_cuda_backend(0, 0);
  EXPECT_EQ(gpu->name(), "cuda");
  EXPECT_FALSE(gpu->device().empty());
  EXPECT_GE(gpu->max_chunk(plan), 1u);
  EXPECT_EQ(make_cuda_backend(0, 5)->max_chunk(plan), 5u);
}

TEST(CudaBackend, StratifiedPlanMatchesCpuBitForBit) {
  REQUIRE_CUDA();
  const CompiledPlan plan = compile(make_plan({{3, 4, 5}}));
  ASSERT_FALSE(plan.fits_int32);  // real columns: 64-bit sums, several byte planes
  expect_matches_cpu(plan, kAllPaths, 40);
}

TEST(CudaBackend, CountPlanOfFiveThousandClustersMatchesCpu) {
  REQUIRE_CUDA();
  PlanShape shape{{5000}, /*counts_only=*/true};
  const CompiledPlan plan = compile(make_plan(shape));
  ASSERT_TRUE(plan.fits_int32);  // the gather path's 32-bit words
  expect_matches_cpu(plan, kAllPaths, 40);
  shape.rank_terms = false;  // W1's shape: counts only
  const CompiledPlan counts = compile(make_plan(shape));
  ASSERT_EQ(counts.n_rank_terms, 0);
  expect_matches_cpu(counts, kAllPaths, 40);
}

TEST(CudaBackend, WidePlanWithManyBytePlanesMatchesCpu) {
  REQUIRE_CUDA();
  PlanShape shape{{700, 1300}};
  shape.extra_real_columns = 10;  // well over 32 byte planes: several tensor-core N tiles
  shape.data_seed = 3;
  expect_matches_cpu(compile(make_plan(shape)), kAllPaths, 24);
}

TEST(CudaBackend, SingleClusterMatchesCpu) {
  REQUIRE_CUDA();
  expect_matches_cpu(compile(make_plan({{1}})), kAllPaths, 20);
  expect_matches_cpu(compile(make_plan({{1}, true})), kAllPaths, 20);
}

TEST(CudaBackend, HundredThousandClustersTakeTheGatherPath) {
  REQUIRE_CUDA();
  // A stratum of 99,995 clusters is beyond 16-bit multiplicity counters.
  const CompiledPlan plan = compile(make_plan({{99995, 5}}));
  ASSERT_EQ(plan.n_clusters, 100000);
  expect_matches_cpu(plan, {CudaKernelPath::kAuto, CudaKernelPath::kGather}, 12);
  PlanShape counts_shape{{100000}, true};
  counts_shape.rank_terms = false;
  const CompiledPlan counts = compile(make_plan(counts_shape));
  ASSERT_TRUE(counts.fits_int32);
  expect_matches_cpu(counts, {CudaKernelPath::kAuto}, 12);

  auto tile_only = cuda_backend(0, CudaKernelPath::kMultiplicityTile);
  std::vector<double> out(plan.n_statistics);
  EXPECT_THROW(tile_only->run_replicates(plan, 1, 0, 1, out.data()), std::invalid_argument);
}

TEST(CudaBackend, NormalDrawsAgreeToTwelveDigits) {
  REQUIRE_CUDA();
  PlanShape shape{{3, 4, 5}};
  shape.normals = true;
  const CompiledPlan plan = compile(make_plan(shape));
  ASSERT_EQ(plan.n_normals, 2);
  ASSERT_EQ(plan.n_rank_terms, 2);  // extras: normals first, then the rank terms' 2U
  expect_matches_cpu(plan, kAllPaths, 30, 1e-12);
}

TEST(CudaBackend, OneLargeCallEqualsTheCpu) {
  REQUIRE_CUDA();
  // Enough replicates for several pipelined slices and many tiles per block.
  const CompiledPlan plan = compile(make_plan({{20, 30}}));
  const uint64_t count = 200000;
  auto cpu = make_cpu_backend(2);
  const std::vector<double> expected = run_in_chunks(*cpu, plan, 99, 7, count);
  for (CudaKernelPath path : {CudaKernelPath::kMultiplicityTile, CudaKernelPath::kGather}) {
    auto gpu = cuda_backend(0, path);
    ASSERT_GE(gpu->max_chunk(plan), count);
    std::vector<double> actual(count * plan.n_statistics);
    gpu->run_replicates(plan, 99, 7, count, actual.data());
    EXPECT_TRUE(same_values(expected, actual, plan.n_statistics)) << path_name(path);
  }
}

TEST(CudaBackend, PlanChangedInPlaceIsUploadedAgain) {
  REQUIRE_CUDA();
  CompiledPlan plan = compile(make_plan({{6, 6}}));
  auto gpu = make_cuda_backend(0, 0);
  auto cpu = make_cpu_backend(2);
  std::vector<double> before(10 * plan.n_statistics);
  gpu->run_replicates(plan, 5, 0, 10, before.data());
  // Same address, same sizes, different content: the cache must notice.
  for (int64_t& v : plan.cluster_sums) v = v / 2 + 1;
  std::vector<double> after(10 * plan.n_statistics), expected(10 * plan.n_statistics);
  gpu->run_replicates(plan, 5, 0, 10, after.data());
  cpu->run_replicates(plan, 5, 0, 10, expected.data());
  EXPECT_TRUE(same_values(expected, after, plan.n_statistics));
}

TEST(CudaBackend, EmptyRequestsAndMalformedPlans) {
  REQUIRE_CUDA();
  CompiledPlan plan = compile(make_plan({{4}}));
  auto gpu = make_cuda_backend(0, 0);
  double untouched = 7.0;
  gpu->run_replicates(plan, 1, 0, 0, &untouched);
  EXPECT_EQ(untouched, 7.0);

  CompiledPlan bad = plan;
  bad.ops[0].arg = bad.n_columns;  // reads past the column sums
  std::vector<double> out(bad.n_statistics);
  EXPECT_THROW(gpu->run_replicates(bad, 1, 0, 1, out.data()), std::invalid_argument);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Values kept on the device and summarised there (run_replicates_kept) give the host's bits:
// facts and order statistics of the same replicate values, then whole intervals of every CI
// method against the CPU backend's run. Plan: undefined replicates ("rare"), ties, strata.
TEST(CudaBackend, DeviceSummariesEqualTheHostsBitForBit) {
  REQUIRE_CUDA();
  const Plan source = make_plan({{20, 30}});
  const CompiledPlan plan = compile(source);
  const int32_t S = plan.n_statistics;
  const uint64_t B = 300007;  // many summary blocks, a partial last one, bracketed selections
  auto cpu = make_cpu_backend(2);
  auto gpu = make_cuda_backend(0, 0);
  std::vector<double> values(B * S);
  cpu->run_replicates(plan, 17, 0, B, values.data());
  auto host = host_kept_replicates(values.data(), B, S);
  auto device = gpu->run_replicates_kept(plan, 17, B);
  ASSERT_NE(device, nullptr) << "300k x " << S << " values fit any 8.0+ device";

  std::vector<double> reference(S);
  for (int32_t s = 0; s < S; ++s) reference[s] = values[7 * S + s];  // replicate 7's values
  const auto host_facts = host->facts(reference), device_facts = device->facts(reference);
  std::vector<OrderStatisticQuery> queries;
  for (int32_t s = 0; s < S; ++s) {
    const ReplicateFacts& f = host_facts[s];
    EXPECT_EQ(device_facts[s].defined, f.defined) << s;
    EXPECT_TRUE(same_bits(device_facts[s].mean, f.mean)) << s << ": " << device_facts[s].mean << " vs " << f.mean;
    EXPECT_TRUE(same_bits(device_facts[s].sum_squares, f.sum_squares)) << s;
    EXPECT_EQ(device_facts[s].below, f.below) << s;
    EXPECT_EQ(device_facts[s].at_or_below, f.at_or_below) << s;
    if (f.defined == 0) continue;
    for (uint64_t rank : {uint64_t(0), f.defined / 40, f.defined / 2, f.defined - 1}) queries.push_back({s, rank});
  }
  ASSERT_FALSE(queries.empty());
  const auto host_pairs = host->order_statistics(queries), device_pairs = device->order_statistics(queries);
  for (size_t i = 0; i < queries.size(); ++i) {
    EXPECT_TRUE(same_bits(device_pairs[i].first, host_pairs[i].first))
        << "stat " << queries[i].statistic << " rank " << queries[i].rank;
    EXPECT_TRUE(same_bits(device_pairs[i].second, host_pairs[i].second))
        << "stat " << queries[i].statistic << " rank " << queries[i].rank;
  }
  EXPECT_THROW(device->order_statistics({{0, host_facts[0].defined}}), std::invalid_argument);

  std::vector<StatLabel> labels;
  for (const auto& stat : source.statistics) labels.push_back(stat.label);
  ASSERT_NE(gpu->run_replicates_kept(plan, 5, 40000), nullptr) << "run_bootstrap below takes the device path";
  for (CiMethod method : {CiMethod::kPercentile, CiMethod::kBasic, CiMethod::kBca}) {
    BootstrapOptions options;
    options.replicates = 40000;
    options.seed = 5;
    options.ci = method;
    const BootstrapResult want = run_bootstrap(plan, labels, *cpu, options);
    const BootstrapResult got = run_bootstrap(plan, labels, *gpu, options);
    for (int32_t s = 0; s < S; ++s) {
      const Interval &a = got.intervals[s], &b = want.intervals[s];
      EXPECT_TRUE(same_bits(a.estimate, b.estimate) && same_bits(a.lo, b.lo) && same_bits(a.hi, b.hi) &&
                  same_bits(a.se, b.se) && a.undefined == b.undefined)
          << to_string(method) << " stat " << s << ": [" << a.lo << ", " << a.hi << "] se " << a.se << " vs [" << b.lo
          << ", " << b.hi << "] se " << b.se;
    }
  }
}

// The device store given values with every awkward case (signed zeros, NaNs, infinities, a
// single defined value, none): facts against references that are NaN, −0 and values themselves,
// order statistics at a stride of ranks, and the errors, all as the host gives them.
TEST(CudaBackend, DeviceStoreEqualsHostStoreOnAwkwardValues) {
  REQUIRE_CUDA();
#ifdef JUDGESTAT_HAVE_CUDA
  const testing_support::AwkwardReplicates cases = testing_support::awkward_replicates(300001);
  const uint64_t B = cases.B;
  const int32_t S = cases.S;
  auto host = host_kept_replicates(cases.values.data(), B, S);
  auto device = cuda_detail::DeviceKeptReplicates::create(0, B, S);
  device->copy_from_host(cases.values.data());
  std::vector<std::vector<double>> references = {
      cases.estimates, std::vector<double>(S, NAN), std::vector<double>(S, -0.0),
      std::vector<double>(cases.values.begin() + 5 * S, cases.values.begin() + 6 * S)};
  std::vector<ReplicateFacts> host_facts;
  for (const auto& reference : references) {
    host_facts = host->facts(reference);
    const auto device_facts = device->facts(reference);
    for (int32_t s = 0; s < S; ++s) {
      EXPECT_EQ(device_facts[s].defined, host_facts[s].defined) << s;
      EXPECT_TRUE(same_bits(device_facts[s].mean, host_facts[s].mean)) << s;
      EXPECT_TRUE(same_bits(device_facts[s].sum_squares, host_facts[s].sum_squares)) << s;
      EXPECT_EQ(device_facts[s].below, host_facts[s].below) << s;
      EXPECT_EQ(device_facts[s].at_or_below, host_facts[s].at_or_below) << s;
    }
  }
  std::vector<OrderStatisticQuery> queries;
  for (int32_t s = 0; s < S; ++s) {
    const uint64_t defined = host_facts[s].defined;
    for (uint64_t rank = 0; rank < defined; rank += defined / 17 + 1) queries.push_back({s, rank});
    if (defined) queries.push_back({s, defined - 1});
  }
  const auto want = host->order_statistics(queries), got = device->order_statistics(queries);
  for (size_t i = 0; i < queries.size(); ++i)
    EXPECT_TRUE(same_bits(got[i].first, want[i].first) && same_bits(got[i].second, want[i].second))
        << "stat " << queries[i].statistic << " rank " << queries[i].rank << ": (" << got[i].first << ", "
        << got[i].second << ") vs (" << want[i].first << ", " << want[i].second << ")";
  EXPECT_THROW(device->order_statistics({{3, host_facts[3].defined}}), std::invalid_argument);
  EXPECT_THROW(device->order_statistics({{0, B}}), std::invalid_argument);
  EXPECT_THROW(device->order_statistics({{S, 0}}), std::invalid_argument);
  EXPECT_THROW(device->order_statistics({{-1, 0}}), std::invalid_argument);
  for (CiMethod method : {CiMethod::kPercentile, CiMethod::kBasic, CiMethod::kBca}) {
    const auto a = intervals_from(*device, B, cases.estimates, method, 0.9, &cases.jack);
    const auto b = intervals_from(*host, B, cases.estimates, method, 0.9, &cases.jack);
    for (int32_t s = 0; s < S; ++s)
      EXPECT_TRUE(same_bits(a[s].lo, b[s].lo) && same_bits(a[s].hi, b[s].hi) && same_bits(a[s].se, b[s].se) &&
                  a[s].undefined == b[s].undefined)
          << to_string(method) << " stat " << s;
  }
#endif
}

}  // namespace
}  // namespace judgestat
