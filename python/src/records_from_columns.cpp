// Judgment records from in-memory columns (a pandas DataFrame or a dict of numpy arrays, made
// into columns by python/judgestat/_columns.py). Every value is given to the file readers' own
// field parsers (judgestat/record_fields.hpp) as the text it would have in a CSV file, and the
// records go through build_item_matrix, so docs/statistics.md §1's checks and their messages
// are the loader's; `line` is the 1-based row position, which the Python side turns into the
// DataFrame's index label.
#include "records_from_columns.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "judgestat/record_fields.hpp"

namespace judgestat::python {
namespace {

/// The text a CSV file would hold for `value`: empty for NaN, an integral value as its decimal
/// integer (an id or order read by pandas as float because of missing values), else the
/// shortest text that reads back as the same double.
std::string_view number_text(double value, char (&buffer)[64]) {
  if (std::isnan(value)) return {};
  if (value == std::floor(value) && std::fabs(value) < 9.2e18) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int64_t>(value));
    return {buffer, static_cast<size_t>(end - buffer)};
  }
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return {buffer, static_cast<size_t>(end - buffer)};
}

void check_columns(const std::vector<Column>& columns, const std::string& source, size_t rows) {
  std::vector<std::string> names;
  for (const Column& column : columns) {
    names.push_back(column.name);
    if (column.skipped) {
      if (!RecordColumn(column.name).is_ignored()) {
        throw std::invalid_argument("records: column '" + column.name + "' is read by the loader but has no values");
      }
      continue;
    }
    const size_t length = column.is_text ? column.codes_size : column.values_size;
    if (length != rows) {
      throw std::invalid_argument("records: column '" + column.name + "' has " + std::to_string(length) +
                                  " values but the first column has " + std::to_string(rows) +
                                  "; give columns of equal length");
    }
  }
  for (const std::string& required : required_record_columns()) {
    bool found = false;
    std::string listed;
    for (const std::string& name : names) {
      found |= name == required;
      listed += (listed.empty() ? "" : ",") + name;
    }
    if (!found) {
      throw InputError(source + ": column '" + required + "': required column is missing (the columns are " + listed +
                       "); add a '" + required + "' column");
    }
  }
}

}  // namespace

std::vector<Record> records_from_columns(const std::vector<Column>& columns, size_t rows, const std::string& source,
                                         const std::string& item_column) {
  check_columns(columns, source, rows);
  std::vector<RecordColumn> readers;
  std::vector<int> slot;  // probability columns: index into prob_labels, else -1
  std::vector<std::string> prob_labels;
  for (const Column& column : columns) {
    readers.emplace_back(column.name);
    slot.push_back(readers.back().is_probability() ? static_cast<int>(prob_labels.size()) : -1);
    if (slot.back() >= 0) prob_labels.push_back(readers.back().probability_label());
  }
  std::vector<Record> records;
  records.reserve(rows);
  char buffer[64];
  for (size_t r = 0; r < rows; ++r) {
    Record record = default_record(static_cast<int64_t>(r) + 1);
    record.prob_labels = prob_labels;
    record.probs.assign(prob_labels.size(), kMissing);
    for (size_t k = 0; k < columns.size(); ++k) {
      const Column& column = columns[k];
      const RecordColumn& reader = readers[k];
      const bool kept = !item_column.empty() && column.name == item_column;
      if (column.skipped && kept) {
        throw std::invalid_argument("records: column '" + column.name + "' is the item-level column but has no values");
      }
      if ((reader.is_ignored() && !kept) || column.skipped) continue;
      if (reader.is_probability() && !column.is_text) {
        // NaN = not given (an empty field); ±inf stays, and validity makes the record invalid.
        record.probs[slot[k]] = column.values[r * column.values_stride];
        continue;
      }
      std::string_view text;
      if (column.is_text) {
        const int64_t code = column.codes[r * column.codes_stride];
        if (code >= static_cast<int64_t>(column.texts.size())) {
          throw std::invalid_argument("records: column '" + column.name + "' has a code past its texts");
        }
        if (code >= 0) text = column.texts[static_cast<size_t>(code)];
      } else {
        text = number_text(column.values[r * column.values_stride], buffer);
      }
      if (reader.is_probability())
        record.probs[slot[k]] = reader.probability(text, source, record);
      else
        reader.set(record, text, source);
      if (kept) record.item_column.assign(text);
    }
    records.push_back(std::move(record));
  }
  if (!item_column.empty()) {
    bool found = false;
    for (const Column& column : columns) found |= column.name == item_column;
    if (!found) {
      throw InputError(source + ": column '" + item_column +
                       "': the item-level column asked for is missing; add the column or drop the option");
    }
  }
  return records;
}

}  // namespace judgestat::python
