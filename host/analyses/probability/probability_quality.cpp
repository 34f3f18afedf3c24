#include "analyses/probability/probability_quality.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/native_confidence.hpp"

namespace judgestat {

// Clamped before the cast, so that NaN (bin 0) or a value outside [0, 1] never reaches an
// out-of-range float-to-int conversion (undefined behaviour); q in [0, 1] bins as before.
int confidence_bin(double q) {
  if (!(q > 0)) return 0;
  if (q >= 1) return kConfidenceBins - 1;
  const int bin = static_cast<int>(std::floor(q * kConfidenceBins));
  return std::max(0, std::min(bin, kConfidenceBins - 1));
}

std::string presentation_name(const std::optional<int>& order) {
  return order ? "order " + std::to_string(*order) : "averaged";
}

std::string confidence_bin_name(int bin) {
  char text[32];
  std::snprintf(text, sizeof text, bin == kConfidenceBins - 1 ? "[%.1f, %.1f]" : "[%.1f, %.1f)",
                static_cast<double>(bin) / kConfidenceBins, static_cast<double>(bin + 1) / kConfidenceBins);
  return text;
}

ScoredProbabilities score_probabilities(const double* probs, int32_t n_labels, int32_t gold) {
  ScoredProbabilities out;
  out.q = -std::numeric_limits<double>::infinity();
  int top_count = 0;
  for (int32_t k = 0; k < n_labels; ++k) {
    if (probs[k] > out.q) {
      out.q = probs[k];
      top_count = 1;
    } else if (probs[k] == out.q) {
      ++top_count;
    }
  }
  for (int32_t k = 0; k < n_labels; ++k) {
    const double miss = probs[k] - (k == gold ? 1.0 : 0.0);
    out.brier += miss * miss;
  }
  out.correct = probs[gold] == out.q ? (top_count == 1 ? 1.0 : 0.5) : 0.0;
  out.nll = -std::log(std::max(probs[gold], kNllFloor));
  return out;
}

double ReliabilityTable::error_rate_high() const {
  return n_high > 0 ? errors_high / static_cast<double>(n_high) : NAN;
}
double ReliabilityTable::error_share_high() const { return errors > 0 ? errors_high / errors : NAN; }
double ReliabilityTable::error_share_high_with_invalid() const {
  const double all_errors = errors + static_cast<double>(invalid);
  return all_errors > 0 ? errors_high / all_errors : NAN;
}

ReliabilityTable reliability_table(const std::vector<double>& q, const std::vector<double>& correct) {
  ReliabilityTable table;
  table.bins.assign(kConfidenceBins, ReliabilityBin{});
  std::vector<double> sum_q(kConfidenceBins, 0.0), sum_correct(kConfidenceBins, 0.0);
  for (size_t i = 0; i < q.size(); ++i) {
    const int bin = confidence_bin(q[i]);
    ++table.bins[bin].n;
    sum_q[bin] += q[i];
    sum_correct[bin] += correct[i];
    ++table.n;
    table.errors += 1.0 - correct[i];
    if (q[i] >= kHighConfidence) {
      ++table.n_high;
      table.errors_high += 1.0 - correct[i];
    }
  }
  for (int b = 0; b < kConfidenceBins; ++b) {
    ReliabilityBin& bin = table.bins[b];
    const double n = static_cast<double>(bin.n);
    bin.mean_q = bin.n ? sum_q[b] / n : NAN;
    bin.accuracy = bin.n ? sum_correct[b] / n : NAN;
    table.ece += std::fabs(sum_correct[b] - sum_q[b]);
  }
  table.ece = table.n ? table.ece / static_cast<double>(table.n) : NAN;
  return table;
}

RiskCoverage risk_coverage(const std::vector<double>& q, const std::vector<double>& correct) {
  RiskCoverage curve;
  const size_t n = q.size();
  if (n == 0) {
    curve.aurc = NAN;
    return curve;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return q[a] > q[b]; });
  double errors_before = 0, risk_sum = 0;
  for (size_t a = 0; a < n;) {
    // The group holds order[a] itself, so b always advances, even past a NaN q (NaN != NaN).
    size_t b = a + 1;
    double group_errors = 1.0 - correct[order[a]];
    while (b < n && q[order[b]] == q[order[a]]) group_errors += 1.0 - correct[order[b++]];
    const double group = static_cast<double>(b - a);
    // Within a tie group the k-th output's expected errors grow linearly: every ordering of the
    // group is equally likely.
    for (size_t k = a + 1; k <= b; ++k)
      risk_sum += (errors_before + group_errors * static_cast<double>(k - a) / group) / static_cast<double>(k);
    errors_before += group_errors;
    curve.points.push_back(
        {q[order[a]], static_cast<double>(b) / static_cast<double>(n), errors_before / static_cast<double>(b)});
    a = b;
  }
  curve.aurc = risk_sum / static_cast<double>(n);
  return curve;
}

