#include "analyses/metrics/metrics_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "analyses/common/judge_validity.hpp"
#include "analyses/covariates/covariate_bias.hpp"
#include "analyses/metrics/agreement.hpp"
#include "analyses/metrics/classification.hpp"
#include "analyses/metrics/group_differences.hpp"
#include "analyses/metrics/order_averaging.hpp"
#include "analyses/metrics/order_guard.hpp"
#include "analyses/metrics/paired.hpp"
#include "analyses/metrics/position_cost.hpp"
#include "analyses/probability/calibration.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "analyses/scores/scores_plan.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "records/memory.hpp"
#include "records/validity.hpp"
#include "support/text.hpp"

namespace judgestat {

using Unit = AccuracyUnit;

JudgeUnits judge_units(const ItemMatrix& m, int32_t j, const std::vector<Unit>& units, int orders, bool invalid_match,
                       double tie_credit) {
  const size_t U = units.size();
  JudgeUnits out;
  out.present.assign(orders, PlanColumn(U));
  out.correct.assign(orders, PlanColumn(U));
  out.any_present = out.order_mean = out.complete = out.all_correct = out.consistent = out.jb_positive = PlanColumn(U);
  out.verdict0.assign(U, kAbsent);
  for (size_t u = 0; u < U; ++u) {
    const int32_t i = units[u].item, v = units[u].variant;
    int n_present = 0, n_correct = 0, score = 0;
    double credit_sum = 0;  // n_correct plus the ties' credit: acc's and pa's numerators
    bool same = true;
    int16_t first_verdict = kAbsent;
    for (int o = 0; o < orders; ++o) {
      const size_t c = m.cell(j, i, o, v);
      if (!m.present(c)) continue;
      const int16_t verdict = m.verdict[c];
      const bool right = m.correct(c, i);
      out.present[o][u] = 1;
      const double credit = right ? 1.0 : verdict == kTie ? tie_credit : 0.0;
      out.correct[o][u] = credit;
      if (n_present++ == 0) first_verdict = verdict;
      n_correct += right;
      credit_sum += credit;
      // JudgeBench: +1 for the gold label, -1 for another label; tie and invalid score 0.
      score += right ? 1 : (verdict >= 0 ? -1 : 0);
      same = same && verdict == first_verdict;
    }
    // An invalid verdict matches nothing ("invalid pairs count as flips") unless
    // --invalid-match lets two invalid verdicts agree.
    if (first_verdict == kInvalid && !invalid_match) same = false;
    out.verdict0[u] = m.verdict[m.cell(j, i, 0, v)];
    if (n_present == 0) continue;
    out.any_present[u] = 1;
    out.order_mean[u] = credit_sum / n_present;
    if (n_present == orders) {
      out.complete[u] = 1;
      out.all_correct[u] = n_correct == orders;
      out.consistent[u] = same;
      out.jb_positive[u] = score > 0;
    }
  }
  return out;
}

namespace {

double total(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

// Cohen's κ between the order-0 and order-1 verdicts on complete units (LLMBar's
// `kappa_agreement`): categories are the labels, `tie` and invalid, each its own category.
// Returns a note when the units exist but κ is 0/0 (every verdict in one category).
std::optional<std::string> add_order_kappa(const ItemMatrix& m, int32_t j, const std::vector<AccuracyUnit>& units,
                                           const PlanColumn& complete, const std::vector<double>& mask,
                                           const std::string& tag, StatLabel label, Plan& plan) {
  std::vector<int32_t> first(units.size(), -1), second(units.size(), -1);
  bool any = false;
  for (size_t u = 0; u < units.size(); ++u) {
    if (!complete[u] || !mask[u]) continue;
    first[u] = agreement_category(m, m.verdict[m.cell(j, units[u].item, 0, units[u].variant)]);
    second[u] = agreement_category(m, m.verdict[m.cell(j, units[u].item, 1, units[u].variant)]);
    any = true;
  }
  const std::string where = label.judge + (label.benchmark ? " on " + *label.benchmark : "") +
                            (label.condition ? " on " + *label.condition : "");
  if (add_cohen_kappa(first, second, agreement_categories(m), tag + "/kappa", std::move(label), plan) || !any)
    return std::nullopt;
  return "kappa of " + where + " is left out: every verdict falls in one category in both orders (κ = 0/0)";
}

}  // namespace

std::vector<double> gold_units(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                               const std::vector<double>& mask) {
  std::vector<double> out(mask);
  for (size_t u = 0; u < units.size(); ++u) out[u] *= m.has_gold(units[u].item);
  return out;
}

std::vector<AccuracyUnit> accuracy_units(const ItemMatrix& m, const Selection& sel, Plan& plan) {
  std::vector<AccuracyUnit> units;
  for (int32_t i : sel.items)
    for (int32_t v : sel.variants) {
      bool any = false;
      for (int32_t j : sel.judges)
        for (int o = 0; o < m.orders && !any; ++o) any = m.present(m.cell(j, i, o, v));
      if (!any) continue;
      units.push_back({i, v});
      plan.unit_cluster.push_back(sel.item_cluster[i]);
    }
  return units;
}

namespace {

// --verdict-shares (docs/statistics.md §7.1): one weight per label index, normalised to sum 1;
// empty when not asked for. Every label is given exactly once, with a finite share ≥ 0.
std::vector<double> composition_weights(const ItemMatrix& m, const std::vector<std::pair<std::string, double>>& given) {
  if (given.empty()) return {};
  const std::string flag = "--verdict-shares: ";
  std::vector<double> weights(m.n_labels(), NAN);
  double sum = 0;
  for (const auto& [label, weight] : given) {
    const auto at = std::find(m.labels.begin(), m.labels.end(), label);
    if (at == m.labels.end())
      throw UsageError(flag + "'" + label + "' is not a label of " + m.path + " (labels: " + join(m.labels) + ")");
    double& w = weights[at - m.labels.begin()];
    if (!std::isnan(w)) throw UsageError(flag + "the label '" + label + "' is given twice");
    if (!std::isfinite(weight) || weight < 0)
      throw UsageError(flag + "the share of '" + label + "' must be a finite number >= 0");
    w = weight;
    sum += weight;
  }
  for (int32_t k = 0; k < m.n_labels(); ++k)
    if (std::isnan(weights[k])) throw UsageError(flag + "give a share for every label; '" + m.labels[k] + "' has none");
  if (!(sum > 0)) throw UsageError(flag + "the shares sum to 0");
  for (double& w : weights) w /= sum;
  return weights;
}

// What the run's note says of the composition: each label's normalised share.
std::string composition_note(const ItemMatrix& m, const std::vector<double>& weights) {
  std::vector<std::string> shares;
  for (int32_t k = 0; k < m.n_labels(); ++k) {
    char share[32];
    std::snprintf(share, sizeof share, "%.4f", weights[k]);
    shares.push_back(m.labels[k] + " " + share);
  }
  return "composition_acc: each verdict's agreement with gold, reweighted to the verdict shares " + join(shares) +
         " (--verdict-shares, CAP App. C)";
}

// The accuracy family of one selection, built step by step: the units, the scopes (overall,
// then each stratum when reporting per group), per judge × scope the ratio statistics, the
// order family and macro-F1, then the paired differences and each judge's validity.
class MetricsPlanBuilder {
 public:
  MetricsPlanBuilder(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options)
      : m_(m), sel_(sel), options_(options), plan_(out_.plan) {}

