// A second confidence score per record (JEV §4 and App. I: JEV's "native confidence" beside q, the
// largest label probability): how well it detects errors (`native_auroc_err`, with a CI) and how
// closely it ranks records as q does (`native_q_rho`, Spearman's ρ, a point value). Read from a
// numeric record covariate (`metrics --native-confidence x.NAME`, docs/statistics.md §3.2).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// One judge's presentation on one scope: per unit with probabilities, its plan unit, q, c and the
/// native confidence (NaN where the record gives none).
struct NativeConfidenceUnits {
  std::vector<int32_t> plan_unit;
  std::vector<double> q, correct, native;
};

/// What add_native_confidence adds besides plan statistics: the point rows and the notes.
struct NativeConfidenceRows {
  std::vector<std::pair<StatLabel, double>> points;
  std::vector<std::string> notes;
};

/// AUROC = 2U / (2·P·N) on each replicate (docs/statistics.md §3.2): the rank term's 2U over twice the
/// product of the replicate's positive and negative counts (columns). auroc_err and native_auroc_err.
std::vector<Op> auroc_program(int32_t rank_term, int32_t positives, int32_t negatives);

/// The native value of a cell: its covariate level's number, NaN without a value.
double native_value(const Covariate& native, size_t cell);

/// Adds `native_auroc_err` (errors c < 1 the positives, ranked by 1 − native, ties ½) to `plan` and
/// `native_q_rho` to `out.points` over the units with a native value; `base` carries the judge, the
/// group, the order; `who` names them in notes ("JEV (averaged)"); `tag` prefixes column names. Units
/// without a native value are counted in a note; a statistic the data cannot support is left out with
/// a note (no errors or no correct outputs; a constant side for ρ).
void add_native_confidence(const NativeConfidenceUnits& units, const StatLabel& base, const std::string& who,
                           const std::string& tag, Plan& plan, NativeConfidenceRows& out);

}  // namespace judgestat
