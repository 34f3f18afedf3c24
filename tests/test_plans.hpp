// Small plans shared by test suites (the GoogleTest binary and the MPI rank binary).
#pragma once
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat::testing_support {

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

}  // namespace judgestat::testing_support
