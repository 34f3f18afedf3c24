// Pairwise decisions derived from two scores (docs/statistics.md §8.2 "Pairs"): a judge that scored
// response A and response B of a pair decides A when a − b > margin, B when b − a > margin, else a
// tie; gold decides by the same rule from the human scores. The two responses are two items with
// the same value of a covariate (`--score-pairs x.pair`), A the one whose records come first.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// A pair's two plan units (same variant), A then B.
struct ScorePair {
  int32_t a, b;
};

/// The pairs of `units` by the covariate `covariate` ("x.NAME" or "NAME"): per value two items, A
/// first in record order; a pair is counted on A's unit (its cluster). UsageError for a value shared
/// by more than two items or a covariate whose records of one item differ; `unpaired` receives the
/// items of values with one item (left out, with a note).
std::vector<ScorePair> score_pairs(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                                   const std::string& covariate, int64_t& unpaired);

/// +1 (A), −1 (B) or 0 (tie) of scores a and b with the tie margin.
int decide(double a, double b, double margin);

/// `pair_acc` (the judge's decision is gold's, over pairs with both gold scores and both judge
/// scores) and `pair_tie_rate` (share of the pairs the judge scored that it calls a tie) of judge j
/// in order `order` on the pairs whose A unit is in `mask`; labels from `base`.
void add_pair_decisions(const ItemMatrix& m, int32_t j, int order, const std::vector<AccuracyUnit>& units,
                        const std::vector<ScorePair>& pairs, const std::vector<double>& mask, double margin,
                        const StatLabel& base, const std::string& tag, Plan& plan);

}  // namespace judgestat
