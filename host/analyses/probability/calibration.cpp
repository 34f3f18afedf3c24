#include "analyses/probability/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "analyses/probability/probability_quality.hpp"

namespace judgestat {

namespace {

// p_k ∝ exp((log p_k − log p_max) / t) over the entries p_k > 0; the others become 0. Working
// relative to the largest entry keeps the exponentials in range at small t.
void scale_probabilities(const double* p, int32_t n, double t, double* out) {
  double top = -std::numeric_limits<double>::infinity();
  for (int32_t k = 0; k < n; ++k)
    if (p[k] > 0) top = std::max(top, std::log(p[k]));
  double total = 0;
  for (int32_t k = 0; k < n; ++k) {
    out[k] = p[k] > 0 ? std::exp((std::log(p[k]) - top) / t) : 0.0;
    total += out[k];
  }
  if (total > 0)
    for (int32_t k = 0; k < n; ++k) out[k] /= total;
}

// The probabilities and gold labels of the rows chosen by `keep`, for fit_temperature.
template <typename Keep>
double fit_on(const ProbabilityRows& rows, Keep keep) {
  std::vector<double> probs;
  std::vector<int32_t> gold;
  for (int64_t r = 0; r < rows.size(); ++r) {
    if (!keep(r)) continue;
    const double* row = rows.probs.data() + r * rows.n_labels;
    probs.insert(probs.end(), row, row + rows.n_labels);
    gold.push_back(rows.gold[r]);
  }
  return fit_temperature(probs, rows.n_labels, gold);
}

// Group index of a matrix benchmark, numbered by first appearance.
int32_t group_of(ProbabilityRows& rows, std::map<int32_t, int32_t>& index, const ItemMatrix& m, int32_t item) {
  const int32_t benchmark = m.item_benchmark[item];
  const auto [it, fresh] = index.emplace(benchmark, static_cast<int32_t>(rows.group_names.size()));
  if (fresh) rows.group_names.push_back(m.benchmarks[benchmark]);
  return it->second;
}

}  // namespace

void scale_row(const ProbabilityRows& rows, int64_t row, double t, double* out) {
  scale_probabilities(rows.probs.data() + row * rows.n_labels, rows.n_labels, t, out);
}

CalibrationScores calibration_scores(const ProbabilityRows& rows, const std::vector<double>& row_temperature,
                                     const std::vector<uint8_t>& row_mask) {
  CalibrationScores out;
  std::vector<double> q, correct, scaled(rows.n_labels);
  double nll = 0, brier = 0;
  for (int64_t r = 0; r < rows.size(); ++r) {
    if (!row_mask.empty() && !row_mask[r]) continue;
    const double* p = rows.probs.data() + r * rows.n_labels;
    if (!row_temperature.empty()) {
      scale_row(rows, r, row_temperature[r], scaled.data());
      p = scaled.data();
    }
    const ScoredProbabilities s = score_probabilities(p, rows.n_labels, rows.gold[r]);
    q.push_back(s.q);
    correct.push_back(s.correct);
    nll += s.nll;
    brier += s.brier;
  }
  out.n = static_cast<int64_t>(q.size());
  if (out.n == 0) return out;
  out.nll = nll / static_cast<double>(out.n);
  out.brier = brier / static_cast<double>(out.n);
  out.ece = reliability_table(q, correct).ece;
  return out;
}

TemperatureScaling temperature_scaling_by_group(const ProbabilityRows& rows, bool per_group) {
  TemperatureScaling out;
  out.per_group = per_group;
  const int64_t R = rows.size();
  const auto n_groups = static_cast<int32_t>(rows.group_names.size());
  out.pooled_temperature = fit_on(rows, [&](int64_t r) { return rows.fit[r] != 0; });
  std::vector<double> group_t(n_groups, out.pooled_temperature);
  std::vector<int64_t> fit_rows(n_groups, 0), heldout_rows(n_groups, 0);
  for (int64_t r = 0; r < R; ++r) ++(rows.fit[r] ? fit_rows : heldout_rows)[rows.group[r]];
  if (per_group)
    for (int32_t g = 0; g < n_groups; ++g)
      if (fit_rows[g] > 0) group_t[g] = fit_on(rows, [&](int64_t r) { return rows.fit[r] && rows.group[r] == g; });
  std::vector<double> row_t(R);
  for (int64_t r = 0; r < R; ++r) row_t[r] = group_t[rows.group[r]];

  // Before (as given) and after (each row at its group's T) on the fit and held-out rows of a part.
  auto score = [&](TemperatureGroup& group, auto in_group) {
    std::vector<uint8_t> fit(R), heldout(R);
    for (int64_t r = 0; r < R; ++r) {
      fit[r] = in_group(r) && rows.fit[r];
      heldout[r] = in_group(r) && !rows.fit[r];
    }
    group.fit_before = calibration_scores(rows, {}, fit);
    group.fit_after = calibration_scores(rows, row_t, fit);
    group.heldout_before = calibration_scores(rows, {}, heldout);
    group.heldout_after = calibration_scores(rows, row_t, heldout);
    group.fit_rows = group.fit_before.n;
    group.heldout_rows = group.heldout_before.n;
  };
  out.all.name = "all";
  out.all.temperature = per_group ? NAN : out.pooled_temperature;
  score(out.all, [](int64_t) { return true; });
  for (int32_t g = 0; g < n_groups; ++g) {
    if (fit_rows[g] + heldout_rows[g] == 0) continue;
    TemperatureGroup group;
    group.name = rows.group_names[g];
    group.temperature = group_t[g];
    group.pooled_fallback = per_group && fit_rows[g] == 0;
    score(group, [&](int64_t r) { return rows.group[r] == g; });
    out.groups.push_back(std::move(group));
  }
  return out;
}

ProbabilityRows cascade_probability_rows(const ItemMatrix& m, const CascadePool& pool,
                                         const std::vector<uint8_t>& selection) {
  if (!selection.empty() && static_cast<int32_t>(selection.size()) != pool.size())
    throw std::logic_error("cascade_probability_rows: selection is not one entry per pool item");
  ProbabilityRows rows;
  rows.n_labels = pool.n_labels;
  std::map<int32_t, int32_t> index;
  for (int32_t i = 0; i < pool.size(); ++i) {
    if (!(pool.q[i] > 0)) continue;  // no valid first-stage output
    const double* row = pool.probs.data() + static_cast<size_t>(i) * pool.n_labels;
    rows.probs.insert(rows.probs.end(), row, row + pool.n_labels);
    rows.gold.push_back(m.gold[pool.item[i]]);
    rows.group.push_back(group_of(rows, index, m, pool.item[i]));
    rows.fit.push_back(selection.empty() ? 0 : selection[i]);
  }
  return rows;
}

ProbabilityRows record_probability_rows(const ItemMatrix& m, int32_t j, const std::vector<uint8_t>& item_mask) {
  ProbabilityRows rows;
  rows.n_labels = m.n_labels();
  std::map<int32_t, int32_t> index;
  std::vector<double> p(m.n_labels());
  for (int32_t i = 0; i < m.n_items(); ++i) {
    if ((!item_mask.empty() && !item_mask[i]) || !m.has_gold(i)) continue;  // a fit needs gold (§8.1)
    for (int32_t o = 0; o < m.orders; ++o)
      for (int32_t v = 0; v < m.n_variants(); ++v) {
        const size_t cell = m.cell(j, i, o, v);
        if (!m.present(cell) || !m.valid(cell)) continue;
        const double* given = m.probs_of(cell);
        bool any = false;
        for (int32_t l = 0; l < m.n_labels(); ++l) {
          any = any || !std::isnan(given[l]);
          p[l] = std::isnan(given[l]) ? 0.0 : given[l];
        }
        if (!any) continue;
        rows.probs.insert(rows.probs.end(), p.begin(), p.end());
        rows.gold.push_back(m.gold[i]);
        rows.group.push_back(group_of(rows, index, m, i));
        rows.fit.push_back(1);
      }
  }
  return rows;
}

std::map<std::string, double> fit_temperatures(const ItemMatrix& m, const std::vector<std::string>& judges,
                                               const std::vector<uint8_t>& item_mask) {
  std::map<std::string, double> out;
  for (const std::string& name : judges) {
    const ProbabilityRows rows = record_probability_rows(m, m.judge_index(name), item_mask);
    if (rows.size() == 0)
      throw UsageError("temperature fit: judge '" + name + "' has no valid record with probabilities in " + m.path +
                       " to fit a temperature on; fit on a file where it gives probabilities");
    out[name] = fit_temperature(rows.probs, rows.n_labels, rows.gold);
  }
  return out;
}

void apply_temperature(ItemMatrix& m, const std::map<std::string, double>& temperatures) {
  std::vector<std::pair<int32_t, double>> judges;
  for (const auto& [name, t] : temperatures) {
    if (!(std::isfinite(t) && t > 0))
      throw std::invalid_argument("temperature: expected a finite temperature > 0 for judge '" + name + "'");
    judges.push_back({m.judge_index(name), t});
  }
  const int32_t L = m.n_labels();
  std::vector<double> given(L), scaled(L);
  std::vector<int32_t> labels;  // the labels the record gives a probability for
  for (const auto& [j, t] : judges)
    for (int32_t i = 0; i < m.n_items(); ++i)
      for (int32_t o = 0; o < m.orders; ++o)
        for (int32_t v = 0; v < m.n_variants(); ++v) {
          const size_t cell = m.cell(j, i, o, v);
          if (!m.present(cell) || !m.valid(cell)) continue;
          double* p = m.prob.data() + cell * L;
          labels.clear();
          for (int32_t l = 0; l < L; ++l)
            if (!std::isnan(p[l])) given[labels.size()] = p[l], labels.push_back(l);
          if (labels.empty()) continue;
          scale_probabilities(given.data(), static_cast<int32_t>(labels.size()), t, scaled.data());
          for (size_t k = 0; k < labels.size(); ++k) p[labels[k]] = scaled[k];
        }
}

}  // namespace judgestat
