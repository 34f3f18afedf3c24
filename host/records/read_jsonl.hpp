// JSONL records (docs/statistics.md §1): one JSON object per line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/records.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {

/// The records of JSONL text (blank lines skipped). Throws InputError. `item_column` (when not
/// empty) names a top-level key whose string or number each record keeps (Record::item_column).
std::vector<Record> read_jsonl(std::string_view text, const std::string& file, const std::string& item_column = "");

/// The records of JSONL text numbered as they are read, as number_records(read_jsonl(…)) but
/// without keeping a Record per line; the budget and progress as number_csv's.
NumberedRecords number_jsonl(std::string_view text, const std::string& file, const std::string& item_column = "",
                             const MemoryBudget* budget = nullptr, LoadProgress* progress = nullptr);

}  // namespace judgestat::loading
