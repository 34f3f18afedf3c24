// Reading judgment records (SPEC §1) from CSV or JSONL and pivoting them into an ItemMatrix.
//
// Every record passes through a RecordView (its text fields as views) into NumberedRecords, which
// numbers each name on arrival; the pivot then works on numbers. A CSV file is loaded that way
// straight from its bytes, without building Record objects (the large-file path); Records from
// JSONL, merged files or code go through views of their strings, so every check and message of
// the pivot exists once.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "records/csv.hpp"
#include "judgestat/records.hpp"
#include "records/sha256.hpp"

namespace judgestat {
namespace {

constexpr double kProbabilitySumTolerance = 0.025;  // SPEC §1 validity
// Presentation indices are few (two orders of a pair, K rotations); the bound keeps a typo such
// as 1000000 from allocating a dense matrix with a million orders.
constexpr int kMaxOrder = 1023;
constexpr const char* kDefaultBenchmark = "default";
constexpr const char* kDefaultVariant = "plain";
constexpr const char* kRequiredColumns[] = {"judge", "item", "gold", "verdict"};

std::string display_name(const std::string& path) { return path == "-" ? "stdin" : path; }

[[noreturn]] void fail(const std::string& file, int64_t line, std::string_view column,
                       const std::string& what) {
  throw InputError(file + ":" + std::to_string(line) + ": column '" + std::string(column) +
                   "': " + what);
}

/// The offending text for an error message, quoted and shortened.
std::string shown_text(std::string_view text) {
  constexpr size_t kShown = 60;
  if (text.size() > kShown) return "\"" + std::string(text.substr(0, kShown)) + "…\"";
  return "\"" + std::string(text) + "\"";
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// A whole-field decimal number (from_chars also accepts nan and inf, which validity handles).
bool parse_double(std::string_view text, double& out) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string join(const std::vector<std::string>& names, const char* separator) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined += separator;
    joined += names[i];
  }
  return joined;
}

// ---------------------------------------------------------------------------------------------
// Fields of a record, shared by the CSV and JSONL readers.

enum class Field : uint8_t {
  kJudge, kItem, kGold, kVerdict, kCluster, kBenchmark, kCondition, kOrder, kVariant,
  kRationaleOk, kFee, kLatency, kFlag, kProbability, kIgnored
};

Field field_of(std::string_view name) {
  static const std::unordered_map<std::string_view, Field> kFields = {
      {"judge", Field::kJudge},         {"item", Field::kItem},
      {"gold", Field::kGold},           {"verdict", Field::kVerdict},
      {"cluster", Field::kCluster},     {"benchmark", Field::kBenchmark},
      {"condition", Field::kCondition}, {"order", Field::kOrder},
      {"variant", Field::kVariant},     {"rationale_ok", Field::kRationaleOk},
      {"fee_usd", Field::kFee},         {"latency_s", Field::kLatency},
      {"flag", Field::kFlag}};
  if (name.size() >= 2 && name.compare(0, 2, "p.") == 0) return Field::kProbability;
  auto found = kFields.find(name);
  return found == kFields.end() ? Field::kIgnored : found->second;
}

/// Where a value came from, for error messages.
struct FieldSource {
  const std::string& file;
  int64_t line;
  std::string_view column;
  [[noreturn]] void fail(const std::string& what) const {
    judgestat::fail(file, line, column, what);
  }
};

/// One record's values with its text fields as views: into the file bytes while a CSV row is
/// read, or into a Record. The members and defaults mirror Record's (SPEC §1).
struct RecordView {
  std::string_view judge, item, gold, verdict, cluster;
  std::string_view benchmark = kDefaultBenchmark, condition, variant = kDefaultVariant;
  int order = 0;
  bool verdict_given = false;
  const std::vector<std::string>* prob_labels = nullptr;  // set by whoever fills the view
  const double* probs = nullptr;                          // prob_labels->size() values
  bool nan_probability = false;
  double rationale_ok = kMissing, fee_usd = kMissing, latency_s = kMissing;
  int flag = 0;
  int64_t line = 0;
};

std::string_view cluster_of(const RecordView& record) {
  return record.cluster.empty() ? record.item : record.cluster;
}
std::string_view benchmark_of(const RecordView& record) {
  return record.benchmark.empty() ? std::string_view(kDefaultBenchmark) : record.benchmark;
}
std::string_view variant_of(const RecordView& record) {
  return record.variant.empty() ? std::string_view(kDefaultVariant) : record.variant;
}

// The members a Record and a RecordView share (texts as strings or as views).
template <typename To, typename From>
void copy_shared_members(To& to, const From& from) {
  to.judge = from.judge;
  to.item = from.item;
  to.gold = from.gold;
  to.verdict = from.verdict;
  to.cluster = from.cluster;
  to.benchmark = from.benchmark;
  to.condition = from.condition;
  to.variant = from.variant;
  to.order = from.order;
  to.verdict_given = from.verdict_given;
  to.nan_probability = from.nan_probability;
  to.rationale_ok = from.rationale_ok;
  to.fee_usd = from.fee_usd;
  to.latency_s = from.latency_s;
  to.flag = from.flag;
  to.line = from.line;
}

RecordView view_of(const Record& record) {
  RecordView view;
  copy_shared_members(view, record);
  view.prob_labels = &record.prob_labels;
  view.probs = record.probs.data();
  return view;
}

Record record_of(const RecordView& view) {
  Record record;
  copy_shared_members(record, view);
  record.prob_labels = *view.prob_labels;
  record.probs.assign(view.probs, view.probs + view.prob_labels->size());
  return record;
}

/// `nan_probability` is set when the text is NaN.
double parse_probability(std::string_view text, const FieldSource& source, bool& nan_probability) {
  const std::string_view number = trim(text);
  if (number.empty()) return kMissing;
  double value;
  if (!parse_double(number, value)) {
    source.fail("expected a probability (a number in [0,1]) or an empty field, got " +
                shown_text(text));
  }
  // NaN is the judge's invalid output, not bad input; remember it apart from "not given".
  if (std::isnan(value)) nan_probability = true;
  return value;
}

/// 0 or 1 (flag, rationale_ok); `empty_value` when the field is empty.
double parse_binary(std::string_view text, const FieldSource& source, double empty_value) {
  const std::string_view number = trim(text);
  if (number.empty()) return empty_value;
  double value;
  if (!parse_double(number, value) || (value != 0.0 && value != 1.0)) {
    source.fail("expected 1 or 0 (or an empty field), got " + shown_text(text));
  }
  return value;
}

double parse_non_negative(std::string_view text, const FieldSource& source) {
  const std::string_view number = trim(text);
  if (number.empty()) return kMissing;
  double value;
  if (!parse_double(number, value) || !std::isfinite(value) || value < 0) {
    source.fail("expected a non-negative number (or an empty field), got " + shown_text(text));
  }
  return value;
}

int parse_order(std::string_view text, const FieldSource& source) {
  std::string_view digits = trim(text);
  if (digits.empty()) return 0;
  int64_t value = -1;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) {
    source.fail("expected a non-negative integer, got " + shown_text(text));
  }
  if (value > kMaxOrder) {
    source.fail("expected a presentation index from 0 to " + std::to_string(kMaxOrder) +
                ", got " + shown_text(text));
  }
  return static_cast<int>(value);
}