  MetricsPlan build() {
    plan_ = plan_for(sel_);
    units_ = accuracy_units(m_, sel_, plan_);
    U_ = units_.size();
    orders_ = sel_.orders;
    multi_order_ = orders_ >= 2;
    if (!multi_order_)
      out_.notes.push_back(
          "bc, cons, stable_wrong and jb_score are left out: the data has one "
          "presentation order (they compare orders)");
    make_scopes();
    composition_ = composition_weights(m_, options_.verdict_shares);
    if (!composition_.empty()) out_.notes.push_back(composition_note(m_, composition_));
    std::vector<JudgeUnits> facts;
    for (int32_t j : sel_.judges)
      facts.push_back(
          judge_units(m_, j, units_, orders_, options_.invalid_match, options_.tie_half_credit ? 0.5 : 0.0));
    for (size_t jj = 0; jj < sel_.judges.size(); ++jj) {
      // JEV Tables 24–25: the order-averaged probabilities' credit, once per judge.
      averaged_credit_ =
          multi_order_ ? order_averaged_credit(m_, sel_.judges[jj], units_, orders_) : std::vector<double>();
      for (size_t s = 0; s < scopes_.size(); ++s) add_judge_scope(sel_.judges[jj], facts[jj], s);
    }
    add_validity();
    out_.units = std::move(units_);
    out_.scopes = std::move(scopes_);
    return std::move(out_);
  }

 private:
  void make_scopes() {
    scopes_.push_back({std::nullopt, std::vector<double>(U_, 1.0)});
    if (options_.per_group && !sel_.strata.empty())
      for (int32_t h = 0; h < sel_.n_strata(); ++h) {
        MetricsScope scope{sel_.stratum_names[h], std::vector<double>(U_, 0.0)};
        for (size_t u = 0; u < U_; ++u) scope.mask[u] = sel_.item_stratum[units_[u].item] == h;
        scopes_.push_back(std::move(scope));
      }
    for (const MetricsScope& scope : scopes_) gold_masks_.push_back(gold_units(m_, units_, scope.mask));
  }

