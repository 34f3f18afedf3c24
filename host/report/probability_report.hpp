// Text tables of probability quality's point summaries (reliability, risk–coverage, flips by
// confidence), shared by the metrics and cascade writers.
#pragma once
#include <string>

#include "judgestat/probability.hpp"

namespace judgestat {

/// Text (or md) tables of the point summaries for people; "" for csv and when empty.
std::string probability_tables_text(const ProbabilityQuality& quality, const std::string& format);

}  // namespace judgestat
