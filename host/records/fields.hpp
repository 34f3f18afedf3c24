// The fields of a judgment record (docs/statistics.md §1), shared by the CSV and JSONL readers: their names,
// the view of one record's values, the parsers of the values and the error messages that name
// the file, line and column.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/records.hpp"
#include "support/text.hpp"

namespace judgestat::loading {

// Presentation indices are few (two orders of a pair, K rotations); the bound keeps a typo such
// as 1000000 from allocating a dense matrix with a million orders.
constexpr int kMaxOrder = 1023;
// Repeats of one request are few too (docs/statistics.md §8.5); repeats 1.. are held as dense cells.
constexpr int kMaxRepeat = 1023;
constexpr const char* kDefaultBenchmark = "default";
constexpr const char* kDefaultVariant = "plain";
// `gold` may be omitted or left empty: an item without gold (docs/statistics.md §8.1).
constexpr const char* kRequiredColumns[] = {"judge", "item", "verdict"};

/// The name the user knows `path` by in messages ("stdin" for "-").
std::string display_name(const std::string& path);

[[noreturn]] void fail(const std::string& file, int64_t line, std::string_view column, const std::string& what);

/// The offending text for an error message, quoted and shortened.
std::string shown_text(std::string_view text);

std::string_view trim(std::string_view text);

/// A whole-field decimal number (from_chars also accepts nan and inf, which validity handles).
bool parse_double(std::string_view text, double& out);

enum class Field : uint8_t {
  kJudge,
  kItem,
  kGold,
  kVerdict,
  kCluster,
  kBenchmark,
  kCondition,
  kOrder,
  kVariant,
  kRationaleOk,
  kFee,
  kLatency,
  kFlag,
  kAdjudicated,
  kProbability,
  kRepeat,
  kCovariate,  // x.NAME (docs/statistics.md §8.3)
  kIgnored
};

/// The role of a column or key named `name` (p.<label>: a probability; x.<name>: a covariate;
/// unknown: ignored).
Field field_of(std::string_view name);

/// Where a value came from, for error messages.
struct FieldSource {
  const std::string& file;
  int64_t line;
  std::string_view column;
  [[noreturn]] void fail(const std::string& what) const { loading::fail(file, line, column, what); }
};

/// One record's values with its text fields as views: into the file bytes while a CSV row is
/// read, or into a Record. The members and defaults mirror Record's (docs/statistics.md §1).
struct RecordView {
  std::string_view judge, item, gold, verdict, cluster;
  std::string_view benchmark = kDefaultBenchmark, condition, variant = kDefaultVariant;
  std::string_view adjudicated;
  std::string_view item_column;  // LoadOptions::item_column's text ("" when not asked for)
  int order = 0;
  bool verdict_given = false;
  bool adjudicated_given = false;
  const std::vector<std::string>* prob_labels = nullptr;  // set by whoever fills the view
  const double* probs = nullptr;                          // prob_labels->size() values
  bool nan_probability = false;
  double rationale_ok = kMissing, fee_usd = kMissing, latency_s = kMissing;
  int flag = 0;
  int repeat = 0;
  /// The covariates' names (without "x.") and values: views into the file while a CSV row is
  /// read (covariate_views), or a Record's strings (covariate_strings); one of the two is set.
  const std::vector<std::string>* covariate_names = nullptr;
  const std::string_view* covariate_views = nullptr;
  const std::string* covariate_strings = nullptr;
  int64_t line = 0;

  size_t covariate_count() const { return covariate_names == nullptr ? 0 : covariate_names->size(); }
  std::string_view covariate_value(size_t k) const {
    return covariate_views != nullptr ? covariate_views[k] : std::string_view(covariate_strings[k]);
  }
};

std::string_view cluster_of(const RecordView& record);
std::string_view benchmark_of(const RecordView& record);
std::string_view variant_of(const RecordView& record);

/// A view of `record`'s texts and probabilities (valid while `record` lives).
RecordView view_of(const Record& record);
/// A Record holding copies of the view's texts and probabilities.
Record record_of(const RecordView& view);

/// `nan_probability` is set when the text is NaN.
double parse_probability(std::string_view text, const FieldSource& source, bool& nan_probability);

/// 0 or 1 (flag, rationale_ok); `empty_value` when the field is empty.
double parse_binary(std::string_view text, const FieldSource& source, double empty_value);

double parse_non_negative(std::string_view text, const FieldSource& source);

int parse_order(std::string_view text, const FieldSource& source);

/// A repeat index: an integer from 0 to kMaxRepeat; 0 when empty.
int parse_repeat(std::string_view text, const FieldSource& source);

// A Record keeps copies of its texts, a RecordView views them.
inline void store(std::string& target, std::string_view text) { target.assign(text); }
inline void store(std::string_view& target, std::string_view text) { target = text; }

/// Stores one text value of a named field in a Record or RecordView. Probabilities are handled
/// by the callers, which know the label.
template <class AnyRecord>
void set_field(AnyRecord& record, Field field, std::string_view text, const FieldSource& source) {
  switch (field) {
    case Field::kJudge:
    case Field::kItem: {
      if (text.empty()) {
        source.fail("expected a non-empty value (every record names its judge and item), got an empty field");
      }
      store(field == Field::kJudge ? record.judge : record.item, text);
      break;
    }
    case Field::kGold:
      // docs/statistics.md §8.1: an empty gold (or JSONL null) is an item without gold.
      store(record.gold, text);
      break;
    case Field::kVerdict:
      // docs/statistics.md §1: an empty or "null" verdict is given but invalid.
      record.verdict_given = !(text.empty() || text == "null");
      store(record.verdict, record.verdict_given ? text : std::string_view());
      break;
    case Field::kCluster:
      store(record.cluster, text);
      break;
    case Field::kBenchmark:
      store(record.benchmark, text.empty() ? std::string_view(kDefaultBenchmark) : text);
      break;
    case Field::kCondition:
      store(record.condition, text);
      break;
    case Field::kOrder:
      record.order = parse_order(text, source);
      break;
    case Field::kVariant:
      store(record.variant, text.empty() ? std::string_view(kDefaultVariant) : text);
      break;
    case Field::kRationaleOk:
      record.rationale_ok = parse_binary(text, source, kMissing);
      break;
    case Field::kFee:
      record.fee_usd = parse_non_negative(text, source);
      break;
    case Field::kLatency:
      record.latency_s = parse_non_negative(text, source);
      break;
    case Field::kFlag:
      record.flag = static_cast<int>(parse_binary(text, source, 0.0));
      break;
    case Field::kRepeat:
      record.repeat = parse_repeat(text, source);
      break;
    case Field::kAdjudicated:
      // docs/statistics.md §7.2: empty or "null" = not adjudicated; the pivot checks the label.
      record.adjudicated_given = true;
      store(record.adjudicated, text == "null" ? std::string_view() : text);
      break;
    case Field::kProbability:
    case Field::kCovariate:  // kept by the readers, which know the name
    case Field::kIgnored:
      break;
  }
}

/// A Record with the defaults a JSONL line starts from.
Record empty_record(int64_t line);

}  // namespace judgestat::loading
