// Records through an import map (docs/import.md §1.5–§1.7): a row's records (one, or one per
// `each` element), swapped back to canonical labels, in the map's columns; written as CSV by
// `judgestat import`, and handed to the loader as RecordViews of the evaluated texts: the CSV
// reader's column rules applied to them without writing and parsing CSV text (issue 29 item 5).
#include <algorithm>
#include <exception>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "records/input.hpp"
#include "records/mapped_files.hpp"
#include "records/numbering.hpp"
#include "records/read_csv.hpp"
#include "records/sha256.hpp"
#include "sources/import_map.hpp"
#include "support/parallel.hpp"

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

// A mapped record's texts, one per column of the map (views into the writer's values, valid
// until its next record), and the row it came from.
using MappedRow = std::vector<std::string_view>;
using RowSink = std::function<void(const MappedRow& row, const RowPlace& at)>;

class RecordWriter {
 public:
  RecordWriter(const ImportMap& map, RowSink sink)
      : map_(map),
        sink_(std::move(sink)),
        plain_(column_fields(map, false)),
        values_(map.fields.size()),
        row_(map.columns.size()) {
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
    for (size_t c = 0; c < columns.size(); ++c)
      row_[c] = columns[c] < 0 ? std::string_view() : std::string_view(values_[columns[c]]);
    sink_(row_, at);
  }

 private:
  const ImportMap& map_;
  RowSink sink_;
  std::vector<int> plain_, swapped_;
  std::vector<size_t> swap_fields_;
  std::vector<std::string> values_;
  MappedRow row_;
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

void append_row(std::string& csv, const MappedRow& row) {
  for (size_t c = 0; c < row.size(); ++c) {
    if (c > 0) csv.push_back(',');
    csv += csv_field(row[c]);
  }
  csv.push_back('\n');
}

// The record the CSV reader's message "FILE:LINE: …" names by its stand-in LINE, named as
// "PLACE (mapped record N): …" by the place of the row it came from.
std::string relocated(const std::string& message, const std::string& stand_in, const RowPlace& at, size_t record) {
  if (message.compare(0, stand_in.size(), stand_in) != 0) return message;
  return at.place() + " (mapped record " + std::to_string(record + 1) + ")" + message.substr(stand_in.size());
}

// A large JSONL file is mapped on every hardware thread, a window of chunks at a time, and its
// records are taken in file order on the calling thread (issue 29 item 5): the records, their
// numbering and the first error are those of one pass from the top, on any number of threads.
constexpr size_t kChunkBytes = size_t{1} << 20;

// A run of whole lines, mapped on one thread: its records' column texts back to back, and the
// error that stopped it after those records, if any.
struct MappedChunk {
  std::string_view text;
  int64_t first_line = 1, first_row = 0;
  std::string texts;
  std::vector<size_t> text_ends;  // per column of each record
  std::vector<int64_t> lines;     // per record: its row's line
  std::exception_ptr error;
};

// `text` cut after a line end every kChunkBytes or so, each chunk with its first line and row.
std::vector<MappedChunk> jsonl_chunks(const std::string& text) {
  std::vector<MappedChunk> chunks;
  int64_t line = 1, row = 0;
  size_t start = 0;
  for (size_t pos = 0; pos < text.size();) {
    if (chunks.empty() || pos - start >= kChunkBytes) {
      if (!chunks.empty()) chunks.back().text = std::string_view(text).substr(start, pos - start);
      chunks.emplace_back();
      chunks.back().first_line = line;
      chunks.back().first_row = row;
      start = pos;
    }
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    row += text.find_first_not_of(" \t\r", pos) < end;  // as for_each_jsonl_row counts rows
    ++line;
    pos = end + 1;
  }
  if (!chunks.empty()) chunks.back().text = std::string_view(text).substr(start);
  return chunks;
}

void map_chunk(const ImportMap& map, const std::string& file, MappedChunk& chunk) {
  RecordWriter writer(map, [&chunk](const MappedRow& row, const RowPlace& at) {
    for (const std::string_view column : row) {
      chunk.texts.append(column);
      chunk.text_ends.push_back(chunk.texts.size());
    }
    chunk.lines.push_back(at.line);
  });
  try {
    for_each_jsonl_row(chunk.text, file, chunk.first_line, chunk.first_row,
                       [&](const Json&, RowPlace& at) { write_row(map, writer, at); });
  } catch (...) {
    chunk.error = std::current_exception();
  }
}

// The chunk's records to `sink` in order, then its error.
void take_chunk(const MappedChunk& chunk, const std::string& file, size_t columns, const RowSink& sink) {
  MappedRow row(columns);
  RowPlace at;
  at.file = &file;
  size_t begin = 0, end = 0;
  for (size_t record = 0; record < chunk.lines.size(); ++record) {
    for (size_t c = 0; c < columns; ++c, begin = end) {
      end = chunk.text_ends[record * columns + c];
      row[c] = std::string_view(chunk.texts).substr(begin, end - begin);
    }
    at.line = chunk.lines[record];
    sink(row, at);
  }
  if (chunk.error) std::rethrow_exception(chunk.error);
}

// Windows of chunks mapped on every hardware thread while this thread takes the previous
// window's records: memory holds two windows' records at most.
void map_jsonl_in_parallel(const ImportMap& map, const std::string& text, const std::string& file,
                           const RowSink& sink) {
  std::vector<MappedChunk> chunks = jsonl_chunks(text);
  const size_t window = 4 * hardware_threads();
  const auto map_window = [&](size_t first) {
    const size_t last = std::min(chunks.size(), first + window);
    run_in_parts(last - first, [&, first, last](int32_t part, int32_t parts) {
      for (size_t c = first + static_cast<size_t>(part); c < last; c += static_cast<size_t>(parts))
        map_chunk(map, file, chunks[c]);
    });
  };
  map_window(0);
  for (size_t first = 0; first < chunks.size(); first += window) {
    // Declared after `chunks`: its destructor waits for the mapping also when taking throws.
    std::future<void> next;
    if (first + window < chunks.size()) next = std::async(std::launch::async, map_window, first + window);
    for (size_t c = first; c < std::min(chunks.size(), first + window); ++c) {
      take_chunk(chunks[c], file, map.columns.size(), sink);
      chunks[c] = MappedChunk{};  // taken: its texts are freed
    }
    if (next.valid()) next.get();
  }
}

// Each record of `file` through the map, given to `take` as a RecordView placed at its row's
// input line. The file is read once; its SHA-256 is computed beside the mapping into `sha256`.
// The map's columns are the CSV header a CsvRecordReader checks (item_column included), and each
// record's texts are read by it as a CSV row of them would be, so that a mapped file loads as
// its mapped CSV does, message for message.
void view_mapped_file(const ImportMap& map, const std::string& file, const std::string& item_column,
                      std::string& sha256, const std::function<void(const loading::RecordView&)>& take) {
  const std::string text = loading::read_bytes(file);
  // The future's destructor waits for the digest also when mapping throws.
  std::future<std::string> digest = std::async(std::launch::async, [&text] { return sha256_hex(text); });
  std::string header;
  append_csv_row(header, map.columns);
  loading::CsvRecordReader columns(header, file, item_column);
  size_t records = 0;
  loading::RecordView view;
  const RowSink take_row = [&](const MappedRow& row, const RowPlace& at) {
    const int64_t stand_in = static_cast<int64_t>(records) + 2;  // its line in the mapped CSV
    try {
      columns.view_row(row, stand_in, view);
    } catch (const InputError& error) {
      throw InputError(relocated(error.what(), file + ":" + std::to_string(stand_in), at, records));
    }
    view.line = at.line;
    take(view);
    ++records;
  };
  if (map.input == InputKind::kJsonl && text.size() >= 2 * kChunkBytes && hardware_threads() > 1) {
    map_jsonl_in_parallel(map, text, file, take_row);
  } else {
    RecordWriter writer(map, take_row);
    for_each_row_in(text, file, map.input, map.rows, [&](const Json&, RowPlace& at) { write_row(map, writer, at); });
  }
  if (records == 0)
    throw InputError(file + ": no records through " + map.name + " (an empty file, or every row's `each` list empty)");
  sha256 = digest.get();
}

}  // namespace

