// What a command analyses: judges, items and variants after its record filters, with clusters
// and strata numbered by first appearance among those records (docs/statistics.md §2 "Numbering").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

struct SelectionOptions {
  std::vector<std::string> judges;      // empty: every judge, file order
  std::vector<std::string> benchmarks;  // empty: every benchmark
  std::vector<std::string> conditions;  // empty: every condition
  std::vector<std::string> variants;    // empty: every variant
  /// Grouping key: "", "benchmark", "condition", "difficulty" or a covariate "x.NAME"
  /// (docs/statistics.md §8.3: its values, or with `bins` numeric bins of them).
  std::string strata;
  /// With strata "x.NAME" of a numeric covariate: `--bins` as parse_bins reads it ("4": quantile
  /// bins, "0,200,inf": edges); "" groups by the distinct values.
  std::string bins;
  /// How groups are resampled (docs/statistics.md §2): "" stratified when every cluster lies in
  /// one group, else domain estimation; "by" stratified (a spanning cluster is an error); "none"
  /// domain estimation.
  std::string strata_mode;
  bool hard_only = false;  // only items some selected judge gets wrong in order 0 (§7.1 `hard`)
  /// strata "difficulty" (docs/statistics.md §7.1): count the judges of the file that are not
  /// selected (JEV Table 11: the other judges, the compared pair excluded) instead of the selected.
  bool difficulty_others = false;
  /// strata "difficulty": bins of the count, e.g. "0,1-2,3-5,6-9,10-13" (JEV Table 11), reported
  /// in this order; "" groups by each count. A count no bin holds is an error.
  std::string difficulty_bins;
};

struct Selection {
  std::vector<int32_t> judges;             // matrix judge indices, in the order asked for
  std::vector<int32_t> items;              // matrix item indices, by first appearance
  std::vector<int32_t> variants;           // matrix variant indices kept
  std::vector<int32_t> item_cluster;       // per matrix item: plan cluster, -1 when not selected
  std::vector<int32_t> item_stratum;       // per matrix item: reporting group, -1 when not selected
  std::vector<int64_t> stratum_offset;     // resampling strata: clusters of h in [offset[h], offset[h+1])
  std::vector<std::string> stratum_names;  // reporting group names (one "all" without groups)
  std::vector<std::string> cluster_names;
  std::string strata;                // the grouping key, "" without groups
  bool domain = false;               // groups reported, clusters resampled unstratified (one stratum)
  std::string strata_note;           // in domain mode: why, naming a spanning cluster when there is one
  std::vector<double> bin_edges;     // strata "x.NAME" with bins: the edges the groups are cut at
  int orders = 1;                    // 1 + the largest order among selected cells
  int64_t records = 0, invalid = 0;  // selected cells and how many are invalid

  /// Reporting groups; the resampling strata are the groups unless `domain`.
  int32_t n_strata() const { return static_cast<int32_t>(stratum_names.size()); }
};

/// Applies the filters; UsageError for unknown judges, an empty subset, a cluster spanning
/// groups under strata_mode "by"; std::invalid_argument for bad options.
Selection select_records(const ItemMatrix& matrix, const SelectionOptions& options);

/// A plan with the selection's clusters and resampling strata and no units yet.
Plan plan_for(const Selection& selection);

/// settings.strata (docs/statistics.md §2): the grouping key when stratified, "none" in domain
/// mode, "" without groups.
std::string strata_setting(const Selection& selection);

}  // namespace judgestat
