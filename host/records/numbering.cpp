// Numbering records: from CSV bytes through RecordViews, or from Records.
#include "records/numbering.hpp"

#include <algorithm>
#include <cstring>

#include "records/memory.hpp"
#include "records/progress.hpp"
#include "records/read_csv.hpp"

namespace judgestat::loading {
namespace {

/// murmur3's 64-bit finalizer: every input bit reaches every output bit.
uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

/// A hash of `text` eight bytes at a time (names are short: item ids, cluster ids).
uint64_t hash_text(std::string_view text) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ text.size();
  const char* at = text.data();
  size_t left = text.size();
  for (; left >= 8; at += 8, left -= 8) {
    uint64_t word;
    std::memcpy(&word, at, 8);
    h = (h ^ mix(word)) * 0x9e3779b97f4a7c15ULL;
  }
  uint64_t tail = 0;
  if (left > 0) std::memcpy(&tail, at, left);  // an empty name may have no data at all
  return mix(h ^ tail);
}

constexpr size_t kBlockBytes = size_t{1} << 16;

}  // namespace

int32_t Numbering::look_up(std::string_view text) {
  if (views_.size() <= kFewNames) {
    // Labels, judges, benchmarks: comparing with each name beats hashing.
    for (size_t k = 0; k < views_.size(); ++k) {
      if (same_text(text, views_[k])) return static_cast<int32_t>(k);
    }
    return add(text, hash_text(text));
  }
  const uint64_t hash = hash_text(text);
  const size_t mask = table_.size() - 1;
  const auto high = static_cast<uint32_t>(hash >> 32);
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const Slot& at = table_[slot];
    if (at.id < 0) return add(text, hash);
    if (at.hash_high == high && same_text(text, views_[at.id])) return at.id;
  }
}

int32_t Numbering::add(std::string_view text, uint64_t hash) {
  const auto id = static_cast<int32_t>(views_.size());
  views_.push_back(keep(text));
  hashes_.push_back(hash);
  if (2 * views_.size() > table_.size()) {
    grow_table();  // places every id, this one included
  } else {
    table_[free_slot(hash)] = {static_cast<uint32_t>(hash >> 32), id};
  }
  return id;
}

size_t Numbering::free_slot(uint64_t hash) const {
  const size_t mask = table_.size() - 1;
  size_t slot = hash & mask;
  while (table_[slot].id >= 0) slot = (slot + 1) & mask;
  return slot;
}

void Numbering::grow_table() {
  const size_t size = std::max<size_t>(64, 2 * table_.size());  // a power of two
  table_.assign(size, Slot{0, -1});
  for (size_t id = 0; id < views_.size(); ++id) {
    table_[free_slot(hashes_[id])] = {static_cast<uint32_t>(hashes_[id] >> 32), static_cast<int32_t>(id)};
  }
}

std::string_view Numbering::keep(std::string_view text) {
  if (text.size() > block_left_) {
    // A long name gets a block of its own; the current block keeps its free bytes for short ones.
    if (text.size() > kBlockBytes / 4) {
      blocks_.emplace_back(new char[text.size()]);
      std::memcpy(blocks_.back().get(), text.data(), text.size());
      return {blocks_.back().get(), text.size()};
    }
    blocks_.emplace_back(new char[kBlockBytes]);
    block_free_ = blocks_.back().get();
    block_left_ = kBlockBytes;
  }
  if (!text.empty()) std::memcpy(block_free_, text.data(), text.size());
  const std::string_view kept(block_free_, text.size());
  block_free_ += text.size();
  block_left_ -= text.size();
  return kept;
}

void NumberedRecords::reserve(size_t n_records, size_t probabilities) {
  records.reserve(n_records);
  probs.reserve(n_records * probabilities);
}

void NumberedRecords::add(const RecordView& view) {
  NumberedRecord record;
  const size_t index = records.size();
  record.judge = judges.id(view.judge);
  record.item = items.id(view.item);
  record.variant = variants.id(variant_of(view));
  ItemColumns columns{golds.id(view.gold),
                      clusters.id(cluster_of(view)),
                      benchmarks.id(benchmark_of(view)),
                      conditions.id(view.condition),
                      adjudications.id(view.adjudicated),
                      item_column_values.id(view.item_column),
                      index};
  if (record.item == static_cast<int32_t>(item_columns.size())) {
    item_columns.push_back(columns);
  } else if (mismatch.record == SIZE_MAX) {
    check_item_columns(item_columns[record.item], columns);
  }
  record.verdict = view.verdict_given ? verdicts.id(view.verdict) : -1;
  adjudicated_column |= view.adjudicated_given;
  record.prob_labels = prob_label_list_id(*view.prob_labels);
  record.order = view.order;
  record.repeat = view.repeat;
  if (view.covariate_count() > 0) add_covariates(view, index);
  probs.insert(probs.end(), view.probs, view.probs + view.prob_labels->size());
  record.nan_probability = view.nan_probability;
  record.flagged = view.flag == 1;
  record.line = view.line;
  const size_t expected = records.capacity();
  fee_usd.add(index, view.fee_usd, expected);
  latency_s.add(index, view.latency_s, expected);
  rationale_ok.add(index, view.rationale_ok, expected);
  records.push_back(record);
}