  // docs/statistics.md §8.1: the statistics that need gold count only the units with gold.
  template <typename Values>
  std::vector<double> with_gold(const Values& values) const {
    return masked(values, gold_masks_.front());
  }

  // Values is std::vector<double> or PlanColumn (a judge's facts).
  template <typename Values>
  std::vector<double> masked(const Values& values, const std::vector<double>& mask) const {
    std::vector<double> out_values(U_);
    for (size_t u = 0; u < U_; ++u) out_values[u] = values[u] * mask[u];
    return out_values;
  }

  int32_t add_column(const std::string& name, std::vector<double> values) {
    const int32_t k = plan_.add_column(name);
    plan_.columns[k] = std::move(values);
    return k;
  }

  StatLabel label_for(const std::string& name, int32_t judge, const MetricsScope& scope) const {
    StatLabel label = group_label(sel_, scope.group);
    label.name = name;
    label.judge = m_.judges[judge];
    return label;
  }

  // sum(num) / sum(den) on the scope's units; nothing when den is 0 there.
  template <typename Num, typename Den>
  void add_ratio(int32_t j, size_t s, const std::string& tag, const std::string& name, std::optional<int> order,
                 const Num& num, const Den& den) {
    const MetricsScope& scope = scopes_[s];
    const std::vector<double> den_values = masked(den, scope.mask);
    const int64_t n = static_cast<int64_t>(total(den_values));
    if (n == 0) return;
    const int32_t kn = add_column(tag + "/" + name + "/num", masked(num, scope.mask));
    const int32_t kd = add_column(tag + "/" + name + "/den", den_values);
    StatisticDef stat{label_for(name, j, scope), ratio_program(kn, kd)};
    stat.label.order = order;
    stat.label.n = n;
    plan_.statistics.push_back(std::move(stat));
  }

  void add_judge_scope(int32_t j, const JudgeUnits& f, size_t s) {
    const MetricsScope& scope = scopes_[s];
    const std::string tag = m_.judges[j] + (scope.group ? "/" + *scope.group : "");
    for (int o = 0; o < orders_; ++o) add_ratio(j, s, tag, "acc", o, f.correct[o], with_gold(f.present[o]));
    add_ratio(j, s, tag, "pa", std::nullopt, f.order_mean, with_gold(f.any_present));
    if (multi_order_) add_order_family(j, f, s, tag);
    add_judge_detail(j, s, tag);
  }

  // bc, cons, stable_wrong, jb_score and kappa: statistics that compare orders.
  void add_order_family(int32_t j, const JudgeUnits& f, size_t s, const std::string& tag) {
    const MetricsScope& scope = scopes_[s];
    std::vector<double> bc(U_), cons(U_), jb(U_);
    for (size_t u = 0; u < U_; ++u) {
      bc[u] = f.complete[u] * f.all_correct[u];
      cons[u] = f.complete[u] * f.consistent[u];
      jb[u] = f.complete[u] * f.jb_positive[u];
    }
    const std::vector<double> complete_with_gold = with_gold(f.complete);
    add_ratio(j, s, tag, "bc", std::nullopt, bc, complete_with_gold);
    add_ratio(j, s, tag, "cons", std::nullopt, cons, f.complete);
    // stable_wrong = cons - bc on the same units [CAP App. H], those with gold (§8.1).
    const std::vector<double> den = masked(complete_with_gold, scope.mask);
    const int64_t n = static_cast<int64_t>(total(den));
    if (n > 0) {
      const int32_t kc = add_column(tag + "/sw/cons", masked(cons, den));
      const int32_t kb = add_column(tag + "/sw/bc", masked(bc, scope.mask));
      const int32_t kd = add_column(tag + "/sw/den", den);
      StatisticDef stat{
          label_for("stable_wrong", j, scope),
          {{OpCode::kColumn, kc}, {OpCode::kColumn, kb}, {OpCode::kSub}, {OpCode::kColumn, kd}, {OpCode::kDiv}}};
      stat.label.n = n;
      plan_.statistics.push_back(std::move(stat));
    }
    add_ratio(j, s, tag, "jb_score", std::nullopt, jb, complete_with_gold);
    if (auto note = add_order_kappa(m_, j, units_, f.complete, scope.mask, tag, label_for("kappa", j, scope), plan_))
      out_.notes.push_back(std::move(*note));
    if (!averaged_credit_.empty())
      add_order_averaging(j, m_, averaged_credit_, f.correct[0], f.complete,
                          ScopeView{units_, gold_masks_[s], group_label(sel_, scope.group), tag}, plan_);
  }

