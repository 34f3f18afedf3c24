// JSONL records (docs/statistics.md §1): one JSON object per line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat::loading {

/// The records of JSONL text (blank lines skipped). Throws InputError. `item_column` (when not
/// empty) names a top-level key whose string or number each record keeps (Record::item_column).
std::vector<Record> read_jsonl(std::string_view text, const std::string& file, const std::string& item_column = "");

}  // namespace judgestat::loading
