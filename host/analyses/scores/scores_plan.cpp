#include "analyses/scores/scores_plan.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "analyses/common/judge_validity.hpp"
#include "analyses/metrics/group_differences.hpp"
#include "analyses/metrics/paired.hpp"
#include "analyses/scores/score_calibration.hpp"
#include "analyses/scores/score_judge.hpp"
#include "analyses/scores/score_pairs.hpp"
#include "analyses/scores/score_raters.hpp"
#include "support/text.hpp"

namespace judgestat {

const std::vector<std::string>& default_score_diff() {
  static const std::vector<std::string> names{"exact", "mae", "pearson"};
  return names;
}

namespace {

// The statistics that compare with gold, as the note on items without gold names them (§8.1).
constexpr const char* kScoreGoldStatistics =
    "pearson, spearman, kendall_tau_b, mae, rmse, exact, within_one, qwk and pair_acc";

bool analysed(const Selection& sel, int32_t judge) {
  return std::find(sel.judges.begin(), sel.judges.end(), judge) != sel.judges.end();
}

// The score statistics of one selection, built step by step: units and scopes as the metrics plan
// has them, then per judge × scope against gold and in pairs, the raters per scope, the `diff`
// rows, and each judge's validity.
class ScoresPlanBuilder {
 public:
  ScoresPlanBuilder(const ItemMatrix& m, const Selection& sel, const MetricsOptions& options)
      : m_(m), sel_(sel), options_(options), order_(options.agreement_order) {}

  MetricsPlan build() {
    if (order_ < 0 || order_ >= m_.orders)
      throw std::invalid_argument("order: the data has presentation orders 0.." + std::to_string(m_.orders - 1) +
                                  ", not " + std::to_string(order_));
    out_.plan = plan_for(sel_);
    out_.units = accuracy_units(m_, sel_, out_.plan);
    make_scopes();
    find_pairs();
    for (int32_t j : sel_.judges)
      for (const MetricsScope& scope : out_.scopes) add_judge_scope(j, scope);
    for (const MetricsScope& scope : out_.scopes) add_raters(scope);
    add_differences();
    add_validity();
    return std::move(out_);
  }

 private:
  void make_scopes() {
    const size_t U = out_.units.size();
    out_.scopes.push_back({std::nullopt, std::vector<double>(U, 1.0)});
    if (!options_.per_group || sel_.strata.empty()) return;
    for (int32_t h = 0; h < sel_.n_strata(); ++h) {
      MetricsScope scope{sel_.stratum_names[h], std::vector<double>(U, 0.0)};
      for (size_t u = 0; u < U; ++u) scope.mask[u] = sel_.item_stratum[out_.units[u].item] == h;
      out_.scopes.push_back(std::move(scope));
    }
  }

  void find_pairs() {
    if (options_.scores.pair_covariate.empty()) return;
    int64_t unpaired = 0;
    pairs_ = score_pairs(m_, out_.units, options_.scores.pair_covariate, unpaired);
    if (unpaired > 0)
      out_.notes.push_back("pair_acc and pair_tie_rate: " + std::to_string(unpaired) + " value(s) of " +
                           options_.scores.pair_covariate + " have one item only and are left out");
  }

  StatLabel label_for(const MetricsScope& scope, const std::string& judge) const {
    StatLabel label = group_label(sel_, scope.group);
    label.judge = judge;
    return label;
  }

  std::string tag_for(const MetricsScope& scope, const std::string& who) const {
    return "scores/" + who + (scope.group ? "/" + *scope.group : std::string());
  }

  void add_judge_scope(int32_t j, const MetricsScope& scope) {
    const size_t U = out_.units.size();
    ScoredUnits scored{std::vector<int32_t>(U, -1), std::vector<int32_t>(U, -1)};
    for (size_t u = 0; u < U; ++u) {
      const AccuracyUnit& unit = out_.units[u];
      const int16_t v = m_.verdict[m_.cell(j, unit.item, order_, unit.variant)];
      if (!scope.mask[u] || !m_.has_gold(unit.item) || v < 0) continue;
      scored.gold[u] = m_.gold[unit.item];
      scored.judge[u] = v;
    }
    const StatLabel base = label_for(scope, m_.judges[j]);
    const std::string tag = tag_for(scope, m_.judges[j]);
    for (std::string& note : add_score_statistics(m_.label_score, scored, base, tag, out_.plan))
      out_.notes.push_back(std::move(note));
    add_calibration_means(m_.label_score, m_.labels, scored, base, tag, out_.plan);  // the --plots panel
    if (!pairs_.empty())
      add_pair_decisions(m_, j, order_, out_.units, pairs_, scope.mask, options_.scores.tie_margin, base,
                         tag + "/pairs", out_.plan);
  }

