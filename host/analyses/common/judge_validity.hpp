// docs/statistics.md §1 validity per judge, for the analyses that have judges (cascade, profile,
// coverage, budget, budget-compare): their reports carry it so that a judge whose records are all
// invalid, or more than 5% invalid, is named above their tables (report/report.hpp's
// all_invalid_notes), and so does the count of items without gold (§8.1). metrics counts its own
// analysed units with the same tally (analyses/metrics/metrics.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "records/validity.hpp"

namespace judgestat {

/// One judge's records, counted cell by cell: how many, how many invalid, their most common
/// reason and their most common invalid value (ties: the value seen first).
class ValidityTally {
 public:
  ValidityTally(const ItemMatrix& m, int32_t judge);
  /// Counts cell `c` when a record is there.
  void add(size_t c);
  JudgeValidity finish() const;

 private:
  const ItemMatrix& m_;
  int32_t judge_;
  int64_t records_ = 0, invalid_ = 0;
  loading::InvalidReasons reasons_;
  std::vector<int64_t> value_counts_;  // per ItemMatrix::invalid_values
  std::vector<int32_t> value_order_;   // values in the order first seen
};

/// Each of `judges`' (indices into `m`) records over every item, variant and order of `m`, the
/// invalid ones among them and their most common reason and value.
std::vector<JudgeValidity> judge_validity(const ItemMatrix& m, const std::vector<int32_t>& judges);

/// Sets every entry's items without gold (docs/statistics.md §8.1): `items` analysed of which
/// `without_gold` have none; `gold_statistics` names the statistics that need gold ("" = all).
void set_gold_counts(std::vector<JudgeValidity>& validity, int64_t items, int64_t without_gold,
                     const std::string& gold_statistics);

/// An analysis that needs gold on every statistic (cascade, budget, profile, coverage): the matrix
/// of the items with gold when some item has none (UsageError naming `analysis` when none has
/// gold), else nothing; `without_gold` and `items` receive the counts.
std::optional<ItemMatrix> gold_items_for(const ItemMatrix& m, const std::string& analysis, int64_t& items,
                                         int64_t& without_gold);

}  // namespace judgestat
