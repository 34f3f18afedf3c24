// Human adjudication as gold (docs/statistics.md §7.2 `--gold adjudicated`): label substitution.
#include "judgestat/records.hpp"

namespace judgestat {

int64_t use_adjudicated_gold(ItemMatrix& matrix) {
  if (!matrix.has_adjudicated) throw UsageError("--gold adjudicated: the file has no adjudicated column");
  int64_t changed = 0;
  for (size_t i = 0; i < matrix.item_adjudicated.size(); ++i) {
    const int32_t decision = matrix.item_adjudicated[i];
    // Not adjudicated and indecisive items keep their gold.
    if (decision < 0 || decision == matrix.gold[i]) continue;
    matrix.items_without_gold -= matrix.gold[i] == kNoGold;  // an adjudicated item gains gold
    matrix.gold[i] = decision;
    ++changed;
  }
  return changed;
}

}  // namespace judgestat
