// Judgment records from values held in memory (a DataFrame's columns, a database's rows), read
// by the file readers' own field parsers: each value is given as the text a CSV file would hold,
// so docs/statistics.md §1's checks and their messages (file, line, column) are the loader's.
// Build the records with these, then the matrix with build_item_matrix (judgestat/records.hpp).
//
//   const RecordColumn judge("judge"), p_a("p.A");
//   Record record = default_record(1);                 // line 1
//   judge.set(record, "gpt-4o", "frame");
//   record.prob_labels = {p_a.probability_label()};
//   record.probs = {p_a.probability("0.8", "frame", record)};
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat {

/// The columns every records file must have, in docs/statistics.md §1's order: judge, item,
/// verdict (gold is optional, §8.1).
const std::vector<std::string>& required_record_columns();

/// A Record with the defaults a file's row starts from (benchmark "default", variant "plain",
/// the rest missing) at 1-based row `line`, which error messages name.
Record default_record(int64_t line);

/// How a column named `name` is read, decided once for the whole column: one of Record's
/// fields (judge, item, gold, verdict, cluster, benchmark, …), a probability "p.<label>", or
/// neither (ignored by the loader).
class RecordColumn {
 public:
  explicit RecordColumn(std::string name);
  const std::string& name() const { return name_; }
  bool is_probability() const;
  bool is_ignored() const;
  /// The label of a probability column ("A" for "p.A"); "" for any other column.
  std::string probability_label() const;

  /// Stores `text` into the field this column names, as the CSV reader does (an empty or
  /// "null" verdict is given but invalid, an empty benchmark is "default", …); InputError
  /// "SOURCE:LINE: column 'NAME': why" (LINE = record.line) for a bad value. Nothing for a
  /// probability or ignored column.
  void set(Record& record, std::string_view text, const std::string& source) const;
  /// A probability column's value from its text ("" = not given, NaN); sets
  /// record.nan_probability for a NaN text; InputError as set().
  double probability(std::string_view text, const std::string& source, Record& record) const;

 private:
  std::string name_;
  uint8_t field_;  // the loader's field (host/records/fields.hpp)
};

}  // namespace judgestat
