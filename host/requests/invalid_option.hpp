// `--invalid wrong|exclude`, the flag every analysis shares (docs/statistics.md §1 "Validity"):
// how invalid outputs count. `wrong` (the default, JEV §4) keeps them in n as errors; `exclude`
// (CAP App. L Table 20) drops the failed calls before the analysis selects records, and the
// analysis's outputs say so above the tables and in JSON settings.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/records.hpp"
#include "report/invalid_exclusion.hpp"

namespace judgestat {

/// The rule as typed: "wrong" → false, "exclude" → true; UsageError naming --invalid otherwise.
bool excludes_invalid(const std::string& rule);

/// A copy of `matrix` with every invalid record excluded (exclude_invalid_records), and the counts.
ItemMatrix matrix_without_invalid(const ItemMatrix& matrix, InvalidExclusion& exclusion);

/// Says in `result` that `--invalid exclude` ran: JSON settings.invalid = "exclude" and
/// settings.invalid_excluded = {judge: records} (settings created when the analysis has none),
/// and a line "invalid: …" above the text and md tables. CSV is left a table.
void note_invalid_exclusion(AnalysisResult& result, const InvalidExclusion& exclusion);

/// run_analysis with the rule applied: when `exclude_invalid`, on a copy of `matrix` without its
/// invalid records, the result saying so (note_invalid_exclusion); otherwise run_analysis itself.
AnalysisResult run_analysis_with_invalid_rule(const TypedAnalysisRequest& request, bool exclude_invalid,
                                              const ItemMatrix& matrix, const ExecTarget& target,
                                              const ReportHead& head, const AnalysisHooks& hooks = {});

}  // namespace judgestat
