// docs/statistics.md §1 validity: whether a record's output is valid, and what it says.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "records/numbering.hpp"

namespace judgestat::loading {

/// docs/statistics.md §1's tolerance on a record's probability sum: |Σp − 1| ≤ 0.025, widened by
/// 1e-9 so that sums written in decimal at the edge (0.975, 1.025, 0.6 + 0.375) are valid although
/// their binary values miss 0.025 by about 2e-17.
inline constexpr double kProbabilitySumTolerance = 0.025;
inline constexpr double kProbabilitySumSlack = 1e-9;

/// Whether probabilities summing to `sum` pass docs/statistics.md §1's sum rule.
bool probability_sum_ok(double sum);

/// What a verdict text means in the label set.
struct VerdictMeaning {
  int32_t label;  // label index, or -1 outside the label set
  bool tie;       // the text is "tie"
};

/// docs/statistics.md §1 validity. `probs` are the record's probabilities, `slots[k]` the label index of the
/// k-th (-1: outside the label set, which only happens for probabilities that were not given);
/// `verdict` is null when no verdict was given.
int16_t verdict_code(const NumberedRecord& record, const double* probs, const std::vector<int32_t>& slots,
                     const VerdictMeaning* verdict, size_t n_labels);

/// What made an invalid record invalid, by the first rule of docs/statistics.md §1 it breaks, as
/// shown to users: "verdict 'C'", "no verdict", "a probability outside [0, 1]", "probabilities
/// not summing to 1", "a NaN probability" or "verdict 'B' below the top probability".
/// `verdict_text` is the verdict as given (ignored when `verdict` is null).
std::string invalid_value(const NumberedRecord& record, const double* probs, const std::vector<int32_t>& slots,
                          const VerdictMeaning* verdict, std::string_view verdict_text);

/// Why invalid records are invalid, tallied from what the item matrix keeps of them (their
/// probabilities per label, NaN where not given; the verdict's text is not kept): the first of
/// docs/statistics.md §1's rules each breaks, so a judge whose records are all invalid can be
/// told what went wrong (most often probabilities written as percentages).
class InvalidReasons {
 public:
  /// Adds one invalid record's probabilities (n_labels of them).
  void add(const double* probs, size_t n_labels);
  /// The most common reason (ties: the earlier rule), with the first offending value seen;
  /// empty when nothing was added.
  std::string most_common() const;

 private:
  enum Kind { kOutOfRange, kSumOff, kVerdict, kKinds };
  int64_t count_[kKinds] = {0, 0, 0};
  double example_[kKinds] = {0, 0, 0};
};

}  // namespace judgestat::loading
