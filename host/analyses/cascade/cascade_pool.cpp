#include "analyses/cascade/cascade_pool.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/common/item_names.hpp"

namespace judgestat {
namespace {

int32_t find_judge(const ItemMatrix& matrix, const std::string& name, const char* role) {
  const auto it = std::find(matrix.judges.begin(), matrix.judges.end(), name);
  if (it != matrix.judges.end()) return static_cast<int32_t>(it - matrix.judges.begin());
  std::ostringstream message;
  message << "unknown " << role << " judge '" << name << "' in " << matrix.path << "; judges: ";
  for (size_t j = 0; j < matrix.judges.size(); ++j) message << (j ? ", " : "") << matrix.judges[j];
  throw UsageError(message.str());
}

double value_or_zero(double value) { return std::isnan(value) ? 0.0 : value; }

// Per-call cost of judge j's record in `cell`: the override when given, else the file's value
// (0 when the file has none).
double call_value(const std::map<std::string, double>& overrides, const std::string& judge,
                  const std::vector<double>& column, size_t cell) {
  const auto it = overrides.find(judge);
  if (it != overrides.end()) return it->second;
  return cell < column.size() ? value_or_zero(column[cell]) : 0.0;
}

}  // namespace

CascadePool build_cascade_pool(const ItemMatrix& matrix, const std::string& first, const std::string& fallback,
                               int gate_orders, const std::string& strata,
                               const std::map<std::string, double>& fee_per_call,
                               const std::map<std::string, double>& latency_per_call,
                               const std::vector<uint8_t>& keep_items) {
  if (gate_orders != kGatePresentOrders && gate_orders != 1 && gate_orders != 2)
    throw std::invalid_argument(
        "gate_orders: must be present (the orders each item has), 1 (first stage runs order 0 only) or 2 (every "
        "order of the file required), got " +
        std::to_string(gate_orders));
  if (!keep_items.empty() && keep_items.size() != static_cast<size_t>(matrix.n_items()))
    throw std::logic_error("build_cascade_pool: keep_items must have one entry per matrix item");
  if (!strata.empty() && strata != "benchmark" && strata != "condition")
    throw std::invalid_argument("strata: unknown key '" + strata + "' (expected benchmark or condition)");
  const int32_t jf = find_judge(matrix, first, "first-stage");
  const int32_t js = find_judge(matrix, fallback, "fallback");
  if (!matrix.has_probs)
    throw UsageError("first-stage judge '" + first + "' has no probabilities in " + matrix.path +
                     " (p.<label> columns or probs): the cascade gates on its confidence");

  CascadePool pool;
  pool.first = first;
  pool.fallback = fallback;
  pool.first_orders = gate_orders == 1 ? 1 : matrix.orders;
  pool.gate_orders = gate_orders;
  pool.strata_key = strata;
  const auto plain = std::find(matrix.variants.begin(), matrix.variants.end(), "plain");
  pool.variant = plain == matrix.variants.end() ? 0 : static_cast<int32_t>(plain - matrix.variants.begin());
  if (strata.empty()) pool.strata_names = {"all"};

  const int32_t n_labels = matrix.n_labels();
  pool.n_labels = n_labels;
  const int32_t v = pool.variant;
  std::vector<double> prob_sum(n_labels);
  std::vector<int32_t> missing_fallback, missing_probs;
  std::map<int32_t, int32_t> stratum_of_key;  // benchmark/condition index -> stratum

  for (int32_t i = 0; i < matrix.n_items(); ++i) {
    if (!keep_items.empty() && !keep_items[i]) continue;
    bool covered = false, all_valid = true, order_missing = false;
    int valid_orders = 0;
    double latency_first = 0.0, fee_first = 0.0;
    std::fill(prob_sum.begin(), prob_sum.end(), 0.0);
    for (int o = 0; o < pool.first_orders; ++o) {
      const size_t cell = matrix.cell(jf, i, o, v);
      if (!matrix.present(cell)) {
        order_missing = true;
        continue;
      }
      covered = true;
      fee_first += call_value(fee_per_call, first, matrix.fee, cell);
      latency_first = std::max(latency_first, call_value(latency_per_call, first, matrix.latency, cell));
      if (!matrix.valid(cell)) {
        all_valid = false;
        continue;
      }
      const double* probs = matrix.probs_of(cell);
      bool any_prob = false;
      for (int32_t l = 0; l < n_labels; ++l) {
        if (std::isnan(probs[l])) continue;
        prob_sum[l] += probs[l];
        any_prob = true;
      }
      if (!any_prob) missing_probs.push_back(i);
      ++valid_orders;
    }
    if (!covered) continue;
    // Under gate_orders 2 a missing order fails the gate; otherwise the item is gated on the
    // orders it has (with gate_orders 1 there is only order 0, present since covered).
    pool.fewer_orders += order_missing;
    if (order_missing && gate_orders == 2) {
      pool.escalated_for_missing_orders += all_valid;
      all_valid = false;
    }

    double c1 = 0.0, q = 0.0;
    if (valid_orders > 0) {
      // Order-averaged probabilities (docs/statistics.md §3.2); the verdict is their argmax.
      int32_t top_count = 0;
      for (int32_t l = 0; l < n_labels; ++l) {
        const double mean = prob_sum[l] / valid_orders;
        if (mean > q) {
          q = mean;
          top_count = 1;
        } else if (mean == q) {
          ++top_count;
        }
      }
      const double gold_mean = prob_sum[matrix.gold[i]] / valid_orders;
      if (gold_mean == q) c1 = top_count == 1 ? 1.0 : 0.5;
    }

    const size_t fallback_cell = matrix.cell(js, i, 0, v);
    if (!matrix.present(fallback_cell)) missing_fallback.push_back(i);

    int32_t stratum = 0;
    if (!strata.empty()) {
      const int32_t key = strata == "benchmark" ? matrix.item_benchmark[i] : matrix.item_condition[i];
      const auto found = stratum_of_key.find(key);
      if (found == stratum_of_key.end()) {
        stratum = static_cast<int32_t>(pool.strata_names.size());
        stratum_of_key.emplace(key, stratum);
        pool.strata_names.push_back(strata == "benchmark" ? matrix.benchmarks[key] : matrix.conditions[key]);
      } else {
        stratum = found->second;
      }
    }

    for (int32_t l = 0; l < n_labels; ++l) pool.probs.push_back(valid_orders > 0 ? prob_sum[l] / valid_orders : 0.0);
    pool.item.push_back(i);
    pool.c1.push_back(c1);
    pool.q.push_back(q);
    pool.gate_ok.push_back(all_valid ? 1 : 0);
    pool.c2.push_back(matrix.present(fallback_cell) && matrix.correct(fallback_cell, i) ? 1.0 : 0.0);
    pool.fee_first.push_back(fee_first);
    pool.latency_first.push_back(latency_first);
    pool.fee_fallback.push_back(
        matrix.present(fallback_cell) ? call_value(fee_per_call, fallback, matrix.fee, fallback_cell) : 0.0);
    pool.latency_fallback.push_back(
        matrix.present(fallback_cell) ? call_value(latency_per_call, fallback, matrix.latency, fallback_cell) : 0.0);
    pool.stratum.push_back(stratum);
  }

  if (pool.item.empty())
    throw UsageError("first-stage judge '" + first + "' has no records in " + matrix.path +
                     (gate_orders == 1 ? " in order 0" : ""));
  if (!missing_probs.empty()) {
    std::sort(missing_probs.begin(), missing_probs.end());
    missing_probs.erase(std::unique(missing_probs.begin(), missing_probs.end()), missing_probs.end());
    throw UsageError("first-stage judge '" + first + "' has valid records without probabilities on " +
                     std::to_string(missing_probs.size()) + " items (" + name_some(matrix, missing_probs) +
                     "): the cascade gates on its confidence");
  }
  if (!missing_fallback.empty())
    throw UsageError("fallback judge '" + fallback + "' has no order-0 record on " +
                     std::to_string(missing_fallback.size()) + " of the " + std::to_string(pool.item.size()) +
                     " items the first stage covers (" + name_some(matrix, missing_fallback) + ")");
  return pool;
}

}  // namespace judgestat
