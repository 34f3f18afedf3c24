// Records with their texts numbered by first appearance: what the pivot reads.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "records/fields.hpp"

namespace judgestat::loading {

/// Equal texts. Names are short, and comparing them in line is quicker than calling memcmp,
/// which the numbering below would do several times per record.
inline bool same_text(std::string_view a, std::string_view b) {
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

/// A record with its texts replaced by their numbers in NumberedRecords: only what differs
/// between the records of an item (the item-level columns are kept once per item, in
/// NumberedRecords::item_columns), 40 bytes, so that a large file's records take little more
/// memory than its text. Its probabilities follow the previous record's in NumberedRecords::probs
/// (prob_label_lists[prob_labels].size() of them).
struct NumberedRecord {
  int32_t judge, item, variant;
  int32_t verdict;      // -1 when no verdict was given
  int32_t prob_labels;  // the record's list of probability labels
  int32_t order;        // as given; the pivot checks the range
  bool nan_probability;
  bool flagged;  // flag = 1
  int64_t line;
};

/// An item's own columns (docs/statistics.md §1 and §7.2), as its first record gives them.
struct ItemColumns {
  int32_t gold, cluster, benchmark, condition;
  int32_t adjudicated;  // the text, "" (not adjudicated) included
  int32_t item_column;  // LoadOptions::item_column's text, "" included
  size_t first_record;  // index of the item's first record
};

/// The item-level column in which a record first differs from its item's first record.
enum class ItemColumn : uint8_t { kGold, kCluster, kBenchmark, kCondition, kAdjudicated, kItemColumn };

/// The first record whose item-level columns differ from its item's first record's, kept for the
/// pivot to report in record order (after the file's parse errors, as a pass over the records
/// would meet it).
struct ItemMismatch {
  size_t record = SIZE_MAX;  // SIZE_MAX: none
  ItemColumn column = ItemColumn::kGold;
  int32_t here = 0, there = 0;  // the texts' numbers in the column's Numbering
};

/// A per-record number most files leave out (fee, latency, rationale_ok): stored from the first
/// record that gives one on, so that a file without the column spends nothing on it.
class SparseNumbers {
 public:
  /// The value of record `record` (records are added in order); `expected` records in all.
  void add(size_t record, double value, size_t expected) {
    if (values_.empty()) {
      if (std::isnan(value)) return;
      values_.reserve(expected);
      values_.assign(record, kMissing);
    }
    values_.push_back(value);
  }
  double at(size_t record) const { return record < values_.size() ? values_[record] : kMissing; }
  size_t bytes() const { return values_.capacity() * sizeof(double); }

 private:
  std::vector<double> values_;
};

/// Records with their texts numbered by first appearance, in the order they were added: what the
/// pivot reads. Clusters, benchmarks and variants are numbered after their defaults are applied
/// (cluster_of, benchmark_of, variant_of).
struct NumberedRecords {
  Numbering judges, items, variants, clusters, benchmarks, conditions, golds, verdicts, adjudications;
  Numbering item_column_values;                            // LoadOptions::item_column's texts
  bool adjudicated_column = false;                         // some record had an `adjudicated` column or key
  std::vector<std::vector<std::string>> prob_label_lists;  // distinct lists, first appearance
  std::vector<double> probs;
  std::vector<NumberedRecord> records;
  std::vector<ItemColumns> item_columns;  // per item
  ItemMismatch mismatch;
  SparseNumbers fee_usd, latency_s, rationale_ok;

  /// Room for `records` records with `probabilities` probabilities each (a bound from the text).
  void reserve(size_t records, size_t probabilities);

  void add(const RecordView& view);

  /// Bytes held by the records, their probabilities and numbers (not the names).
  double bytes() const;

 private:
  void check_item_columns(const ItemColumns& first, const ItemColumns& here);
  int32_t prob_label_list_id(const std::vector<std::string>& labels);

  std::map<std::vector<std::string>, int32_t> list_ids_;
  int32_t last_list_ = -1;
};

class LoadProgress;
struct MemoryBudget;

/// The records of CSV text numbered as they are read: no Record objects for a large file.
/// `item_column`: as CsvRecordReader's. With a budget, refuses text whose records and matrix
/// would not fit it before parsing (check_load_fits); `progress` is told how far the parse is.
NumberedRecords number_csv(std::string_view text, const std::string& file, const std::string& item_column = "",
                           const MemoryBudget* budget = nullptr, LoadProgress* progress = nullptr);

/// `records` numbered in order.
NumberedRecords number_records(const std::vector<Record>& records);

}  // namespace judgestat::loading
