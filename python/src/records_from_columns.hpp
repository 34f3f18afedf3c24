// Judgment records from in-memory columns (python/judgestat/_columns.py makes them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat::python {

/// One column: text (a code per row into `texts`, -1 = missing) or numbers (NaN = missing), or
/// a column the loader does not read, passed by name only (`skipped`: no values, so a column of
/// lists or a prompt's text costs nothing). The pointers view numpy arrays the caller keeps
/// alive; strides are in elements.
struct Column {
  std::string name;
  bool skipped = false;
  bool is_text = false;
  const int64_t* codes = nullptr;
  size_t codes_size = 0, codes_stride = 1;
  std::vector<std::string> texts;
  const double* values = nullptr;
  size_t values_size = 0, values_stride = 1;
};

/// One Record per row, each value parsed as the CSV reader parses its text (line = row + 1).
/// InputError naming `source`, the row and the column for bad values or a missing required
/// column; `item_column` (LoadOptions::item_column) is kept per record when not empty.
std::vector<Record> records_from_columns(const std::vector<Column>& columns, size_t rows, const std::string& source,
                                         const std::string& item_column);

}  // namespace judgestat::python
