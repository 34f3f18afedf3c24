// Temperature scaling per group and on the item matrix (docs/statistics.md §3.2, §7.5): the
// fitted temperatures against an independent fine-grid minimiser written here, NLL / Brier / ECE
// before and after against explicit formulas, and a temperature fitted on one file applied to
// another (`metrics --temperature-fit`).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/calibration.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::write_temp;

namespace {

// ---- Independent reference computations ----

// p_k^(1/t) / Σ_l p_l^(1/t), straight from the definition.
std::vector<double> powered(const double* p, int n, double t) {
  std::vector<double> out(n);
  double total = 0;
  for (int k = 0; k < n; ++k) total += out[k] = p[k] > 0 ? std::pow(p[k], 1.0 / t) : 0.0;
  for (double& v : out) v /= total;
  return out;
}

struct Reference {
  double nll = 0, brier = 0, ece = 0;
  int64_t n = 0;
};

// Scores of the chosen rows at temperature t (t = 0: as given).
Reference reference_scores(const ProbabilityRows& rows, const std::function<bool(int64_t)>& keep,
                           const std::function<double(int64_t)>& t_of) {
  Reference out;
  std::vector<double> gap(10, 0.0);
  for (int64_t r = 0; r < rows.size(); ++r) {
    if (!keep(r)) continue;
    const double* given = rows.probs.data() + r * rows.n_labels;
    const double t = t_of(r);
    const std::vector<double> p =
        t > 0 ? powered(given, rows.n_labels, t) : std::vector<double>(given, given + rows.n_labels);
    double top = 0;
    int at_top = 0;
    for (double v : p) top = std::max(top, v);
    for (double v : p) at_top += v == top;
    const int gold = rows.gold[r];
    const double correct = p[gold] == top ? 1.0 / at_top : 0.0;
    out.nll += -std::log(std::max(p[gold], 1e-6));
    for (int k = 0; k < rows.n_labels; ++k) out.brier += (p[k] - (k == gold)) * (p[k] - (k == gold));
    gap[std::min(9, static_cast<int>(std::floor(10 * top)))] += correct - top;
    ++out.n;
  }
  for (double g : gap) out.ece += std::fabs(g);
  out.nll /= out.n, out.brier /= out.n, out.ece /= out.n;
  return out;
}

// The T in [0.05, 20] minimising the mean NLL of the chosen rows: a 20,001-point log grid, then a
// 2,001-point grid between the best point's neighbours (steps of 3e-7 in log T).
double grid_minimiser(const ProbabilityRows& rows, const std::function<bool(int64_t)>& keep) {
  auto nll = [&](double log_t) { return reference_scores(rows, keep, [&](int64_t) { return std::exp(log_t); }).nll; };
  auto best_on = [&](double lo, double hi, int steps) {
    double best_log_t = lo, best = INFINITY;
    for (int s = 0; s <= steps; ++s) {
      const double log_t = lo + (hi - lo) * s / steps, value = nll(log_t);
      if (value < best) best = value, best_log_t = log_t;
    }
    return best_log_t;
  };
  const double lo = std::log(0.05), hi = std::log(20.0), coarse = (hi - lo) / 20000;
  const double log_t = best_on(lo, hi, 20000);
  return std::exp(best_on(std::max(lo, log_t - coarse), std::min(hi, log_t + coarse), 2000));
}

void expect_scores(const CalibrationScores& got, const Reference& want, const std::string& what) {
  EXPECT_EQ(got.n, want.n) << what;
  EXPECT_NEAR(got.nll, want.nll, 1e-12) << what;
  EXPECT_NEAR(got.brier, want.brier, 1e-12) << what;
  EXPECT_NEAR(got.ece, want.ece, 1e-12) << what;
}

// Three labels, two groups. mmlu says 0.8–0.9 for its verdict and is right 5 times in 8
// (overconfident: T > 1); livebench says 0.5–0.6 and is right 7 times in 8 (underconfident:
// T < 1). Rows alternate between the fit and held-out parts; a third group "heldout_only" has no
// fit rows.
ProbabilityRows two_group_rows() {
  ProbabilityRows rows;
  rows.n_labels = 3;
  rows.group_names = {"mmlu", "livebench", "heldout_only"};
  auto add = [&](int group, std::vector<double> p, int gold, bool fit) {
    rows.probs.insert(rows.probs.end(), p.begin(), p.end());
    rows.gold.push_back(gold);
    rows.group.push_back(group);
    rows.fit.push_back(fit);
  };
  const double mmlu_top[] = {0.9, 0.85, 0.8, 0.9, 0.88, 0.82, 0.86, 0.9};
  const int mmlu_right[] = {1, 0, 1, 1, 0, 1, 0, 1};
  for (int r = 0; r < 8; ++r) {
    const double top = mmlu_top[r], rest = 1 - top;
    add(0, {top, rest * 0.7, rest * 0.3}, mmlu_right[r] ? 0 : 1 + r % 2, r % 2 == 0);
    add(0, {rest * 0.4, top, rest * 0.6}, mmlu_right[(r + 3) % 8] ? 1 : 2, r % 2 == 1);
  }
  const double live_top[] = {0.6, 0.55, 0.5, 0.6, 0.58, 0.52, 0.56, 0.6};
  const int live_right[] = {1, 1, 1, 1, 0, 1, 1, 1};
  for (int r = 0; r < 8; ++r) {
    const double top = live_top[r], rest = 1 - top;
    add(1, {rest * 0.5, rest * 0.5, top}, live_right[r] ? 2 : 0, r % 2 == 0);
  }
  add(2, {0.7, 0.2, 0.1}, 0, false);
  add(2, {0.3, 0.6, 0.1}, 0, false);
  return rows;
}

}  // namespace