namespace {

// Mean NLL of rows at temperature t: p_k ∝ exp(log p_k / t), computed relative to the row's
// largest log-probability; zero probabilities stay zero.
double scaled_nll(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold, double t) {
  const size_t rows = gold.size();
  double total = 0;
  for (size_t r = 0; r < rows; ++r) {
    const double* p = probs.data() + r * n_labels;
    double top = -std::numeric_limits<double>::infinity();
    for (int32_t k = 0; k < n_labels; ++k)
      if (p[k] > 0) top = std::max(top, std::log(p[k]));
    double denominator = 0, gold_weight = 0;
    for (int32_t k = 0; k < n_labels; ++k) {
      if (!(p[k] > 0)) continue;
      const double weight = std::exp((std::log(p[k]) - top) / t);
      denominator += weight;
      if (k == gold[r]) gold_weight = weight;
    }
    const double p_gold = denominator > 0 ? gold_weight / denominator : 0.0;
    total += -std::log(std::max(p_gold, kNllFloor));
  }
  return rows ? total / static_cast<double>(rows) : NAN;
}

}  // namespace

double mean_nll_at_temperature(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold,
                               double t) {
  return scaled_nll(probs, n_labels, gold, t);
}

double fit_temperature(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold) {
  if (gold.empty()) return 1.0;
  constexpr double kLow = 0.05, kHigh = 20.0;
  constexpr int kScan = 121;
  const double log_low = std::log(kLow), log_high = std::log(kHigh);
  auto log_t_at = [&](int s) { return log_low + (log_high - log_low) * s / (kScan - 1); };
  int best = 0;
  double best_nll = std::numeric_limits<double>::infinity();
  for (int s = 0; s < kScan; ++s) {
    const double nll = scaled_nll(probs, n_labels, gold, std::exp(log_t_at(s)));
    if (nll < best_nll) best_nll = nll, best = s;
  }
  // Golden-section search on log T between the best scan point's neighbours.
  double a = log_t_at(std::max(0, best - 1)), b = log_t_at(std::min(kScan - 1, best + 1));
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = scaled_nll(probs, n_labels, gold, std::exp(c)), fd = scaled_nll(probs, n_labels, gold, std::exp(d));
  for (int step = 0; step < 60; ++step) {
    if (fc <= fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a);
      fc = scaled_nll(probs, n_labels, gold, std::exp(c));
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a);
      fd = scaled_nll(probs, n_labels, gold, std::exp(d));
    }
  }
  const double t = std::exp((a + b) / 2.0);
  return scaled_nll(probs, n_labels, gold, t) <= best_nll ? t : std::exp(log_t_at(best));
}

bool cell_probabilities(const ItemMatrix& m, size_t cell, std::vector<double>& out) {
  if (!m.present(cell) || !m.valid(cell)) return false;
  const double* p = m.probs_of(cell);
  bool any = false;
  for (int32_t l = 0; l < m.n_labels(); ++l) {
    out[l] = std::isnan(p[l]) ? 0.0 : p[l];
    any = any || !std::isnan(p[l]);
  }
  return any;
}

