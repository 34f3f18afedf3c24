// Paired-difference plans with docs/statistics.md §7.3 sign-flip tests, and the test's count by
// explicit loops straight from the spec's words; shared by the engine, kernel and MPI tests.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "judgestat/philox.hpp"
#include "judgestat/plan.hpp"

namespace judgestat::testing_support {

struct PairedCase {
  Plan plan;
  std::vector<std::vector<int64_t>> d;  // per sign-flip test: d_c, the per-cluster sums of its unit differences
};

/// Three judges' correctness on the units of `clusters` clusters (1 + c mod 4 units each; one
/// stratum): statistics acc of judge 0 (no test), diff judge 1 − judge 0 and diff judge 2 −
/// judge 0, each diff with a sign-flip test on its per-unit differences. Judge 1 is right a little
/// more often than judge 0 (65 % against 60 %), judge 2 as often.
inline PairedCase paired_case(int64_t clusters, uint32_t seed) {
  std::mt19937 random(seed);
  PairedCase out;
  Plan& plan = out.plan;
  plan.stratum_offset = {0, clusters};
  for (int64_t c = 0; c < clusters; ++c)
    for (int64_t u = 0; u <= c % 4; ++u) plan.unit_cluster.push_back(static_cast<int32_t>(c));
  const int32_t ones = plan.add_column("ones");
  int32_t right[3], differs[2];
  for (int j = 0; j < 3; ++j) right[j] = plan.add_column("right" + std::to_string(j));
  for (int j = 0; j < 2; ++j) differs[j] = plan.add_column("d" + std::to_string(j + 1));
  out.d.assign(2, std::vector<int64_t>(clusters, 0));
  for (size_t u = 0; u < plan.unit_cluster.size(); ++u) {
    plan.columns[ones][u] = 1;
    const uint32_t thresholds[3] = {12, 13, 12};  // right when a draw of 0..19 is below: 60 %, 65 %, 60 %
    for (int j = 0; j < 3; ++j) plan.columns[right[j]][u] = random() % 20 < thresholds[j];
    for (int j = 0; j < 2; ++j) {
      const double difference = plan.columns[right[j + 1]][u] - plan.columns[right[0]][u];
      plan.columns[differs[j]][u] = difference;
      out.d[j][plan.unit_cluster[u]] += static_cast<int64_t>(difference);
    }
  }
  StatisticDef acc{{"acc", "j0"}, ratio_program(right[0], ones)};
  StatisticDef diff1{{"diff", "j1"}, difference_program(ratio_program(right[1], ones), ratio_program(right[0], ones))};
  StatisticDef diff2{{"diff", "j2"}, difference_program(ratio_program(right[2], ones), ratio_program(right[0], ones))};
  plan.statistics = {acc, diff1, diff2};
  plan.sign_flip_tests = {{1, differs[0]}, {2, differs[1]}};
  return out;
}

/// #{r in [first, first + count) : |T_r| ≥ |T_obs|}: T_obs = Σ_c d_c, T_r = Σ_c s_c d_c with s_c
/// = −1 when bit (c mod 32) of word ((c div 32) mod 4) of Philox4x32-10(counter = (c div 128, r,
/// 2^29, 0), key = (seed mod 2^32, seed div 2^32)) is 1, else +1; one cluster at a time.
inline uint64_t reference_exceedances(const std::vector<int64_t>& d, uint64_t seed, uint64_t first, uint64_t count) {
  int64_t observed = 0;
  for (int64_t dc : d) observed += dc;
  uint64_t exceed = 0;
  for (uint64_t r = first; r < first + count; ++r) {
    int64_t t = 0;
    for (size_t c = 0; c < d.size(); ++c) {
      const Words4 w = philox4x32_10(static_cast<uint32_t>(c / 128), static_cast<uint32_t>(r), 1u << 29, 0,
                                     static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
      const bool minus = (w.w[(c / 32) % 4] >> (c % 32)) & 1u;
      t += minus ? -d[c] : d[c];
    }
    exceed += (t < 0 ? -t : t) >= (observed < 0 ? -observed : observed);
  }
  return exceed;
}

}  // namespace judgestat::testing_support
