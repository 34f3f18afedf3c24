// Shared by the test_agreement*.cpp suites: a matrix from CSV text, its selection and accuracy
// units in a plan, an all-ones scope over them, and looking statistics up by their label.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/scope_view.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

namespace judgestat::agreement_testing {

struct Fixture {
  ItemMatrix m;
  Selection sel;
  Plan plan;
  std::vector<AccuracyUnit> units;
  std::vector<double> ones;

  ScopeView scope(const std::string& tag = "t") const { return ScopeView{units, ones, StatLabel{}, tag}; }
  int32_t judge(const std::string& name) const { return m.judge_index(name); }
};

/// Loads `csv` (written to a temp file named `name`) and prepares the plan's units.
inline Fixture make_fixture(const std::string& csv, const std::string& name, const LoadOptions& load = {}) {
  Fixture f;
  f.m = load_item_matrix(testing_support::write_temp(name, csv), load);
  f.sel = select_records(f.m, {});
  f.plan = plan_for(f.sel);
  f.units = accuracy_units(f.m, f.sel, f.plan);
  f.ones.assign(f.units.size(), 1.0);
  return f;
}

/// Which statistic: name plus the label fields that tell rows apart.
struct Which {
  std::string name;
  std::optional<std::string> label = std::nullopt, judge = std::nullopt;
  std::optional<int> position = std::nullopt;
};

inline bool matches(const StatLabel& l, const Which& w) {
  return l.name == w.name && (!w.label || l.label == w.label) && (!w.judge || l.judge == *w.judge) &&
         (!w.position || l.position == w.position);
}

/// Index of the one statistic matching `w`; -1 (and a test failure) when none or several match.
inline int32_t index_of(const Plan& plan, const Which& w) {
  int32_t found = -1;
  for (size_t s = 0; s < plan.statistics.size(); ++s) {
    if (!matches(plan.statistics[s].label, w)) continue;
    if (found >= 0) {
      ADD_FAILURE() << "several statistics named " << w.name;
      return -1;
    }
    found = static_cast<int32_t>(s);
  }
  if (found < 0) ADD_FAILURE() << "no statistic " << w.name << (w.label ? " label " + *w.label : "");
  return found;
}

inline double estimate(const Plan& plan, const Which& w) {
  const int32_t s = index_of(plan, w);
  return s < 0 ? NAN : point_estimates(plan)[s];
}

inline const StatLabel& label_of(const Plan& plan, const Which& w) {
  static const StatLabel none;
  const int32_t s = index_of(plan, w);
  return s < 0 ? none : plan.statistics[s].label;
}

/// Every program of the plan stays within kMaxStack and leaves one value.
inline void expect_stack_within_limit(const Plan& plan) {
  for (const StatisticDef& stat : plan.statistics) {
    int depth = 0, deepest = 0;
    for (const Op& op : stat.program) {
      const bool pushes = op.code == OpCode::kColumn || op.code == OpCode::kConstant || op.code == OpCode::kNormal ||
                          op.code == OpCode::kRank;
      depth += pushes ? 1 : op.code == OpCode::kAbs ? 0 : -1;
      deepest = std::max(deepest, depth);
    }
    EXPECT_EQ(depth, 1) << stat.label.name;
    EXPECT_LE(deepest, kMaxStack) << stat.label.name;
  }
}

}  // namespace judgestat::agreement_testing
