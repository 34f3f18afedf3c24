// The pivot of numbered records into an ItemMatrix (docs/statistics.md §1): label resolution, the items'
// columns, the cells.
#pragma once
#include <string>

#include "judgestat/records.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {

struct MemoryBudget;

/// Applies docs/statistics.md §1's consistency checks and validity rule to numbered records and pivots them.
/// The matrix and the records held must fit `budget` (memory_budget() when null).
ItemMatrix pivot(const NumberedRecords& numbered, const std::string& path, const LoadOptions& options,
                 const MemoryBudget* budget = nullptr);

}  // namespace judgestat::loading
