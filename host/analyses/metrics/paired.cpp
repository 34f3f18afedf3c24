#include "analyses/metrics/paired.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "support/text.hpp"

namespace judgestat {

const std::vector<std::string>& differenceable_statistics() {
  static const std::vector<std::string> names{"acc",
                                              "acc_avg",
                                              "pa",
                                              "bc",
                                              "cons",
                                              "stable_wrong",
                                              "jb_score",
                                              "kappa",
                                              "macro_f1",
                                              "macro_precision",
                                              "macro_recall",
                                              "precision",
                                              "recall",
                                              "f1",
                                              "composition_acc",
                                              "position_rate",
                                              "always_first",
                                              "always_second",
                                              "fee_per_1k",
                                              "brier",
                                              "nll",
                                              "mean_q",
                                              "ece",
                                              "auroc_err",
                                              "pearson",
                                              "spearman",
                                              "kendall_tau_b",
                                              "mae",
                                              "rmse",
                                              "exact",
                                              "within_one",
                                              "qwk",
                                              "pair_acc",
                                              "pair_tie_rate",
                                              "longer_rate",
                                              "gold_longer_rate",
                                              "longer_rate_gold_shorter",
                                              "acc_gold_longer",
                                              "acc_gold_shorter",
                                              "length_acc_diff",
                                              "length_acc",
                                              "point_biserial",
                                              "assoc_rho",
                                              "assoc_acc"};
  return names;
}

std::vector<std::pair<int32_t, int32_t>> judge_pairs(const std::vector<int32_t>& judges, int32_t reference,
                                                     bool all_pairs) {
  std::vector<std::pair<int32_t, int32_t>> pairs;
  if (all_pairs) {
    for (size_t j = 0; j < judges.size(); ++j)
      for (size_t i = 0; i < j; ++i) pairs.push_back({judges[j], judges[i]});
  } else {
    for (int32_t j : judges)
      if (j != reference) pairs.push_back({j, reference});
  }
  return pairs;
}

namespace {

std::string optional_key(const std::optional<std::string>& value) { return value ? "=" + *value : "-"; }
std::string optional_key(const std::optional<int>& value) { return value ? "=" + std::to_string(*value) : "-"; }

// What makes two judges' statistics the same statistic: everything in the label but the judge.
std::string identity(const StatLabel& label) {
  return label.name + "|" + optional_key(label.benchmark) + "|" + optional_key(label.condition) + "|" +
         optional_key(label.variant) + "|" + optional_key(label.threshold) + "|" + optional_key(label.order) + "|" +
         optional_key(label.label) + "|" + optional_key(label.position);
}

bool is_per_judge(const StatLabel& label) { return !label.reference && !label.of && !label.judge.empty(); }

// The numerator and denominator columns of a ratio program (a scale such as fee_per_1k's 1000
// may follow: the sign-flip p does not depend on it), or nothing.
std::optional<std::pair<int32_t, int32_t>> ratio_columns(const std::vector<Op>& program) {
  const bool scaled = program.size() == 5 && program[3].code == OpCode::kConstant && program[4].code == OpCode::kMul;
  if ((program.size() != 3 && !scaled) || program[0].code != OpCode::kColumn || program[1].code != OpCode::kColumn ||
      program[2].code != OpCode::kDiv)
    return std::nullopt;
  return std::make_pair(program[0].arg, program[1].arg);
}

// docs/statistics.md §7.3: the sign-flip test needs a paired mean difference, i.e. two ratios
// over the same per-unit denominators; its column holds the per-unit numerator differences.
void add_sign_flip_test(const StatisticDef& mine, const StatisticDef& theirs, int32_t statistic, Plan& plan) {
  const auto a = ratio_columns(mine.program), b = ratio_columns(theirs.program);
  if (!a || !b || plan.columns[a->second] != plan.columns[b->second] || mine.program.size() != theirs.program.size())
    return;
  if (mine.program.size() == 5 && mine.program[3].value != theirs.program[3].value) return;
  const int32_t k = plan.add_column("perm/" + std::to_string(statistic));
  const PlanColumn& x = plan.columns[a->first];
  const PlanColumn& y = plan.columns[b->first];
  for (size_t u = 0; u < x.size(); ++u) plan.columns[k].set(u, x[u] - y[u]);
  plan.sign_flip_tests.push_back({statistic, k});
}

// The units a statistic reads: those where a column of its program is non-zero or that a rank
// term it uses holds.
std::vector<uint8_t> units_read(const std::vector<Op>& program, const Plan& plan) {
  std::vector<uint8_t> read(plan.unit_cluster.size(), 0);
  for (const Op& op : program) {
    if (op.code == OpCode::kColumn) {
      const PlanColumn& column = plan.columns[op.arg];
      for (size_t u = 0; u < column.size(); ++u) read[u] |= column[u] != 0.0;
    } else if (op.code == OpCode::kRank) {
      for (int32_t u : plan.rank_terms[op.arg].units) read[u] = 1;
    }
  }
  return read;
}

// docs/statistics.md §7.3: a pair's differences whose two sides share under half of either
// side's units, with the first such row's counts.
struct FewShared {
  std::vector<std::string> names;
  int64_t shared = 0, judge_units = 0, reference_units = 0, shared_clusters = 0;
};

// Records the diff of `name` in `few` when the two statistics share too few units.
void check_shared_units(const StatisticDef& mine, const StatisticDef& theirs, const std::string& name, const Plan& plan,
                        FewShared& few) {
  const std::vector<uint8_t> a = units_read(mine.program, plan), b = units_read(theirs.program, plan);
  int64_t shared = 0, judge_units = 0, reference_units = 0;
  std::vector<uint8_t> cluster_shared(static_cast<size_t>(plan.n_clusters()), 0);
  for (size_t u = 0; u < a.size(); ++u) {
    judge_units += a[u];
    reference_units += b[u];
    if (a[u] && b[u]) {
      ++shared;
      cluster_shared[plan.unit_cluster[u]] = 1;
    }
  }
  if (2 * shared >= std::max(judge_units, reference_units)) return;
  if (std::find(few.names.begin(), few.names.end(), name) == few.names.end()) few.names.push_back(name);
  if (few.names.size() > 1) return;  // the counts of the first flagged row
  few.shared = shared;
  few.judge_units = judge_units;
  few.reference_units = reference_units;
  few.shared_clusters = std::count(cluster_shared.begin(), cluster_shared.end(), 1);
}

std::string few_shared_note(const std::string& judge, const std::string& reference, const FewShared& few) {
  return "diff of " + join(few.names, ", ") + " between " + judge + " and " + reference +
         " compares mostly different items: they share " + std::to_string(few.shared) + " of " + judge + "'s " +
         std::to_string(few.judge_units) + " and " + reference + "'s " + std::to_string(few.reference_units) +
         " units (" + std::to_string(few.shared_clusters) + " clusters), under half of either's";
}

}  // namespace

std::vector<std::string> add_paired_differences(const ItemMatrix& m, const std::vector<std::string>& names,
                                                const std::vector<std::pair<int32_t, int32_t>>& pairs, Plan& plan) {
  const auto& known = differenceable_statistics();
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(known.begin(), known.end(), names[i]) == known.end())
      throw std::invalid_argument("diff: '" + names[i] + "' is not a per-judge statistic; expected some of " +
                                  join(known, ", "));
    // A repeat would enter the Holm/BH family twice.
    if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      throw std::invalid_argument("diff: '" + names[i] + "' is named twice");
  }
  // Per judge name: identity → statistic index, and its statistics in plan order by name.
  std::map<std::string, std::map<std::string, size_t>> by_identity;
  std::map<std::string, std::map<std::string, std::vector<size_t>>> by_name;
  for (size_t s = 0; s < plan.statistics.size(); ++s) {
    const StatLabel& label = plan.statistics[s].label;
    if (!is_per_judge(label)) continue;
    by_identity[label.judge][identity(label)] = s;
    by_name[label.judge][label.name].push_back(s);
  }
  std::vector<std::string> notes;
  std::vector<FewShared> few(pairs.size());
  for (const auto& name : names) {
    bool any = false;
    for (size_t p = 0; p < pairs.size(); ++p) {
      const std::string &judge = m.judges[pairs[p].first], &reference = m.judges[pairs[p].second];
      for (size_t s : by_name[judge][name]) {
        const auto theirs = by_identity[reference].find(identity(plan.statistics[s].label));
        if (theirs == by_identity[reference].end()) continue;
        // Copies: push_back below may move the statistics.
        const StatisticDef mine = plan.statistics[s], other = plan.statistics[theirs->second];
        StatisticDef stat{mine.label, difference_program(mine.program, other.program)};
        stat.label.name = "diff";
        stat.label.of = name;
        stat.label.reference = reference;
        stat.label.n = std::min(mine.label.n, other.label.n);
        const auto index = static_cast<int32_t>(plan.statistics.size());
        plan.statistics.push_back(std::move(stat));
        add_sign_flip_test(mine, other, index, plan);
        check_shared_units(mine, other, name, plan, few[p]);
        any = true;
      }
    }
    if (!any && !pairs.empty())
      notes.push_back("diff of " + name + " is left out: no pair of judges has it on this data");
  }
  for (size_t p = 0; p < pairs.size(); ++p)
    if (!few[p].names.empty())
      notes.push_back(few_shared_note(m.judges[pairs[p].first], m.judges[pairs[p].second], few[p]));
  return notes;
}

