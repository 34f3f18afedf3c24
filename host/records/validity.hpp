// docs/statistics.md §1 validity: whether a record's output is valid, and what it says.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "records/numbering.hpp"

namespace judgestat::loading {

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

}  // namespace judgestat::loading
