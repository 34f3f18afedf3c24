// Small plans and cascade pools shared by test suites (the GoogleTest binary and the MPI rank binary).
#pragma once
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/plan.hpp"

namespace judgestat::testing_support {

/// A plan without units yet, over strata of the given cluster counts (named s0, s1, …).
inline Plan plan_with_strata(const std::vector<int64_t>& clusters_per_stratum) {
  Plan plan;
  plan.stratum_offset = {0};
  plan.stratum_names.clear();
  for (int64_t n : clusters_per_stratum) {
    plan.stratum_offset.push_back(plan.stratum_offset.back() + n);
    plan.stratum_names.push_back("s" + std::to_string(plan.stratum_names.size()));
  }
  return plan;
}

/// Two strata (s0, s1) over `offsets`, units `unit_cluster` with columns a, b, c: statistics
/// `ratio_name` = Σa/Σb, diff = Σa/Σb − Σc/Σb and abs = |Σc/Σb − 0.6|.
inline Plan abc_ratio_plan(const std::vector<int64_t>& offsets, const std::vector<int32_t>& unit_cluster,
                           const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c,
                           const std::string& ratio_name) {
  Plan p;
  p.stratum_offset = offsets;
  p.stratum_names = {"s0", "s1"};
  p.unit_cluster = unit_cluster;
  const int32_t ka = p.add_column("a"), kb = p.add_column("b"), kc = p.add_column("c");
  p.columns[ka] = a;
  p.columns[kb] = b;
  p.columns[kc] = c;
  StatisticDef ratio{{ratio_name}, ratio_program(ka, kb)};
  StatisticDef diff{{"diff"}, difference_program(ratio_program(ka, kb), ratio_program(kc, kb))};
  StatisticDef absolute{{"abs"}, difference_program(ratio_program(kc, kb), {{OpCode::kConstant, 0, 0.6}})};
  absolute.program.push_back({OpCode::kAbs});
  p.statistics = {ratio, diff, absolute};
  return p;
}

/// Two strata (6 and 7 clusters), 40 units, a real-valued and a count column: a ratio and a
/// difference from a constant.
inline Plan two_strata_plan() {
  Plan plan;
  plan.stratum_offset = {0, 6, 13};
  plan.stratum_names = {"s0", "s1"};
  std::vector<double> a, b;
  for (int u = 0; u < 40; ++u) {
    plan.unit_cluster.push_back((u * 5 + u / 4) % 13);
    a.push_back(0.1 * ((u * 37) % 11) + 0.013 * u);
    b.push_back((u % 3) != 0);
  }
  const int32_t ka = plan.add_column("a"), kb = plan.add_column("b");
  plan.columns[ka] = a;
  plan.columns[kb] = b;
  StatisticDef ratio, diff;
  ratio.label.name = "ratio";
  ratio.program = ratio_program(ka, kb);
  diff.label.name = "diff";
  diff.program = difference_program(ratio_program(ka, kb), {{OpCode::kConstant, 0, 0.6}});
  plan.statistics = {ratio, diff};
  return plan;
}

/// 40 cascade items over two strata with mixed confidence, correctness, gates and fees.
inline CascadePool two_strata_pool() {
  CascadePool pool;
  pool.strata_names = {"a", "b"};
  for (int i = 0; i < 40; ++i) {
    pool.item.push_back(i);
    pool.c1.push_back(i % 5 == 0 ? 0.0 : i % 7 == 0 ? 0.5 : 1.0);
    pool.c2.push_back(i % 3 == 0 ? 0.0 : 1.0);
    pool.q.push_back(0.5 + 0.0125 * ((i * 17) % 40));
    pool.gate_ok.push_back(i % 11 != 0);
    pool.fee_first.push_back(0.001 * (1 + i % 4));
    pool.fee_fallback.push_back(0.01 * (1 + i % 3));
    pool.latency_first.push_back(0.1);
    pool.latency_fallback.push_back(1.0);
    pool.stratum.push_back(i % 4 == 0 ? 1 : 0);
  }
  return pool;
}

}  // namespace judgestat::testing_support
