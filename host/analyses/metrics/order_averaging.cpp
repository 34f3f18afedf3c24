// Order averaging (docs/statistics.md §3.1; JEV Tables 24–25).
#include "analyses/metrics/order_averaging.hpp"

#include <cmath>
#include <map>
#include <string>

#include "analyses/probability/probability_quality.hpp"
#include "judgestat/bootstrap.hpp"

namespace judgestat {

std::vector<double> order_averaged_credit(const ItemMatrix& m, int32_t judge, const std::vector<AccuracyUnit>& units,
                                          int orders) {
  if (!m.has_probs) return {};
  const int32_t L = m.n_labels();
  std::vector<double> credit(units.size(), 0.0), p(L), mean(L);
  bool any = false;
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t item = units[u].item;
    if (!m.has_gold(item)) continue;
    std::fill(mean.begin(), mean.end(), 0.0);
    bool all = true;
    for (int o = 0; o < orders && all; ++o) {
      all = cell_probabilities(m, m.cell(judge, item, o, units[u].variant), p);
      for (int32_t l = 0; l < L && all; ++l) mean[l] += p[l] / orders;
    }
    if (!all) continue;
    any = true;
    credit[u] = score_probabilities(mean.data(), L, m.gold[item]).correct;
  }
  return any ? credit : std::vector<double>{};
}

void add_order_averaging(int32_t judge, const ItemMatrix& m, const std::vector<double>& credit,
                         const PlanColumn& base_correct, const PlanColumn& complete, const ScopeView& view,
                         Plan& plan) {
  std::vector<double> den(view.size(), 0.0), num(view.size(), 0.0), gain(view.size(), 0.0);
  for (size_t u = 0; u < view.size(); ++u) {
    den[u] = view.has(u) * complete[u];
    num[u] = den[u] * credit[u];
    gain[u] = den[u] * (credit[u] - base_correct[u]);
  }
  const auto n = static_cast<int64_t>(column_total(den));
  if (n == 0) return;
  const int32_t kn = add_values_column(plan, view.tag + "/acc_avg/num", std::move(num));
  const int32_t kd = add_values_column(plan, view.tag + "/acc_avg/den", std::move(den));
  const int32_t kg = add_values_column(plan, view.tag + "/order_gain/num", std::move(gain));
  StatLabel label = scope_label(view, "acc_avg", m.judges[judge]);
  label.n = n;
  plan.statistics.push_back({label, ratio_program(kn, kd)});
  label.name = "diff";
  label.of = kOrderGain;
  label.reference = m.judges[judge];
  const auto index = static_cast<int32_t>(plan.statistics.size());
  plan.statistics.push_back({label, ratio_program(kg, kd)});
  plan.sign_flip_tests.push_back({index, kg});  // a mean of paired unit differences
}

std::vector<double> holm_over_order_gains(const std::vector<StatLabel>& labels, const std::vector<double>& p) {
  std::map<std::string, std::vector<size_t>> families;  // group → rows
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == "diff" && labels[s].of == std::optional<std::string>(kOrderGain))
      families[labels[s].benchmark.value_or("") + "\x1f" + labels[s].condition.value_or("")].push_back(s);
  std::vector<double> out(labels.size(), NAN);
  for (const auto& family : families) {
    std::vector<double> family_p;
    for (size_t s : family.second) family_p.push_back(p[s]);
    const std::vector<double> adjusted = holm_adjust(family_p);
    for (size_t i = 0; i < family.second.size(); ++i) out[family.second[i]] = adjusted[i];
  }
  return out;
}

}  // namespace judgestat
