// The pivot of numbered records into an ItemMatrix (docs/statistics.md §1): label resolution, the items'
// columns, the cells.
#pragma once
#include <string>

#include "judgestat/records.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {

/// Applies docs/statistics.md §1's consistency checks and validity rule to numbered records and pivots them.
ItemMatrix pivot(const NumberedRecords& numbered, const std::string& path, const LoadOptions& options);

}  // namespace judgestat::loading
