// Position bias and cost per judge (docs/statistics.md §7.1): the share of valid verdicts picking
// each shown position, always_first / always_second for pairs, fee per 1,000 records (plan
// statistics with a CI), and latency quantiles (point values).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analyses/metrics/scope_view.hpp"

namespace judgestat {

/// Order o shows canonical label L_((p + o) mod K) at position p, where K = 1 + the largest order any
/// judge's record presents the unit in (its candidates; pairs K = 2) and L the labels sorted by name, so a
/// verdict L in order o picked position (rank(L) − o) mod K. Units presented in one order are left
/// out (position and label cannot be told apart). Over the orders of `judge`'s records:
/// `position_rate` (field `position` = p) = verdicts at p / valid verdicts (a valid `tie`, or a label
/// beyond the unit's K candidates, counts in the denominator and picks no position); n = valid
/// verdicts. For pairs also `always_first` / `always_second` = units whose verdicts are at position
/// 0 (1) in both orders / pair units with both orders valid. Orders beyond `orders` are not read.
/// std::invalid_argument unless 1 ≤ orders ≤ m.orders.
void add_position_bias(const ItemMatrix& m, int32_t judge, int orders, const ScopeView& scope, Plan& plan);

/// `fee_per_1k` = 1000 · Σ fee / records over `judge`'s records on the scope (every order) that
/// carry a fee; with fee_per_call, every present record costs that instead. n = those records.
/// Nothing when no record has a fee. std::invalid_argument for a fee_per_call that is negative
/// or not finite.
void add_fee_per_1k(const ItemMatrix& m, int32_t judge, const ScopeView& scope,
                    const std::optional<double>& fee_per_call, Plan& plan);

struct LatencyQuantiles {
  int64_t n = 0;  // records with a latency
  double p50 = std::numeric_limits<double>::quiet_NaN(), p95 = std::numeric_limits<double>::quiet_NaN();
};

/// JEV Table 19's failures by type (`--failure-type x.NAME`): per value t of the covariate on
/// `judge`'s invalid records on the scope (every order; "(no type)" for an invalid record without
/// one), `failure_rate` (label t) = invalid records of type t / records; n = records. A type the
/// judge never failed with gets no row.
void add_failure_rates(const ItemMatrix& m, int32_t judge, const ScopeView& scope, const Covariate& type, Plan& plan);

/// Type-7 quantiles of `judge`'s latencies over its records on the scope (every order) that carry
/// one; with latency_per_call, every present record takes that instead. NaN quantiles when n = 0.
LatencyQuantiles latency_quantiles(const ItemMatrix& m, int32_t judge, const ScopeView& scope,
                                   const std::optional<double>& latency_per_call);

}  // namespace judgestat
