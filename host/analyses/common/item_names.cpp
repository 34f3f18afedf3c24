#include "analyses/common/item_names.hpp"

#include <algorithm>

namespace judgestat {

std::string name_some(const ItemMatrix& matrix, const std::vector<int32_t>& items) {
  constexpr size_t kShown = 5;
  std::string names;
  const size_t shown = std::min(items.size(), kShown);
  for (size_t n = 0; n < shown; ++n) names += (n ? ", " : "") + matrix.items[items[n]];
  if (items.size() > shown) names += " and " + std::to_string(items.size() - shown) + " more";
  return names;
}

}  // namespace judgestat
