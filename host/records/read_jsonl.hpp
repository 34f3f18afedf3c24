// JSONL records (docs/statistics.md §1): one JSON object per line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat::loading {

/// The records of JSONL text (blank lines skipped). Throws InputError.
std::vector<Record> read_jsonl(std::string_view text, const std::string& file);

}  // namespace judgestat::loading
