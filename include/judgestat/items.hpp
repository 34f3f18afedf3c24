// The per-item export (docs/statistics.md §7.4): one row per analysed item (one per item × variant
// when the selection has several variants) with the item's fields, each judge's verdict and
// correctness per order, pa, order-averaged confidence q and consistency, and the number of
// judges wrong in order 0. `disagree` keeps the items whose judges' order-0 verdicts differ:
// what a team sends to adjudication (§7.2). No resampling: every value is a point value.
//
//   ItemsReport report = run_items(matrix, options);
//   std::string csv = items_csv(report);  std::string jsonl = items_jsonl(report);
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat {

struct ItemsOptions {
  // Which records: each list empty = all; names as in the data (as MetricsOptions).
  std::vector<std::string> judges, benchmarks, conditions, variants;
  /// Only the rows whose judges' order-0 verdicts differ (among the judges with an order-0
  /// record; an invalid verdict matches no other verdict, not even another invalid one, as in
  /// `cons`). Needs at least two judges.
  bool disagree = false;
};

/// One cell of the table: null (absent, not applicable), text, or a number.
using ItemsValue = std::variant<std::monostate, std::string, double>;

/// The table: `columns` names, then one row of columns.size() values per item (× variant), in
/// first-appearance order. Columns: item, variant (only with several variants), cluster,
/// benchmark, condition (null when empty), gold, adjudicated (only when the matrix has the
/// column: the label, "indecisive", or null), then per judge in selection order
/// `<judge>.verdict<o>` (label, "tie", "invalid", or null when absent) and `<judge>.correct<o>`
/// (1/0, tie and invalid 0, null when absent) for each order o, `<judge>.pa` (mean correctness
/// over the present orders), `<judge>.q` (only for a judge with probabilities: the largest
/// label probability averaged over the item's valid orders with probabilities, JEV Eq. 1),
/// `<judge>.consistent` (only with two or more orders: 1 when every order is present with the
/// same verdict, an invalid verdict matching nothing; null when an order is absent), and last
/// `wrong0`: how many judges with an order-0 record are wrong in it (tie and invalid are wrong).
struct ItemsReport {
  std::vector<std::string> columns;
  std::vector<std::vector<ItemsValue>> rows;
  /// Rows whose judges' order-0 verdicts differ, counted before `disagree` filters them (0 with
  /// one judge).
  int64_t disagreeing = 0;

  /// Index of the column named `name`, -1 when there is none.
  int32_t column(const std::string& name) const;
};

/// Selects the records (UsageError / std::invalid_argument("judges: …", "benchmarks: …", …) for
/// names that are not in the data or an empty subset, as run_metrics) and builds the table.
/// std::invalid_argument("disagree: …") when `disagree` is asked with fewer than two judges.
ItemsReport run_items(const ItemMatrix& matrix, const ItemsOptions& options);

/// Receives run_items's table as it is built: `columns` once, then each row in order.
class ItemsSink {
 public:
  virtual ~ItemsSink() = default;
  virtual void columns(const std::vector<std::string>& names) = 0;
  virtual void row(const std::vector<ItemsValue>& values) = 0;
};

/// run_items's table, streamed: the same columns and rows into `sink`, computed a block of units
/// at a time, so memory holds one block of judges' facts and one row, not the table (a 2M-record
/// file's table is larger than the file). Returns the report's `disagreeing`. The same errors as
/// run_items, all thrown before `sink` receives anything.
int64_t stream_items(const ItemMatrix& matrix, const ItemsOptions& options, ItemsSink& sink);

/// Formats the rows it receives as items_csv (a header row first) or items_jsonl and hands the
/// text to `emit` in pieces of about 1 MiB (and the rest on flush()): the writer of a streamed
/// table. Its output is byte-identical to items_csv / items_jsonl of run_items's report.
class ItemsTextWriter : public ItemsSink {
 public:
  ItemsTextWriter(bool jsonl, std::function<void(std::string_view)> emit);
  void columns(const std::vector<std::string>& names) override;
  void row(const std::vector<ItemsValue>& values) override;
  /// Emits what is buffered; call once the table is done.
  void flush();
  int64_t rows() const { return rows_; }

 private:
  bool jsonl_;
  std::function<void(std::string_view)> emit_;
  std::vector<std::string> columns_;
  std::string buffer_;
  int64_t rows_ = 0;
};

/// The table as CSV: a header row, then one line per row; fields quoted as RFC 4180 where they
/// hold a comma, quote or line break; numbers in their shortest form that reads back exactly;
/// null as an empty field.
std::string items_csv(const ItemsReport& report);

/// The table as JSONL: one object per row with the columns as keys, numbers as in items_csv,
/// null for absent values.
std::string items_jsonl(const ItemsReport& report);

}  // namespace judgestat