// A Record keeps copies of its texts, a RecordView views them.
void store(std::string& target, std::string_view text) { target.assign(text); }
void store(std::string_view& target, std::string_view text) { target = text; }

/// Stores one text value of a named field in a Record or RecordView. Probabilities are handled
/// by the callers, which know the label.
template <class AnyRecord>
void set_field(AnyRecord& record, Field field, std::string_view text, const FieldSource& source) {
  switch (field) {
    case Field::kJudge:
    case Field::kItem:
    case Field::kGold: {
      if (text.empty()) {
        source.fail("expected a non-empty value (every record names its judge, item and gold "
                    "label), got an empty field");
      }
      auto& target = field == Field::kJudge  ? record.judge
                     : field == Field::kItem ? record.item
                                             : record.gold;
      store(target, text);
      break;
    }
    case Field::kVerdict:
      // SPEC §1: an empty or "null" verdict is given but invalid.
      record.verdict_given = !(text.empty() || text == "null");
      store(record.verdict, record.verdict_given ? text : std::string_view());
      break;
    case Field::kCluster: store(record.cluster, text); break;
    case Field::kBenchmark:
      store(record.benchmark, text.empty() ? std::string_view(kDefaultBenchmark) : text);
      break;
    case Field::kCondition: store(record.condition, text); break;
    case Field::kOrder: record.order = parse_order(text, source); break;
    case Field::kVariant:
      store(record.variant, text.empty() ? std::string_view(kDefaultVariant) : text);
      break;
    case Field::kRationaleOk: record.rationale_ok = parse_binary(text, source, kMissing); break;
    case Field::kFee: record.fee_usd = parse_non_negative(text, source); break;
    case Field::kLatency: record.latency_s = parse_non_negative(text, source); break;
    case Field::kFlag: record.flag = static_cast<int>(parse_binary(text, source, 0.0)); break;
    case Field::kProbability:
    case Field::kIgnored: break;
  }
}

Record empty_record(int64_t line) {
  Record record;
  record.benchmark = kDefaultBenchmark;
  record.variant = kDefaultVariant;
  record.line = line;
  return record;
}

