// docs/statistics.md §8.5's repeat statistics as a plan: the unit is an analysed item (its
// cluster's), and per judge, family and scope six columns hold the item's AgreementCounts summed
// over its requests; every statistic is a ratio of two of them, so the backends resample it as
// they resample accuracy.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyses/repeats/repeat_counts.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "records/selection.hpp"

namespace judgestat {

/// What a request's verdicts are compared across.
enum class RepeatFamily { kRepeat, kVariant, kRotation };

/// "repeat", "variant" or "rotation": the statistics' name prefix.
const char* family_name(RepeatFamily family);

/// Where statistics are reported: all analysed requests, one group's items, or one variant's requests.
struct RepeatScope {
  std::optional<std::string> group;  // benchmark or condition value (Selection::strata)
  int32_t stratum = -1;              // Selection::item_stratum of the group's items; -1 = every item
  int32_t variant = -1;              // matrix variant of a `--by variant` scope; -1 = every variant
};

/// What a request holds fixed: its order and variant (-1 for the coordinate its family compares
/// across: the variant family's variant, the rotation family's order).
struct RequestKey {
  int32_t order = -1, variant = -1;
};

/// A request's present members and each one's repeat, variant or order index, in that index's order.
using RequestVisitor =
    std::function<void(const RequestKey&, const std::vector<RepeatMember>&, const std::vector<int32_t>&)>;

/// Calls `visit` for each of judge j's requests of one family on item i within `scope`, members
/// taken as item_counts takes them (requests with fewer than two present members included).
void for_each_request(const ItemMatrix& m, const Selection& sel, int32_t j, int32_t i, RepeatFamily family,
                      const RepeatScope& scope, const RequestVisitor& visit);

/// Judge j's counts of one family on item i within `scope` (the variant family is one count over
/// all variants, so a variant scope has none).
AgreementCounts item_counts(const ItemMatrix& m, const Selection& sel, int32_t j, int32_t i, RepeatFamily family,
                            const RepeatScope& scope, bool invalid_match);

struct RepeatsPlan {
  Plan plan;
  std::vector<std::string> notes;
  std::vector<std::pair<StatLabel, double>> point_statistics;  // `<family>_q_range_median`
  std::vector<RepeatFamily> families;                          // the families the data supports
};

/// The plan of every judge × family × scope statistic the data supports, with a note for each
/// family or statistic left out.
RepeatsPlan build_repeats_plan(const ItemMatrix& m, const Selection& sel, const RepeatsOptions& options);

}  // namespace judgestat