namespace {

struct Unit {
  int32_t item, variant;
};

// One judge's scored outputs per unit in one presentation.
struct Presentation {
  std::optional<int> order;  // nullopt: order-averaged
  std::vector<uint8_t> has;  // the unit has a valid output with probabilities
  std::vector<double> q, correct, brier, nll;
  std::vector<double> native;  // --native-confidence per unit (NaN: none); empty when not asked for
  explicit Presentation(size_t units) : has(units, 0), q(units, 0), correct(units, 0), brier(units, 0), nll(units, 0) {}
};

Presentation single_order(const ItemMatrix& m, int32_t j, const std::vector<Unit>& units, int order) {
  Presentation out(units.size());
  out.order = order;
  std::vector<double> p(m.n_labels());
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t item = units[u].item;
    const size_t cell = m.cell(j, item, order, units[u].variant);
    if (!cell_probabilities(m, cell, p)) continue;
    const ScoredProbabilities scored = score_probabilities(p.data(), m.n_labels(), m.gold[item]);
    out.has[u] = 1;
    out.q[u] = scored.q;
    // The verdict as given; a valid `tie` earns ½ when the gold label shares the top.
    out.correct[u] = m.correct(cell, item) ? 1.0 : (m.verdict[cell] == kTie && p[m.gold[item]] == scored.q ? 0.5 : 0.0);
    out.brier[u] = scored.brier;
    out.nll[u] = scored.nll;
  }
  return out;
}

Presentation order_averaged(const ItemMatrix& m, int32_t j, const std::vector<Unit>& units, int orders) {
  Presentation out(units.size());
  const int32_t L = m.n_labels();
  std::vector<double> p(L), mean(L);
  for (size_t u = 0; u < units.size(); ++u) {
    std::fill(mean.begin(), mean.end(), 0.0);
    int used = 0;
    for (int o = 0; o < orders; ++o) {
      if (!cell_probabilities(m, m.cell(j, units[u].item, o, units[u].variant), p)) continue;
      for (int32_t l = 0; l < L; ++l) mean[l] += p[l];
      ++used;
    }
    if (used == 0) continue;
    for (double& value : mean) value /= used;
    const ScoredProbabilities scored = score_probabilities(mean.data(), L, m.gold[units[u].item]);
    out.has[u] = 1;
    out.q[u] = scored.q;
    out.correct[u] = scored.correct;
    out.brier[u] = scored.brier;
    out.nll[u] = scored.nll;
  }
  return out;
}

// Appends units after the plan's existing ones; existing columns read 0 on them.
int64_t append_units(Plan& plan, const std::vector<int32_t>& clusters) {
  const int64_t offset = plan.n_units();
  plan.unit_cluster.insert(plan.unit_cluster.end(), clusters.begin(), clusters.end());
  for (auto& column : plan.columns) column.resize(plan.unit_cluster.size());
  return offset;
}

// The probability-quality statistics of one plan, built step by step: the units and judges with
// probabilities, the scopes (overall, then each stratum), and per judge × scope × presentation
// the brier, nll, ece and auroc_err statistics, the point summaries and the flip table.
class ProbabilityPlanBuilder {
 public:
  ProbabilityPlanBuilder(const ItemMatrix& m, const Selection& sel, bool per_group, Plan& plan,
                         const std::vector<AccuracyUnit>* plan_units, FractionColumns fractions,
                         const Covariate* native, bool pooled_orders)
      : m_(m),
        sel_(sel),
        per_group_(per_group),
        plan_(plan),
        plan_units_(plan_units),
        fractions_(fractions),
        native_(native),
        pooled_orders_(pooled_orders) {
    out_.strata = per_group ? sel.strata : "";
  }