TEST(CalibrationGroups, PerGroupTemperaturesMatchAnIndependentMinimiser) {
  const ProbabilityRows rows = two_group_rows();
  const TemperatureScaling s = temperature_scaling_by_group(rows, true);
  ASSERT_EQ(s.groups.size(), 3u);
  const double pooled = grid_minimiser(rows, [&](int64_t r) { return rows.fit[r] != 0; });
  EXPECT_NEAR(s.pooled_temperature, pooled, 1e-5 * pooled);
  std::vector<double> want_t(3, pooled);
  for (int g = 0; g < 2; ++g)
    want_t[g] = grid_minimiser(rows, [&](int64_t r) { return rows.fit[r] && rows.group[r] == g; });
  EXPECT_GT(want_t[0], 1.2);  // overconfident group: flattened
  EXPECT_LT(want_t[1], 0.9);  // underconfident group: sharpened
  EXPECT_GT(want_t[1], 0.1);  // inside the search range
  for (int g = 0; g < 3; ++g) {
    const TemperatureGroup& group = s.groups[g];
    EXPECT_EQ(group.name, rows.group_names[g]);
    EXPECT_NEAR(group.temperature, want_t[g], 1e-5 * want_t[g]) << group.name;
    EXPECT_EQ(group.pooled_fallback, g == 2) << group.name;
    auto fit = [&](int64_t r) { return rows.group[r] == g && rows.fit[r]; };
    auto held = [&](int64_t r) { return rows.group[r] == g && !rows.fit[r]; };
    auto as_given = [](int64_t) { return 0.0; };
    auto at_fitted = [&](int64_t) { return group.temperature; };
    if (g < 2) {
      expect_scores(group.fit_before, reference_scores(rows, fit, as_given), group.name + " fit before");
      expect_scores(group.fit_after, reference_scores(rows, fit, at_fitted), group.name + " fit after");
      // Fitted on these rows: no worse than the probabilities as given.
      EXPECT_LT(group.fit_after.nll, group.fit_before.nll) << group.name;
    } else {
      EXPECT_EQ(group.fit_rows, 0);
      EXPECT_TRUE(std::isnan(group.fit_after.nll));
    }
    expect_scores(group.heldout_before, reference_scores(rows, held, as_given), group.name + " held-out before");
    expect_scores(group.heldout_after, reference_scores(rows, held, at_fitted), group.name + " held-out after");
  }
  // Every row at its own group's T.
  EXPECT_TRUE(std::isnan(s.all.temperature));
  auto row_t = [&](int64_t r) { return s.groups[rows.group[r]].temperature; };
  expect_scores(s.all.heldout_after,
                reference_scores(
                    rows, [&](int64_t r) { return !rows.fit[r]; }, row_t),
                "all held-out after");
  EXPECT_EQ(s.all.fit_rows + s.all.heldout_rows, rows.size());
}

TEST(CalibrationGroups, PooledUsesOneTemperatureEverywhere) {
  const ProbabilityRows rows = two_group_rows();
  const TemperatureScaling s = temperature_scaling_by_group(rows, false);
  const double pooled = grid_minimiser(rows, [&](int64_t r) { return rows.fit[r] != 0; });
  EXPECT_NEAR(s.all.temperature, pooled, 1e-5 * pooled);
  auto at_pooled = [&](int64_t) { return s.all.temperature; };
  expect_scores(s.all.fit_after,
                reference_scores(
                    rows, [&](int64_t r) { return rows.fit[r] != 0; }, at_pooled),
                "all fit after");
  expect_scores(s.all.heldout_before,
                reference_scores(
                    rows, [&](int64_t r) { return !rows.fit[r]; }, [](int64_t) { return 0.0; }),
                "all held-out before");
  for (const TemperatureGroup& group : s.groups) {
    EXPECT_EQ(group.temperature, s.all.temperature) << group.name;
    EXPECT_FALSE(group.pooled_fallback);
  }
  const int g = 1;  // livebench's held-out rows, scaled at the pooled T
  expect_scores(s.groups[g].heldout_after,
                reference_scores(
                    rows, [&](int64_t r) { return rows.group[r] == g && !rows.fit[r]; }, at_pooled),
                "livebench held-out after");
}