  // docs/statistics.md §7.1 per judge and scope: classification detail and its confusion
  // matrix, position bias, fee per 1,000 records and latency quantiles.
  void add_judge_detail(int32_t j, size_t s, const std::string& tag) {
    const MetricsScope& scope = scopes_[s];
    const ScopeView view{units_, scope.mask, group_label(sel_, scope.group), tag};
    // Classification compares verdicts with gold: the scope's units with gold (§8.1).
    const ScopeView gold_view{units_, gold_masks_[s], view.base, tag};
    if (auto why = add_classification(m_, j, gold_view, plan_, composition_))
      out_.notes.push_back("composition_acc of " + m_.judges[j] + (scope.group ? " [" + *scope.group + "]" : "") +
                           " is left out: " + *why);
    out_.confusion.push_back(confusion_counts(m_, j, gold_view));
    add_position_bias(m_, j, orders_, view, plan_);
    const auto fee = per_call(options_.fee, j), latency = per_call(options_.latency, j);
    if (m_.has_fee || fee) add_fee_per_1k(m_, j, view, fee, plan_);
    if (m_.has_fee && !fee && !scope.group) note_missing_fees(j);
    if (!options_.failure_type.empty()) add_failure_rates(m_, j, view, failure_covariate(), plan_);
    if (!m_.has_latency && !latency) return;
    const LatencyQuantiles q = latency_quantiles(m_, j, view, latency);
    if (q.n == 0) return;
    StatLabel label = view.base;
    label.judge = m_.judges[j];
    label.n = q.n;
    label.name = "latency_p50";
    out_.point_statistics.push_back({label, q.p50});
    label.name = "latency_p95";
    out_.point_statistics.push_back({label, q.p95});
  }

  // The covariate --failure-type names (a usage error naming the flag when the file lacks it).
  const Covariate& failure_covariate() const {
    try {
      return m_.covariate(options_.failure_type);
    } catch (const UsageError& error) {
      throw UsageError(std::string("--failure-type: ") + error.what());
    }
  }

  // fee_per_1k averages over the records that carry a fee; say how many do not.
  void note_missing_fees(int32_t j) {
    int64_t records = 0, missing = 0;
    for (const AccuracyUnit& unit : units_)
      for (int o = 0; o < m_.orders; ++o) {
        const size_t c = m_.cell(j, unit.item, o, unit.variant);
        if (!m_.present(c)) continue;
        ++records;
        missing += std::isnan(m_.fee[c]);
      }
    if (missing > 0 && missing < records)
      out_.notes.push_back("fee_per_1k of " + m_.judges[j] + ": " + std::to_string(missing) + " of " +
                           std::to_string(records) + " records carry no fee_usd and are left out of its mean");
  }

  std::optional<double> per_call(const std::map<std::string, double>& values, int32_t j) const {
    const auto it = values.find(m_.judges[j]);
    return it == values.end() ? std::nullopt : std::optional<double>(it->second);
  }

  void add_validity() {
    for (int32_t j : sel_.judges) {
      ValidityTally tally(m_, j);
      for (const Unit& unit : units_)
        for (int o = 0; o < m_.orders; ++o) tally.add(m_.cell(j, unit.item, o, unit.variant));
      out_.validity.push_back(tally.finish());
    }
    // docs/statistics.md §8.1: the analysed items without gold, named once above the tables.
    std::vector<uint8_t> seen(m_.items.size(), 0);
    int64_t items = 0, without_gold = 0;
    for (const Unit& unit : units_) {
      if (seen[unit.item]) continue;
      seen[unit.item] = 1;
      ++items;
      without_gold += !m_.has_gold(unit.item);
    }
    set_gold_counts(out_.validity, items, without_gold, kMetricsGoldStatistics);
  }

