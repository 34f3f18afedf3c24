// Writers of the cascade report (judgestat/cascade.hpp): docs/statistics.md §4's JSON, the tables for people
// (threshold sweep, selection-part trials, held-out rules, temperature, the gate's reliability)
// and the SVG plots (accuracy against fee, the gate's reliability diagram).
#pragma once
#include <string>

#include "judgestat/cascade.hpp"

namespace judgestat {

/// The plots' SVG text, which plots() writes to files.
std::string cascade_accuracy_fee_svg(const CascadeReport& report);
std::string cascade_reliability_svg(const CascadeReport& report);

}  // namespace judgestat
