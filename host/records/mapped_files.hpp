// The loader's hook for LoadOptions::map (docs/import.md): declared in the loading layer, defined
// by the import maps (host/sources/map_records.cpp), which build on the loader's readers.
#pragma once
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {

/// Each file's records read through the import map `map` (a map file or a built-in NAME, read and
/// checked once, before any file), and into `digests` each file's SHA-256. Throws InputError.
std::vector<std::vector<Record>> read_mapped_files(const std::vector<std::string>& paths, const std::string& map,
                                                   const std::string& item_column, std::vector<std::string>& digests);

/// One file's records through the map numbered for the pivot, as number_records(read_mapped_files(…)[0])
/// but without Record objects (the mapped CSV streamed through number_csv); its SHA-256 into `sha256`.
NumberedRecords number_mapped_file(const std::string& path, const std::string& map, const std::string& item_column,
                                   std::string& sha256);

}  // namespace judgestat::loading
