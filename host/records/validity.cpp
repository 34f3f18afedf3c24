// docs/statistics.md §1 validity of a record's verdict and probabilities.
#include "records/validity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace judgestat::loading {

bool probability_sum_ok(double sum) { return std::fabs(sum - 1.0) <= kProbabilitySumTolerance + kProbabilitySumSlack; }

int16_t verdict_code(const NumberedRecord& record, const double* probs, const std::vector<int32_t>& slots,
                     const VerdictMeaning* verdict, size_t n_labels) {
  bool any_probability = false;
  double sum = 0.0, top = -1.0;
  for (size_t k = 0; k < slots.size(); ++k) {
    const double p = probs[k];
    if (std::isnan(p)) continue;  // not given (a given NaN is flagged below)
    if (!std::isfinite(p) || p < 0.0 || p > 1.0) return kInvalid;
    any_probability = true;
    sum += p;
    top = std::max(top, p);
  }
  if (record.nan_probability) return kInvalid;
  if (any_probability && !probability_sum_ok(sum)) return kInvalid;
  if (verdict == nullptr) return kInvalid;
  if (verdict->label >= 0) {
    if (any_probability) {
      // The verdict must be a highest-probability label, so its probability must be given.
      bool verdict_is_top = false;
      for (size_t k = 0; k < slots.size(); ++k) {
        if (slots[k] == verdict->label) verdict_is_top = probs[k] == top;
      }
      if (!verdict_is_top) return kInvalid;
    }
    return static_cast<int16_t>(verdict->label);
  }
  // JudgeBench's "tie" on a pair: valid when nothing contradicts it (no probabilities, or the
  // top probability is shared).
  if (verdict->tie && n_labels == 2) {
    if (!any_probability) return kTie;
    int at_top = 0;
    for (size_t k = 0; k < slots.size(); ++k) at_top += (probs[k] == top);
    return at_top >= 2 ? kTie : kInvalid;
  }
  return kInvalid;
}

std::string invalid_value(const NumberedRecord& record, const double* probs, const std::vector<int32_t>& slots,
                          const VerdictMeaning* verdict, std::string_view verdict_text) {
  bool any_probability = false;
  double sum = 0.0;
  for (size_t k = 0; k < slots.size(); ++k) {
    const double p = probs[k];
    if (std::isnan(p)) continue;
    if (!std::isfinite(p) || p < 0.0 || p > 1.0) return "a probability outside [0, 1]";
    any_probability = true;
    sum += p;
  }
  if (record.nan_probability) return "a NaN probability";
  if (any_probability && !probability_sum_ok(sum)) return "probabilities not summing to 1";
  if (verdict == nullptr) return "no verdict";
  const std::string quoted = shown_text(verdict_text);  // control characters escaped
  const std::string shown = "verdict '" + quoted.substr(1, quoted.size() - 2) + "'";
  // A label of the set made invalid by the probabilities; else outside the set (or a tie where
  // a tie has no meaning).
  return verdict->label >= 0 ? shown + " below the top probability" : shown;
}

void InvalidReasons::add(const double* probs, size_t n_labels) {
  bool any = false;
  double sum = 0.0;
  for (size_t k = 0; k < n_labels; ++k) {
    const double p = probs[k];
    if (std::isnan(p)) continue;
    if (std::isinf(p) || p < 0.0 || p > 1.0) {
      if (count_[kOutOfRange]++ == 0) example_[kOutOfRange] = p;
      return;
    }
    any = true;
    sum += p;
  }
  const Kind kind = any && !probability_sum_ok(sum) ? kSumOff : kVerdict;
  if (count_[kind]++ == 0) example_[kind] = sum;
}

std::string InvalidReasons::most_common() const {
  const int64_t* most = std::max_element(count_, count_ + kKinds);  // the first of equal counts
  if (*most == 0) return "";
  const auto kind = static_cast<Kind>(most - count_);
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", example_[kind]);
  switch (kind) {
    case kOutOfRange:
      return std::string("a probability outside [0, 1] (e.g. ") + value + ")" +
             (example_[kind] > 1 && example_[kind] <= 100 ? ": probabilities written as percentages?" : "");
    case kSumOff:
      return std::string("probabilities that do not sum to 1 within 0.025 (e.g. a sum of ") + value + ")";
    default:
      return "a verdict that is missing, outside the label set, or not a highest-probability label";
  }
}

}  // namespace judgestat::loading
