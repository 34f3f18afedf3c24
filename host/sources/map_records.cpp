// Records through an import map (docs/import.md §1.5–§1.7): a row's records (one, or one per
// `each` element), swapped back to canonical labels, written as CSV in the map's columns; and the
// loader's entry, which reads that CSV as records placed at the input's lines.
#include <algorithm>
#include <cctype>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "records/input.hpp"
#include "records/mapped_files.hpp"
#include "records/numbering.hpp"
#include "records/read_csv.hpp"
#include "records/sha256.hpp"
#include "sources/import_map.hpp"

namespace judgestat::mapping {
namespace {

// Per output column, the index of the field written there (-1: none, written empty); `swapped`:
// with p.LABEL renamed through swap.labels (docs/import.md §1.6).
std::vector<int> column_fields(const ImportMap& map, bool swapped) {
  std::vector<int> columns(map.columns.size(), -1);
  for (size_t f = 0; f < map.fields.size(); ++f) {
    std::string name = map.fields[f].first;
    if (swapped && name.rfind("p.", 0) == 0)
      if (const auto label = map.swap->labels.find(name.substr(2)); label != map.swap->labels.end())
        name = "p." + label->second;
    const auto column = std::find(map.columns.begin(), map.columns.end(), name);
    if (column == map.columns.end())
      throw InputError(map.name + ": swap: renames " + map.fields[f].first + " to " + name +
                       ", which is not a column; give the field " + name + " too");
    columns[column - map.columns.begin()] = static_cast<int>(f);
  }
  return columns;
}

class RecordWriter {
 public:
  RecordWriter(const ImportMap& map, MappedRecords& out)
      : map_(map), out_(out), plain_(column_fields(map, false)), values_(map.fields.size()), row_(map.columns.size()) {
    if (!map.swap) return;
    swapped_ = column_fields(map, true);
    for (size_t f = 0; f < map.fields.size(); ++f)
      if (std::count(map.swap->fields.begin(), map.swap->fields.end(), map.fields[f].first)) swap_fields_.push_back(f);
  }

  // One record of the row at `at` (its `each` element set).
  void write(const RowPlace& at) {
    for (size_t f = 0; f < map_.fields.size(); ++f) values_[f] = evaluate(map_, map_.fields[f].second, at);
    const bool swap = map_.swap && evaluate(map_, map_.swap->when, at) == map_.swap->equals;
    if (swap)
      for (const size_t f : swap_fields_)
        if (const auto label = map_.swap->labels.find(values_[f]); label != map_.swap->labels.end())
          values_[f] = label->second;
    const std::vector<int>& columns = swap ? swapped_ : plain_;
    for (size_t c = 0; c < columns.size(); ++c) row_[c] = columns[c] < 0 ? std::string() : values_[columns[c]];
    const size_t start = out_.csv.size();
    append_csv_row(out_.csv, row_);
    out_.csv_lines.push_back(next_csv_line_);
    next_csv_line_ += std::count(out_.csv.begin() + static_cast<std::ptrdiff_t>(start), out_.csv.end(), '\n');
    out_.files.push_back(file_);
    out_.lines.push_back(at.line);
  }

  // The rows that follow are of input file `file` (an index into out.file_names).
  void start_file(int32_t file) { file_ = file; }

  void write_header() {
    append_csv_row(out_.csv, map_.columns);
    next_csv_line_ = 2;
  }

 private:
  const ImportMap& map_;
  MappedRecords& out_;
  std::vector<int> plain_, swapped_;
  std::vector<size_t> swap_fields_;
  std::vector<std::string> values_, row_;
  int64_t next_csv_line_ = 1;
  int32_t file_ = 0;
};

std::string shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 60) + "…" : text;
}

// The row's records: one, or one per `each` element (docs/import.md §1.5).
void write_row(const ImportMap& map, RecordWriter& writer, RowPlace& at) {
  at.element = nullptr;
  at.index = 0;
  if (map.each.empty()) return writer.write(at);
  Json scratch;
  if (!map.each_is_list) {
    const Json* list = find_path(map.each[0], at, scratch);
    if (list == nullptr || !list->is_array())
      throw InputError(at.place() + ": each (path \"" + map.each[0].text +
                       "\"): " + (list ? "expected an array, got " + shown(*list) : std::string("matches nothing")));
    for (size_t i = 0; i < list->size(); ++i) {
      at.element = &(*list)[i];
      at.index = static_cast<int64_t>(i);
      writer.write(at);
    }
    return;
  }
  for (size_t i = 0; i < map.each.size(); ++i) {
    at.element = find_path(map.each[i], at, scratch);
    if (at.element == nullptr)
      throw InputError(at.place() + ": each[" + std::to_string(i) + "] (path \"" + map.each[i].text +
                       "\"): matches nothing");
    at.index = static_cast<int64_t>(i);
    writer.write(at);
  }
}

}  // namespace

