// The systems analysis as a plan builder (docs/statistics.md §8.4): the units and their systems, the
// per-unit facts of a judge (its share for candidate A, its score, its correctness), and the
// finishing programs of the rank statistics between systems.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "judgestat/systems.hpp"
#include "records/selection.hpp"

namespace judgestat {

inline constexpr double kNoShare = -1.0;  // a unit where the judge gave no valid verdict (or no gold)
inline constexpr int32_t kNoSystem = -1;

/// One (item, variant) of the selection: the unit of every systems statistic.
struct SystemsUnit {
  int32_t item, variant;
};

/// The plan being built and what each statistic describes.
struct SystemsPlan {
  Plan plan;
  std::vector<SystemsRowKey> keys;  // per statistic
  std::vector<std::string> notes;
};

/// The units and, per unit, the systems behind candidates A and B (pointwise: A only, B kNoSystem).
struct SystemUnits {
  std::vector<SystemsUnit> units;
  std::vector<int32_t> system_a, system_b;
  std::vector<std::string> systems;  // by first appearance in the units, A before B
};

/// Every (item, variant) of the selection that a selected judge has a record for, in selection
/// order, each unit's cluster appended to plan->unit_cluster unless `plan` is null; the systems read
/// from `columns` (none, one or two covariates, one value per item: InputError naming `why` otherwise).
SystemUnits system_units(const ItemMatrix& m, const Selection& sel, const std::vector<std::string>& columns,
                         const std::string& why, Plan* plan);

/// The label indices of the pair labels A and B; std::invalid_argument naming `option` when the
/// label set is not {A, B} (pairwise analyses read verdicts as the canonical first or second response).
std::pair<int32_t, int32_t> pair_labels(const ItemMatrix& m, const std::string& option);

/// Judge j's share for candidate A on each unit: the mean over its valid verdicts in the unit's orders
/// of 1 (A), 0 (B) or ½ (tie); kNoShare where none is valid.
std::vector<double> judge_share_a(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units,
                                  std::pair<int32_t, int32_t> ab);
/// Gold's share for candidate A on each unit: 1 (gold A), 0 (gold B), kNoShare without gold.
std::vector<double> gold_share_a(const ItemMatrix& m, const std::vector<SystemsUnit>& units,
                                 std::pair<int32_t, int32_t> ab);
/// Judge j's score on each unit (score judges): the mean of label_score over its valid verdicts in
/// the unit's orders; NaN where none is valid.
std::vector<double> judge_scores(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units);
/// Judge j's correctness on each unit: the mean over its present verdicts of 1[verdict = gold] (an
/// invalid verdict is wrong); NaN where it has none or the item has no gold.
std::vector<double> judge_correct(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units);

/// A column of `values` added to the plan; its index.
int32_t add_values(Plan& plan, const std::string& name, std::vector<double> values);

/// sign(a − b): 1, −1, or 0 when equal (x / |x| or 0 at x = 0; NaN when either is undefined).
std::vector<Op> sign_of_difference(const std::vector<Op>& a, const std::vector<Op>& b);
/// Kendall's τ-b of the paired values x_s, y_s (each a program): Σ_{s<t} sx·sy / √(Σ |sx| · Σ |sy|)
/// with sx = sign(x_s − x_t), sy = sign(y_s − y_t); undefined when either side is constant.
std::vector<Op> kendall_tau_b_program(const std::vector<std::vector<Op>>& x, const std::vector<std::vector<Op>>& y);
/// Spearman's ρ (Pearson's r of average ranks) of x_s and y_s: Σ a_s b_s / √(Σ a_s² · Σ b_s²) with
/// a_s = Σ_t sign(x_s − x_t) = 2 (rank_s − (S + 1)/2); undefined when either side is constant.
std::vector<Op> spearman_rho_program(const std::vector<std::vector<Op>>& x, const std::vector<std::vector<Op>>& y);

/// The win rates of docs/statistics.md §8.4 per judge (and gold's system level with gold).
void add_win_rates(const ItemMatrix& m, const Selection& sel, const SystemUnits& su, const SystemsOptions& options,
                   SystemsPlan& out);
/// The system-level rank agreement per judge (pairwise: by win rates; pointwise: score judges' means).
void add_system_level(const ItemMatrix& m, const Selection& sel, const SystemUnits& su, bool pairwise,
                      SystemsPlan& out);
/// Self-preference per judge (--self, --family); the analysed judges' families into `judge_family`.
void add_self_preference(const ItemMatrix& m, const Selection& sel, const SystemsOptions& options,
                         std::map<std::string, std::string>& judge_family, SystemsPlan& out);
/// A statistic and its row key appended to the plan.
void add_row(SystemsPlan& out, const std::string& name, const std::string& judge, int64_t n, std::vector<Op> program,
             SystemsRowKey key);

}  // namespace judgestat
