// Import maps (docs/import.md): a JSON file saying where each judgment-record field comes from in a
// harness's JSON, JSONL or CSV log, so that any judge log reads as records.
#pragma once
#include <string>
#include <vector>

namespace judgestat {

/// `files` read through the map (a path to a map file, or the NAME of a built-in map,
/// configs/import/NAME.json) as judgment records in CSV (docs/statistics.md §1), the files' records
/// in the order given. The map is checked before any file is read. Throws InputError (a map's
/// error names the map and its key path; a row's, file:line, the field and the path), UsageError
/// for an unknown built-in name.
std::string mapped_records_csv(const std::string& map_path_or_name, const std::vector<std::string>& files);

/// The map's JSON text: the file's bytes, or the built-in map's. InputError / UsageError as above.
std::string import_map_text(const std::string& map_path_or_name);

/// The names of the built-in maps, sorted.
std::vector<std::string> builtin_map_names();

}  // namespace judgestat