  ProbabilityQuality build() {
    if (!m_.has_probs) return std::move(out_);
    const std::vector<int32_t> judges = find_units_and_judges();
    if (judges.empty()) return std::move(out_);
    place_units();
    make_scopes();
    for (int32_t j : judges) add_judge(j);
    if (!without_.empty()) {
      std::string names;
      for (const auto& name : without_) names += (names.empty() ? "" : ", ") + name;
      out_.notes.push_back("probability quality is left out for " + names + ": no valid records with probabilities");
    }
    if (native_ != nullptr) note_native(judges);
    out_.notes.push_back(
        "brier, nll, ece, auroc_err: n = valid records with probabilities; rows without [order] "
        "use order-averaged probabilities (docs/statistics.md §3.2); auroc_err ranks errors by 1 − q, ties ½");
    return std::move(out_);
  }

 private:
  struct Scope {
    std::optional<std::string> group;
    std::vector<uint8_t> in;
  };

  // Units: every selected (item, variant) on which some selected judge has a valid output with
  // probabilities; judges with at least one such output are analysed (returned), the others
  // noted.
  std::vector<int32_t> find_units_and_judges() {
    std::vector<double> scratch(m_.n_labels());
    std::vector<uint8_t> judge_has(sel_.judges.size(), 0);
    for (int32_t i : sel_.items)
      for (int32_t v : sel_.variants) {
        if (!m_.has_gold(i)) break;  // docs/statistics.md §8.1: probability quality needs gold
        bool any = false;
        for (size_t jj = 0; jj < sel_.judges.size(); ++jj)
          for (int o = 0; o < m_.orders; ++o)
            if (cell_probabilities(m_, m_.cell(sel_.judges[jj], i, o, v), scratch)) any = true, judge_has[jj] = 1;
        if (!any) continue;
        units_.push_back({i, v});
        unit_clusters_.push_back(sel_.item_cluster[i]);
      }
    std::vector<int32_t> judges;
    for (size_t jj = 0; jj < sel_.judges.size(); ++jj) {
      if (judge_has[jj])
        judges.push_back(sel_.judges[jj]);
      else
        without_.push_back(m_.judges[sel_.judges[jj]]);
    }
    return judges;
  }

  // Each unit's plan unit: the plan's own unit for the same (item, variant) when the caller lists
  // them (both lists follow the selection's item × variant order, so one merge pass finds them),
  // else a unit appended after the plan's existing ones.
  void place_units() {
    unit_index_.resize(units_.size());
    if (plan_units_ != nullptr && static_cast<int64_t>(plan_units_->size()) == plan_.n_units()) {
      size_t p = 0;
      for (size_t u = 0; u < units_.size(); ++u) {
        while (p < plan_units_->size() &&
               ((*plan_units_)[p].item != units_[u].item || (*plan_units_)[p].variant != units_[u].variant))
          ++p;
        if (p == plan_units_->size()) break;
        unit_index_[u] = static_cast<int64_t>(p++);
        if (u + 1 == units_.size()) return;
      }
      // A unit the plan lacks (not expected): fall back to units of their own.
    }
    const int64_t offset = append_units(plan_, unit_clusters_);
    for (size_t u = 0; u < units_.size(); ++u) unit_index_[u] = offset + static_cast<int64_t>(u);
  }

  void make_scopes() {
    const size_t U = units_.size();
    scopes_.push_back({std::nullopt, std::vector<uint8_t>(U, 1)});
    if (!per_group_ || sel_.strata.empty()) return;
    for (int32_t h = 0; h < sel_.n_strata(); ++h) {
      Scope scope{sel_.stratum_names[h], std::vector<uint8_t>(U, 0)};
      for (size_t u = 0; u < U; ++u) scope.in[u] = sel_.item_stratum[units_[u].item] == h;
      scopes_.push_back(std::move(scope));
    }
  }

  // Columns are non-zero on this builder's units only: set(k, u, v) writes unit u's entry of column k.
  int32_t add_column(const std::string& name) { return plan_.add_column(name); }
  void set(int32_t k, size_t u, double v) { plan_.columns[k].set(unit_index_[u], v); }
  // add(k, u, v) adds v to it (a pooled presentation's unit sums its judgments; on a zero entry, the same as set).
  void add(int32_t k, size_t u, double v) { plan_.columns[k].add(unit_index_[u], v); }

