#include "analyses/probability/risk_coverage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "analyses/probability/probability_quality.hpp"

namespace judgestat {

namespace {

// The units entering (mask), their confidences sorted from high to low, and column helpers.
class SelectiveView {
 public:
  SelectiveView(const SelectiveUnits& units, const SelectiveLabels& labels, Plan& plan)
      : units_(units), labels_(labels), plan_(plan) {
    const auto U = static_cast<size_t>(plan.n_units());
    auto check = [&](const std::vector<double>& values, const char* name, bool optional) {
      if ((optional && values.empty()) || values.size() == U) return;
      throw std::logic_error(std::string("selective statistics: ") + name + " has " + std::to_string(values.size()) +
                             " entries for " + std::to_string(U) + " plan units");
    };
    check(units.q, "q", false);
    check(units.first_correct, "first_correct", false);
    check(units.fallback_correct, "fallback_correct", true);
    check(units.mask, "mask", true);
    for (size_t u = 0; u < U; ++u)
      if (in(u)) sorted_q_.push_back(units.q[u]);
    std::sort(sorted_q_.begin(), sorted_q_.end(), std::greater<double>());
  }

  bool in(size_t u) const { return units_.mask.empty() || units_.mask[u] != 0; }
  int64_t n() const { return static_cast<int64_t>(sorted_q_.size()); }
  const std::vector<double>& sorted_q() const { return sorted_q_; }

  // A column over the entering units: value(u) there, 0 elsewhere. Nothing reads it again but
  // compile(): a column of fractions is folded into its cluster sums at once (Plan::fold_column).
  template <typename Value>
  int32_t column(const std::string& name, Value value) {
    const int32_t k = plan_.add_column(labels_.tag + "/" + name);
    for (size_t u = 0; u < plan_.columns[k].size(); ++u)
      if (in(u)) plan_.columns[k].set(u, value(u));
    plan_.fold_column(k);
    return k;
  }

  int32_t add(const std::string& name, const std::optional<std::string>& threshold, int64_t n,
              std::vector<Op> program) {
    StatLabel label = labels_.base;
    label.name = name;
    label.threshold = threshold;
    label.n = n;
    plan_.statistics.push_back({std::move(label), std::move(program)});
    return static_cast<int32_t>(plan_.statistics.size()) - 1;
  }

  const SelectiveUnits& units() const { return units_; }