OrderZero order_zero(const ItemMatrix& m, int32_t judge, const std::vector<AccuracyUnit>& units) {
  OrderZero out;
  for (const AccuracyUnit& unit : units) {
    const size_t c = m.cell(judge, unit.item, 0, unit.variant);
    out.verdict.push_back(m.verdict[c]);
    out.present.push_back(m.present(c));
    out.correct.push_back(m.correct(c, unit.item));
  }
  return out;
}

Complementarity complementarity_counts(const OrderZero& judge, const OrderZero& reference,
                                       const std::vector<double>& mask) {
  Complementarity out;
  for (size_t u = 0; u < mask.size(); ++u) {
    if (!mask[u] || !judge.present[u] || !reference.present[u]) continue;
    ++out.n;
    const bool a = judge.correct[u], b = reference.correct[u];
    out.both_right += a && b;
    out.judge_only += a && !b;
    out.reference_only += !a && b;
    out.both_wrong += !a && !b;
  }
  return out;
}

namespace {

// A ratio statistic over the units both judges rated: Σ value / Σ both.
void add_pair_ratio(const OrderZero& judge, const OrderZero& reference, const std::vector<double>& mask,
                    const std::vector<double>& value, StatLabel label, const std::string& tag, Plan& plan) {
  std::vector<double> both(mask.size(), 0.0), num(mask.size(), 0.0);
  for (size_t u = 0; u < mask.size(); ++u) {
    both[u] = mask[u] && judge.present[u] && reference.present[u];
    num[u] = both[u] * value[u];
  }
  label.n = static_cast<int64_t>(std::count(both.begin(), both.end(), 1.0));
  if (label.n == 0) return;
  const int32_t kn = plan.add_column(tag + "/num"), kd = plan.add_column(tag + "/den");
  plan.columns[kn] = std::move(num);
  plan.columns[kd] = std::move(both);
  plan.statistics.push_back({label, ratio_program(kn, kd)});
}

}  // namespace