  StatLabel label_for(const std::string& name, int32_t judge, const Scope& scope, const std::optional<int>& order,
                      int64_t n) const {
    StatLabel label = group_label(sel_, scope.group);
    label.name = name;
    label.judge = m_.judges[judge];
    label.order = order;
    label.n = n;
    return label;
  }

  void add_judge(int32_t j) {
    const int orders = m_.orders;
    std::vector<Presentation> presentations;
    for (int o = 0; o < orders; ++o) presentations.push_back(single_order(m_, j, units_, o));
    if (orders >= 2) presentations.push_back(order_averaged(m_, j, units_, orders));
    if (native_ != nullptr)
      for (Presentation& pres : presentations) attach_native(j, pres);
    std::vector<const Presentation*> single_orders;
    for (int o = 0; o < orders; ++o) single_orders.push_back(&presentations[o]);
    for (size_t s = 0; s < scopes_.size(); ++s) {
      for (const Presentation& pres : presentations)
        add_presentation(j, scopes_[s], {&pres}, invalid_outputs(j, s, pres));
      if (orders >= 2 && pooled_orders_) add_presentation(j, scopes_[s], single_orders, 0);
      if (orders >= 2) add_flips(j, scopes_[s], presentations[0]);
    }
  }

  // JEV Table 30's invalid outputs of judge j on scope s (0 = all, else stratum s − 1) in `pres`:
  // over the selected items with gold, not only the units with probabilities; order-averaged,
  // the (item, variant)s where every present order is invalid.
  int64_t invalid_outputs(int32_t j, size_t s, const Presentation& pres) const {
    int64_t n = 0;
    for (int32_t i : sel_.items) {
      if (!m_.has_gold(i) || (s > 0 && sel_.item_stratum[i] != static_cast<int32_t>(s) - 1)) continue;
      for (int32_t v : sel_.variants) {
        int present = 0, invalid = 0;
        for (int o = 0; o < m_.orders; ++o) {
          if (pres.order && o != *pres.order) continue;
          const size_t c = m_.cell(j, i, o, v);
          present += m_.present(c);
          invalid += m_.present(c) && !m_.valid(c);
        }
        n += present > 0 && invalid == present;
      }
    }
    return n;
  }

