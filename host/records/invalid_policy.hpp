// How invalid outputs count (docs/statistics.md §1 "Validity"): JEV's rule keeps an invalid output
// in n as an error (the default, `--invalid wrong`); CAP drops failed calls from its sample sizes
// (CAP App. L Table 20, `--invalid exclude`). Excluding turns each invalid cell into an absent one
// before any analysis selects records, so every statistic's n leaves it out.
#pragma once
#include <cstdint>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat {

/// `--invalid exclude`: every invalid cell (every repeat) becomes absent (no record), and its
/// line, probabilities, fee, latency and rationale are cleared. Returns the cells excluded per judge
/// (matrix.judges' order), for the note above the tables; matrix.invalid drops by their sum.
std::vector<int64_t> exclude_invalid_records(ItemMatrix& matrix);

}  // namespace judgestat
