// A few items of a set named in a message ("item3, item7, item9, item12, item20 and 12 more"), for
// the analyses' errors about items they cannot use (cascade's pool, budget --compare's items).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/records.hpp"

namespace judgestat {

/// The first five of `items` (indices into matrix.items) by name, ", "-joined, then " and N more"
/// when there are more.
std::string name_some(const ItemMatrix& matrix, const std::vector<int32_t>& items);

}  // namespace judgestat