  // The statistics and point summaries of judge j's presentation on `scope`: `parts` = {the presentation}, or
  // (--pooled-orders) every single order, each valid record a separate judgment of its unit (the unit's columns
  // sum its judgments; the rank term lists the unit once per judgment). The first pass finds the judgments and
  // the confidence bins used; the columns are then added in their fixed order and written in place (no per-unit
  // copies: at millions of units those were most of the plan builder's peak).
  void add_presentation(int32_t j, const Scope& scope, const std::vector<const Presentation*>& parts, int64_t invalid) {
    const size_t U = units_.size();
    const bool pooled = parts.size() > 1;
    const std::optional<int> order = pooled ? std::nullopt : parts.front()->order;
    const std::string scope_tag = m_.judges[j] + (scope.group ? "/" + *scope.group : "");
    const std::string tag = scope_tag + "/prob/" + (pooled ? std::string("pooled") : presentation_name(order));
    auto label = [&](const std::string& name, int64_t n) {
      StatLabel out = label_for(name, j, scope, order, n);
      if (pooled) out.label = kOrdersPooled;
      return out;
    };
    auto each_judgment = [&](auto f) { for_each_judgment(scope, parts, f); };
    std::vector<double> scope_q, scope_correct;
    std::vector<int32_t> rank_units;
    std::vector<double> rank_scores;
    std::vector<uint8_t> rank_positive;
    std::vector<uint8_t> bin_used(kConfidenceBins, 0);
    each_judgment([&](size_t u, const Presentation& pres) {
      bin_used[confidence_bin(pres.q[u])] = 1;
      // Error detection: errors (anything short of fully correct) are the positives,
      // scored by 1 − q; −q ranks identically and is exact.
      rank_units.push_back(static_cast<int32_t>(unit_index_[u]));
      rank_scores.push_back(-pres.q[u]);
      rank_positive.push_back(pres.correct[u] < 1.0);
      scope_q.push_back(pres.q[u]);
      scope_correct.push_back(pres.correct[u]);
    });
    const int64_t n = static_cast<int64_t>(scope_q.size());
    if (n == 0) return;
    const int32_t k_n = add_column(tag + "/n");
    const int32_t k_brier = add_column(tag + "/brier");
    const int32_t k_nll = add_column(tag + "/nll");
    const int32_t k_q = add_column(tag + "/q");  // mean q (JEV Tables 15, 18)
    std::vector<int32_t> k_gap(kConfidenceBins, -1);
    for (int b = 0; b < kConfidenceBins; ++b)
      if (bin_used[b]) k_gap[b] = add_column(tag + "/ece/" + std::to_string(b));
    each_judgment([&](size_t u, const Presentation& pres) {
      add(k_n, u, 1);
      add(k_brier, u, pres.brier[u]);
      add(k_nll, u, pres.nll[u]);
      add(k_q, u, pres.q[u]);
      add(k_gap[confidence_bin(pres.q[u])], u, pres.correct[u] - pres.q[u]);
    });
    if (fractions_ == FractionColumns::kFolded) {
      // Written in full and read only by compile(): their cluster sums from now on.
      plan_.fold_column(k_brier);
      plan_.fold_column(k_nll);
      plan_.fold_column(k_q);
      for (int32_t k : k_gap)
        if (k >= 0) plan_.fold_column(k);
    }
    plan_.statistics.push_back({label("brier", n), ratio_program(k_brier, k_n)});
    plan_.statistics.push_back({label("nll", n), ratio_program(k_nll, k_n)});
    plan_.statistics.push_back({label("mean_q", n), ratio_program(k_q, k_n)});
    // ECE = Σ_bins |Σ (correct − q)| / n; a bin empty on the data is empty on every replicate.
    std::vector<Op> ece;
    for (int b = 0; b < kConfidenceBins; ++b) {
      if (!bin_used[b]) continue;
      ece.push_back({OpCode::kColumn, k_gap[b]});
      ece.push_back({OpCode::kAbs});
      if (ece.size() > 2) ece.push_back({OpCode::kAdd});
    }
    ece.push_back({OpCode::kColumn, k_n});
    ece.push_back({OpCode::kDiv});
    plan_.statistics.push_back({label("ece", n), ece});
    // AUROC = 2U / (2·P·N) on each replicate, with P and N the replicate's error and
    // correct counts.
    const int64_t n_positive = static_cast<int64_t>(std::count(rank_positive.begin(), rank_positive.end(), 1));
    if (n_positive > 0 && n_positive < n) {
      const int32_t term = plan_.add_rank_term(rank_units, rank_scores, rank_positive);
      const int32_t k_pos = add_column(tag + "/auroc/pos");
      const int32_t k_neg = add_column(tag + "/auroc/neg");
      each_judgment([&](size_t u, const Presentation& pres) {
        const bool error = pres.correct[u] < 1.0;
        add(k_pos, u, error);
        add(k_neg, u, !error);
      });
      plan_.statistics.push_back({label("auroc_err", n), auroc_program(term, k_pos, k_neg)});
    } else {
      out_.notes.push_back("auroc_err of " + scope_tag + " (" + (pooled ? kOrdersPooled : presentation_name(order)) +
                           ") is left out: it needs both errors and correct outputs, and " +
                           (n_positive == 0 ? "there are no errors" : "every output is an error"));
    }
    if (pooled) return add_high_q_error_rate(j, scope, parts, tag, label("high_q_error_rate", 0));
    const Presentation& pres = *parts.front();
    if (native_ != nullptr) add_native(j, scope, pres, tag);
    ReliabilityTable reliability = reliability_table(scope_q, scope_correct);
    reliability.invalid = invalid;
    out_.summaries.push_back(
        {m_.judges[j], scope.group, pres.order, std::move(reliability), risk_coverage(scope_q, scope_correct)});
  }

