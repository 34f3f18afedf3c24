#include "analyses/scores/score_pairs.hpp"

#include <map>
#include <utility>

#include "analyses/scores/score_programs.hpp"

namespace judgestat {

std::vector<ScorePair> score_pairs(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                                   const std::string& covariate, int64_t& unpaired) {
  const std::vector<int32_t>& level = m.item_levels(covariate, "--score-pairs");
  const Covariate& column = m.covariate(covariate);
  // Per (level, variant) the units in record order (items are numbered by first appearance).
  std::map<std::pair<int32_t, int32_t>, std::vector<int32_t>> members;
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t l = level[units[u].item];
    if (l >= 0) members[{l, units[u].variant}].push_back(static_cast<int32_t>(u));
  }
  std::vector<ScorePair> pairs;
  unpaired = 0;
  for (const auto& [key, unit_list] : members) {
    if (unit_list.size() > 2)
      throw UsageError("--score-pairs x." + column.name + ": the value '" + column.levels[key.first] + "' has " +
                       std::to_string(unit_list.size()) + " items ('" + m.items[units[unit_list[0]].item] + "', '" +
                       m.items[units[unit_list[1]].item] + "', '" + m.items[units[unit_list[2]].item] +
                       "', …); a pair is two responses");
    if (unit_list.size() == 1)
      ++unpaired;
    else
      pairs.push_back({unit_list[0], unit_list[1]});
  }
  return pairs;
}

// A difference within 1e-9 of the margin is a tie: decimal scores differ inexactly in binary
// (7.3 − 6.3 = 1.0000000000000009 must not beat a margin of 1).
int decide(double a, double b, double margin) {
  const double limit = margin + 1e-9;
  if (a - b > limit) return 1;
  if (b - a > limit) return -1;
  return 0;
}

void add_pair_decisions(const ItemMatrix& m, int32_t j, int order, const std::vector<AccuracyUnit>& units,
                        const std::vector<ScorePair>& pairs, const std::vector<double>& mask, double margin,
                        const StatLabel& base, const std::string& tag, Plan& plan) {
  const size_t U = units.size();
  std::vector<double> scored(U, 0.0), ties(U, 0.0), with_gold(U, 0.0), agree(U, 0.0);
  auto score = [&](int32_t u) -> double {
    const int16_t v = m.verdict[m.cell(j, units[u].item, order, units[u].variant)];
    return v >= 0 ? m.label_score[v] : NAN;
  };
  for (const ScorePair& pair : pairs) {
    const double a = score(pair.a), b = score(pair.b);
    if (!mask[pair.a] || a != a || b != b) continue;
    const int decision = decide(a, b, margin);
    scored[pair.a] = 1;
    ties[pair.a] = decision == 0;
    const int32_t item_a = units[pair.a].item, item_b = units[pair.b].item;
    if (!m.has_gold(item_a) || !m.has_gold(item_b)) continue;
    with_gold[pair.a] = 1;
    agree[pair.a] = decision == decide(m.label_score[m.gold[item_a]], m.label_score[m.gold[item_b]], margin);
  }
  auto add = [&](const char* name, const std::vector<double>& num, const std::vector<double>& den) {
    int64_t n = 0;
    for (double d : den) n += d != 0;
    if (n == 0) return;
    const int32_t kn = add_score_column(plan, tag + "/" + name + "/num", num);
    const int32_t kd = add_score_column(plan, tag + "/" + name + "/den", den);
    StatLabel label = base;
    label.name = name;
    label.n = n;
    plan.statistics.push_back({std::move(label), ratio_program(kn, kd)});
  };
  add("pair_acc", agree, with_gold);
  add("pair_tie_rate", ties, scored);
}

}  // namespace judgestat
