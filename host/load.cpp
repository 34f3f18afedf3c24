// Reading judgment records (SPEC §1) from CSV or JSONL and pivoting them into an ItemMatrix.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <future>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "csv.hpp"
#include "judgestat/records.hpp"
#include "sha256.hpp"

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

double parse_probability(std::string_view text, const FieldSource& source, Record& record) {
  if (trim(text).empty()) return kMissing;
  double value;
  if (!parse_double(text, value)) {
    source.fail("expected a probability (a number in [0,1]) or an empty field, got " +
                shown_text(text));
  }
  // NaN is the judge's invalid output, not bad input; remember it apart from "not given".
  if (std::isnan(value)) record.nan_probability = true;
  return value;
}

/// 0 or 1 (flag, rationale_ok); `empty_value` when the field is empty.
double parse_binary(std::string_view text, const FieldSource& source, double empty_value) {
  if (trim(text).empty()) return empty_value;
  double value;
  if (!parse_double(text, value) || (value != 0.0 && value != 1.0)) {
    source.fail("expected 1 or 0 (or an empty field), got " + shown_text(text));
  }
  return value;
}

double parse_non_negative(std::string_view text, const FieldSource& source) {
  if (trim(text).empty()) return kMissing;
  double value;
  if (!parse_double(text, value) || !std::isfinite(value) || value < 0) {
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

/// Stores one text value of a named field. Probabilities are handled by the callers, which know
/// the label.
void set_field(Record& record, Field field, std::string_view text, const FieldSource& source) {
  switch (field) {
    case Field::kJudge:
    case Field::kItem:
    case Field::kGold: {
      if (text.empty()) {
        source.fail("expected a non-empty value (every record names its judge, item and gold "
                    "label), got an empty field");
      }
      std::string& target = field == Field::kJudge  ? record.judge
                            : field == Field::kItem ? record.item
                                                    : record.gold;
      target.assign(text);
      break;
    }
    case Field::kVerdict:
      // SPEC §1: an empty or "null" verdict is given but invalid.
      record.verdict_given = !(text.empty() || text == "null");
      if (record.verdict_given) record.verdict.assign(text);
      else record.verdict.clear();
      break;
    case Field::kCluster: record.cluster.assign(text); break;
    case Field::kBenchmark:
      record.benchmark.assign(text.empty() ? std::string_view(kDefaultBenchmark) : text);
      break;
    case Field::kCondition: record.condition.assign(text); break;
    case Field::kOrder: record.order = parse_order(text, source); break;
    case Field::kVariant:
      record.variant.assign(text.empty() ? std::string_view(kDefaultVariant) : text);
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

std::vector<Record> read_csv(std::string_view text, const std::string& file) {
  CsvReader reader(text, file);
  std::vector<std::string_view> fields;
  int64_t line = 0;
  if (!reader.next_row(fields, line)) {
    fail(file, 1, "judge",
         "expected a header row (judge,item,gold,verdict,…) followed by one record per line, "
         "got an empty file; write the header and the records");
  }

  // Header: the role of every column; the p.<label> columns in header order.
  std::vector<std::string> names;
  std::vector<Field> roles;
  std::vector<int> probability_slot;  // per column: index into prob_labels, or -1
  std::vector<std::string> prob_labels;
  for (std::string_view raw_name : fields) {
    std::string name(trim(raw_name));
    Field role = field_of(name);
    if (role != Field::kIgnored &&
        std::find(names.begin(), names.end(), name) != names.end()) {
      fail(file, line, name, "appears twice in the header; keep one of the two columns");
    }
    probability_slot.push_back(-1);
    if (role == Field::kProbability) {
      if (name.size() == 2) fail(file, line, name, "expected a label after 'p.', as in 'p.A'");
      probability_slot.back() = static_cast<int>(prob_labels.size());
      prob_labels.push_back(name.substr(2));
    }
    names.push_back(std::move(name));
    roles.push_back(role);
  }
  for (const char* required : kRequiredColumns) {
    if (std::find(names.begin(), names.end(), required) == names.end()) {
      fail(file, line, required,
           "required column is missing (the header names " + join(names, ",") + "); add a '" +
               required + "' column");
    }
  }
  reader.set_column_names(names);

  std::vector<Record> records;
  records.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
  const Record blank = [&] {
    Record record = empty_record(0);
    record.prob_labels = prob_labels;
    record.probs.assign(prob_labels.size(), kMissing);
    return record;
  }();
  int64_t last_line = line;
  while (reader.next_row(fields, line)) {
    last_line = line;
    if (fields.size() != names.size()) {
      const std::string counts = "expected " + std::to_string(names.size()) +
                                 " fields as in the header, got " + std::to_string(fields.size());
      if (fields.size() < names.size()) {
        fail(file, line, names[fields.size()],
             counts + " (the row ends before this column); fill in the missing fields");
      }
      throw InputError(file + ":" + std::to_string(line) + ": column " +
                       std::to_string(names.size() + 1) + " (after the last column '" +
                       names.back() + "'): " + counts +
                       "; quote fields that contain commas or remove the extra fields");
    }
    records.push_back(blank);
    Record& record = records.back();
    record.line = line;
    for (size_t k = 0; k < fields.size(); ++k) {
      if (roles[k] == Field::kIgnored) continue;
      const FieldSource source{file, line, names[k]};
      if (roles[k] == Field::kProbability) {
        record.probs[probability_slot[k]] = parse_probability(fields[k], source, record);
      } else {
        set_field(record, roles[k], fields[k], source);
      }
    }
  }
  if (records.empty()) {
    fail(file, last_line + 1, "judge",
         "expected a record after the header, got the end of the file; add one record per line");
  }
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
    record_.probs.push_back(parse_probability(text, where, record_));
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
  records.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
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

// ---------------------------------------------------------------------------------------------
// Pivot

/// Numbers names by first appearance; views point into the records, which outlive the pivot.
class Numbering {
 public:
  int32_t id(std::string_view name, std::vector<std::string>& names) {
    auto [it, inserted] = ids_.try_emplace(name, static_cast<int32_t>(names.size()));
    if (inserted) names.emplace_back(name);
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, int32_t> ids_;
};

std::string_view cluster_of(const Record& record) {
  return record.cluster.empty() ? std::string_view(record.item) : std::string_view(record.cluster);
}
std::string_view benchmark_of(const Record& record) {
  return record.benchmark.empty() ? std::string_view(kDefaultBenchmark)
                                  : std::string_view(record.benchmark);
}
std::string_view variant_of(const Record& record) {
  return record.variant.empty() ? std::string_view(kDefaultVariant)
                                : std::string_view(record.variant);
}

/// SPEC §1 validity. `slots[k]` is the label index of record.prob_labels[k] (-1: outside the
/// label set, which only happens for probabilities that were not given).
int16_t verdict_code(const Record& record, const std::vector<int32_t>& slots,
                     const std::unordered_map<std::string, int32_t>& label_ids, size_t n_labels) {
  bool any_probability = false;
  double sum = 0.0, top = -1.0;
  for (double p : record.probs) {
    if (std::isnan(p)) continue;  // not given (a given NaN is flagged below)
    if (!std::isfinite(p) || p < 0.0 || p > 1.0) return kInvalid;
    any_probability = true;
    sum += p;
    top = std::max(top, p);
  }
  if (record.nan_probability) return kInvalid;
  if (any_probability && std::fabs(sum - 1.0) > kProbabilitySumTolerance) return kInvalid;
  if (!record.verdict_given) return kInvalid;

  auto label = label_ids.find(record.verdict);
  if (label != label_ids.end()) {
    if (any_probability) {
      // The verdict must be a highest-probability label, so its probability must be given.
      bool verdict_is_top = false;
      for (size_t k = 0; k < slots.size(); ++k) {
        if (slots[k] == label->second) verdict_is_top = record.probs[k] == top;
      }
      if (!verdict_is_top) return kInvalid;
    }
    return static_cast<int16_t>(label->second);
  }
  // JudgeBench's "tie" on a pair: valid when nothing contradicts it (no probabilities, or the
  // top probability is shared).
  if (record.verdict == "tie" && n_labels == 2) {
    if (!any_probability) return kTie;
    int at_top = 0;
    for (double p : record.probs) at_top += (p == top);
    return at_top >= 2 ? kTie : kInvalid;
  }
  return kInvalid;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<Record> read_records(const std::string& path, std::string* sha256_out) {
  const Format format = format_of(path);
  const std::string bytes = read_bytes(path);
  // The digest is computed beside the parse (neither modifies the bytes); the future's
  // destructor waits for it also when parsing throws.
  std::future<std::string> digest;
  if (sha256_out != nullptr) {
    digest = std::async(std::launch::async, [&bytes] { return sha256_hex(bytes); });
  }
  const std::string file = display_name(path);
  std::vector<Record> records =
      format == Format::kCsv ? read_csv(bytes, file) : read_jsonl(bytes, file);
  if (sha256_out != nullptr) *sha256_out = digest.get();
  return records;
}

ItemMatrix build_item_matrix(const std::vector<Record>& records, const std::string& path,
                             const LoadOptions& options) {
  const std::string file = display_name(path);
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
    for (const Record& record : records) {
      for (const std::string& label : record.prob_labels) add_label(label);
    }
    for (const Record& record : records) add_label(record.gold);
  }
  if (m.labels.size() > static_cast<size_t>(INT16_MAX)) {
    throw InputError(file + ": column 'gold': expected at most " + std::to_string(INT16_MAX) +
                     " labels, got " + std::to_string(m.labels.size()));
  }

  // Pass 1: number judges, items (with their item-level columns) and variants; check that
  // item-level columns agree between the records of an item.
  Numbering judge_numbers, item_numbers, cluster_numbers, benchmark_numbers, condition_numbers,
      variant_numbers;
  std::vector<int32_t> judge_of(records.size()), item_of(records.size()),
      variant_of_record(records.size());
  std::vector<const Record*> first_record_of_item;
  int max_order = 0;
  for (size_t r = 0; r < records.size(); ++r) {
    const Record& record = records[r];
    judge_of[r] = judge_numbers.id(record.judge, m.judges);
    const int32_t item = item_numbers.id(record.item, m.items);
    item_of[r] = item;
    variant_of_record[r] = variant_numbers.id(variant_of(record), m.variants);
    if (record.order < 0 || record.order > kMaxOrder) {
      fail(file, record.line, "order",
           "expected a presentation index from 0 to " + std::to_string(kMaxOrder) + ", got " +
               std::to_string(record.order));
    }
    max_order = std::max(max_order, record.order);

    if (item == static_cast<int32_t>(first_record_of_item.size())) {  // first record of the item
      auto gold = label_ids.find(record.gold);
      if (gold == label_ids.end()) {
        fail(file, record.line, "gold",
             "expected one of the --labels (" + join(m.labels, ",") + "), got " +
                 shown_text(record.gold) + "; add it to --labels or correct the gold label");
      }
      first_record_of_item.push_back(&record);
      m.gold.push_back(gold->second);
      m.item_cluster.push_back(cluster_numbers.id(cluster_of(record), m.clusters));
      m.item_benchmark.push_back(benchmark_numbers.id(benchmark_of(record), m.benchmarks));
      m.item_condition.push_back(condition_numbers.id(record.condition, m.conditions));
      m.item_flag.push_back(0);
    } else {
      // gold and cluster are item-level by SPEC §1; benchmark and condition describe the item
      // too (subset filters select items), so they must agree as well.
      const Record& first = *first_record_of_item[item];
      auto check_same = [&](const char* column, std::string_view here, std::string_view there) {
        if (here == there) return;
        fail(file, record.line, column,
             "item " + shown_text(record.item) + " has " + column + " " + shown_text(here) +
                 " here but " + shown_text(there) + " on line " + std::to_string(first.line) +
                 "; every record of an item must carry the same " + column +
                 ", so correct one of the two lines");
      };
      check_same("gold", record.gold, first.gold);
      check_same("cluster", cluster_of(record), cluster_of(first));
      check_same("benchmark", benchmark_of(record), benchmark_of(first));
      check_same("condition", record.condition, first.condition);
    }
    if (explicit_labels) {
      for (size_t k = 0; k < record.prob_labels.size(); ++k) {
        if (!label_ids.count(record.prob_labels[k]) &&
            (!std::isnan(record.probs[k]) || record.nan_probability)) {
          fail(file, record.line, "p." + record.prob_labels[k],
               "expected probabilities for the --labels (" + join(m.labels, ",") +
                   ") only, got one for " + shown_text(record.prob_labels[k]) +
                   "; add it to --labels or drop the column");
        }
      }
    }
  }
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
  std::vector<int32_t> slots;                     // label index of each prob_labels entry
  const std::vector<std::string>* slots_for = nullptr;  // the prob_labels `slots` was built for
  for (size_t r = 0; r < records.size(); ++r) {
    const Record& record = records[r];
    const size_t c = m.cell(judge_of[r], item_of[r], record.order, variant_of_record[r]);
    if (m.verdict[c] != kAbsent) {
      throw InputError(
          file + ":" + std::to_string(record.line) + ": columns 'judge','item','order','variant': " +
          "judge " + shown_text(record.judge) + ", item " + shown_text(record.item) + ", order " +
          std::to_string(record.order) + ", variant " + shown_text(variant_of(record)) +
          " already occurs on line " + std::to_string(m.line[c]) +
          "; each (judge, item, order, variant) may occur once, so remove or renumber one");
    }
    if (slots_for == nullptr || *slots_for != record.prob_labels) {
      slots.clear();
      for (const std::string& label : record.prob_labels) {
        auto found = label_ids.find(label);
        slots.push_back(found == label_ids.end() ? -1 : found->second);
      }
      slots_for = &record.prob_labels;
    }
    m.verdict[c] = verdict_code(record, slots, label_ids, n_labels);
    if (m.verdict[c] == kInvalid) ++m.invalid;
    m.line[c] = record.line;
    for (size_t k = 0; k < slots.size(); ++k) {
      if (std::isnan(record.probs[k]) && !record.nan_probability) continue;
      m.has_probs = true;
      if (slots[k] >= 0) m.prob[c * n_labels + slots[k]] = record.probs[k];
    }
    if (record.nan_probability) m.has_probs = true;
    m.fee[c] = record.fee_usd;
    m.latency[c] = record.latency_s;
    m.rationale_ok[c] = record.rationale_ok;
    m.has_fee |= !std::isnan(record.fee_usd);
    m.has_latency |= !std::isnan(record.latency_s);
    m.has_rationale |= !std::isnan(record.rationale_ok);
    if (record.flag == 1) m.item_flag[item_of[r]] = 1;
  }
  return m;
}

ItemMatrix load_item_matrix(const std::string& path, const LoadOptions& options) {
  std::string sha256;
  std::vector<Record> records = read_records(path, &sha256);
  ItemMatrix m = build_item_matrix(records, path, options);
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