std::string map_files(const ImportMap& map, const std::vector<std::string>& files) {
  std::string csv;
  append_csv_row(csv, map.columns);
  RecordWriter writer(map, [&](const MappedRow& row, const RowPlace&) { append_row(csv, row); });
  for (const std::string& file : files)
    for_each_row(file, map.input, map.rows, [&](const Json&, RowPlace& at) { write_row(map, writer, at); });
  return csv;
}

std::vector<Record> read_mapped_records(const ImportMap& map, const std::string& file, const std::string& item_column,
                                        std::string& sha256) {
  std::vector<Record> records;
  view_mapped_file(map, file, item_column, sha256,
                   [&](const loading::RecordView& view) { records.push_back(loading::record_of(view)); });
  return records;
}

}  // namespace judgestat::mapping

namespace judgestat::loading {

std::vector<std::vector<Record>> read_mapped_files(const std::vector<std::string>& paths, const std::string& map,
                                                   const std::string& item_column, std::vector<std::string>& digests) {
  const mapping::ImportMap import_map = mapping::load_import_map(map);
  std::vector<std::vector<Record>> records;
  for (const std::string& path : paths) {
    digests.emplace_back();
    records.push_back(mapping::read_mapped_records(import_map, path, item_column, digests.back()));
  }
  return records;
}

NumberedRecords number_mapped_file(const std::string& path, const std::string& map, const std::string& item_column,
                                   std::string& sha256) {
  const mapping::ImportMap import_map = mapping::load_import_map(map);
  NumberedRecords numbered;
  mapping::view_mapped_file(import_map, path, item_column, sha256, [&](const RecordView& view) { numbered.add(view); });
  return numbered;
}

}  // namespace judgestat::loading

namespace judgestat {

std::string mapped_records_csv(const std::string& map_path_or_name, const std::vector<std::string>& files) {
  return mapping::map_files(mapping::load_import_map(map_path_or_name), files);
}

}  // namespace judgestat
