// JSONL records: each line's SAX events straight into a Record.
#include "records/read_jsonl.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/fields.hpp"
#include "records/memory.hpp"
#include "records/progress.hpp"
#include "records/read_csv.hpp"

namespace judgestat::loading {
namespace {

using Json = nlohmann::json;

/// nlohmann's lexer refuses numbers that overflow a double (out_of_range.406); the token and
/// where it ends, to quote it and parse the line again.
struct OverflowingNumber {
  size_t end;
  std::string token;
};

/// Builds one Record from the SAX events of one JSONL line, without building a JSON document.
/// Top-level keys are record fields; "probs" holds a label → probability object; the values of
/// unknown keys are skipped whatever their shape.
class JsonlRecordBuilder final : public nlohmann::json_sax<Json> {
 public:
  JsonlRecordBuilder(Record& record, const std::string& file, int64_t line, const std::string& item_column)
      : record_(record), file_(file), line_(line), item_column_(item_column) {}

  bool null() override { return value(Kind::kNull, {}); }
  bool boolean(bool truth) override { return value(Kind::kBool, truth ? "1" : "0"); }
  bool number_integer(number_integer_t number) override {
    number_text_ = std::to_string(number);
    return value(Kind::kNumber, number_text_);
  }
  bool number_unsigned(number_unsigned_t number) override {
    number_text_ = std::to_string(number);
    return value(Kind::kNumber, number_text_);
  }
  // The number exactly as written, parsed by the same rules as a CSV field.
  bool number_float(number_float_t, const string_t& written) override { return value(Kind::kNumber, written); }
  bool string(string_t& text) override { return value(Kind::kString, text); }
  bool binary(binary_t&) override { return true; }  // not produced by JSON text

  bool start_object(std::size_t) override {
    if (depth_ == 0) {
      // the record itself
    } else if (depth_ == 1 && key_ == "probs") {
      in_probs_ = true;
    } else if (in_scope()) {
      source().fail(std::string("expected ") + expected() + ", got an object");
    }
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1) in_probs_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) not_an_object("an array");
    if (in_scope()) source().fail(std::string("expected ") + expected() + ", got an array");
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& name) override {
    if (depth_ == 1) {
      // CSV rejects a repeated column; a repeated key would silently keep the last value.
      if (std::find(keys_.begin(), keys_.end(), name) != keys_.end())
        loading::fail(file_, line_, name, "the key occurs twice in this object; give each field once");
      keys_.push_back(name);
      key_ = name;
      field_ = key_ == "probs" ? Field::kIgnored : field_of(key_);
    } else if (depth_ == 2 && in_probs_) {
      label_ = name;
      probs_column_ = "probs." + name;
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& error) override {
    // A number past a double's range is still a number (docs/statistics.md §1): read_jsonl
    // reads it again as text, which the field parsers take as ±inf or 0.
    if (error.id == 406) throw OverflowingNumber{position, last_token};
    std::string detail = error.what();
    const size_t cut = detail.find(": ", detail.find("column"));
    if (cut != std::string::npos) detail = detail.substr(cut + 2);
    const std::string hint = !last_token.empty() && last_token.front() == '[' && position <= 2
                                 ? "; a .json file must hold one JSON object per line (JSONL), not an array"
                                 : "; write each record as one JSON object on one line";
    throw InputError(file_ + ":" + std::to_string(line_) + ": column " + std::to_string(position) +
                     ": malformed JSON (" + detail + ")" + hint);
  }

  /// After the line parsed: every required field must have been seen.
  void finish() const {
    for (const char* required : kRequiredColumns) {
      if (!seen_[static_cast<int>(field_of(required))]) {
        fail(file_, line_, required,
             "required field is missing; every line needs \"judge\", \"item\" and \"verdict\" (the "
             "verdict may be null; \"gold\" may be null or left out for an item without gold)");
      }
    }
  }

 private:
  enum class Kind { kNull, kBool, kNumber, kString };

  FieldSource source() const { return FieldSource{file_, line_, in_probs_ ? probs_column_ : key_}; }
  /// Whether the current value is one this reader interprets (not under an unknown key).
  bool in_scope() const {
    return (depth_ == 1 && (field_ != Field::kIgnored || key_ == "probs")) || (depth_ == 2 && in_probs_);
  }
  const char* expected() const {
    if (in_probs_ || field_ == Field::kProbability) return "a probability";
    if (key_ == "probs") return "an object of label probabilities such as {\"A\": 0.9, \"B\": 0.1}";
    return "a string or a number";
  }
  [[noreturn]] void not_an_object(const char* got) const {
    throw InputError(file_ + ":" + std::to_string(line_) +
                     ": column 1: expected a JSON object {\"judge\": …, \"item\": …, \"gold\": …, "
                     "\"verdict\": …} on each line, got " +
                     got);
  }

  bool value(Kind kind, std::string_view text) {
    if (depth_ == 0) not_an_object("a single value");
    if (depth_ == 1 && !item_column_.empty() && key_ == item_column_ && kind != Kind::kBool)
      record_.item_column = std::string(kind == Kind::kNull ? std::string_view() : text);
    if (!in_scope()) return true;
    const FieldSource where = source();
    if (in_probs_ || field_ == Field::kProbability) {
      if (kind == Kind::kBool) {
        where.fail(std::string("expected a probability, got ") + (text == "1" ? "true" : "false"));
      }
      add_probability(in_probs_ ? label_ : key_.substr(2), kind == Kind::kNull ? "" : text, where);
      return true;
    }
    if (key_ == "probs") {
      if (kind == Kind::kNull) return true;
      where.fail(std::string("expected ") + expected() + ", got " + shown_text(text));
    }
    if (field_ == Field::kCovariate) {
      add_covariate(kind == Kind::kNull ? std::string_view() : text, where);
      return true;
    }
    if (field_ <= Field::kVerdict) seen_[static_cast<int>(field_)] = true;
    if (kind == Kind::kNull && field_ <= Field::kItem) {
      where.fail("expected a non-empty value (every record names its judge and item), got null");
    }
    if (kind == Kind::kBool && field_ != Field::kFlag && field_ != Field::kRationaleOk) {
      where.fail(std::string("expected a string or a number, got ") + (text == "1" ? "true" : "false"));
    }
    set_field(record_, field_, text, where);
    return true;
  }

  /// docs/statistics.md §8.3: "x.NAME": a string, number or boolean (kept as written), or null.
  void add_covariate(std::string_view text, const FieldSource& where) {
    if (key_.size() == 2) where.fail("expected a name after 'x.', as in \"x.length\"");
    record_.covariate_names.push_back(key_.substr(2));
    record_.covariate_values.emplace_back(trim(text));
  }

  void add_probability(const std::string& label, std::string_view text, const FieldSource& where) {
    if (label.empty()) where.fail("expected a label, as in 'p.A' or \"probs\": {\"A\": 0.9}");
    if (std::find(record_.prob_labels.begin(), record_.prob_labels.end(), label) != record_.prob_labels.end()) {
      where.fail("the probability of label " + shown_text(label) + " is given twice (as 'p." + label +
                 "' and in 'probs'); give it once");
    }
    record_.prob_labels.push_back(label);
    record_.probs.push_back(parse_probability(text, where, record_.nan_probability));
  }

  Record& record_;
  const std::string& file_;
  int64_t line_;
  int depth_ = 0;
  bool in_probs_ = false;
  std::string key_, label_, number_text_;
  std::vector<std::string> keys_;   // the record's keys so far
  std::string probs_column_;        // "probs.<label>", named in error messages
  const std::string& item_column_;  // LoadOptions::item_column, "" when none
  Field field_ = Field::kIgnored;
  bool seen_[4] = {false, false, false, false};  // judge, item, gold, verdict (Field order)
};

}  // namespace

