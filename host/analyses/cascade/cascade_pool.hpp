// The confidence cascade's per-item inputs (docs/statistics.md §3.3), shared by `judgestat budget` (the
// label-budget simulation, docs/statistics.md §3.5) and `judgestat cascade` (threshold sweep and rules).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "judgestat/budget_engine.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// One row per item of the pool, i.e. per item the first stage F covers (F has a record in at
/// least one of the orders it runs). All vectors have one entry per pool item, in the item
/// matrix's item order.
///
/// - c1: F's order-averaged correctness (docs/statistics.md §3.2): each label's probability is averaged over
///   F's valid orders, the verdict is the argmax, an exact tie with the gold label earns ½;
///   0 when no F order is valid.
/// - q: F's averaged confidence, the largest averaged probability (0 when no order is valid).
/// - gate_ok: every F order the gate reads is valid (docs/statistics.md §3.3): under
///   kGatePresentOrders the orders the item has, under gate_orders 2 every order of the file
///   (an item with fewer escalates), under 1 order 0. An item with gate_ok = 0 always escalates,
///   whatever its q (an invalid first-stage output is never accepted).
/// - c2: the fallback S is correct in order 0 (invalid = 0); S must have an order-0 record on
///   every pool item.
/// - fee_first = Σ over F's orders of the call fee; latency_first = the largest F-order latency
///   (the orders run in parallel); fee_fallback / latency_fallback = S's order-0 call. A missing
///   fee or latency counts 0 unless a per-call override is given for that judge.
/// - stratum: index into strata_names, numbered by first appearance among pool items; one
///   stratum named "all" when no strata key is given.
///
/// Gate at threshold τ: accept iff gate_ok and q >= τ; cascade correctness is then c1, else c2;
/// cascade fee = fee_first + (escalated ? fee_fallback : 0).
struct CascadePool {
  std::string first, fallback;  // judge names
  int first_orders = 1;         // F orders the first stage runs (1, or all of the file's)
  int gate_orders = 0;          // kGatePresentOrders, 1 or 2 (build_cascade_pool's)
  /// Items on which F lacks some of its first_orders; under gate_orders 2 they escalate.
  int64_t fewer_orders = 0;
  /// Of those, the items whose present orders are all valid: escalated only for the missing
  /// order under gate_orders 2 (0 otherwise).
  int64_t escalated_for_missing_orders = 0;
  int32_t variant = 0;     // the item-matrix variant used ("plain" when present, else 0)
  std::string strata_key;  // "", "benchmark" or "condition"
  std::vector<std::string> strata_names;

  std::vector<int32_t> item;  // index into ItemMatrix::items
  std::vector<double> c1, c2, q;
  std::vector<uint8_t> gate_ok;
  std::vector<double> fee_first, fee_fallback, latency_first, latency_fallback;
  std::vector<int32_t> stratum;
  // F's order-averaged probabilities, pool items × n_labels (the matrix's label order); all 0
  // where no F order is valid. Temperature scaling and reliability read them.
  int32_t n_labels = 0;
  std::vector<double> probs;

  int32_t size() const { return static_cast<int32_t>(c1.size()); }
  int32_t n_strata() const { return static_cast<int32_t>(strata_names.size()); }
};

/// gate_orders value: F runs all of the file's orders and each item is gated on the orders it
/// has (docs/statistics.md §3.3; a HaluEval-style item presented once is gated on that one).
inline constexpr int kGatePresentOrders = 0;

/// Builds the pool of docs/statistics.md §3.3 from the item matrix.
/// gate_orders: kGatePresentOrders (default) = the orders each item has; 1 = F runs order 0
/// only; 2 = every order of the file must be present (an item with fewer escalates).
/// strata: "" (one stratum), "benchmark" or "condition".
/// fee_per_call / latency_per_call: judge name -> value that replaces every call's fee / latency.
/// keep_items: per matrix item, whether it may enter the pool (record filters such as
/// --benchmark); empty = every item.
/// Throws UsageError for an unknown judge, a bad gate_orders or strata key, a first judge without
/// probabilities, a fallback without an order-0 record on some pool items (naming a few and the
/// count), or an empty pool.
CascadePool build_cascade_pool(const ItemMatrix& matrix, const std::string& first, const std::string& fallback,
                               int gate_orders = kGatePresentOrders, const std::string& strata = "",
                               const std::map<std::string, double>& fee_per_call = {},
                               const std::map<std::string, double>& latency_per_call = {},
                               const std::vector<uint8_t>& keep_items = {});

/// The label-budget engines' input from a pool: per-item codes, fixed-point fees and pool totals.
/// per_stratum = false pools every stratum into one. UsageError when fees are negative or not
/// finite, or sizes exceed the limits.
BudgetProblem make_budget_problem(const CascadePool& pool, const ThresholdGrid& grid, bool per_stratum);

}  // namespace judgestat