TEST(CalibrationGroups, ScaleRowKeepsZerosAndOrder) {
  ProbabilityRows rows;
  rows.n_labels = 3;
  rows.probs = {0.6, 0.4, 0.0};
  rows.gold = {0};
  double out[3];
  scale_row(rows, 0, 0.5, out);  // squares, renormalised: 0.36 / 0.52, 0.16 / 0.52, 0
  EXPECT_NEAR(out[0], 0.36 / 0.52, 1e-15);
  EXPECT_NEAR(out[1], 0.16 / 0.52, 1e-15);
  EXPECT_EQ(out[2], 0.0);
}

namespace {

// Judge J with three labels in two orders; K without probabilities. In the second file: a
// record without p.C (labels without a probability stay unset), and an invalid one (verdict B
// but p.A on top) that must be left as it is.
const char* kFitCsv =
    "judge,item,benchmark,order,gold,verdict,p.A,p.B,p.C\n"
    "J,a,x,0,A,A,0.9,0.05,0.05\nJ,a,x,1,A,A,0.8,0.1,0.1\n"
    "J,b,x,0,B,A,0.85,0.1,0.05\nJ,b,x,1,B,B,0.3,0.6,0.1\n"
    "J,c,y,0,C,C,0.05,0.05,0.9\nJ,c,y,1,C,A,0.5,0.2,0.3\n"
    "J,d,y,0,A,B,0.2,0.7,0.1\nJ,d,y,1,A,A,0.95,0.03,0.02\n"
    "K,a,x,0,A,A,,,\nK,b,x,0,B,B,,,\n";
const char* kApplyCsv =
    "judge,item,order,gold,verdict,p.A,p.B,p.C\n"
    "J,p,0,A,A,0.7,0.2,0.1\nJ,q,0,B,B,0.1,0.8,0.1\nJ,r,0,A,B,0.45,0.55,\n"
    "J,s,0,C,B,0.6,0.3,0.1\nK,p,0,A,A,0.6,0.3,0.1\n";

}  // namespace

