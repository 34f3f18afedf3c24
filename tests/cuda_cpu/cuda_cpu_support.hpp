// Shared by the CPU-runtime tests (tests/cuda_cpu/, ctest -L cuda-cpu): plans with every kind of
// column and statistic, the CPU backend's values to compare with, and launches under both
// schedules of kernels/emulation/ (a kernel without races gives the same bytes under both).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "rank_term_statistics.hpp"

namespace judgestat::cuda_cpu {

using emulation::Schedule;

struct PlanShape {
  std::vector<int64_t> stratum_clusters;  // clusters per stratum (0 = an empty stratum)
  bool counts_only = false;               // count and half columns only: fits_int32
  int extra_real_columns = 0;             // more real columns: more byte planes, > 128 columns
  bool normals = false;                   // statistics with normal draws (kNormal)
  bool rank_terms = false;                // AUROC-style rank terms (kRank)
  uint64_t data_seed = 1;
};

inline StatisticDef statistic(const std::string& name, std::vector<Op> program) {
  StatisticDef def;
  def.label.name = name;
  def.program = std::move(program);
  return def;
}

/// Units in clusters (1 to 3 each) in strata; columns n, correct (0/1), half (0, 1/2, 1), and
/// unless counts_only conf (reals in [0, 1)), signed (reals in [-1, 1)) and extras of growing
/// scale (up to 2^(3i) · 1.37: several byte planes each). Rank terms: errors ranked by a score
/// on a grid of 8 values (tie groups across 32-entry chunks) and by distinct scores.
inline Plan make_plan(const PlanShape& shape) {
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
    for (int u = 0; u < 1 + static_cast<int>(c % 3); ++u) plan.unit_cluster.push_back(static_cast<int32_t>(c));
  }
  const int64_t n_units = plan.n_units();
  const int32_t n = plan.add_column("n"), correct = plan.add_column("correct"), half = plan.add_column("half");
  std::mt19937_64 rng(shape.data_seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t u = 0; u < n_units; ++u) {
    plan.columns[n][u] = 1.0;
    plan.columns[correct][u] = rng() % 4 != 0 ? 1.0 : 0.0;
    plan.columns[half][u] = 0.5 * static_cast<double>(rng() % 3);
  }
  plan.statistics.push_back(statistic("acc", ratio_program(correct, n)));
  plan.statistics.push_back(statistic("pa", ratio_program(half, n)));
  plan.statistics.push_back(
      statistic("acc_minus_pa", difference_program(ratio_program(correct, n), ratio_program(half, n))));
  // kSqrt (correlations, RMSE): NaN below 0 on some replicates, a root above.
  std::vector<Op> root = difference_program(ratio_program(half, n), {{OpCode::kConstant, 0, 0.5}});
  root.push_back({OpCode::kSqrt});
  plan.statistics.push_back(statistic("sqrt_pa_minus_half", root));
  if (shape.rank_terms) testing_support::add_rank_term_statistics(plan, correct, n_units, rng, uniform);
  if (!shape.counts_only) {
    const int32_t conf = plan.add_column("conf"), signed_values = plan.add_column("signed");
    for (int64_t u = 0; u < n_units; ++u) {
      plan.columns[conf][u] = uniform(rng);
      plan.columns[signed_values][u] = 2.0 * uniform(rng) - 1.0;
    }
    plan.statistics.push_back(statistic("conf", ratio_program(conf, n)));
    plan.statistics.push_back(statistic("signed_mean", ratio_program(signed_values, n)));
    for (int i = 0; i < shape.extra_real_columns; ++i) {
      const int32_t extra = plan.add_column("extra" + std::to_string(i));
      const double scale = std::ldexp(1.0, 3 * (i % 12)) * 1.37;
      for (int64_t u = 0; u < n_units; ++u) plan.columns[extra][u] = scale * uniform(rng);
      plan.statistics.push_back(statistic("extra" + std::to_string(i), ratio_program(extra, n)));
    }
  }
  if (shape.normals) {
    std::vector<Op> jittered = ratio_program(correct, n);
    jittered.push_back({OpCode::kNormal, 0, 0.01});
    jittered.push_back({OpCode::kAdd});
    plan.statistics.push_back(statistic("acc_jittered", jittered));
    std::vector<Op> scaled = ratio_program(half, n);
    scaled.push_back({OpCode::kNormal, 1, 0.5});
    scaled.push_back({OpCode::kMul});
    plan.statistics.push_back(statistic("pa_times_normal", scaled));
  }
  return plan;
}

/// The CPU backend's replicates [first, first + count) (replicate-major, n_statistics each).
inline std::vector<double> cpu_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count) {
  std::vector<double> out(count * plan.n_statistics, -1.0);
  make_cpu_backend(2)->run_replicates(plan, seed, first, count, out.data());
  return out;
}

/// Byte-for-byte equality of two arrays of doubles, with the first differences named.
inline ::testing::AssertionResult same_bytes(const std::vector<double>& expected, const std::vector<double>& actual,
                                             size_t row_width = 1) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
  size_t mismatches = 0;
  std::ostringstream first_few;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(double)) == 0) continue;
    if (mismatches++ < 5) {
      char line[160];
      std::snprintf(line, sizeof line, "\n  row %zu column %zu: expected %.17g, got %.17g", i / row_width,
                    i % row_width, expected[i], actual[i]);
      first_few << line;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.size() << " values differ"
                                       << first_few.str();
}

inline const char* schedule_name(Schedule schedule) { return schedule == Schedule::kForward ? "forward" : "reverse"; }

}  // namespace judgestat::cuda_cpu
