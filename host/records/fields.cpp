// The fields of a judgment record: names, views, value parsers and error messages.
#include "records/fields.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

namespace judgestat::loading {

std::string display_name(const std::string& path) { return path == "-" ? "stdin" : path; }

[[noreturn]] void fail(const std::string& file, int64_t line, std::string_view column, const std::string& what) {
  throw InputError(file + ":" + std::to_string(line) + ": column '" + std::string(column) + "': " + what);
}

/// The offending text for an error message, quoted and shortened; control characters are shown
/// as \xNN, so that a NUL does not end the message where it is printed as a C string (the CLI's
/// stderr, Python's exception text) and a line break does not split it.
std::string shown_text(std::string_view text) {
  constexpr size_t kShown = 60;
  std::string shown = "\"";
  for (const char c : text.substr(0, kShown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      shown += escaped;
    } else {
      shown += c;
    }
  }
  return shown + (text.size() > kShown ? "…\"" : "\"");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

namespace {

/// `text` as DIGITS or DIGITS.DIGITS with at most 19 digits, an integer part and fraction that a
/// double holds exactly (below 2^53, and at most 22 decimals, 10^22 being the largest exact power):
/// then one division gives the correctly rounded value, the same double as from_chars (Clinger's
/// fast path). False, without touching `out`, for any other text. Probabilities are written so
/// (0.2028), and from_chars cost a tenth of a large load.
bool parse_plain_decimal(std::string_view text, double& out) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (text.empty() || text.size() > 20) return false;
  uint64_t digits = 0;
  size_t k = 0, point = text.size();
  for (; k < text.size(); ++k) {
    const char c = text[k];
    if (c >= '0' && c <= '9') {
      digits = digits * 10 + static_cast<uint64_t>(c - '0');
    } else if (c == '.' && point == text.size() && k > 0 && k + 1 < text.size()) {
      point = k;
    } else {
      return false;
    }
  }
  const size_t decimals = point == text.size() ? 0 : text.size() - point - 1;
  const size_t n_digits = text.size() - (point == text.size() ? 0 : 1);
  if (n_digits > 19 || digits > (uint64_t{1} << 53)) return false;
  out = static_cast<double>(digits) / kPowersOfTen[decimals];
  return true;
}

}  // namespace

/// A whole-field decimal number (from_chars also accepts nan and inf, which validity handles).
bool parse_double(std::string_view text, double& out) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  if (parse_plain_decimal(text, out)) return true;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    // A number past a double's range is still a number (docs/statistics.md §1): 1e400 reads as
    // infinity (an invalid probability), 1e-400 as 0 or a subnormal, as strtod rounds them.
    out = std::strtod(std::string(text).c_str(), nullptr);
    return true;
  }
  return ec == std::errc() && ptr == end;
}

Field field_of(std::string_view name) {
  static const std::unordered_map<std::string_view, Field> kFields = {
      {"judge", Field::kJudge},         {"item", Field::kItem},
      {"gold", Field::kGold},           {"verdict", Field::kVerdict},
      {"cluster", Field::kCluster},     {"benchmark", Field::kBenchmark},
      {"condition", Field::kCondition}, {"order", Field::kOrder},
      {"variant", Field::kVariant},     {"rationale_ok", Field::kRationaleOk},
      {"fee_usd", Field::kFee},         {"latency_s", Field::kLatency},
      {"flag", Field::kFlag},           {"adjudicated", Field::kAdjudicated},
      {"repeat", Field::kRepeat}};
  if (name.size() >= 2 && name.compare(0, 2, "p.") == 0) return Field::kProbability;
  if (name.size() >= 2 && name.compare(0, 2, "x.") == 0) return Field::kCovariate;
  auto found = kFields.find(name);
  return found == kFields.end() ? Field::kIgnored : found->second;
}

std::string_view cluster_of(const RecordView& record) { return record.cluster.empty() ? record.item : record.cluster; }
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
  to.adjudicated = from.adjudicated;
  to.item_column = from.item_column;
  to.order = from.order;
  to.verdict_given = from.verdict_given;
  to.adjudicated_given = from.adjudicated_given;
  to.nan_probability = from.nan_probability;
  to.rationale_ok = from.rationale_ok;
  to.fee_usd = from.fee_usd;
  to.latency_s = from.latency_s;
  to.flag = from.flag;
  to.repeat = from.repeat;
  to.line = from.line;
}

RecordView view_of(const Record& record) {
  RecordView view;
  copy_shared_members(view, record);
  view.prob_labels = &record.prob_labels;
  view.probs = record.probs.data();
  view.covariate_names = &record.covariate_names;
  view.covariate_strings = record.covariate_values.data();
  return view;
}

Record record_of(const RecordView& view) {
  Record record;
  copy_shared_members(record, view);
  record.prob_labels = *view.prob_labels;
  record.probs.assign(view.probs, view.probs + view.prob_labels->size());
  if (view.covariate_names != nullptr) record.covariate_names = *view.covariate_names;
  for (size_t k = 0; k < view.covariate_count(); ++k) record.covariate_values.emplace_back(view.covariate_value(k));
  return record;
}

/// `nan_probability` is set when the text is NaN.
double parse_probability(std::string_view text, const FieldSource& source, bool& nan_probability) {
  const std::string_view number = trim(text);
  if (number.empty()) return kMissing;
  double value;
  if (!parse_double(number, value)) {
    source.fail("expected a probability (a number in [0,1]) or an empty field, got " + shown_text(text));
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
    source.fail("expected a presentation index from 0 to " + std::to_string(kMaxOrder) + ", got " + shown_text(text));
  }
  return static_cast<int>(value);
}

int parse_repeat(std::string_view text, const FieldSource& source) {
  std::string_view digits = trim(text);
  if (digits.empty()) return 0;
  int64_t value = -1;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0 || value > kMaxRepeat) {
    source.fail("expected a repeat index, an integer from 0 to " + std::to_string(kMaxRepeat) + ", got " +
                shown_text(text));
  }
  return static_cast<int>(value);
}

Record empty_record(int64_t line) {
  Record record;
  record.benchmark = kDefaultBenchmark;
  record.variant = kDefaultVariant;
  record.line = line;
  return record;
}

}  // namespace judgestat::loading