  const ItemMatrix& m_;
  const Selection& sel_;
  const MetricsOptions& options_;
  MetricsPlan out_;
  Plan& plan_;
  std::vector<Unit> units_;
  size_t U_ = 0;
  std::vector<double> averaged_credit_;  // the current judge's order_averaged_credit
  std::vector<double> composition_;      // --verdict-shares's weight per label (empty: none)
  int orders_ = 0;
  bool multi_order_ = false;
  std::vector<MetricsScope> scopes_;
  std::vector<std::vector<double>> gold_masks_;  // per scope: its mask on the units with gold
};

}  // namespace

MetricsPlan build_metrics_plan(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options) {
  return MetricsPlanBuilder(m, sel, options).build();
}

namespace {

// The units of `mask` whose item has a decisive adjudication or gold: the truth of §7.2's
// adjudicated difference. Under `indecisive_zero` an indecisive item is scored (0) too.
std::vector<double> decided_or_gold(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                                    const std::vector<double>& mask, bool indecisive_zero) {
  std::vector<double> out(mask);
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t decision = m.item_adjudicated[units[u].item];
    out[u] *= m.has_gold(units[u].item) || decision >= 0 || (indecisive_zero && decision == kIndecisive);
  }
  return out;
}

bool analysed(const Selection& sel, int32_t judge) {
  return std::find(sel.judges.begin(), sel.judges.end(), judge) != sel.judges.end();
}

// Comparisons of judges on the accuracy units, per pair × scope: Cohen's κ, oracle accuracy,
// complementarity, disputes and the adjudicated difference (docs/statistics.md §7.1–§7.3).
void add_pair_comparisons(const ItemMatrix& m, const Selection& sel,
                          const std::vector<std::pair<int32_t, int32_t>>& pairs, const MetricsOptions& options,
                          MetricsPlan& built) {
  const int order = options.agreement_order;
  std::map<int32_t, OrderZero> zero;
  for (const auto& [j, r] : pairs)
    for (int32_t judge : {j, r})
      if (!zero.count(judge)) zero[judge] = order_zero(m, judge, built.units);
  for (const auto& [j, r] : pairs)
    for (const MetricsScope& scope : built.scopes) {
      const std::string tag = m.judges[j] + "-" + m.judges[r] + (scope.group ? "/" + *scope.group : "");
      StatLabel label = group_label(sel, scope.group);
      label.judge = m.judges[j];
      label.reference = m.judges[r];
      const size_t before = built.plan.statistics.size();
      const ScopeView pair_view{built.units, scope.mask, group_label(sel, scope.group), tag};
      add_pair_kappa(m, j, r, order, pair_view, built.plan);
      if (built.plan.statistics.size() == before)
        built.notes.push_back("kappa of " + m.judges[j] + " vs " + m.judges[r] +
                              (scope.group ? " on " + *scope.group : "") +
                              " is left out: no items both rated in order " + std::to_string(order) +
                              ", or every verdict in one category (κ = 0/0)");
      // One-sided disagreements and label shares (CAP App. C) describe raters compared with each
      // other: with --pairs all, not with every judge's comparison against the reference.
      if (options.all_pairs) add_pair_disagreements(m, j, r, order, pair_view, built.plan);
      // Oracle accuracy and complementarity compare with gold: the scope's units with gold (§8.1).
      const std::vector<double> gold_mask = gold_units(m, built.units, scope.mask);
      add_oracle_acc(zero[j], zero[r], gold_mask, label, tag, built.plan);
      Complementarity counts = complementarity_counts(zero[j], zero[r], gold_mask);
      counts.judge = m.judges[j];
      counts.reference = m.judges[r];
      counts.benchmark = label.benchmark;
      counts.condition = label.condition;
      built.complementarity.push_back(counts);
      if (!m.has_adjudicated) continue;
      Disputes disputes = dispute_counts(m, built.units, zero[j], zero[r], scope.mask);
      disputes.judge = counts.judge;
      disputes.reference = counts.reference;
      disputes.benchmark = label.benchmark;
      disputes.condition = label.condition;
      built.disputes.push_back(disputes);
      // Under --gold adjudicated the plain `diff acc` already is this difference (not under
      // --indecisive zero, which scores indecisive items 0 rather than by gold).
      if (!options.adjudicated_gold || options.indecisive_zero)
        add_adjudicated_difference(m, built.units, zero[j], zero[r],
                                   decided_or_gold(m, built.units, scope.mask, options.indecisive_zero), label, tag,
                                   built.plan, options.indecisive_zero);
    }
  if (!options.all_pairs) return;
  // Each compared judge's label shares once per scope, in the order the pairs name them.
  std::vector<int32_t> raters;
  for (const auto& [j, r] : pairs)
    for (int32_t judge : {j, r})
      if (std::find(raters.begin(), raters.end(), judge) == raters.end()) raters.push_back(judge);
  for (int32_t judge : raters)
    for (const MetricsScope& scope : built.scopes) {
      const std::string tag = m.judges[judge] + "/shares" + (scope.group ? "/" + *scope.group : "");
      add_label_shares(m, judge, order, ScopeView{built.units, scope.mask, group_label(sel, scope.group), tag},
                       built.plan);
    }
}

// Fleiss' κ and Krippendorff's α over the raters, per scope (docs/statistics.md §7.1).
void add_rater_agreement(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options, MetricsPlan& built) {
  if (options.raters.empty()) return;
  if (options.raters.size() < 2)
    throw std::invalid_argument("raters: Fleiss' kappa and Krippendorff's alpha need two or more raters, got " +
                                std::to_string(options.raters.size()));
  std::vector<int32_t> raters;
  for (const auto& name : options.raters) raters.push_back(m.judge_index(name));
  for (int32_t r : raters)
    if (!analysed(sel, r))
      throw std::invalid_argument("raters: '" + m.judges[r] + "' is not among the analysed judges (--judges)");
  for (const MetricsScope& scope : built.scopes) {
    const ScopeView view{built.units, scope.mask, group_label(sel, scope.group),
                         "raters" + (scope.group ? "/" + *scope.group : std::string())};
    const std::string where = scope.group ? " on " + *scope.group : "";
    const size_t before = built.plan.statistics.size();
    add_fleiss_kappa(m, raters, options.agreement_order, view, built.plan);
    if (built.plan.statistics.size() == before)
      built.notes.push_back("fleiss_kappa" + where +
                            " is left out: no item rated by every rater, or every rating in one category");
    const size_t after_fleiss = built.plan.statistics.size();
    add_krippendorff_alpha(m, raters, options.agreement_order, view, built.plan);
    if (built.plan.statistics.size() == after_fleiss)
      built.notes.push_back("krippendorff_alpha" + where +
                            " is left out: no item with two ratings, or every rating in one category");
  }
}

}  // namespace

StatLabel group_label(const Selection& sel, const std::optional<std::string>& group) {
  StatLabel label;
  if (!group) return label;
  if (sel.strata == "benchmark") label.benchmark = group;
  if (sel.strata == "condition") label.condition = group;
  if (sel.strata == "difficulty") label.condition = "difficulty=" + *group;
  if (sel.strata.rfind("x.", 0) == 0) label.condition = sel.strata + "=" + *group;  // §8.3: x.len=[0, 200)
  return label;
}

namespace {

// `--native-confidence x.NAME` (docs/statistics.md §3.2): a numeric covariate; nullptr when not asked for.
const Covariate* native_confidence(const ItemMatrix& m, const std::string& name) {
  if (name.empty()) return nullptr;
  const Covariate* native = nullptr;
  try {
    native = &m.covariate(name);
  } catch (const UsageError& error) {
    throw UsageError(std::string("--native-confidence: ") + error.what());
  }
  for (size_t k = 0; k < native->levels.size(); ++k)
    if (!std::isfinite(native->numbers[k]))
      throw UsageError("--native-confidence: x." + native->name + " has the value '" + native->levels[k] +
                       "', not a finite number");
  return native;
}

// What --pooled-orders did (docs/statistics.md §3.2), or why it had nothing to pool.
std::string pooled_orders_note(const Selection& sel, const ProbabilityQuality& probability) {
  if (sel.orders < 2) return "--pooled-orders: the analysed records have one presentation order; nothing to pool";
  if (probability.empty()) return "--pooled-orders: no analysed judge has probabilities; nothing to pool";
  return std::string("rows '") + kOrdersPooled +
         "' (--pooled-orders, JEV Table 15): every order's valid record with probabilities is a judgment of its own";
}

}  // namespace

MetricsPlan build_metrics_run_plan(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options) {
  MetricsPlan built = build_metrics_plan(m, sel, options);
  const int32_t reference = options.reference.empty() ? sel.judges.front() : m.judge_index(options.reference);
  if (!analysed(sel, reference))
    throw std::invalid_argument("reference: '" + m.judges[reference] +
                                "' is not among the analysed judges; add it to --judges");
  const auto pairs = judge_pairs(sel.judges, reference, options.all_pairs);
  // Statistics over the accuracy units come first: probability quality appends units of its own.
  add_pair_comparisons(m, sel, pairs, options, built);
  add_rater_agreement(m, sel, options, built);
  add_covariate_bias(m, sel, options.covariates, built);  // docs/statistics.md §8.3, on the accuracy units
  // Probability quality (docs/statistics.md §3.2) joins the same plan, after the accuracy family.
  // On the accuracy units (a superset of its own): the plan's columns are not lengthened. Its
  // fraction columns are folded into cluster sums as written unless a `diff` of them reads them.
  const bool diff_reads_fractions = std::any_of(options.diff.begin(), options.diff.end(), [](const std::string& name) {
    return name == "brier" || name == "nll" || name == "ece";
  });
  built.probability = add_probability_quality(m, sel, options.per_group, built.plan, &built.units,
                                              diff_reads_fractions ? FractionColumns::kKept : FractionColumns::kFolded,
                                              native_confidence(m, options.native_confidence), options.pooled_orders);
  if (options.pooled_orders) built.notes.push_back(pooled_orders_note(sel, built.probability));
  for (auto& point : built.probability.point_statistics) built.point_statistics.push_back(std::move(point));
  built.probability.point_statistics.clear();
  for (std::string& note : add_group_differences(m, sel, options.group_diff, options.diff, pairs, built.plan))
    built.notes.push_back(std::move(note));
  for (std::string& note : add_paired_differences(m, options.diff, pairs, built.plan))
    built.notes.push_back(std::move(note));
  return built;
}

namespace {

SelectionOptions selection_options(const MetricsOptions& options) {
  SelectionOptions select;
  select.judges = options.judges;
  select.benchmarks = options.benchmarks;
  select.conditions = options.conditions;
  select.variants = options.variants;
  select.strata = options.by;
  select.strata_mode = options.strata_mode;
  select.bins = options.covariates.bins;
  select.hard_only = options.hard_only;
  select.difficulty_others = options.difficulty_others;
  select.difficulty_bins = options.difficulty_bins;
  return select;
}

// Every judge a per-call fee or latency names must be analysed: a typo must not pass unnoticed.
void check_per_call_judges(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options) {
  for (const auto& [field, values] : {std::pair{"fee", &options.fee}, std::pair{"latency", &options.latency}})
    for (const auto& entry : *values) {
      const auto named = std::find(m.judges.begin(), m.judges.end(), entry.first);
      if (named == m.judges.end() || !analysed(sel, static_cast<int32_t>(named - m.judges.begin())))
        throw std::invalid_argument(std::string(field) + ": judge '" + entry.first +
                                    "' is not among the analysed judges (--judges)");
    }
}

// A lower bound on the plan build_metrics_run_plan allocates, from one pass over the selected
// cells. Every plan column spans every unit (the accuracy units, which probability quality shares), and
// per judge the overall scope certainly gets acc (num, den) in each order it answered, pa (num,
// den); with two or more orders and a unit answered in all of them bc, cons, stable_wrong and
// jb_score (2 + 2 + 3 + 2); per presentation with probabilities n, brier, nll and an ece bin.
// Counts take a byte per unit (PlanColumn), the rest a double: at least the presentations' brier,
// nll and ece bin columns are fractions.
struct PlanSize {
  int64_t byte_columns = 0, double_columns = 0, units = 0;
};

bool has_probabilities(const ItemMatrix& m, size_t cell) {
  if (!m.has_probs || !m.present(cell) || !m.valid(cell)) return false;
  const double* p = m.probs_of(cell);
  for (int32_t l = 0; l < m.n_labels(); ++l)
    if (!std::isnan(p[l])) return true;
  return false;
}

PlanSize minimum_plan_size(const ItemMatrix& m, const Selection& sel) {
  const size_t J = sel.judges.size(), orders = static_cast<size_t>(m.orders);
  std::vector<uint8_t> answered(J * orders, 0), with_probs(J * orders, 0), complete(J, 0);
  PlanSize size;
  for (int32_t i : sel.items)
    for (int32_t v : sel.variants) {
      bool any = false;
      for (size_t jj = 0; jj < J; ++jj) {
        int present = 0;
        for (size_t o = 0; o < orders; ++o) {
          const size_t c = m.cell(sel.judges[jj], i, static_cast<int>(o), v);
          if (!m.present(c)) continue;
          present += static_cast<int>(o) < sel.orders;
          answered[jj * orders + o] = 1;
          with_probs[jj * orders + o] |= has_probabilities(m, c);
          any = true;
        }
        complete[jj] |= present == sel.orders;
      }
      size.units += any;
    }
  for (size_t jj = 0; jj < J; ++jj) {
    int64_t orders_answered = 0, presentations = 0;
    for (size_t o = 0; o < orders; ++o) {
      orders_answered += answered[jj * orders + o] && static_cast<int>(o) < sel.orders;
      presentations += with_probs[jj * orders + o];
    }
    if (presentations > 0 && orders >= 2) ++presentations;  // the order-averaged one
    size.byte_columns +=
        2 * orders_answered + (orders_answered > 0 ? 2 : 0) + (sel.orders >= 2 && complete[jj] ? 9 : 0) + presentations;
    size.double_columns += 3 * presentations;
  }
  return size;
}

// Refuses, before the plan is built and anything is resampled, a run whose plan alone (at least
// minimum_plan_size's columns) would not fit the memory budget with the matrix. A fraction column
// is counted at its smaller form: a double per unit, or, folded once written (Plan::fold_column),
// a sum per cluster.
void check_plan_fits(const ItemMatrix& m, const Selection& sel) {
  const PlanSize size = minimum_plan_size(m, sel);
  const auto clusters = static_cast<int64_t>(sel.cluster_names.size());
  const bool per_cluster = clusters < size.units;
  const double units = static_cast<double>(size.units);
  const double fraction_length = static_cast<double>(per_cluster ? clusters : size.units);
  const double plan_bytes = static_cast<double>(size.byte_columns) * units +
                            static_cast<double>(size.double_columns) * fraction_length * sizeof(double);
  loading::check_analysis_fits(
      "metrics", loading::matrix_bytes(m), plan_bytes,
      "at least " + std::to_string(size.byte_columns) + " count columns x " + std::to_string(size.units) +
          " units x 1 byte + " + std::to_string(size.double_columns) + " fraction columns x " +
          (per_cluster ? std::to_string(clusters) + " cluster sums" : std::to_string(size.units) + " units") +
          " x 8 bytes",
      loading::memory_budget());
}

// Holm and BH over the run's `diff` rows (docs/statistics.md §7.3); other rows stay NaN.
void adjust_difference_p(MetricsReport& report) {
  const BootstrapResult& result = report.statistics;
  std::vector<size_t> rows;
  std::vector<double> p;
  std::vector<double> all_p;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    all_p.push_back(result.intervals[s].p);
    // Within-judge order gains are their own families (JEV Table 25: one column's judges).
    if (result.labels[s].name == "diff" && result.labels[s].of != std::optional<std::string>(kOrderGain)) {
      rows.push_back(s);
      p.push_back(result.intervals[s].p);
    }
  }
  const std::vector<double> holm = holm_adjust(p), bh = bh_adjust(p);
  report.p_holm = holm_over_order_gains(result.labels, all_p);
  report.p_bh.assign(result.labels.size(), NAN);
  for (size_t i = 0; i < rows.size(); ++i) {
    report.p_holm[rows[i]] = holm[i];
    report.p_bh[rows[i]] = bh[i];
  }
}

}  // namespace

