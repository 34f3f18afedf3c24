// docs/statistics.md §1 validity per judge, for the analyses that have judges (cascade, profile,
// coverage, budget, budget-compare): their reports carry it so that a judge whose records are all
// invalid is named above their tables (report/report.hpp's all_invalid_notes). metrics counts its
// own analysed units instead (analyses/metrics.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "judgestat/records.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// Each of `judges`' (indices into `m`) records over every item, variant and order of `m`, the
/// invalid ones among them and their most common reason.
std::vector<JudgeValidity> judge_validity(const ItemMatrix& m, const std::vector<int32_t>& judges);

}  // namespace judgestat