// ---------------------------------------------------------------------------------------------
// CSV

/// Reads the records of CSV text: the header names the columns, then one record per row.
class CsvRecordReader {
 public:
  /// Reads and checks the header.
  CsvRecordReader(std::string_view text, const std::string& file);

  /// The next record, as views that last until the next call; false at the end of the text.
  /// Throws InputError for a bad row, and at the end when the header was followed by no record.
  bool next(RecordView& record);

 private:
  CsvReader reader_;
  const std::string& file_;
  std::vector<std::string_view> fields_;  // the current row
  // Per column: its name, its role, and for a p.<label> column the index of the label in
  // prob_labels_ (else -1).
  std::vector<std::string> names_;
  std::vector<Field> roles_;
  std::vector<int> probability_slot_;
  std::vector<std::string> prob_labels_;  // the p.<label> columns' labels in header order
  std::vector<double> probs_;             // the current row's probabilities
  int64_t last_line_ = 0;                 // line of the header or of the last row read
  bool read_a_record_ = false;
};

CsvRecordReader::CsvRecordReader(std::string_view text, const std::string& file)
    : reader_(text, file), file_(file) {
  int64_t line = 0;
  if (!reader_.next_row(fields_, line)) {
    fail(file, 1, "judge",
         "expected a header row (judge,item,gold,verdict,…) followed by one record per line, "
         "got an empty file; write the header and the records");
  }
  // Header: the role of every column; the p.<label> columns in header order.
  for (std::string_view raw_name : fields_) {
    std::string name(trim(raw_name));
    Field role = field_of(name);
    if (role != Field::kIgnored &&
        std::find(names_.begin(), names_.end(), name) != names_.end()) {
      fail(file, line, name, "appears twice in the header; keep one of the two columns");
    }
    probability_slot_.push_back(-1);
    if (role == Field::kProbability) {
      if (name.size() == 2) fail(file, line, name, "expected a label after 'p.', as in 'p.A'");
      probability_slot_.back() = static_cast<int>(prob_labels_.size());
      prob_labels_.push_back(name.substr(2));
    }
    names_.push_back(std::move(name));
    roles_.push_back(role);
  }
  for (const char* required : kRequiredColumns) {
    if (std::find(names_.begin(), names_.end(), required) == names_.end()) {
      fail(file, line, required,
           "required column is missing (the header names " + join(names_, ",") + "); add a '" +
               required + "' column");
    }
  }
  reader_.set_column_names(names_);
  probs_.resize(prob_labels_.size());
  last_line_ = line;
}

bool CsvRecordReader::next(RecordView& record) {
  int64_t line = 0;
  if (!reader_.next_row(fields_, line)) {
    if (!read_a_record_) {
      fail(file_, last_line_ + 1, "judge",
           "expected a record after the header, got the end of the file; add one record per "
           "line");
    }
    return false;
  }
  last_line_ = line;
  if (fields_.size() != names_.size()) {
    const std::string counts = "expected " + std::to_string(names_.size()) +
                               " fields as in the header, got " + std::to_string(fields_.size());
    if (fields_.size() < names_.size()) {
      fail(file_, line, names_[fields_.size()],
           counts + " (the row ends before this column); fill in the missing fields");
    }
    throw InputError(file_ + ":" + std::to_string(line) + ": column " +
                     std::to_string(names_.size() + 1) + " (after the last column '" +
                     names_.back() + "'): " + counts +
                     "; quote fields that contain commas or remove the extra fields");
  }
  record = RecordView{};
  record.line = line;
  std::fill(probs_.begin(), probs_.end(), kMissing);
  record.prob_labels = &prob_labels_;
  record.probs = probs_.data();
  for (size_t k = 0; k < fields_.size(); ++k) {
    if (roles_[k] == Field::kIgnored) continue;
    const FieldSource source{file_, line, names_[k]};
    if (roles_[k] == Field::kProbability) {
      probs_[probability_slot_[k]] = parse_probability(fields_[k], source, record.nan_probability);
    } else {
      set_field(record, roles_[k], fields_[k], source);
    }
  }
  read_a_record_ = true;
  return true;
}

size_t count_lines(std::string_view text) {
  // memchr skips to each line break many bytes at a time.
  size_t lines = 0;
  const char* at = text.data();
  const char* const end = at + text.size();
  while ((at = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at))))) {
    ++lines;
    ++at;
  }
  return lines;
}

std::vector<Record> read_csv(std::string_view text, const std::string& file) {
  CsvRecordReader reader(text, file);
  std::vector<Record> records;
  records.reserve(count_lines(text));
  RecordView record;
  while (reader.next(record)) records.push_back(record_of(record));
  return records;
}

