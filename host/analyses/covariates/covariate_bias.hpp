// The covariate bias statistics of docs/statistics.md §8.3 as plan statistics on the metrics
// accuracy units: length bias (JEV Tables 11–12) and a numeric covariate's point-biserial
// correlation with correctness and accuracy per bin (CAP's subtlety analysis).
#pragma once
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/covariates.hpp"

namespace judgestat {

/// Adds, per selected judge and per scope of `built`, the length-bias statistics when
/// options.length is set and the association statistics when options.assoc is set; statistics
/// left out (nothing to compute them on) get a note in built.notes. UsageError naming the flag for
/// a missing or non-numeric covariate or a file whose items are not two-label; InputError
/// (ItemMatrix::item_levels) when an item's records give different values.
void add_covariate_bias(const ItemMatrix& matrix, const Selection& selection, const CovariateOptions& options,
                        MetricsPlan& built);

/// Per unit of `units`: the covariate `name`'s number for the unit's item, NaN without a value
/// (the column named by `flag` in errors; it must be numeric).
std::vector<double> unit_covariate(const ItemMatrix& matrix, const std::vector<AccuracyUnit>& units,
                                   const std::string& name, const std::string& flag);

}  // namespace judgestat
