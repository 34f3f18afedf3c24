// Writers of the cascade report (judgestat/cascade.hpp): docs/statistics.md §4's JSON, the tables for people
// (threshold sweep, selection-part trials, held-out rules, temperature, the gate's reliability)
// and the SVG plots (accuracy against fee, the gate's reliability diagram).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "judgestat/cascade.hpp"
#include "report/report.hpp"

namespace judgestat {

/// The plots' SVG text, which plots() writes to files.
std::string cascade_accuracy_fee_svg(const CascadeReport& report);
std::string cascade_reliability_svg(const CascadeReport& report);

/// Named tables as one CSV for pandas (issue 31, host/report/cascade_csv.cpp): a leading `table` column,
/// then the union of the tables' columns in first appearance. Cells become numbers column by column: a
/// column holding "EST [LO, HI]" or "EST (LO, HI)" cells becomes NAME, NAME_lo and NAME_hi (NAME without
/// its "[95% CI]"); "A / B" cells (latency p50 / p95) one column per part ("latency p50 (s)", "latency
/// p95 (s)"); "A → B" cells NAME before / NAME after; "12.5 %" a number in a column named "… (%)";
/// "—", "–" and "not given" empty fields; other text stays as it is. One header, one row per table row.
std::string numeric_long_csv(const std::vector<std::pair<std::string, Table>>& tables);

}  // namespace judgestat
