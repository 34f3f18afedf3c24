// Reading judgment records (docs/statistics.md §1) from CSV or JSONL and pivoting them into an ItemMatrix.
//
// Every record passes through a RecordView (its text fields as views; records/fields.hpp) into
// NumberedRecords (records/numbering.hpp), which numbers each name on arrival; the pivot
// (records/pivot.cpp) then works on numbers. A CSV file is loaded that way straight from its
// bytes (records/read_csv.cpp), and JSONL from one reused Record per line (records/read_jsonl.cpp),
// without keeping Record objects (the large-file path); Records of merged files or code go
// through views of their strings, so every check and message of the pivot exists once.
#include <algorithm>
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "records/fields.hpp"
#include "records/input.hpp"
#include "records/mapped_files.hpp"
#include "records/memory.hpp"
#include "records/numbering.hpp"
#include "records/pivot.hpp"
#include "records/progress.hpp"
#include "records/read_csv.hpp"
#include "records/read_jsonl.hpp"

namespace judgestat {

using loading::Format;

std::vector<Record> read_records(const std::string& path, std::string* sha256_out, const std::string& item_column) {
  const Format format = loading::format_of(path);
  return loading::parse_file(path, sha256_out, [&](std::string_view text, const std::string& file) {
    return format == Format::kCsv ? loading::read_csv(text, file, item_column)
                                  : loading::read_jsonl(text, file, item_column);
  });
}

ItemMatrix build_item_matrix(const std::vector<Record>& records, const std::string& path, const LoadOptions& options) {
  return loading::pivot(loading::number_records(records), path, options);
}

namespace {

// The records of each file, as they are or through options.map.
std::vector<std::vector<Record>> file_records(const std::vector<std::string>& paths, const LoadOptions& options,
                                              std::vector<std::string>& digests) {
  if (!options.map.empty()) return loading::read_mapped_files(paths, options.map, options.item_column, digests);
  std::vector<std::vector<Record>> records;
  for (const std::string& path : paths) {
    digests.emplace_back();
    records.push_back(read_records(path, &digests.back(), options.item_column));
  }
  return records;
}

}  // namespace

ItemMatrix load_item_matrix(const std::string& path, const LoadOptions& options) {
  if (!options.map.empty()) return load_item_matrix(std::vector<std::string>{path}, options);
  // The budget is read once, before anything is allocated, and every step is checked against it.
  const loading::MemoryBudget budget = loading::memory_budget();
  loading::LoadProgress progress(loading::display_name(path), loading::file_size(path), options.progress);
  const loading::ReadLimits limits{&budget, &progress};
  const Format format = loading::format_of(path);
  std::string sha256;
  // Rows are numbered as they are read: no Record objects for a large file.
  ItemMatrix m = loading::pivot(
      loading::parse_file(
          path, &sha256,
          [&](std::string_view text, const std::string& file) {
            return format == Format::kCsv ? loading::number_csv(text, file, options.item_column, &budget, &progress)
                                          : loading::number_jsonl(text, file, options.item_column, &budget, &progress);
          },
          limits),
      path, options, &budget);
  m.sha256 = std::move(sha256);
  return m;
}

ItemMatrix load_item_matrix(const std::vector<std::string>& paths, const LoadOptions& options,
                            std::vector<std::string>* file_sha256) {
  if (paths.empty()) throw UsageError("missing FILE: give one or more judgment records files");
  if (paths.size() == 1 && options.map.empty()) {
    ItemMatrix m = load_item_matrix(paths[0], options);
    if (file_sha256) *file_sha256 = {m.sha256};
    return m;
  }
  if (paths.size() == 1) {  // one file through a map: numbered as it is mapped, no Record objects
    std::string sha256;
    ItemMatrix m = loading::pivot(loading::number_mapped_file(paths[0], options.map, options.item_column, sha256),
                                  paths[0], options);
    m.sha256 = sha256;
    if (file_sha256) *file_sha256 = {sha256};
    return m;
  }
  std::vector<std::string> digests;
  std::vector<std::vector<Record>> per_file = file_records(paths, options, digests);
  std::vector<Record> all;
  loading::FileLines file_lines;  // file k's lines follow file k - 1's; messages name each record's own file and line
  int64_t offset = 0;
  for (size_t f = 0; f < paths.size(); ++f) {
    std::vector<Record>& records = per_file[f];
    build_item_matrix(records, paths[f], options);  // the file's own checks, with its name
    file_lines.files.push_back(loading::display_name(paths[f]));
    file_lines.offsets.push_back(offset);
    int64_t last_line = 0;
    for (Record& record : records) {
      last_line = std::max(last_line, record.line);
      record.line += offset;
      all.push_back(std::move(record));
    }
    offset += last_line + 1;
  }
  loading::NumberedRecords numbered = loading::number_records(all);
  numbered.file_lines = std::move(file_lines);
  ItemMatrix m = loading::pivot(numbered, join(paths, ", "), options);
  std::string listed;
  for (const std::string& digest : digests) listed += digest + "\n";
  m.sha256 = sha256_hex(listed);
  if (file_sha256) *file_sha256 = digests;
  return m;
}

int32_t ItemMatrix::judge_index(const std::string& name) const {
  auto found = std::find(judges.begin(), judges.end(), name);
  if (found != judges.end()) return static_cast<int32_t>(found - judges.begin());
  throw UsageError("judge '" + name + "' does not occur in " + loading::display_name(path) +
                   "; the judges there are: " + join(judges, ", ") + " (names are case-sensitive)");
}

int32_t ItemMatrix::variant_index(const std::string& name) const {
  auto found = std::find(variants.begin(), variants.end(), name);
  return found == variants.end() ? -1 : static_cast<int32_t>(found - variants.begin());
}

}  // namespace judgestat