void add_oracle_acc(const OrderZero& judge, const OrderZero& reference, const std::vector<double>& mask,
                    StatLabel label, const std::string& tag, Plan& plan) {
  std::vector<double> either(mask.size());
  for (size_t u = 0; u < mask.size(); ++u) either[u] = judge.correct[u] || reference.correct[u];
  label.name = "oracle_acc";
  label.order = 0;
  add_pair_ratio(judge, reference, mask, either, label, tag + "/oracle", plan);
}

namespace {

// JEV Table 9's S2 (both judges wrong, with the same verdict) and S3 (both right: the controls),
// by what the human decided.
void count_agreed_stratum(int32_t gold, int32_t decision, int16_t verdict, Disputes& out) {
  if (verdict == gold) {
    ++out.controls;
    out.controls_confirm_label += decision == gold;
    return;
  }
  ++out.both_wrong;
  if (decision == gold) {
    ++out.both_wrong_confirms_label;
  } else if (decision >= 0 && decision == verdict) {
    ++out.both_wrong_sides_with_judges;
  } else {
    ++out.both_wrong_neither;  // indecisive, or a third label
  }
}

}  // namespace

Disputes dispute_counts(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const OrderZero& judge,
                        const OrderZero& reference, const std::vector<double>& mask) {
  Disputes out;
  if (!m.has_adjudicated) return out;
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t decision = m.item_adjudicated[units[u].item];
    if (!mask[u] || !judge.present[u] || !reference.present[u] || decision == kNotAdjudicated) continue;
    ++out.adjudicated;
    if (judge.verdict[u] == reference.verdict[u]) {
      count_agreed_stratum(m.gold[units[u].item], decision, judge.verdict[u], out);
      continue;
    }
    ++out.disputed;
    if (decision >= 0 && decision == judge.verdict[u]) {
      ++out.sides_with_judge;
    } else if (decision >= 0 && decision == reference.verdict[u]) {
      ++out.sides_with_reference;
    } else {
      ++out.sides_with_neither;  // indecisive, or a third label
    }
  }
  return out;
}

void add_adjudicated_difference(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const OrderZero& judge,
                                const OrderZero& reference, const std::vector<double>& mask, StatLabel label,
                                const std::string& tag, Plan& plan, bool indecisive_zero) {
  if (!m.has_adjudicated) return;
  // Without a decision in the scope the row would repeat `diff acc`; under JEV's rule an
  // indecisive item is one (it scores 0 where gold would score ±1).
  bool decided = false;
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t decision = m.item_adjudicated[units[u].item];
    decided = decided || (mask[u] && (decision >= 0 || (indecisive_zero && decision == kIndecisive)));
  }
  if (!decided) return;
  std::vector<double> difference(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t item = units[u].item, decision = m.item_adjudicated[item];
    if (indecisive_zero && decision == kIndecisive) continue;  // JEV App. C: "0 when indecisive"
    const int32_t truth = decision >= 0 ? decision : m.gold[item];
    difference[u] = (judge.verdict[u] == truth) - (reference.verdict[u] == truth);
  }
  label.name = "diff";
  label.of = "acc_adjudicated";
  label.order = 0;
  const auto index = static_cast<int32_t>(plan.statistics.size());
  add_pair_ratio(judge, reference, mask, difference, label, tag + "/adjudicated", plan);
  // A mean of paired unit differences: its own sign-flip test.
  if (plan.statistics.size() > static_cast<size_t>(index))
    plan.sign_flip_tests.push_back({index, plan.statistics[index].program[0].arg});
}

}  // namespace judgestat
