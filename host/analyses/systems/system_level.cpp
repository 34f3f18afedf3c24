// System-level agreement (docs/statistics.md §8.4, issue 28 item 3): per judge, each system's score
// by the judge and by gold on the same units — pairwise its overall win rate, pointwise its mean
// score — and Kendall's τ-b and Spearman's ρ between the two rankings, with clustered intervals.
#include <cmath>

#include "analyses/systems/systems_plan.hpp"

namespace judgestat {

namespace {

constexpr int32_t kMinSystems = 3;  // fewer: τ and ρ can only be ±1 or undefined
// More: ρ's program (about 100 S² ops, evaluated per replicate) would dominate the run.
constexpr int32_t kMaxRankedSystems = 40;

// Per unit the judge's and gold's value for one system, or nothing (value < 0 pairwise, NaN pointwise).
struct SystemValues {
  std::vector<double> judge, gold, in;
  int64_t n = 0;
};

// Pairwise: the share of unit u that goes to system s under `share` (-1 when s is not in it).
double side_of(const SystemUnits& su, const std::vector<double>& share, size_t u, int32_t s) {
  const int32_t a = su.system_a[u], b = su.system_b[u];
  if (a < 0 || b < 0 || a == b) return -1;
  return a == s ? share[u] : b == s ? 1.0 - share[u] : -1;
}

SystemValues pairwise_values(const SystemUnits& su, const std::vector<double>& judge, const std::vector<double>& gold,
                             int32_t s) {
  const size_t U = su.units.size();
  SystemValues v{std::vector<double>(U, 0.0), std::vector<double>(U, 0.0), std::vector<double>(U, 0.0)};
  for (size_t u = 0; u < U; ++u) {
    if (judge[u] < 0 || gold[u] < 0) continue;
    const double j = side_of(su, judge, u, s), g = side_of(su, gold, u, s);
    if (j < 0) continue;
    v.judge[u] = j;
    v.gold[u] = g;
    v.in[u] = 1;
    ++v.n;
  }
  return v;
}

SystemValues pointwise_values(const ItemMatrix& m, const SystemUnits& su, const std::vector<double>& score, int32_t s) {
  const size_t U = su.units.size();
  SystemValues v{std::vector<double>(U, 0.0), std::vector<double>(U, 0.0), std::vector<double>(U, 0.0)};
  for (size_t u = 0; u < U; ++u) {
    const int32_t i = su.units[u].item;
    if (su.system_a[u] != s || std::isnan(score[u]) || !m.has_gold(i)) continue;
    v.judge[u] = score[u];
    v.gold[u] = m.label_score[m.gold[i]];
    v.in[u] = 1;
    ++v.n;
  }
  return v;
}

// One judge's system scores and rank statistics from each system's values.
void add_judge_level(const std::string& judge, const SystemUnits& su, const std::vector<SystemValues>& values,
                     bool pairwise, SystemsPlan& out) {
  std::vector<std::vector<Op>> by_judge, by_gold;
  int64_t units = 0;
  for (size_t s = 0; s < values.size(); ++s) {
    const SystemValues& v = values[s];
    if (v.n == 0) continue;
    const std::string tag = judge + "/level/" + su.systems[s];
    const int32_t kn = add_values(out.plan, tag + "/n", v.in);
    by_judge.push_back(ratio_program(add_values(out.plan, tag + "/judge", v.judge), kn));
    by_gold.push_back(ratio_program(add_values(out.plan, tag + "/gold", v.gold), kn));
    add_row(out, "system_score", judge, v.n, by_judge.back(), {"system_level", su.systems[s], std::nullopt, "judge"});
    add_row(out, "system_score", judge, v.n, by_gold.back(), {"system_level", su.systems[s], std::nullopt, "gold"});
    units += v.n;
  }
  if (static_cast<int32_t>(by_judge.size()) < kMinSystems) {
    out.notes.push_back(
        "kendall_tau and spearman_rho of " + judge + " are left out: " + std::to_string(by_judge.size()) +
        " systems have units with gold and a valid verdict (" + std::to_string(kMinSystems) + " or more needed)");
    return;
  }
  if (static_cast<int32_t>(by_judge.size()) > kMaxRankedSystems) {
    out.notes.push_back("kendall_tau and spearman_rho of " + judge +
                        " are left out: " + std::to_string(by_judge.size()) + " systems to rank, more than the " +
                        std::to_string(kMaxRankedSystems) + " their per-replicate programs are built for");
    return;
  }
  if (pairwise) units /= 2;  // each unit counts for both its systems
  const SystemsRowKey key{"system_level", std::nullopt, std::nullopt, std::nullopt};
  add_row(out, "kendall_tau", judge, units, kendall_tau_b_program(by_judge, by_gold), key);
  add_row(out, "spearman_rho", judge, units, spearman_rho_program(by_judge, by_gold), key);
}

}  // namespace

void add_system_level(const ItemMatrix& m, const Selection& sel, const SystemUnits& su, bool pairwise,
                      SystemsPlan& out) {
  bool any_gold = false;
  for (const SystemsUnit& unit : su.units) any_gold = any_gold || m.has_gold(unit.item);
  if (!any_gold) {
    out.notes.push_back(
        "system level (system_score, kendall_tau, spearman_rho) is left out: no analysed item has gold");
    return;
  }
  if (!pairwise && !m.scored) {
    out.notes.push_back(
        "system level is left out: one --systems column ranks systems by their mean score, which needs score "
        "judges (--scale LOW:HIGH); pairwise records name two columns (--systems x.A,x.B)");
    return;
  }
  const auto S = static_cast<int32_t>(su.systems.size());
  std::vector<double> gold;
  if (pairwise) gold = gold_share_a(m, su.units, pair_labels(m, "systems"));
  for (int32_t j : sel.judges) {
    std::vector<SystemValues> values;
    const std::vector<double> judge =
        pairwise ? judge_share_a(m, j, su.units, pair_labels(m, "systems")) : judge_scores(m, j, su.units);
    for (int32_t s = 0; s < S; ++s)
      values.push_back(pairwise ? pairwise_values(su, judge, gold, s) : pointwise_values(m, su, judge, s));
    add_judge_level(m.judges[j], su, values, pairwise, out);
  }
}

}  // namespace judgestat