/// One line into `record`; a number too large or too small for a double is quoted and the line
/// parsed again (each time one more such number).
void parse_line(std::string_view line_text, const std::string& file, int64_t line, const std::string& item_column,
                Record& record) {
  std::string patched;
  for (;;) {
    record = empty_record(line);
    JsonlRecordBuilder builder(record, file, line, item_column);
    try {
      Json::sax_parse(line_text.begin(), line_text.end(), &builder);
    } catch (const OverflowingNumber& number) {
      const size_t start = line_text.rfind(number.token, number.end);
      if (number.token.empty() || start == std::string_view::npos)
        throw InputError(file + ":" + std::to_string(line) + ": column " + std::to_string(number.end) +
                         ": a number does not fit a double; write it within ±1.7e308");
      patched = std::string(line_text.substr(0, start)) + '"' + number.token + '"' +
                std::string(line_text.substr(start + number.token.size()));
      line_text = patched;  // the new text was built from temporaries before it replaced the old
      continue;
    }
    builder.finish();
    return;
  }
}

namespace {

/// Calls `take(line_text, line)` for each non-blank line of JSONL text; InputError when there is none.
template <class Take>
void for_each_line(std::string_view text, const std::string& file, Take take) {
  size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  int64_t line = 0;
  bool any = false;
  while (pos < text.size()) {
    ++line;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line_text = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line_text.empty() && line_text.back() == '\r') line_text.remove_suffix(1);
    if (line_text.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank line
    take(line_text, line, pos);
    any = true;
  }
  if (!any) {
    fail(file, std::max<int64_t>(line, 1), "judge",
         "expected one JSON object per line with judge, item, gold and verdict, got "
         "no records; add records or check that this is the right file");
  }
}

}  // namespace

std::vector<Record> read_jsonl(std::string_view text, const std::string& file, const std::string& item_column) {
  std::vector<Record> records;
  records.reserve(count_lines(text) + 1);
  for_each_line(text, file, [&](std::string_view line_text, int64_t line, size_t) {
    parse_line(line_text, file, line, item_column, records.emplace_back());
  });
  return records;
}

NumberedRecords number_jsonl(std::string_view text, const std::string& file, const std::string& item_column,
                             const MemoryBudget* budget, LoadProgress* progress) {
  const size_t lines = count_lines(text) + 1;
  if (budget != nullptr) check_load_fits(file, text.size(), lines, 0, *budget);
  NumberedRecords numbered;
  numbered.reserve(lines, 0);
  Record record;
  for_each_line(text, file, [&](std::string_view line_text, int64_t line, size_t pos) {
    parse_line(line_text, file, line, item_column, record);
    numbered.add(view_of(record));
    if (progress != nullptr && (numbered.records.size() & 0xFFFF) == 0) progress->parsed(pos);
  });
  return numbered;
}

}  // namespace judgestat::loading
