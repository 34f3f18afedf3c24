#include "records/csv.hpp"

#include <cstring>

#include "judgestat/records.hpp"

namespace judgestat {

CsvReader::CsvReader(std::string_view text, std::string file_name) : text_(text), file_name_(std::move(file_name)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

void CsvReader::fail(int64_t line, size_t field, const std::string& what) const {
  std::string column =
      field < column_names_.size() ? "column '" + column_names_[field] + "'" : "field " + std::to_string(field + 1);
  throw InputError(file_name_ + ":" + std::to_string(line) + ": " + column + ": " + what);
}

std::string_view CsvReader::read_quoted_field(size_t field_index, int64_t row_line) {
  const int64_t start_line = line_;
  const size_t size = text_.size();
  const size_t begin = pos_ + 1;  // past the opening quote
  size_t read = begin;
  std::string* unescaped = nullptr;  // only a field with "" needs a copy
  std::string_view field;
  while (true) {
    const size_t quote_at = text_.find('"', read);
    if (quote_at == std::string_view::npos) {
      fail(start_line, field_index,
           "unterminated quoted field (row starting on line " + std::to_string(row_line) +
               "); close it with '\"' and write a quote inside a field as '\"\"'");
    }
    for (size_t k = read; k < quote_at; ++k) line_ += text_[k] == '\n';
    const bool doubled = quote_at + 1 < size && text_[quote_at + 1] == '"';
    if (doubled && unescaped == nullptr) unescaped = &unescaped_.emplace_back();
    if (unescaped != nullptr) unescaped->append(text_.substr(read, quote_at - read));
    if (doubled) {
      unescaped->push_back('"');
      read = quote_at + 2;
      continue;
    }
    field = unescaped != nullptr ? std::string_view(*unescaped) : text_.substr(begin, quote_at - begin);
    pos_ = quote_at + 1;
    break;
  }
  // After the closing quote only a separator or the end of the row may follow.
  if (pos_ < size && text_[pos_] != ',' && text_[pos_] != '\n' &&
      !(text_[pos_] == '\r' && (pos_ + 1 == size || text_[pos_ + 1] == '\n'))) {
    fail(line_, field_index,
         std::string("expected ',' or the end of the row after a closing quote, got '") + text_[pos_] +
             "'; write a quote inside a quoted field as '\"\"'");
  }
  return field;
}

std::string_view CsvReader::read_plain_field() {
  const size_t begin = pos_;
  const size_t size = text_.size();
  while (pos_ < size && text_[pos_] != ',' && text_[pos_] != '\n') ++pos_;
  size_t end = pos_;
  if (end > begin && text_[end - 1] == '\r' && (pos_ == size || text_[pos_] == '\n')) --end;
  return std::string_view(text_.data() + begin, end - begin);
}

bool CsvReader::next_row(std::vector<std::string_view>& fields, int64_t& line) {
  fields.clear();
  unescaped_.clear();
  const size_t size = text_.size();
  // Skip blank lines (LF or CRLF only).
  while (pos_ < size) {
    if (text_[pos_] == '\n') {
      ++pos_;
      ++line_;
    } else if (text_[pos_] == '\r' && pos_ + 1 < size && text_[pos_ + 1] == '\n') {
      pos_ += 2;
      ++line_;
    } else {
      break;
    }
  }
  if (pos_ >= size) return false;
  line = line_;
  while (true) {
    // emplace_back from pointer and size: pushing the returned view spills it to the stack and
    // reloads it as one 16-byte word, a store-forwarding stall that cost more than the scan.
    const std::string_view field = text_[pos_] == '"' ? read_quoted_field(fields.size(), line) : read_plain_field();
    fields.emplace_back(field.data(), field.size());
    if (pos_ >= size) break;
    if (text_[pos_] == ',') {
      ++pos_;
      if (pos_ >= size) {  // a trailing comma at the end of the text: one more, empty field
        fields.emplace_back();
        break;
      }
      continue;
    }
    // End of row: skip the optional CR and the LF.
    if (text_[pos_] == '\r') ++pos_;
    if (pos_ < size && text_[pos_] == '\n') {
      ++pos_;
      ++line_;
    }
    break;
  }
  return true;
}

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += csv_field(fields[i]);
  }
  out.push_back('\n');
}

}  // namespace judgestat