TEST(CalibrationMatrix, FitOnOneFileApplyToAnother) {
  const ItemMatrix fit_on = load_item_matrix(write_temp("fit.csv", kFitCsv));
  const std::map<std::string, double> t = fit_temperatures(fit_on, {"J"});
  ASSERT_EQ(t.size(), 1u);
  // Independently: every record of J (both orders) is a row.
  const ProbabilityRows rows = record_probability_rows(fit_on, fit_on.judge_index("J"));
  ASSERT_EQ(rows.size(), 8);
  EXPECT_EQ(rows.group_names, (std::vector<std::string>{"x", "y"}));
  const double want = grid_minimiser(rows, [](int64_t) { return true; });
  EXPECT_NEAR(t.at("J"), want, 1e-5 * want);
  EXPECT_GT(want, 1.0);   // right 5 times in 8 at confidences 0.5–0.95: overconfident
  EXPECT_LT(want, 10.0);  // inside the search range

  ItemMatrix target = load_item_matrix(write_temp("apply.csv", kApplyCsv));
  const ItemMatrix before = target;
  apply_temperature(target, t);
  const double T = t.at("J");
  const int32_t J = target.judge_index("J"), K = target.judge_index("K");
  for (int32_t i = 0; i < target.n_items(); ++i) {
    const size_t cell = target.cell(J, i, 0, 0);
    const double* old_p = before.probs_of(cell);
    const double* new_p = target.probs_of(cell);
    EXPECT_EQ(target.verdict[cell], before.verdict[cell]);
    if (!before.valid(cell)) {  // s: invalid, untouched
      for (int l = 0; l < 3; ++l) EXPECT_EQ(new_p[l], old_p[l]) << target.items[i];
      continue;
    }
    const int given = std::isnan(old_p[2]) ? 2 : 3;
    const std::vector<double> want_p = powered(old_p, given, T);
    for (int l = 0; l < given; ++l) EXPECT_NEAR(new_p[l], want_p[l], 1e-15) << target.items[i] << " label " << l;
    if (given == 2) {
      EXPECT_TRUE(std::isnan(new_p[2])) << "a label without a probability stays unset";
    }
  }
  EXPECT_EQ(target.items[3], "s");
  EXPECT_FALSE(target.valid(target.cell(J, 3, 0, 0)));
  for (int l = 0; l < 3; ++l)  // K is not in the map
    EXPECT_EQ(target.probs_of(target.cell(K, 0, 0, 0))[l], before.probs_of(before.cell(K, 0, 0, 0))[l]);

  // The scaled matrix flows into metrics: J's order-0 NLL over its valid records p, q, r.
  const Selection sel = select_records(target, {});
  Plan plan = plan_for(sel);
  add_probability_quality(target, sel, false, plan);
  const std::vector<double> estimates = point_estimates(plan);
  double want_nll = 0;
  for (int32_t i = 0; i < 3; ++i) {
    const double* old_p = before.probs_of(before.cell(J, i, 0, 0));
    want_nll += -std::log(powered(old_p, std::isnan(old_p[2]) ? 2 : 3, T)[before.gold[i]]);
  }
  bool found = false;
  for (size_t s = 0; s < plan.statistics.size(); ++s)
    if (plan.statistics[s].label.name == "nll" && plan.statistics[s].label.judge == "J") {
      EXPECT_NEAR(estimates[s], want_nll / 3, 1e-12);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(CalibrationMatrix, ItemMaskRestrictsTheFit) {
  const ItemMatrix m = load_item_matrix(write_temp("fit.csv", kFitCsv));
  const std::vector<uint8_t> only_y{0, 0, 1, 1};  // items c and d
  const ProbabilityRows rows = record_probability_rows(m, m.judge_index("J"), only_y);
  ASSERT_EQ(rows.size(), 4);
  EXPECT_EQ(rows.group_names, std::vector<std::string>{"y"});
  const double want = grid_minimiser(rows, [](int64_t) { return true; });
  EXPECT_NEAR(fit_temperatures(m, {"J"}, only_y).at("J"), want, 1e-5 * want);
}

TEST(CalibrationMatrix, BadInputIsAClearError) {
  const ItemMatrix fit_on = load_item_matrix(write_temp("fit.csv", kFitCsv));
  EXPECT_THROW(fit_temperatures(fit_on, {"nobody"}), UsageError);
  try {
    fit_temperatures(fit_on, {"K"});
    ADD_FAILURE() << "K has no probabilities";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'K' has no valid record with probabilities"), std::string::npos) << e.what();
  }
  ItemMatrix target = load_item_matrix(write_temp("apply.csv", kApplyCsv));
  EXPECT_THROW(apply_temperature(target, {{"nobody", 1.5}}), UsageError);
  for (double bad : std::vector<double>{0.0, -1.0, NAN, INFINITY}) {
    try {
      apply_temperature(target, {{"J", bad}});
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("temperature:", 0), 0u) << e.what();
    }
  }
}

// The cascade's rows: F's order-averaged probabilities on the items with a valid F output, grouped
// by benchmark in first-appearance order; item c (F invalid in both orders) has none.
TEST(CalibrationCascade, PoolRowsAreTheAveragedProbabilities) {
  const ItemMatrix m =
      load_item_matrix(write_temp("pool.csv",
                                  "judge,item,benchmark,order,gold,verdict,p.A,p.B\n"
                                  "F,a,live,0,A,A,0.9,0.1\nF,a,live,1,A,A,0.7,0.3\nS,a,live,0,A,A,,\n"
                                  "F,b,mmlu,0,B,A,0.6,0.4\nF,b,mmlu,1,B,B,0.2,0.8\nS,b,mmlu,0,B,B,,\n"
                                  "F,c,mmlu,0,A,,,\nF,c,mmlu,1,A,,,\nS,c,mmlu,0,A,B,,\n"
                                  "F,d,live,0,B,B,0.3,0.7\nF,d,live,1,B,B,0.1,0.9\nS,d,live,0,B,A,,\n"));
  const CascadePool pool = build_cascade_pool(m, "F", "S");
  ASSERT_EQ(pool.size(), 4);
  const ProbabilityRows rows = cascade_probability_rows(m, pool, {1, 0, 1, 0});
  ASSERT_EQ(rows.size(), 3);
  EXPECT_EQ(rows.group_names, (std::vector<std::string>{"live", "mmlu"}));
  EXPECT_EQ(rows.group, (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(rows.fit, (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(rows.gold, (std::vector<int32_t>{0, 1, 1}));
  const double want[] = {0.8, 0.2, 0.4, 0.6, 0.2, 0.8};  // (0.9 + 0.7) / 2, …
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(rows.probs[k], want[k], 1e-15) << k;
  EXPECT_TRUE(cascade_probability_rows(m, pool, {}).fit == std::vector<uint8_t>(3, 0));
  EXPECT_THROW(cascade_probability_rows(m, pool, {1, 0}), std::logic_error);
}