// In the order the pivot's messages have always named them.
void NumberedRecords::check_item_columns(const ItemColumns& first, const ItemColumns& here) {
  const std::pair<ItemColumn, std::pair<int32_t, int32_t>> columns[] = {
      {ItemColumn::kGold, {here.gold, first.gold}},
      {ItemColumn::kCluster, {here.cluster, first.cluster}},
      {ItemColumn::kBenchmark, {here.benchmark, first.benchmark}},
      {ItemColumn::kCondition, {here.condition, first.condition}},
      {ItemColumn::kAdjudicated, {here.adjudicated, first.adjudicated}},
      {ItemColumn::kItemColumn, {here.item_column, first.item_column}}};
  for (const auto& [column, ids] : columns) {
    if (ids.first == ids.second) continue;
    mismatch = {here.first_record, column, ids.first, ids.second};
    return;
  }
}

double NumberedRecords::bytes() const {
  return static_cast<double>(records.capacity() * sizeof(NumberedRecord) + probs.capacity() * sizeof(double) +
                             item_columns.capacity() * sizeof(ItemColumns) + fee_usd.bytes() + latency_s.bytes() +
                             rationale_ok.bytes());
}

const std::vector<int32_t>& NumberedRecords::covariate_slots(const std::vector<std::string>& names) {
  if (last_covariate_names_ != nullptr && *last_covariate_names_ == names) return *last_covariate_slots_;
  auto [found, inserted] = covariate_slot_lists_.try_emplace(names);
  if (inserted) {
    for (const std::string& name : names) {
      const auto column =
          std::find_if(covariates.begin(), covariates.end(), [&](const CovariateColumn& c) { return c.name == name; });
      found->second.push_back(static_cast<int32_t>(column - covariates.begin()));
      if (column == covariates.end()) covariates.emplace_back().name = name;
    }
  }
  last_covariate_names_ = &found->first;
  last_covariate_slots_ = &found->second;
  return found->second;
}

void NumberedRecords::add_covariates(const RecordView& view, size_t index) {
  const std::vector<int32_t>& slots = covariate_slots(*view.covariate_names);
  for (size_t k = 0; k < slots.size(); ++k) {
    CovariateColumn& column = covariates[slots[k]];
    if (column.value_of_record.size() < index) {
      // Records before this one did not give the column: "" for each.
      if (column.empty_id < 0) column.empty_id = column.values.id("");
      column.value_of_record.resize(index, column.empty_id);
    }
    column.value_of_record.push_back(column.values.id(view.covariate_value(k)));
  }
}

int32_t NumberedRecords::prob_label_list_id(const std::vector<std::string>& labels) {
  // A CSV file has one list; JSONL records mostly repeat the previous record's.
  if (last_list_ >= 0 && prob_label_lists[last_list_] == labels) return last_list_;
  auto [found, inserted] = list_ids_.try_emplace(labels, static_cast<int32_t>(prob_label_lists.size()));
  if (inserted) prob_label_lists.push_back(labels);
  return last_list_ = found->second;
}

NumberedRecords number_csv(std::string_view text, const std::string& file, const std::string& item_column,
                           const MemoryBudget* budget, LoadProgress* progress) {
  CsvRecordReader reader(text, file, item_column);
  const size_t lines = count_lines(text);
  if (budget != nullptr) check_load_fits(file, text.size(), lines, reader.probability_columns(), *budget);
  NumberedRecords numbered;
  numbered.reserve(lines, reader.probability_columns());
  RecordView record;
  while (reader.next(record)) {
    numbered.add(record);
    if (progress != nullptr && (numbered.records.size() & 0xFFFF) == 0) progress->parsed(reader.position());
  }
  return numbered;
}

NumberedRecords number_records(const std::vector<Record>& records) {
  NumberedRecords numbered;
  numbered.records.reserve(records.size());
  for (const Record& record : records) numbered.add(view_of(record));
  return numbered;
}

}  // namespace judgestat::loading
