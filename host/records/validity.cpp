// docs/statistics.md §1 validity of a record's verdict and probabilities.
#include "records/validity.hpp"

#include <algorithm>
#include <cmath>

namespace judgestat::loading {

constexpr double kProbabilitySumTolerance = 0.025;  // docs/statistics.md §1 validity

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
  if (any_probability && std::fabs(sum - 1.0) > kProbabilitySumTolerance) return kInvalid;
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

}  // namespace judgestat::loading
