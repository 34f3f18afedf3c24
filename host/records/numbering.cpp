// Numbering records: from CSV bytes through RecordViews, or from Records.
#include "records/numbering.hpp"

#include "records/memory.hpp"
#include "records/progress.hpp"
#include "records/read_csv.hpp"

namespace judgestat::loading {

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
