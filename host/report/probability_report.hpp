// Writers of probability quality's point summaries (reliability, risk–coverage, flips by
// confidence): JSON and text tables, shared by the metrics and cascade writers.
#pragma once
#include <string>

#include "judgestat/probability.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// Adds the top-level keys `reliability`, `risk_coverage` and `flip_by_confidence` (when there
/// is anything to report), after appending the quality's notes to `notes`.
void add_probability_json(const ProbabilityQuality& quality, Json& json);

/// JSON of one reliability table / risk–coverage curve (shared with `judgestat cascade`).
Json reliability_json(const ReliabilityTable& table);
Json risk_coverage_json(const RiskCoverage& curve);

/// Text (or md) tables of the point summaries for people; "" for csv and when empty.
std::string probability_tables_text(const ProbabilityQuality& quality, const std::string& format);

}  // namespace judgestat