 private:
  const SelectiveUnits& units_;
  const SelectiveLabels& labels_;
  Plan& plan_;
  std::vector<double> sorted_q_;  // entering units, descending
};

std::string number_text(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The fixed AURC thresholds: every distinct q when there are at most `points`, else the q at
// ranks ⌈j·n/points⌉, j = 1..points (distinct). The last is the smallest q, so N_K = n.
std::vector<double> aurc_thresholds(const std::vector<double>& sorted_q, int32_t points) {
  std::vector<double> distinct;
  for (double q : sorted_q)
    if (distinct.empty() || q != distinct.back()) distinct.push_back(q);
  if (static_cast<int64_t>(distinct.size()) <= points) return distinct;
  std::vector<double> out;
  const auto n = static_cast<int64_t>(sorted_q.size());
  for (int64_t j = 1; j <= points; ++j) {
    const double q = sorted_q[(j * n + points - 1) / points - 1];
    if (out.empty() || q != out.back()) out.push_back(q);
  }
  return out;
}

// ⌈c·n⌉, reading c·n within 1e-9 of an integer as that integer (0.7 · 10 is 7.000000000000001).
int64_t covered_count(double c, int64_t n) {
  const double x = c * static_cast<double>(n);
  const double nearest = std::round(x);
  const auto k = static_cast<int64_t>(std::fabs(x - nearest) < 1e-9 ? nearest : std::ceil(x));
  return std::max<int64_t>(1, std::min(n, k));
}

void check_options(const RiskCoverageOptions& options) {
  for (double c : options.coverages)
    if (!(c > 0 && c <= 1))
      throw std::invalid_argument("coverage: expected coverages in (0, 1], got " + number_text(c, "%g"));
  if (options.aurc_points < 1)
    throw std::invalid_argument("aurc_points: expected at least 1 threshold, got " +
                                std::to_string(options.aurc_points));
}

}  // namespace

RiskCoverageStatistics add_risk_coverage(const SelectiveUnits& units, const SelectiveLabels& labels, Plan& plan,
                                         const RiskCoverageOptions& options) {
  check_options(options);
  SelectiveView view(units, labels, plan);
  RiskCoverageStatistics out;
  out.n = view.n();
  if (out.n == 0) return out;
  const std::vector<double>& q = units.q;
  const std::vector<double>& correct = units.first_correct;
  std::vector<double> entering_q, entering_correct;
  for (size_t u = 0; u < q.size(); ++u)
    if (view.in(u)) entering_q.push_back(q[u]), entering_correct.push_back(correct[u]);
  out.aurc_tie_averaged = risk_coverage(entering_q, entering_correct).aurc;

  // AURC = Σ_j (N_j − N_{j−1}) · E_j / N_j, over n = N_K. E_j / N_j is 0 on a replicate with
  // N_j = 0, where N_j − N_{j−1} = 0 as well.
  using O = OpCode;
  out.thresholds = aurc_thresholds(view.sorted_q(), options.aurc_points);
  std::vector<int32_t> covered, errors;
  std::vector<Op> aurc;
  for (size_t j = 0; j < out.thresholds.size(); ++j) {
    const double t = out.thresholds[j];
    const std::string name = "rc/" + std::to_string(j);
    covered.push_back(view.column(name + "/covered", [&](size_t u) { return q[u] >= t ? 1.0 : 0.0; }));
    errors.push_back(view.column(name + "/errors", [&](size_t u) { return q[u] >= t ? 1.0 - correct[u] : 0.0; }));
    aurc.push_back({O::kColumn, covered[j]});
    if (j > 0) aurc.insert(aurc.end(), {{O::kColumn, covered[j - 1]}, {O::kSub}});
    aurc.insert(aurc.end(), {{O::kColumn, errors[j]}, {O::kColumn, covered[j]}, {O::kDivOrZero}, {O::kMul}});
    if (j > 0) aurc.push_back({O::kAdd});
  }
  const int32_t k_n = covered.back();
  aurc.insert(aurc.end(), {{O::kColumn, k_n}, {O::kDiv}});
  out.aurc = view.add("aurc", std::nullopt, out.n, aurc);

  for (double c : options.coverages) {
    SelectiveAtCoverage at;
    at.target = c;
    at.threshold = view.sorted_q()[covered_count(c, out.n) - 1];
    const std::string name = "coverage/" + number_text(c, "%.17g");
    const int32_t k_a = view.column(name + "/covered", [&](size_t u) { return q[u] >= at.threshold ? 1.0 : 0.0; });
    const int32_t k_ac =
        view.column(name + "/correct", [&](size_t u) { return q[u] >= at.threshold ? correct[u] : 0.0; });
    for (size_t u = 0; u < q.size(); ++u) at.covered += view.in(u) && q[u] >= at.threshold;
    const std::string label = "coverage=" + number_text(c, "%g");
    at.accuracy = view.add("selective_acc", label, out.n, ratio_program(k_ac, k_a));
    at.coverage = view.add("selective_coverage", label, out.n, ratio_program(k_a, k_n));
    out.at.push_back(at);
  }
  // The curve's rows last, so a caller that turns them on keeps the other rows' order.
  if (options.curve)
    for (size_t j = 0; j < out.thresholds.size(); ++j)
      out.curve.push_back(view.add("selective_risk", number_text(out.thresholds[j], "%.6g"), out.n,
                                   ratio_program(errors[j], covered[j])));
  return out;
}

std::vector<ConfidenceBinRows> add_confidence_bin_accuracy(const SelectiveUnits& units, const SelectiveLabels& labels,
                                                           Plan& plan) {
  SelectiveView view(units, labels, plan);
  std::vector<ConfidenceBinRows> out;
  const std::vector<double>& q = units.q;
  const bool fallback = !units.fallback_correct.empty();
  for (int b = 0; b < kConfidenceBins; ++b) {
    ConfidenceBinRows row;
    row.bin = b;
    double sum_q = 0;
    for (size_t u = 0; u < q.size(); ++u)
      if (view.in(u) && confidence_bin(q[u]) == b) ++row.n, sum_q += q[u];
    if (row.n == 0) continue;
    row.mean_q = sum_q / static_cast<double>(row.n);
    auto in_bin = [&](size_t u) { return confidence_bin(q[u]) == b; };
    const std::string tag = "bin/" + std::to_string(b);
    const int32_t k_n = view.column(tag + "/n", [&](size_t u) { return in_bin(u) ? 1.0 : 0.0; });
    const int32_t k_first =
        view.column(tag + "/first", [&](size_t u) { return in_bin(u) ? units.first_correct[u] : 0.0; });
    const std::string name = confidence_bin_name(b);
    row.first = view.add("bin_acc", name, row.n, ratio_program(k_first, k_n));
    if (fallback) {
      const int32_t k_fallback =
          view.column(tag + "/fallback", [&](size_t u) { return in_bin(u) ? units.fallback_correct[u] : 0.0; });
      row.fallback = view.add("fallback_bin_acc", name, row.n, ratio_program(k_fallback, k_n));
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace judgestat
