// RFC 4180 CSV: a tokenizer that reads rows out of an in-memory buffer without allocating per
// field, and the matching writer used by the importers.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace judgestat {

/// Reads rows from `text`: fields separated by commas, optionally double-quoted (a quoted field
/// may hold commas, line breaks and doubled quotes ""), rows ended by LF or CRLF. A leading UTF-8
/// byte-order mark is skipped and so are blank lines. The returned views point into `text`, or,
/// for a quoted field with doubled quotes, into storage that lasts until the next row; `text` is
/// never modified (the loader hashes it concurrently). Malformed quoting throws InputError naming
/// the file, line and column.
class CsvReader {
 public:
  CsvReader(std::string_view text, std::string file_name);

  /// Column names used in error messages once the header is known (field i = names[i]).
  void set_column_names(std::vector<std::string> names) { column_names_ = std::move(names); }

  /// The next non-blank row; false at the end of the text. `line` is the 1-based line on which
  /// the row starts (a quoted line break makes a row span several lines).
  bool next_row(std::vector<std::string_view>& fields, int64_t& line);

  /// Bytes of the text read so far.
  size_t position() const { return pos_; }

 private:
  [[noreturn]] void fail(int64_t line, size_t field, const std::string& what) const;
  std::string_view read_quoted_field(size_t field_index, int64_t row_line);
  std::string_view read_plain_field();

  std::string_view text_;
  std::string file_name_;
  std::vector<std::string> column_names_;
  std::deque<std::string> unescaped_;  // this row's fields that held "" (deque: stable addresses)
  size_t pos_ = 0;
  int64_t line_ = 1;  // line of text_[pos_]
};

/// `field` as a CSV field: quoted (with doubled quotes) when it holds a comma, quote or line break.
std::string csv_field(std::string_view field);

/// Appends the fields as one CSV row ending in "\n".
void append_csv_row(std::string& out, const std::vector<std::string>& fields);

}  // namespace judgestat
