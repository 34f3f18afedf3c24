// What `--invalid exclude` (host/requests/invalid_option.hpp) removed, as its outputs say it: the
// line above the tables and the JSON settings a study's cache reads back (report_from_json.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/report.hpp"

namespace judgestat {

/// What `--invalid exclude` removed: per judge of the matrix (its order), the records excluded.
struct InvalidExclusion {
  std::vector<std::string> judges;
  std::vector<int64_t> excluded;
  int64_t total() const;
};

/// The line note_invalid_exclusion puts above the tables.
std::string invalid_exclusion_line(const InvalidExclusion& exclusion);

/// The inverse for a reader of the JSON (a study's cache): removes settings.invalid and
/// settings.invalid_excluded from `json` and returns what they said (empty judges when absent).
InvalidExclusion take_invalid_exclusion(Json& json);

}  // namespace judgestat