  std::vector<int32_t> rater_indices() const {
    std::vector<int32_t> raters;
    for (const std::string& name : options_.raters) {
      const int32_t r = m_.judge_index(name);
      if (!analysed(sel_, r))
        throw std::invalid_argument("raters: '" + name + "' is not among the analysed judges (--judges)");
      if (std::find(raters.begin(), raters.end(), r) != raters.end())
        throw std::invalid_argument("raters: " + name + " is named twice; name each rater once");
      raters.push_back(r);
    }
    if (raters.size() < 2)
      throw std::invalid_argument("raters: Krippendorff's alpha and Kendall's W need two or more raters, got " +
                                  std::to_string(raters.size()));
    return raters;
  }

  void add_raters(const MetricsScope& scope) {
    if (options_.raters.empty()) return;
    const std::vector<int32_t> raters = rater_indices();
    const size_t U = out_.units.size();
    RaterLevels levels(raters.size(), std::vector<int32_t>(U, -1));
    for (size_t r = 0; r < raters.size(); ++r)
      for (size_t u = 0; u < U; ++u) {
        const int16_t v = m_.verdict[m_.cell(raters[r], out_.units[u].item, order_, out_.units[u].variant)];
        if (scope.mask[u] && v >= 0) levels[r][u] = v;
      }
    if (!scope.group)
      out_.notes.push_back("krippendorff_alpha of scores at the " + to_string(options_.scores.alpha_level) +
                           " level (--alpha-level)");
    StatLabel label = label_for(scope, join(options_.raters, ","));
    label.order = order_;
    const std::string tag = tag_for(scope, "raters"), where = scope.group ? " on " + *scope.group : "";
    const std::string alpha =
        add_score_alpha(m_.label_score, levels, options_.scores.alpha_level, label, tag + "/alpha", out_.plan);
    if (!alpha.empty()) out_.notes.push_back("krippendorff_alpha" + where + " is left out: " + alpha);
    const std::string w = add_kendall_w(levels, m_.n_labels(), label, tag + "/w", out_.plan);
    if (!w.empty()) out_.notes.push_back("kendall_w" + where + " is left out: " + w);
  }

  void add_differences() {
    const int32_t reference = options_.reference.empty() ? sel_.judges.front() : m_.judge_index(options_.reference);
    if (!analysed(sel_, reference))
      throw std::invalid_argument("reference: '" + m_.judges[reference] +
                                  "' is not among the analysed judges; add it to --judges");
    const std::vector<std::string> names =
        options_.diff == MetricsOptions{}.diff ? default_score_diff() : options_.diff;
    const auto pairs = judge_pairs(sel_.judges, reference, options_.all_pairs);
    for (std::string& note : add_group_differences(m_, sel_, options_.group_diff, names, pairs, out_.plan))
      out_.notes.push_back(std::move(note));
    for (std::string& note : add_paired_differences(m_, names, pairs, out_.plan)) out_.notes.push_back(std::move(note));
  }

  void add_validity() {
    std::vector<uint8_t> seen(m_.items.size(), 0);
    int64_t items = 0, without_gold = 0;
    for (const AccuracyUnit& unit : out_.units) {
      if (seen[unit.item]) continue;
      seen[unit.item] = 1;
      ++items;
      without_gold += !m_.has_gold(unit.item);
    }
    for (int32_t j : sel_.judges) {
      ValidityTally tally(m_, j);
      for (const AccuracyUnit& unit : out_.units)
        for (int o = 0; o < m_.orders; ++o) tally.add(m_.cell(j, unit.item, o, unit.variant));
      out_.validity.push_back(tally.finish());
    }
    set_gold_counts(out_.validity, items, without_gold, kScoreGoldStatistics);
  }

  const ItemMatrix& m_;
  const Selection& sel_;
  const MetricsOptions& options_;
  const int order_;
  MetricsPlan out_;
  std::vector<ScorePair> pairs_;
};

}  // namespace

MetricsPlan build_scores_run_plan(const ItemMatrix& m, const Selection& selection, const MetricsOptions& options) {
  return ScoresPlanBuilder(m, selection, options).build();
}

}  // namespace judgestat
