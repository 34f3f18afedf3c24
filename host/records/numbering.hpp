// Records with their texts numbered by first appearance: what the pivot reads.
#pragma once
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

/// A record with its texts replaced by their numbers in NumberedRecords.
struct NumberedRecord {
  int32_t judge, item, variant, cluster, benchmark, condition, gold;
  int32_t verdict;      // -1 when no verdict was given
  int32_t adjudicated;  // the text, "" (not adjudicated) included
  int32_t item_column;  // LoadOptions::item_column's text, "" included
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
  Numbering judges, items, variants, clusters, benchmarks, conditions, golds, verdicts, adjudications;
  Numbering item_column_values;                            // LoadOptions::item_column's texts
  bool adjudicated_column = false;                         // some record had an `adjudicated` column or key
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
    record.adjudicated = adjudications.id(view.adjudicated);
    record.item_column = item_column_values.id(view.item_column);
    adjudicated_column |= view.adjudicated_given;
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
    auto [found, inserted] = list_ids_.try_emplace(labels, static_cast<int32_t>(prob_label_lists.size()));
    if (inserted) prob_label_lists.push_back(labels);
    return last_list_ = found->second;
  }

  std::map<std::vector<std::string>, int32_t> list_ids_;
  int32_t last_list_ = -1;
};

/// The records of CSV text numbered as they are read: no Record objects for a large file.
/// `item_column`: as CsvRecordReader's.
NumberedRecords number_csv(std::string_view text, const std::string& file, const std::string& item_column = "");

/// `records` numbered in order.
NumberedRecords number_records(const std::vector<Record>& records);

}  // namespace judgestat::loading