// ---------------------------------------------------------------------------------------------
// JSONL

using Json = nlohmann::json;

/// Builds one Record from the SAX events of one JSONL line, without building a JSON document.
/// Top-level keys are record fields; "probs" holds a label → probability object; the values of
/// unknown keys are skipped whatever their shape.
class JsonlRecordBuilder final : public nlohmann::json_sax<Json> {
 public:
  JsonlRecordBuilder(Record& record, const std::string& file, int64_t line)
      : record_(record), file_(file), line_(line) {}

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
  bool number_float(number_float_t, const string_t& written) override {
    return value(Kind::kNumber, written);
  }
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
    std::string detail = error.what();
    const size_t cut = detail.find(": ", detail.find("column"));
    if (cut != std::string::npos) detail = detail.substr(cut + 2);
    const std::string hint =
        !last_token.empty() && last_token.front() == '[' && position <= 2
            ? "; a .json file must hold one JSON object per line (JSONL), not an array"
            : "; write each record as one JSON object on one line";
    throw InputError(file_ + ":" + std::to_string(line_) + ": column " + std::to_string(position) +
                     ": malformed JSON (" + detail + ")" + hint);
  }

  /// After the line parsed: every required field must have been seen.
  void finish() const {
    for (int k = 0; k < 4; ++k) {
      if (!seen_[k]) {
        fail(file_, line_, kRequiredColumns[k],
             "required field is missing; every line needs \"judge\", \"item\", \"gold\" and "
             "\"verdict\" (the verdict may be null)");
      }
    }
  }

 private:
  enum class Kind { kNull, kBool, kNumber, kString };

  FieldSource source() const {
    return FieldSource{file_, line_, in_probs_ ? probs_column_ : key_};
  }
  /// Whether the current value is one this reader interprets (not under an unknown key).
  bool in_scope() const {
    return (depth_ == 1 && (field_ != Field::kIgnored || key_ == "probs")) ||
           (depth_ == 2 && in_probs_);
  }
  const char* expected() const {
    if (in_probs_ || field_ == Field::kProbability) return "a probability";
    if (key_ == "probs") return "an object of label probabilities such as {\"A\": 0.9, \"B\": 0.1}";
    return "a string or a number";
  }
  [[noreturn]] void not_an_object(const char* got) const {
    throw InputError(file_ + ":" + std::to_string(line_) +
                     ": column 1: expected a JSON object {\"judge\": …, \"item\": …, \"gold\": …, "
                     "\"verdict\": …} on each line, got " + got);
  }

  bool value(Kind kind, std::string_view text) {
    if (depth_ == 0) not_an_object("a single value");
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
    if (field_ <= Field::kVerdict) seen_[static_cast<int>(field_)] = true;
    if (kind == Kind::kNull && field_ <= Field::kGold) {
      where.fail("expected a non-empty value (every record names its judge, item and gold "
                 "label), got null");
    }
    if (kind == Kind::kBool && field_ != Field::kFlag && field_ != Field::kRationaleOk) {
      where.fail(std::string("expected a string or a number, got ") +
                 (text == "1" ? "true" : "false"));
    }
    set_field(record_, field_, text, where);
    return true;
  }

  void add_probability(const std::string& label, std::string_view text, const FieldSource& where) {
    if (label.empty()) where.fail("expected a label, as in 'p.A' or \"probs\": {\"A\": 0.9}");
    if (std::find(record_.prob_labels.begin(), record_.prob_labels.end(), label) !=
        record_.prob_labels.end()) {
      where.fail("the probability of label " + shown_text(label) + " is given twice (as 'p." +
                 label + "' and in 'probs'); give it once");
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
  std::string probs_column_;  // "probs.<label>", named in error messages
  Field field_ = Field::kIgnored;
  bool seen_[4] = {false, false, false, false};  // the required fields, kRequiredColumns order
};

std::vector<Record> read_jsonl(std::string_view text, const std::string& file) {
  std::vector<Record> records;
  records.reserve(count_lines(text) + 1);
  size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  int64_t line = 0;
  while (pos < text.size()) {
    ++line;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line_text = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line_text.empty() && line_text.back() == '\r') line_text.remove_suffix(1);
    if (line_text.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank line

    records.push_back(empty_record(line));
    JsonlRecordBuilder builder(records.back(), file, line);
    Json::sax_parse(line_text.begin(), line_text.end(), &builder);
    builder.finish();
  }
  if (records.empty()) {
    fail(file, std::max<int64_t>(line, 1), "judge",
         "expected one JSON object per line with judge, item, gold and verdict, got "
         "no records; add records or check that this is the right file");
  }
  return records;
}

// ---------------------------------------------------------------------------------------------
// Input bytes and format

enum class Format { kCsv, kJsonl };

Format format_of(const std::string& path) {
  if (path == "-") return Format::kCsv;
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  std::string extension;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    extension = path.substr(dot);
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (extension == ".csv") return Format::kCsv;
  if (extension == ".jsonl" || extension == ".json") return Format::kJsonl;
  throw InputError(path + ": unknown file type" +
                   (extension.empty() ? std::string(" (no extension)") : " '" + extension + "'") +
                   ": expected a .csv, .jsonl or .json file, or - for CSV on stdin; rename the "
                   "file to say its format");
}

std::string read_bytes(const std::string& path) {
  std::string bytes;
  if (path == "-") {
    char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) bytes.append(chunk, got);
    if (std::ferror(stdin)) throw InputError("stdin: read error: " + std::string(std::strerror(errno)));
    return bytes;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  in.seekg(0);
  bytes.resize(static_cast<size_t>(std::max<std::streamoff>(size, 0)));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw InputError(path + ": read error: " + std::strerror(errno));
  }
  return bytes;
}