MappedRecords map_files(const ImportMap& map, const std::vector<std::string>& files) {
  MappedRecords out;
  out.json_rows = map.input == InputKind::kJson;
  out.file_names = files;
  RecordWriter writer(map, out);
  writer.write_header();
  for (size_t f = 0; f < files.size(); ++f) {
    writer.start_file(static_cast<int32_t>(f));
    for_each_row(files[f], map.input, map.rows, [&](const Json&, RowPlace& at) { write_row(map, writer, at); });
  }
  return out;
}

std::string record_place(const MappedRecords& mapped, size_t record) {
  RowPlace at;
  at.file = &mapped.file_names[mapped.files[record]];
  at.json_rows = mapped.json_rows;
  at.line = mapped.lines[record];
  return at.place();
}

std::string place_of_csv_line(const MappedRecords& mapped, int64_t csv_line) {
  const auto after = std::upper_bound(mapped.csv_lines.begin(), mapped.csv_lines.end(), csv_line);
  if (after == mapped.csv_lines.begin()) return "";
  const size_t record = static_cast<size_t>(after - mapped.csv_lines.begin()) - 1;
  return record_place(mapped, record) + " (mapped record " + std::to_string(record + 1) + ")";
}

namespace {

// An error of the mapped CSV's "FILE:CSVLINE: …" as "FILE:LINE (mapped record N): …".
std::string relocated(const std::string& message, const std::string& file, const MappedRecords& mapped) {
  if (message.compare(0, file.size() + 1, file + ":") != 0) return message;
  size_t end = file.size() + 1;
  while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
  if (end == file.size() + 1) return message;
  const std::string place =
      place_of_csv_line(mapped, std::stoll(message.substr(file.size() + 1, end - file.size() - 1)));
  return place.empty() ? message : place + message.substr(end);
}

}  // namespace

// The records whose lines read_mapped_file sets.
std::vector<Record>& lined_records(std::vector<Record>& records) { return records; }
std::vector<loading::NumberedRecord>& lined_records(loading::NumberedRecords& numbered) { return numbered.records; }

// One file's mapped CSV read by `read` (read_csv or number_csv), its errors placed at the input's
// rows, and each record placed at its row's input line.
template <typename Read>
auto read_mapped_file(const ImportMap& map, const std::string& file, const Read& read) {
  const MappedRecords mapped = map_files(map, {file});
  if (mapped.lines.empty())
    throw InputError(file + ": no records through " + map.name + " (an empty file, or every row's `each` list empty)");
  decltype(read(mapped.csv)) read_records;
  try {
    read_records = read(mapped.csv);
  } catch (const InputError& error) {
    throw InputError(relocated(error.what(), file, mapped));
  }
  auto& records = lined_records(read_records);
  for (size_t r = 0; r < records.size() && r < mapped.lines.size(); ++r) records[r].line = mapped.lines[r];
  return read_records;
}

std::vector<Record> read_mapped_records(const ImportMap& map, const std::string& file, const std::string& item_column) {
  return read_mapped_file(map, file, [&](const std::string& csv) { return loading::read_csv(csv, file, item_column); });
}

}  // namespace judgestat::mapping

namespace judgestat::loading {

std::vector<std::vector<Record>> read_mapped_files(const std::vector<std::string>& paths, const std::string& map,
                                                   const std::string& item_column, std::vector<std::string>& digests) {
  const mapping::ImportMap import_map = mapping::load_import_map(map);
  std::vector<std::vector<Record>> records;
  for (const std::string& path : paths) {
    records.push_back(mapping::read_mapped_records(import_map, path, item_column));
    digests.push_back(sha256_hex(read_bytes(path)));
  }
  return records;
}

NumberedRecords number_mapped_file(const std::string& path, const std::string& map, const std::string& item_column,
                                   std::string& sha256) {
  const mapping::ImportMap import_map = mapping::load_import_map(map);
  NumberedRecords numbered = mapping::read_mapped_file(
      import_map, path, [&](const std::string& csv) { return number_csv(csv, path, item_column); });
  sha256 = sha256_hex(read_bytes(path));
  return numbered;
}

}  // namespace judgestat::loading

namespace judgestat {

std::string mapped_records_csv(const std::string& map_path_or_name, const std::vector<std::string>& files) {
  return mapping::map_files(mapping::load_import_map(map_path_or_name), files).csv;
}

}  // namespace judgestat
