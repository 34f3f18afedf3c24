// docs/statistics.md §8.5 "Per request": the requests behind the repeat statistics, one row each
// with its members, for the figures that show requests rather than averages (JEV Figs. 7c, 17–19).
#pragma once
#include <vector>

#include "analyses/repeats/repeats_plan.hpp"
#include "judgestat/repeats.hpp"

namespace judgestat {

/// Every request with two present members of each selected judge and family (the families the
/// plan supports), over all analysed items: per judge, family, item, then order and variant.
std::vector<RepeatRequest> request_rows(const ItemMatrix& m, const Selection& sel,
                                        const std::vector<RepeatFamily>& families, bool invalid_match);

}  // namespace judgestat
