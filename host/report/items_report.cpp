// Writers of the per-item table (judgestat/items.hpp): CSV and JSONL with the same cells.
// Numbers print in their shortest form that reads back exactly (std::to_chars without a
// precision), so 0.5 stays "0.5" for people opening the CSV and every value round-trips.
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/items.hpp"
#include "records/csv.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

void append_shortest(std::string& out, double value) {
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, written.ptr);
}

void append_csv_cell(std::string& out, const ItemsValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) out += csv_field(*text);
  if (const auto* number = std::get_if<double>(&value)) append_shortest(out, *number);
}

// A JSON string; bytes that are not valid UTF-8 become U+FFFD rather than failing the export.
void append_json_string(std::string& out, const std::string& text) {
  out += Json(text).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

void append_json_cell(std::string& out, const ItemsValue& value) {
  if (const auto* text = std::get_if<std::string>(&value))
    append_json_string(out, *text);
  else if (const auto* number = std::get_if<double>(&value))
    append_shortest(out, *number);
  else
    out += "null";
}

void append_csv_header(std::string& out, const std::vector<std::string>& columns) {
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
  out += '\n';
}

void append_csv_row(std::string& out, const std::vector<ItemsValue>& row) {
  for (size_t c = 0; c < row.size(); ++c) {
    if (c) out += ',';
    append_csv_cell(out, row[c]);
  }
  out += '\n';
}

void append_jsonl_row(std::string& out, const std::vector<std::string>& columns, const std::vector<ItemsValue>& row) {
  out += '{';
  for (size_t c = 0; c < row.size(); ++c) {
    if (c) out += ',';
    append_json_string(out, columns[c]);
    out += ':';
    append_json_cell(out, row[c]);
  }
  out += "}\n";
}

// What ItemsTextWriter buffers before handing text on: large enough that the writes are few.
constexpr size_t kEmitBytes = size_t{1} << 20;

}  // namespace

std::string items_csv(const ItemsReport& report) {
  std::string out;
  append_csv_header(out, report.columns);
  for (const auto& row : report.rows) append_csv_row(out, row);
  return out;
}

std::string items_jsonl(const ItemsReport& report) {
  std::string out;
  for (const auto& row : report.rows) append_jsonl_row(out, report.columns, row);
  return out;
}

ItemsTextWriter::ItemsTextWriter(bool jsonl, std::function<void(std::string_view)> emit)
    : jsonl_(jsonl), emit_(std::move(emit)) {}

void ItemsTextWriter::columns(const std::vector<std::string>& names) {
  columns_ = names;
  if (!jsonl_) append_csv_header(buffer_, columns_);
}

void ItemsTextWriter::row(const std::vector<ItemsValue>& values) {
  if (jsonl_)
    append_jsonl_row(buffer_, columns_, values);
  else
    append_csv_row(buffer_, values);
  ++rows_;
  if (buffer_.size() >= kEmitBytes) flush();
}

void ItemsTextWriter::flush() {
  if (!buffer_.empty()) emit_(buffer_);
  buffer_.clear();
}

}  // namespace judgestat
