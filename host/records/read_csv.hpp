// CSV records (docs/statistics.md §1): the header names the columns, then one record per row.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "records/csv.hpp"
#include "records/fields.hpp"

namespace judgestat::loading {

/// Reads the records of CSV text: the header names the columns, then one record per row.
class CsvRecordReader {
 public:
  /// Reads and checks the header; `item_column` (when not empty) names a column every record
  /// keeps the text of (RecordView::item_column), which the header must have.
  CsvRecordReader(std::string_view text, const std::string& file, const std::string& item_column = "");

  /// The next record, as views that last until the next call; false at the end of the text.
  /// Throws InputError for a bad row, and at the end when the header was followed by no record.
  bool next(RecordView& record);

  /// The record of a row's fields (`line` names it in messages), as views that last while
  /// `fields` and the reader's current row do: what next() does with each row it reads, for a
  /// caller whose rows are not CSV text (an import map's evaluated fields). Throws InputError.
  void view_row(const std::vector<std::string_view>& fields, int64_t line, RecordView& record);

  /// Bytes of the text read so far.
  size_t position() const { return reader_.position(); }
  /// The p.<label> columns of the header.
  size_t probability_columns() const { return prob_labels_.size(); }

 private:
  CsvReader reader_;
  const std::string& file_;
  std::vector<std::string_view> fields_;  // the current row
  // Per column: its name, its role, and for a p.<label> column the index of the label in
  // prob_labels_ (else -1).
  std::vector<std::string> names_;
  std::vector<Field> roles_;
  std::vector<int> probability_slot_;              // also: a x.<name> column's index in covariate_names_
  std::vector<std::string> prob_labels_;           // the p.<label> columns' labels in header order
  std::vector<double> probs_;                      // the current row's probabilities
  std::vector<std::string> covariate_names_;       // the x.<name> columns' names in header order
  std::vector<std::string_view> covariate_views_;  // the current row's covariate texts
  int item_column_ = -1;                           // index of LoadOptions::item_column's column, -1 when none
  int64_t last_line_ = 0;                          // line of the header or of the last row read
  bool read_a_record_ = false;
};

/// The number of line breaks in `text` (a bound on its records, for reserving).
size_t count_lines(std::string_view text);

/// The records of CSV text. Throws InputError.
std::vector<Record> read_csv(std::string_view text, const std::string& file, const std::string& item_column = "");

}  // namespace judgestat::loading
