// The units of the systems analysis and a judge's per-unit facts (docs/statistics.md §8.4).
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "analyses/systems/systems_plan.hpp"

namespace judgestat {

namespace {

// The system index of each item under one covariate column, numbering new systems as met.
class SystemNames {
 public:
  explicit SystemNames(std::vector<std::string>& names) : names_(names) {}
  int32_t index(const Covariate& column, int32_t level) {
    if (level < 0) return kNoSystem;
    const std::string& name = column.levels[level];
    const auto [it, added] = index_.try_emplace(name, static_cast<int32_t>(names_.size()));
    if (added) names_.push_back(name);
    return it->second;
  }

 private:
  std::vector<std::string>& names_;
  std::map<std::string, int32_t> index_;
};

}  // namespace

SystemUnits system_units(const ItemMatrix& m, const Selection& sel, const std::vector<std::string>& columns,
                         const std::string& why, Plan* plan) {
  std::vector<const Covariate*> covariates;
  std::vector<const std::vector<int32_t>*> levels;
  for (const std::string& name : columns) {
    covariates.push_back(&m.covariate(name));
    levels.push_back(&m.item_levels(name, why));
  }
  SystemUnits out;
  SystemNames names(out.systems);
  for (int32_t i : sel.items)
    for (int32_t v : sel.variants) {
      bool any = false;
      for (int32_t j : sel.judges)
        for (int o = 0; o < m.orders && !any; ++o) any = m.present(m.cell(j, i, o, v));
      if (!any) continue;
      out.units.push_back({i, v});
      if (plan != nullptr) plan->unit_cluster.push_back(sel.item_cluster[i]);
      out.system_a.push_back(levels.empty() ? kNoSystem : names.index(*covariates[0], (*levels[0])[i]));
      out.system_b.push_back(levels.size() < 2 ? kNoSystem : names.index(*covariates[1], (*levels[1])[i]));
    }
  return out;
}

std::pair<int32_t, int32_t> pair_labels(const ItemMatrix& m, const std::string& option) {
  int32_t a = -1, b = -1;
  for (int32_t l = 0; l < m.n_labels(); ++l) {
    if (m.labels[l] == "A") a = l;
    if (m.labels[l] == "B") b = l;
  }
  if (m.n_labels() != 2 || a < 0 || b < 0) {
    std::string seen;
    for (const std::string& label : m.labels) seen += (seen.empty() ? "" : ", ") + label;
    throw std::invalid_argument(option +
                                ": pairwise records need the labels A and B (the canonical first and second "
                                "response; --labels A,B), the labels are " +
                                seen);
  }
  return {a, b};
}

std::vector<double> judge_share_a(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units,
                                  std::pair<int32_t, int32_t> ab) {
  std::vector<double> out(units.size(), kNoShare);
  for (size_t u = 0; u < units.size(); ++u) {
    int valid = 0;
    double for_a = 0;
    for (int o = 0; o < m.orders; ++o) {
      const int16_t verdict = m.verdict[m.cell(j, units[u].item, o, units[u].variant)];
      if (verdict != ab.first && verdict != ab.second && verdict != kTie) continue;
      ++valid;
      for_a += verdict == ab.first ? 1.0 : verdict == kTie ? 0.5 : 0.0;
    }
    if (valid > 0) out[u] = for_a / valid;
  }
  return out;
}

std::vector<double> gold_share_a(const ItemMatrix& m, const std::vector<SystemsUnit>& units,
                                 std::pair<int32_t, int32_t> ab) {
  std::vector<double> out(units.size(), kNoShare);
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t gold = m.gold[units[u].item];
    if (gold == ab.first) out[u] = 1.0;
    if (gold == ab.second) out[u] = 0.0;
  }
  return out;
}

std::vector<double> judge_scores(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units) {
  std::vector<double> out(units.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t u = 0; u < units.size(); ++u) {
    int valid = 0;
    double sum = 0;
    for (int o = 0; o < m.orders; ++o) {
      const int16_t verdict = m.verdict[m.cell(j, units[u].item, o, units[u].variant)];
      if (verdict < 0) continue;
      ++valid;
      sum += m.label_score[verdict];
    }
    if (valid > 0) out[u] = sum / valid;
  }
  return out;
}

std::vector<double> judge_correct(const ItemMatrix& m, int32_t j, const std::vector<SystemsUnit>& units) {
  std::vector<double> out(units.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t i = units[u].item;
    if (!m.has_gold(i)) continue;
    int present = 0, correct = 0;
    for (int o = 0; o < m.orders; ++o) {
      const size_t c = m.cell(j, i, o, units[u].variant);
      if (!m.present(c)) continue;
      ++present;
      correct += m.correct(c, i);
    }
    if (present > 0) out[u] = static_cast<double>(correct) / present;
  }
  return out;
}

void add_row(SystemsPlan& out, const std::string& name, const std::string& judge, int64_t n, std::vector<Op> program,
             SystemsRowKey key) {
  StatLabel label{name, judge};
  label.n = n;
  out.plan.statistics.push_back({label, std::move(program)});
  out.keys.push_back(std::move(key));
}

int32_t add_values(Plan& plan, const std::string& name, std::vector<double> values) {
  const int32_t k = plan.add_column(name);
  plan.columns[k] = values;
  return k;
}

}  // namespace judgestat
