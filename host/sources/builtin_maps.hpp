// The built-in import maps (docs/import.md §2): configs/import/NAME.json, compiled in by
// cmake/embed_import_maps.cmake.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace judgestat {

/// (NAME, the map's JSON text) for every configs/import/NAME.json, by name.
const std::vector<std::pair<std::string, std::string>>& builtin_import_maps();

}  // namespace judgestat
