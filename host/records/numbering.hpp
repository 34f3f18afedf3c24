// Records with their texts numbered by first appearance: what the pivot reads.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
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
///
/// A file of many items numbers a new name every few rows, so the lookup is an open-addressing
/// table of ids over the names' hashes, which are kept: a new name is hashed once, and growing the
/// table moves ids without hashing a name again (std::unordered_map hashed each new name twice,
/// allocated a node per name and rehashed every name as it grew: a fifth of a large load's time).
/// The names' bytes are kept in blocks that never move, so their views stay valid on a move.
class Numbering {
 public:
  Numbering() = default;
  Numbering(Numbering&&) = default;
  Numbering& operator=(Numbering&&) = default;
  Numbering(const Numbering&) = delete;
  Numbering& operator=(const Numbering&) = delete;

  int32_t id(std::string_view text) {
    // Consecutive records mostly repeat a name (one judge's rows, the orders of one item).
    if (last_ >= 0 && same_text(text, views_[last_])) return last_;
    return last_ = look_up(text);
  }
  std::string_view name(int32_t id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  std::vector<std::string> names() const { return {views_.begin(), views_.end()}; }

 private:
  /// The number of `text`, numbering it when new.
  int32_t look_up(std::string_view text);
  /// Numbers `text`, which has no number yet, with `hash` = hash_text(text).
  int32_t add(std::string_view text, uint64_t hash);
  /// The table's slot for a new id of hash `hash` (the first free one on its probe sequence).
  size_t free_slot(uint64_t hash) const;
  void grow_table();
  /// A copy of `text` in the blocks.
  std::string_view keep(std::string_view text);

  static constexpr size_t kFewNames = 8;
  std::vector<std::string_view> views_;  // per id: its name, in blocks_
  std::vector<uint64_t> hashes_;         // per id: hash_text(its name)
  /// A slot of the table: an id and its hash's high half, so that probing past other names
  /// reads no more than the slots (a new name, the common case, costs one cache miss).
  struct Slot {
    uint32_t hash_high;
    int32_t id;  // -1: free
  };
  std::vector<Slot> table_;  // by the hash's low bits; a power of two, at most half full
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_free_ = nullptr;  // unused bytes of the last block
  size_t block_left_ = 0;
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
  int32_t repeat;       // docs/statistics.md §8.5
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

/// One x.<name> column (docs/statistics.md §8.3): its texts numbered, and per record the number of
/// its text; a record without the column (a JSONL record that leaves the key out) has "".
struct CovariateColumn {
  std::string name;
  Numbering values;
  std::vector<int32_t> value_of_record;  // grows as records are added; short records have ""
  int32_t value(size_t record) const { return record < value_of_record.size() ? value_of_record[record] : empty_id; }
  int32_t empty_id = -1;  // the number of "" (-1 until some record needs it)
};

/// Several files loaded as one (load_item_matrix of several paths): their records' lines run on
/// from file to file, so that line order is load order; a message turns a line back into the
/// file it came from and the line there.
struct FileLines {
  std::vector<std::string> files;  // display names; empty: one file, whose lines are its own
  std::vector<int64_t> offsets;    // added to the lines of files[k]; file k + 1's exceed file k's
  /// The file of run-on line `line` and the line in it (offsets[0] is 0; a file's own lines are >= 0).
  std::pair<const std::string*, int64_t> place(int64_t line) const {
    const size_t k = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), line) - offsets.begin());
    return {&files[k - 1], line - offsets[k - 1]};
  }
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
  std::vector<CovariateColumn> covariates;  // by first appearance of the column
  FileLines file_lines;                     // several files loaded as one, else empty

  /// Room for `records` records with `probabilities` probabilities each (a bound from the text).
  void reserve(size_t records, size_t probabilities);

  void add(const RecordView& view);

  /// Bytes held by the records, their probabilities and numbers (not the names).
  double bytes() const;

 private:
  void check_item_columns(const ItemColumns& first, const ItemColumns& here);
  int32_t prob_label_list_id(const std::vector<std::string>& labels);
  void add_covariates(const RecordView& view, size_t index);
  /// The covariate columns of a record's list of names (a CSV file has one list).
  const std::vector<int32_t>& covariate_slots(const std::vector<std::string>& names);
  std::map<std::vector<std::string>, std::vector<int32_t>> covariate_slot_lists_;
  const std::vector<std::string>* last_covariate_names_ = nullptr;
  const std::vector<int32_t>* last_covariate_slots_ = nullptr;

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
