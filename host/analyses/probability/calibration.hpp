// Temperature scaling (docs/statistics.md §3.2, §7.5): fitted pooled or per group (benchmark) on
// a fit part, scored by NLL, Brier and ECE before and after on the fit and held-out parts; and
// the item-matrix form behind `metrics --temperature-fit FILE` — fit one temperature per judge on
// one file's records, apply it to another file's (a frozen calibration).
//
// Scaling: p_k ∝ p_k^(1/T), renormalised over the labels; zeros stay zero, and the order of the
// labels (hence the verdict, ties included) is unchanged. fit_temperature (probability.hpp) finds
// T; the scores here use score_probabilities (probability.hpp): a row is correct (1) when the
// gold label alone has the top probability, ½ when it shares the top, else 0.
#pragma once
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// Probability vectors with their gold labels, a group and a part each.
struct ProbabilityRows {
  int32_t n_labels = 0;
  std::vector<double> probs;   // rows × n_labels; a label without a probability reads 0
  std::vector<int32_t> gold;   // per row: label index
  std::vector<int32_t> group;  // per row: index into group_names
  std::vector<std::string> group_names;
  std::vector<uint8_t> fit;  // per row: 1 = fit (selection) part, 0 = held out
  int64_t size() const { return static_cast<int64_t>(gold.size()); }
};

/// Mean NLL (floor 1e-6), mean multiclass Brier and ECE (10 bins, docs/statistics.md §3.2) of
/// some rows; NaN when there are none.
struct CalibrationScores {
  int64_t n = 0;
  double nll = NAN, brier = NAN, ece = NAN;
};

/// Row `row` of `rows` scaled at temperature t into `out` (n_labels values), renormalised.
void scale_row(const ProbabilityRows& rows, int64_t row, double t, double* out);

/// The scores of the rows with row_mask[r] != 0 (empty: every row), each scaled at
/// row_temperature[r] (empty: as given, unscaled and not renormalised).
CalibrationScores calibration_scores(const ProbabilityRows& rows, const std::vector<double>& row_temperature = {},
                                     const std::vector<uint8_t>& row_mask = {});

/// One group's (or every row's) temperature and scores.
struct TemperatureGroup {
  std::string name;  // the group's name, or "all"
  double temperature = 1.0;
  bool pooled_fallback = false;  // per group: the group has no fit rows and uses the pooled T
  int64_t fit_rows = 0, heldout_rows = 0;
  CalibrationScores fit_before, fit_after, heldout_before, heldout_after;
};

/// Temperature scaling pooled (one T fitted on every fit row) or per group (each group's T fitted
/// on its own fit rows; a group without fit rows uses the pooled T, pooled_fallback).
struct TemperatureScaling {
  bool per_group = false;
  double pooled_temperature = 1.0;  // fitted on every fit row (1 when there are none)
  /// Every row: before, and after with each row scaled by its group's T; `temperature` is the
  /// pooled T when pooled, NaN per group (no single T applies).
  TemperatureGroup all;
  std::vector<TemperatureGroup> groups;  // per group name, in group order; groups without rows are left out
};
TemperatureScaling temperature_scaling_by_group(const ProbabilityRows& rows, bool per_group);

/// The cascade's rows (docs/statistics.md §3.3): F's order-averaged probabilities on the pool
/// items with a valid F output (q > 0), grouped by the item's benchmark (numbered by first
/// appearance among those rows), fit = selection[i] (selection: one entry per pool item; empty:
/// every row held out).
ProbabilityRows cascade_probability_rows(const ItemMatrix& matrix, const CascadePool& pool,
                                         const std::vector<uint8_t>& selection);

/// Judge j's records as rows: every valid cell (all orders and variants) with at least one
/// probability, of the items with item_mask[i] != 0 (empty: every item), in cell order; grouped
/// by benchmark (by first appearance among the rows); every row in the fit part.
ProbabilityRows record_probability_rows(const ItemMatrix& matrix, int32_t judge,
                                        const std::vector<uint8_t>& item_mask = {});

/// One temperature per judge fitted on that judge's records (record_probability_rows, pooled
/// over benchmarks, orders and variants), for `metrics --temperature-fit FILE`. UsageError for
/// a judge the matrix lacks (naming the judges it has) or one without a valid record with
/// probabilities.
std::map<std::string, double> fit_temperatures(const ItemMatrix& matrix, const std::vector<std::string>& judges,
                                               const std::vector<uint8_t>& item_mask = {});

/// Scales every valid record with probabilities of each named judge at its temperature: the
/// given probabilities ∝ p^(1/T), renormalised to sum 1 (labels without a probability stay
/// unset). Verdicts and validity are unchanged (scaling keeps the labels' order); absent and
/// invalid records are left as they are. UsageError for a judge the matrix lacks;
/// std::invalid_argument("temperature: …") for a temperature that is not finite and > 0.
void apply_temperature(ItemMatrix& matrix, const std::map<std::string, double>& temperatures);

}  // namespace judgestat