  // Calls f(u, part) for every judgment of `parts` on `scope` (a unit with a valid output there), unit by unit.
  template <typename F>
  void for_each_judgment(const Scope& scope, const std::vector<const Presentation*>& parts, F f) const {
    for (size_t u = 0; u < units_.size(); ++u)
      if (scope.in[u])
        for (const Presentation* part : parts)
          if (part->has[u]) f(u, *part);
  }

  // JEV Table 15's "Errors / q ≥ .9" as a ratio with its interval: the errors among the judgments at q ≥ 0.9 over
  // those judgments (n), the reliability table's error rate at q ≥ 0.9; a note instead when none reaches 0.9.
  void add_high_q_error_rate(int32_t j, const Scope& scope, const std::vector<const Presentation*>& parts,
                             const std::string& tag, StatLabel label) {
    std::vector<std::pair<size_t, double>> high;  // (unit, error = 1 − credit, as the reliability table counts)
    for_each_judgment(scope, parts, [&](size_t u, const Presentation& part) {
      if (part.q[u] >= kHighConfidence) high.push_back({u, 1.0 - part.correct[u]});
    });
    if (high.empty()) {
      out_.notes.push_back("high_q_error_rate of " + m_.judges[j] + (scope.group ? " [" + *scope.group + "]" : "") +
                           " is left out: no judgment has q >= 0.9");
      return;
    }
    const int32_t k_high = add_column(tag + "/high/n"), k_errors = add_column(tag + "/high/errors");
    for (const auto& [u, error] : high) {
      add(k_high, u, 1);
      add(k_errors, u, error);
    }
    label.n = static_cast<int64_t>(high.size());
    plan_.statistics.push_back({std::move(label), ratio_program(k_errors, k_high)});
  }

  // The native confidence of each unit of `pres` (docs/statistics.md §3.2): its record's in a single
  // order; averaged, the mean over the orders that carry probabilities (NaN when one lacks it).
  void attach_native(int32_t j, Presentation& pres) {
    pres.native.assign(units_.size(), kMissing);
    std::vector<double> p(m_.n_labels());
    for (size_t u = 0; u < units_.size(); ++u) {
      if (!pres.has[u]) continue;
      double sum = 0;
      int used = 0;
      for (int o = 0; o < m_.orders; ++o) {
        if (pres.order && o != *pres.order) continue;
        const size_t cell = m_.cell(j, units_[u].item, o, units_[u].variant);
        if (!cell_probabilities(m_, cell, p)) continue;
        sum += native_value(*native_, cell);
        ++used;
      }
      pres.native[u] = sum / used;  // NaN when an order lacks it; used >= 1 since pres.has[u]
      if (std::isfinite(pres.native[u])) native_judges_.insert(j);
    }
  }

  void add_native(int32_t j, const Scope& scope, const Presentation& pres, const std::string& tag) {
    NativeConfidenceUnits units;
    for (size_t u = 0; u < units_.size(); ++u) {
      if (!scope.in[u] || !pres.has[u]) continue;
      units.plan_unit.push_back(static_cast<int32_t>(unit_index_[u]));
      units.q.push_back(pres.q[u]);
      units.correct.push_back(pres.correct[u]);
      units.native.push_back(pres.native[u]);
    }
    const std::string who =
        m_.judges[j] + (scope.group ? " on " + *scope.group : "") + " (" + presentation_name(pres.order) + ")";
    const bool none_here =
        std::none_of(units.native.begin(), units.native.end(), [](double v) { return std::isfinite(v); });
    if (none_here && !units.native.empty() && native_judges_.count(j) > 0)  // elsewhere it has some: say so here
      out_.notes.push_back("native_auroc_err and native_q_rho of " + who + " are left out: none of its " +
                           std::to_string(units.native.size()) + " records with probabilities carries x." +
                           native_->name);
    NativeConfidenceRows rows;
    add_native_confidence(units, label_for("", j, scope, pres.order, 0), who, tag, plan_, rows);
    for (auto& point : rows.points) out_.point_statistics.push_back(std::move(point));
    for (auto& note : rows.notes) out_.notes.push_back(std::move(note));
  }

