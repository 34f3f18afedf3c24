// CAP profiles, the steps inside run_profile() (docs/statistics.md §3.6): the plan builder and the summary on
// the point estimates. The config, plan and report types are public: judgestat/profile.hpp.
#pragma once
#include <string>
#include <vector>

#include "judgestat/profile.hpp"
#include "judgestat/records.hpp"
#include "support/text.hpp"

namespace judgestat {

/// "a, b, c": names joined for messages.

/// Builds the profile plan. UsageError names the benchmark and cell for a cell with no items,
/// an operator that needs variants, orders or rationale flags the data lacks, and for config
/// names the data does not have.
ProfilePlan build_profile_plan(const ItemMatrix& matrix, const ProfileConfig& config, const ProfileOptions& options);

/// Spearman ρ (t and, for n <= exact_max_n, exact permutation p-values) between conditions of
/// each benchmark and between benchmarks for each condition, over the judges both sides share;
/// L1 distances of the judge pairs. `estimates` are the plan's point estimates in order.
ProfileSummary summarize_profile(const ProfilePlan& plan, const std::vector<double>& estimates, int exact_max_n = 9);

}  // namespace judgestat