MetricsReport run_metrics(const ItemMatrix& input, const MetricsOptions& options, const ExecTarget& target) {
  const auto start = std::chrono::steady_clock::now();
  MetricsReport report;
  // --gold adjudicated (the human's labels as gold, §7.2) and frozen temperatures (§7.5) work on
  // a copy of the matrix.
  const bool transformed = options.adjudicated_gold || !options.temperature.empty();
  ItemMatrix copy;
  if (transformed) copy = input;
  if (options.adjudicated_gold) report.gold_substituted = use_adjudicated_gold(copy);
  if (!options.temperature.empty()) apply_temperature(copy, options.temperature);
  const ItemMatrix& matrix = transformed ? copy : input;
  const Selection selection = select_records(matrix, selection_options(options));
  check_per_call_judges(matrix, selection, options);
  check_plan_fits(matrix, selection);
  report.order_warnings = order_guard_warnings(matrix, selection);
  // Score judges (docs/statistics.md §8.2) have their own statistics in place of the categorical ones.
  if (matrix.scored && options.pooled_orders)
    throw UsageError("--pooled-orders: score judges give scores, not probabilities to pool");
  if (matrix.scored && !options.verdict_shares.empty())
    throw UsageError("--verdict-shares: score judges give scores, not verdicts to condition on");
  MetricsPlan built = matrix.scored ? build_scores_run_plan(matrix, selection, options)
                                    : build_metrics_run_plan(matrix, selection, options);
  report.plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto backend = make_backend(target);
  // Compiled, the plan's per-unit columns and rank terms are no longer needed: free them before
  // the resampling allocates its replicates.
  std::vector<StatLabel> labels;
  for (const StatisticDef& stat : built.plan.statistics) labels.push_back(stat.label);
  const CompiledPlan compiled = compile(std::move(built.plan));
  report.statistics = run_bootstrap(compiled, labels, *backend, options.bootstrap);
  report.probability = std::move(built.probability);
  report.validity = std::move(built.validity);
  report.notes = std::move(built.notes);
  adjust_difference_p(report);
  report.confusion = std::move(built.confusion);
  report.point_statistics = std::move(built.point_statistics);
  report.complementarity = std::move(built.complementarity);
  report.disputes = std::move(built.disputes);
  report.strata = selection.strata;
  report.strata_mode = strata_setting(selection);
  report.strata_note = selection.strata_note;
  report.invalid_match = options.invalid_match;
  report.adjudicated_gold = options.adjudicated_gold;
  report.indecisive_zero = options.indecisive_zero;
  report.tie_half_credit = options.tie_half_credit;
  report.difficulty_others = options.difficulty_others;
  report.difficulty_bins = options.difficulty_bins;
  report.temperature = options.temperature;
  return report;
}

std::vector<double> point_estimates(const Plan& plan) {
  const CompiledPlan compiled = compile(plan);
  std::vector<double> out;
  std::vector<double> extras = point_extras(compiled);
  extras.push_back(0.0);
  for (int32_t s = 0; s < compiled.n_statistics; ++s)
    out.push_back(evaluate(compiled.ops.data() + compiled.op_offset[s],
                           compiled.op_offset[s + 1] - compiled.op_offset[s], compiled.totals.data(),
                           compiled.column_unscale.data(), extras.data()));
  return out;
}

}  // namespace judgestat