  // Which covariate the native statistics read, and the judges that give it nowhere.
  void note_native(const std::vector<int32_t>& judges) {
    std::string names;
    for (int32_t j : judges)
      if (native_judges_.count(j) == 0) names += (names.empty() ? "" : ", ") + m_.judges[j];
    out_.notes.push_back("native_auroc_err and native_q_rho read the native confidence from x." + native_->name +
                         "; native_auroc_err ranks errors by 1 − native confidence, ties ½; native_q_rho is "
                         "Spearman's ρ of native confidence and q (a point value, no CI)");
    if (!names.empty())
      out_.notes.push_back("native_auroc_err and native_q_rho are left out for " + names + ": no x." + native_->name +
                           " value on a record with probabilities");
  }

  // Flip rate by base-order confidence: items with every order present and a valid base
  // order with probabilities.
  void add_flips(int32_t j, const Scope& scope, const Presentation& base) {
    FlipTable flips;
    flips.items.assign(kConfidenceBins, 0);
    flips.flips.assign(kConfidenceBins, 0);
    for (size_t u = 0; u < units_.size(); ++u) {
      if (!scope.in[u] || !base.has[u]) continue;
      // Over the item's own orders: a file that mixes two-order and four-order benchmarks
      // counts each item over the orders it has (an item with order 0 alone shows no flip).
      int others = 0;
      bool flip = false;
      const int16_t base_verdict = m_.verdict[m_.cell(j, units_[u].item, 0, units_[u].variant)];
      for (int o = 1; o < m_.orders; ++o) {
        const size_t cell = m_.cell(j, units_[u].item, o, units_[u].variant);
        if (!m_.present(cell)) continue;
        ++others;
        flip = flip || m_.verdict[cell] != base_verdict;  // an invalid verdict matches nothing
      }
      if (others == 0) continue;
      const int bin = confidence_bin(base.q[u]);
      ++flips.items[bin];
      ++flips.total_items;
      flips.flips[bin] += flip;
      flips.total_flips += flip;
      flips.flips_high += flip && base.q[u] >= kHighConfidence;
    }
    if (flips.total_items > 0) out_.flips.push_back({m_.judges[j], scope.group, flips});
  }

  const ItemMatrix& m_;
  const Selection& sel_;
  const bool per_group_;
  Plan& plan_;
  ProbabilityQuality out_;
  std::vector<Unit> units_;
  std::vector<int32_t> unit_clusters_;
  std::vector<std::string> without_;
  std::vector<Scope> scopes_;
  const std::vector<AccuracyUnit>* plan_units_;
  const FractionColumns fractions_;
  std::vector<int64_t> unit_index_;  // per unit: its plan unit
  const Covariate* native_;          // --native-confidence's covariate; nullptr when not asked for
  bool pooled_orders_;               // --pooled-orders: every order's record a separate judgment too
  std::set<int32_t> native_judges_;  // judges with a native value on some unit
};

}  // namespace

ProbabilityQuality add_probability_quality(const ItemMatrix& m, const Selection& sel, bool per_group, Plan& plan,
                                           const std::vector<AccuracyUnit>* plan_units, FractionColumns fractions,
                                           const Covariate* native, bool pooled_orders) {
  return ProbabilityPlanBuilder(m, sel, per_group, plan, plan_units, fractions, native, pooled_orders).build();
}

}  // namespace judgestat
