// Within-judge differences between two reporting groups (docs/statistics.md §7.3 `--group-diff`;
// JEV §6 and App. E: RM-Bench's within-prompt style effect, hard − normal, and the difference of two
// judges' style effects). The groups share clusters (every style of a prompt is one cluster), so both
// statistics move together on each replicate and the interval is the paired one.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"

namespace judgestat {

/// `--group-diff A,B` (`groups`; nothing when empty): appends, for every per-judge statistic named in
/// `names` that the plan has on both group A and group B (same judge, name, order, label, position,
/// variant): `group_diff` (of = the name) = its value on A − its value on B, with the group field
/// "A − B"; then for each (judge, reference) pair the difference of those differences, `group_diff`
/// with `reference` set. Returns notes for what no judge has. UsageError naming `--group-diff` when
/// `groups` is not two groups of the selection's --by.
std::vector<std::string> add_group_differences(const ItemMatrix& m, const Selection& selection,
                                               const std::vector<std::string>& groups,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::pair<int32_t, int32_t>>& pairs, Plan& plan);

}  // namespace judgestat