/// The bytes of `path` given to `parse(text, file name)`; the SHA-256 of the bytes, when asked
/// for, is computed beside the parse (neither modifies the bytes).
template <class Parse>
auto parse_file(const std::string& path, std::string* sha256_out, Parse parse) {
  const std::string bytes = read_bytes(path);
  // The future's destructor waits for the digest also when parsing throws.
  std::future<std::string> digest;
  if (sha256_out != nullptr) {
    digest = std::async(std::launch::async, [&bytes] { return sha256_hex(bytes); });
  }
  auto parsed = parse(std::string_view(bytes), display_name(path));
  if (sha256_out != nullptr) *sha256_out = digest.get();
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Numbering

/// Equal texts. Names are short, and comparing them in line is quicker than calling memcmp,
/// which the numbering below would do several times per record.
bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

/// Numbers texts by first appearance. It keeps its own copies, so a text need only last for the
/// call that numbers it.
class Numbering {
 public:
  Numbering() = default;
  // Moving keeps the deque's strings in place, and so the views of them; a copy would not.
  Numbering(Numbering&&) = default;
  Numbering& operator=(Numbering&&) = default;
  Numbering(const Numbering&) = delete;
  Numbering& operator=(const Numbering&) = delete;

  int32_t id(std::string_view text) {
    // Consecutive records mostly repeat a name (one judge's rows, the orders of one item).
    if (last_ >= 0 && same_text(text, views_[last_])) return last_;
    return last_ = look_up(text);
  }
  const std::string& name(int32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }
  std::vector<std::string> names() const { return {names_.begin(), names_.end()}; }

 private:
  /// The number of `text`, numbering it when new.
  int32_t look_up(std::string_view text) {
    if (views_.size() <= kFewNames) {
      // Labels, judges, benchmarks: comparing with each name beats hashing.
      for (size_t k = 0; k < views_.size(); ++k) {
        if (same_text(text, views_[k])) return static_cast<int32_t>(k);
      }
    } else {
      auto found = ids_.find(text);
      if (found != ids_.end()) return found->second;
    }
    const auto id = static_cast<int32_t>(names_.size());
    views_.push_back(names_.emplace_back(text));
    ids_.emplace(views_.back(), id);
    return id;
  }

  static constexpr size_t kFewNames = 8;
  std::deque<std::string> names_;        // a deque keeps the strings in place for the views
  std::vector<std::string_view> views_;  // names_, for quick comparison
  std::unordered_map<std::string_view, int32_t> ids_;
  int32_t last_ = -1;
};

/// A record with its texts replaced by their numbers in NumberedRecords.
struct NumberedRecord {
  int32_t judge, item, variant, cluster, benchmark, condition, gold;
  int32_t verdict;      // -1 when no verdict was given
  int32_t prob_labels;  // the record's list of probability labels
  int32_t order;        // as given; the pivot checks the range
  size_t first_prob;    // the record's probabilities: probs[first_prob …], one per label
  bool nan_probability;
  int flag;
  double rationale_ok, fee_usd, latency_s;
  int64_t line;
};

/// Records with their texts numbered by first appearance, in the order they were added: what the
/// pivot reads. Clusters, benchmarks and variants are numbered after their defaults are applied
/// (cluster_of, benchmark_of, variant_of).
struct NumberedRecords {
  Numbering judges, items, variants, clusters, benchmarks, conditions, golds, verdicts;
  std::vector<std::vector<std::string>> prob_label_lists;  // distinct lists, first appearance
  std::vector<double> probs;
  std::vector<NumberedRecord> records;

  void add(const RecordView& view) {
    NumberedRecord record;
    record.judge = judges.id(view.judge);
    record.item = items.id(view.item);
    record.variant = variants.id(variant_of(view));
    record.cluster = clusters.id(cluster_of(view));
    record.benchmark = benchmarks.id(benchmark_of(view));
    record.condition = conditions.id(view.condition);
    record.gold = golds.id(view.gold);
    record.verdict = view.verdict_given ? verdicts.id(view.verdict) : -1;
    record.prob_labels = prob_label_list_id(*view.prob_labels);
    record.order = view.order;
    record.first_prob = probs.size();
    probs.insert(probs.end(), view.probs, view.probs + view.prob_labels->size());
    record.nan_probability = view.nan_probability;
    record.flag = view.flag;
    record.rationale_ok = view.rationale_ok;
    record.fee_usd = view.fee_usd;
    record.latency_s = view.latency_s;
    record.line = view.line;
    records.push_back(record);
  }

 private:
  int32_t prob_label_list_id(const std::vector<std::string>& labels) {
    // A CSV file has one list; JSONL records mostly repeat the previous record's.
    if (last_list_ >= 0 && prob_label_lists[last_list_] == labels) return last_list_;
    auto [found, inserted] =
        list_ids_.try_emplace(labels, static_cast<int32_t>(prob_label_lists.size()));
    if (inserted) prob_label_lists.push_back(labels);
    return last_list_ = found->second;
  }

  std::map<std::vector<std::string>, int32_t> list_ids_;
  int32_t last_list_ = -1;
};

NumberedRecords number_csv(std::string_view text, const std::string& file) {
  CsvRecordReader reader(text, file);
  NumberedRecords numbered;
  numbered.records.reserve(count_lines(text));
  RecordView record;
  while (reader.next(record)) numbered.add(record);
  return numbered;
}

NumberedRecords number_records(const std::vector<Record>& records) {
  NumberedRecords numbered;
  numbered.records.reserve(records.size());
  for (const Record& record : records) numbered.add(view_of(record));
  return numbered;
}

// ---------------------------------------------------------------------------------------------
// Pivot

/// What a verdict text means in the label set.
struct VerdictMeaning {
  int32_t label;  // label index, or -1 outside the label set
  bool tie;       // the text is "tie"
};

/// SPEC §1 validity. `probs` are the record's probabilities, `slots[k]` the label index of the
/// k-th (-1: outside the label set, which only happens for probabilities that were not given);
/// `verdict` is null when no verdict was given.
int16_t verdict_code(const NumberedRecord& record, const double* probs,
                     const std::vector<int32_t>& slots, const VerdictMeaning* verdict,
                     size_t n_labels) {
  bool any_probability = false;
  double sum = 0.0, top = -1.0;
  for (size_t k = 0; k < slots.size(); ++k) {
    const double p = probs[k];
    if (std::isnan(p)) continue;  // not given (a given NaN is flagged below)
    if (!std::isfinite(p) || p < 0.0 || p > 1.0) return kInvalid;
    any_probability = true;
    sum += p;
    top = std::max(top, p);
  }
  if (record.nan_probability) return kInvalid;
  if (any_probability && std::fabs(sum - 1.0) > kProbabilitySumTolerance) return kInvalid;
  if (verdict == nullptr) return kInvalid;
  if (verdict->label >= 0) {
    if (any_probability) {
      // The verdict must be a highest-probability label, so its probability must be given.
      bool verdict_is_top = false;
      for (size_t k = 0; k < slots.size(); ++k) {
        if (slots[k] == verdict->label) verdict_is_top = probs[k] == top;
      }
      if (!verdict_is_top) return kInvalid;
    }
    return static_cast<int16_t>(verdict->label);
  }
  // JudgeBench's "tie" on a pair: valid when nothing contradicts it (no probabilities, or the
  // top probability is shared).
  if (verdict->tie && n_labels == 2) {
    if (!any_probability) return kTie;
    int at_top = 0;
    for (size_t k = 0; k < slots.size(); ++k) at_top += (probs[k] == top);
    return at_top >= 2 ? kTie : kInvalid;
  }
  return kInvalid;
}

/// Applies SPEC §1's consistency checks and validity rule to numbered records and pivots them.
ItemMatrix pivot(const NumberedRecords& numbered, const std::string& path,
                 const LoadOptions& options) {
  const std::string file = display_name(path);
  const std::vector<NumberedRecord>& records = numbered.records;
  if (records.empty()) {
    throw InputError(file + ": no records; give a file with at least one record");
  }
  ItemMatrix m;
  m.path = path;
  m.records = static_cast<int64_t>(records.size());

  // Label set: --labels, else probability labels (first appearance) then gold labels.
  std::unordered_map<std::string, int32_t> label_ids;
  auto add_label = [&](const std::string& label) {
    if (label_ids.try_emplace(label, static_cast<int32_t>(m.labels.size())).second) {
      m.labels.push_back(label);
    }
  };
  const bool explicit_labels = !options.labels.empty();
  if (explicit_labels) {
    for (const std::string& label : options.labels) {
      if (label.empty()) throw UsageError("--labels holds an empty label; list labels like A,B");
      if (label_ids.count(label)) {
        throw UsageError("--labels names '" + label + "' twice; list each label once");
      }
      add_label(label);
    }
  } else {
    // Distinct lists and golds in order of first appearance add the labels in the order that
    // going through the records would.
    for (const auto& labels : numbered.prob_label_lists) {
      for (const std::string& label : labels) add_label(label);
    }
    for (size_t g = 0; g < numbered.golds.size(); ++g) add_label(numbered.golds.name(g));
  }
  if (m.labels.size() > static_cast<size_t>(INT16_MAX)) {
    throw InputError(file + ": column 'gold': expected at most " + std::to_string(INT16_MAX) +
                     " labels, got " + std::to_string(m.labels.size()));
  }
  auto label_of = [&](const std::string& text) {
    auto found = label_ids.find(text);
    return found == label_ids.end() ? -1 : found->second;
  };
  // Label indices once per distinct text and label list, not per record.
  std::vector<int32_t> gold_label(numbered.golds.size());
  for (size_t g = 0; g < gold_label.size(); ++g) gold_label[g] = label_of(numbered.golds.name(g));
  std::vector<VerdictMeaning> verdict_meaning(numbered.verdicts.size());
  for (size_t v = 0; v < verdict_meaning.size(); ++v) {
    const std::string& text = numbered.verdicts.name(v);
    verdict_meaning[v] = {label_of(text), text == "tie"};
  }
  std::vector<std::vector<int32_t>> slots_of_list;  // label index of each listed label, or -1
  for (const auto& labels : numbered.prob_label_lists) {
    std::vector<int32_t>& slots = slots_of_list.emplace_back();
    for (const std::string& label : labels) slots.push_back(label_of(label));
  }

  // Pass 1: the items' own columns; item-level columns must agree between the records of an
  // item.
  std::vector<size_t> first_record_of_item;
  int max_order = 0;
  for (const NumberedRecord& record : records) {
    if (record.order < 0 || record.order > kMaxOrder) {
      fail(file, record.line, "order",
           "expected a presentation index from 0 to " + std::to_string(kMaxOrder) + ", got " +
               std::to_string(record.order));
    }
    max_order = std::max(max_order, record.order);

    if (record.item == static_cast<int32_t>(first_record_of_item.size())) {  // first record
      if (gold_label[record.gold] < 0) {
        fail(file, record.line, "gold",
             "expected one of the --labels (" + join(m.labels, ",") + "), got " +
                 shown_text(numbered.golds.name(record.gold)) +
                 "; add it to --labels or correct the gold label");
      }
      first_record_of_item.push_back(static_cast<size_t>(&record - records.data()));
      m.gold.push_back(gold_label[record.gold]);
      m.item_cluster.push_back(record.cluster);
      m.item_benchmark.push_back(record.benchmark);
      m.item_condition.push_back(record.condition);
      m.item_flag.push_back(0);
    } else {
      // gold and cluster are item-level by SPEC §1; benchmark and condition describe the item
      // too (subset filters select items), so they must agree as well.
      const NumberedRecord& first = records[first_record_of_item[record.item]];
      auto check_same = [&](const char* column, const Numbering& texts, int32_t here,
                            int32_t there) {
        if (here == there) return;
        fail(file, record.line, column,
             "item " + shown_text(numbered.items.name(record.item)) + " has " + column + " " +
                 shown_text(texts.name(here)) + " here but " + shown_text(texts.name(there)) +
                 " on line " + std::to_string(first.line) +
                 "; every record of an item must carry the same " + column +
                 ", so correct one of the two lines");
      };
      check_same("gold", numbered.golds, record.gold, first.gold);
      check_same("cluster", numbered.clusters, record.cluster, first.cluster);
      check_same("benchmark", numbered.benchmarks, record.benchmark, first.benchmark);
      check_same("condition", numbered.conditions, record.condition, first.condition);
    }
    if (explicit_labels) {
      const std::vector<std::string>& labels = numbered.prob_label_lists[record.prob_labels];
      const std::vector<int32_t>& slots = slots_of_list[record.prob_labels];
      const double* probs = numbered.probs.data() + record.first_prob;
      for (size_t k = 0; k < labels.size(); ++k) {
        if (slots[k] < 0 && (!std::isnan(probs[k]) || record.nan_probability)) {
          fail(file, record.line, "p." + labels[k],
               "expected probabilities for the --labels (" + join(m.labels, ",") +
                   ") only, got one for " + shown_text(labels[k]) +
                   "; add it to --labels or drop the column");
        }
      }
    }
  }
  // Every record agreed with its item's first record, so the numbering of all records gives
  // clusters, benchmarks and conditions in the order the items' first records name them.
  m.judges = numbered.judges.names();
  m.items = numbered.items.names();
  m.variants = numbered.variants.names();
  m.clusters = numbered.clusters.names();
  m.benchmarks = numbered.benchmarks.names();
  m.conditions = numbered.conditions.names();
  m.orders = max_order + 1;

  const size_t n_cells = static_cast<size_t>(m.judges.size()) * m.items.size() *
                         static_cast<size_t>(m.orders) * m.variants.size();
  const size_t n_labels = m.labels.size();
  m.verdict.assign(n_cells, kAbsent);
  m.line.assign(n_cells, 0);
  m.prob.assign(n_cells * n_labels, kMissing);
  m.fee.assign(n_cells, kMissing);
  m.latency.assign(n_cells, kMissing);
  m.rationale_ok.assign(n_cells, kMissing);

  // Pass 2: fill the cells, rejecting a second record for one cell, and apply validity.
  for (const NumberedRecord& record : records) {
    const size_t c = m.cell(record.judge, record.item, record.order, record.variant);
    if (m.verdict[c] != kAbsent) {
      throw InputError(
          file + ":" + std::to_string(record.line) + ": columns 'judge','item','order','variant': " +
          "judge " + shown_text(numbered.judges.name(record.judge)) + ", item " +
          shown_text(numbered.items.name(record.item)) + ", order " +
          std::to_string(record.order) + ", variant " +
          shown_text(numbered.variants.name(record.variant)) + " already occurs on line " +
          std::to_string(m.line[c]) +
          "; each (judge, item, order, variant) may occur once, so remove or renumber one");
    }
    const std::vector<int32_t>& slots = slots_of_list[record.prob_labels];
    const double* probs = numbered.probs.data() + record.first_prob;
    m.verdict[c] = verdict_code(record, probs, slots,
                                record.verdict >= 0 ? &verdict_meaning[record.verdict] : nullptr,
                                n_labels);
    if (m.verdict[c] == kInvalid) ++m.invalid;
    m.line[c] = record.line;
    for (size_t k = 0; k < slots.size(); ++k) {
      if (std::isnan(probs[k]) && !record.nan_probability) continue;
      m.has_probs = true;
      if (slots[k] >= 0) m.prob[c * n_labels + slots[k]] = probs[k];
    }
    if (record.nan_probability) m.has_probs = true;
    m.fee[c] = record.fee_usd;
    m.latency[c] = record.latency_s;
    m.rationale_ok[c] = record.rationale_ok;
    m.has_fee |= !std::isnan(record.fee_usd);
    m.has_latency |= !std::isnan(record.latency_s);
    m.has_rationale |= !std::isnan(record.rationale_ok);
    if (record.flag == 1) m.item_flag[record.item] = 1;
  }
  return m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<Record> read_records(const std::string& path, std::string* sha256_out) {
  const Format format = format_of(path);
  return parse_file(path, sha256_out, format == Format::kCsv ? read_csv : read_jsonl);
}

ItemMatrix build_item_matrix(const std::vector<Record>& records, const std::string& path,
                             const LoadOptions& options) {
  return pivot(number_records(records), path, options);
}

ItemMatrix load_item_matrix(const std::string& path, const LoadOptions& options) {
  std::string sha256;
  ItemMatrix m;
  if (format_of(path) == Format::kCsv) {
    // CSV rows are numbered as they are read: no Record objects for a large file.
    m = pivot(parse_file(path, &sha256, number_csv), path, options);
  } else {
    m = build_item_matrix(read_records(path, &sha256), path, options);
  }
  m.sha256 = std::move(sha256);
  return m;
}

int32_t ItemMatrix::judge_index(const std::string& name) const {
  auto found = std::find(judges.begin(), judges.end(), name);
  if (found != judges.end()) return static_cast<int32_t>(found - judges.begin());
  throw UsageError("judge '" + name + "' does not occur in " + display_name(path) +
                   "; the judges there are: " + join(judges, ", ") +
                   " (names are case-sensitive)");
}

int32_t ItemMatrix::variant_index(const std::string& name) const {
  auto found = std::find(variants.begin(), variants.end(), name);
  return found == variants.end() ? -1 : static_cast<int32_t>(found - variants.begin());
}

}  // namespace judgestat
