// The cascade's temperature scaling pooled or per benchmark and its first-stage risk–coverage
// with CIs (docs/statistics.md §3.2, §7.5; JEV Fig. 5): the pooled fit is unchanged, the per-
// benchmark temperatures equal temperature_scaling_by_group on the same rows and minimise each
// benchmark's selection NLL, the held-out scores equal direct sums; AURC, selective accuracy and
// the per-bin accuracies of F and S equal direct counts; the added rows leave every earlier
// statistic of the sweep bit for bit as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "analyses/probability/calibration.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

ExecTarget cpu2() { return cpu_target(2); }

const uint64_t kSeed = BootstrapOptions{}.seed;  // the split's seed (run_cascade's default)

CascadeOptions judgebench_options() {
  CascadeOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.fee = {{kFirst, 0.00002}, {kFallback, 0.012}};
  o.bootstrap.replicates = 300;
  return o;
}

// Independent of calibration.cpp: p^(1/t) renormalised, then mean NLL (floor 1e-6), mean Brier
// and ECE (10 bins) over the rows `keep` picks.
struct Direct {
  int64_t n = 0;
  double nll = 0, brier = 0, ece = 0;
};
Direct direct_scores(const ProbabilityRows& rows, double t, const std::function<bool(int64_t)>& keep) {
  Direct out;
  const int32_t L = rows.n_labels;
  std::vector<double> bin_n(10, 0), bin_q(10, 0), bin_c(10, 0);
  for (int64_t r = 0; r < rows.size(); ++r) {
    if (!keep(r)) continue;
    std::vector<double> p(L);
    double total = 0;
    for (int32_t k = 0; k < L; ++k) total += p[k] = std::pow(rows.probs[r * L + k], 1.0 / t);
    for (double& v : p) v /= total;
    const double top = *std::max_element(p.begin(), p.end());
    const auto tops = std::count(p.begin(), p.end(), top);
    const double correct = p[rows.gold[r]] == top ? (tops == 1 ? 1.0 : 0.5) : 0.0;
    out.nll += -std::log(std::max(p[rows.gold[r]], 1e-6));
    for (int32_t k = 0; k < L; ++k) out.brier += (p[k] - (k == rows.gold[r])) * (p[k] - (k == rows.gold[r]));
    const int b = std::min(static_cast<int>(std::floor(10 * top)), 9);
    bin_n[b] += 1, bin_q[b] += top, bin_c[b] += correct;
    ++out.n;
  }
  out.nll /= static_cast<double>(out.n);
  out.brier /= static_cast<double>(out.n);
  for (int b = 0; b < 10; ++b) out.ece += std::fabs(bin_c[b] - bin_q[b]) / static_cast<double>(out.n);
  return out;
}

// A study of `items` items in clusters of three, benchmarks a / b by cluster: F (orders 0 and 1,
// probabilities on a 0.01 grid, so fewer than 100 distinct confidences) and S (order 0).
std::string study_csv(int items) {
  std::mt19937 rng(5);
  std::string csv = "judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < items; ++i) {
    const std::string gold = rng() % 2 ? "A" : "B";
    const double sure = 0.5 + static_cast<double>(rng() % 50) / 100.0;
    const double p_gold = rng() % 4 != 0 ? sure : 1 - sure;
    const double p_a = gold == "A" ? p_gold : 1 - p_gold;
    const std::string head = ",it" + std::to_string(i) + ",c" + std::to_string(i / 3) + "," + (i / 3 % 2 ? "b" : "a");
    for (int order = 0; order < 2; ++order)
      csv += "F" + head + "," + std::to_string(order) + "," + gold + "," + (p_a >= 0.5 ? "A" : "B") + "," +
             std::to_string(p_a) + "," + std::to_string(1 - p_a) + "\n";
    const bool s_right = rng() % 5 != 0;
    csv += "S" + head + ",0," + gold + "," + (s_right == (gold == "A") ? "A" : "B") + ",,\n";
  }
  return csv;
}

}  // namespace

// Pooled (the default): the report's temperature keeps the values of the pooled fit, and the
// library's pooled scaling on the same rows gives the same T and NLLs, plus Brier and ECE.
TEST(CascadeTemperature, PooledFitUnchangedAndScoredDirectly) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  const CascadeReport r = run_cascade(m, judgebench_options(), cpu2());
  ASSERT_TRUE(r.rules.has_value());
  const TemperatureResult& t = r.rules->temperature;
  EXPECT_FALSE(t.per_benchmark);
  EXPECT_EQ(t.all.temperature, t.temperature);
  EXPECT_EQ(t.all.selection_before.n, t.selection_items);
  EXPECT_EQ(t.all.heldout_before.n, t.heldout_items);
  EXPECT_NEAR(t.all.selection_before.nll, t.selection_nll_before, 1e-12);
  EXPECT_NEAR(t.all.heldout_before.nll, t.heldout_nll_before, 1e-12);
  EXPECT_NEAR(t.all.selection_after.nll, t.selection_nll_after, 1e-9);
  EXPECT_NEAR(t.all.heldout_after.nll, t.heldout_nll_after, 1e-9);
  ASSERT_EQ(t.groups.size(), 3u);
  for (const TemperatureGroupResult& g : t.groups) EXPECT_EQ(g.temperature, t.temperature) << g.name;

  // The same T pooled from the selection part rebuilt here, and held-out scores by direct sums.
  const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "benchmark", judgebench_options().fee);
  const std::vector<uint8_t> selection = split_selection(number_pool_clusters(m, pool), pool, 0.4, kSeed);
  const ProbabilityRows rows = cascade_probability_rows(m, pool, selection);
  EXPECT_EQ(temperature_scaling_by_group(rows, false).pooled_temperature, t.temperature);
  const Direct held = direct_scores(rows, t.temperature, [&](int64_t row) { return !rows.fit[row]; });
  EXPECT_EQ(held.n, t.heldout_items);
  EXPECT_NEAR(held.nll, t.all.heldout_after.nll, 1e-9);
  EXPECT_NEAR(held.brier, t.all.heldout_after.brier, 1e-9);
  EXPECT_NEAR(held.ece, t.all.heldout_after.ece, 1e-9);
  const Direct given = direct_scores(rows, 1.0, [&](int64_t row) { return !rows.fit[row]; });
  EXPECT_NEAR(given.brier, t.all.heldout_before.brier, 1e-9);
  EXPECT_NEAR(given.ece, t.all.heldout_before.ece, 1e-9);
}

// Per benchmark: each benchmark's T equals temperature_scaling_by_group on the same rows and
// minimises that benchmark's selection NLL (checked against T·(1 ± 2%)); its held-out scores are
// direct sums at its own T; the pooled T stays in `temperature`.
TEST(CascadeTemperature, PerBenchmarkEqualsTheLibraryOnTheSameRows) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o = judgebench_options();
  const double pooled_t = run_cascade(m, o, cpu2()).rules->temperature.temperature;
  o.temperature = "per-benchmark";
  const CascadeReport r = run_cascade(m, o, cpu2());
  const TemperatureResult& t = r.rules->temperature;
  EXPECT_TRUE(t.per_benchmark);
  EXPECT_EQ(t.temperature, pooled_t);
  EXPECT_TRUE(std::isnan(t.all.temperature));

  const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "benchmark", o.fee);
  const std::vector<uint8_t> selection = split_selection(number_pool_clusters(m, pool), pool, 0.4, kSeed);
  const ProbabilityRows rows = cascade_probability_rows(m, pool, selection);
  const TemperatureScaling expected = temperature_scaling_by_group(rows, true);
  ASSERT_EQ(t.groups.size(), expected.groups.size());
  ASSERT_EQ(t.groups.size(), 3u);
  std::vector<double> row_t(rows.size());
  for (size_t g = 0; g < t.groups.size(); ++g) {
    const TemperatureGroupResult& got = t.groups[g];
    SCOPED_TRACE(got.name);
    EXPECT_EQ(got.name, expected.groups[g].name);
    EXPECT_EQ(got.temperature, expected.groups[g].temperature);
    EXPECT_FALSE(got.pooled_fallback);
    EXPECT_NE(got.temperature, pooled_t);
    const auto group = static_cast<int32_t>(std::find(rows.group_names.begin(), rows.group_names.end(), got.name) -
                                            rows.group_names.begin());
    for (int64_t row = 0; row < rows.size(); ++row)
      if (rows.group[row] == group) row_t[row] = got.temperature;
    auto fit_nll = [&](double temperature) {
      return direct_scores(rows, temperature, [&](int64_t row) { return rows.fit[row] && rows.group[row] == group; })
          .nll;
    };
    EXPECT_LE(fit_nll(got.temperature), fit_nll(got.temperature * 1.02) + 1e-12);
    EXPECT_LE(fit_nll(got.temperature), fit_nll(got.temperature / 1.02) + 1e-12);
    const Direct held =
        direct_scores(rows, got.temperature, [&](int64_t row) { return !rows.fit[row] && rows.group[row] == group; });
    EXPECT_EQ(held.n, got.heldout_before.n);
    EXPECT_NEAR(held.nll, got.heldout_after.nll, 1e-9);
    EXPECT_NEAR(held.brier, got.heldout_after.brier, 1e-9);
    EXPECT_NEAR(held.ece, got.heldout_after.ece, 1e-9);
  }
  // Pooled over benchmarks, each row at its own benchmark's T.
  double nll = 0;
  int64_t n = 0;
  for (int64_t row = 0; row < rows.size(); ++row) {
    if (rows.fit[row]) continue;
    const double p_gold = std::pow(rows.probs[row * 2 + rows.gold[row]], 1.0 / row_t[row]);
    const double other = std::pow(rows.probs[row * 2 + 1 - rows.gold[row]], 1.0 / row_t[row]);
    nll += -std::log(std::max(p_gold / (p_gold + other), 1e-6)), ++n;
  }
  ASSERT_EQ(rows.n_labels, 2);
  EXPECT_NEAR(nll / static_cast<double>(n), t.all.heldout_after.nll, 1e-9);

  const nlohmann::json j = nlohmann::json::parse(dump_json(to_json(r, {})));
  EXPECT_EQ(j["temperature"]["scaling"], "per-benchmark");
  EXPECT_EQ(j["temperature"]["temperature"].get<double>(), pooled_t);
  EXPECT_EQ(j["temperature"]["groups"][1]["temperature"].get<double>(), t.groups[1].temperature);
  EXPECT_NEAR(j["temperature"]["heldout"]["nll_after"].get<double>(), t.all.heldout_after.nll, 1e-12);
  EXPECT_NE(tables(r, "text").find("T per benchmark"), std::string::npos);
}

// AURC, selective accuracy at 50/80/90% coverage and the per-bin accuracies of F and S equal
// direct counts over the pool items with a valid F output; every earlier sweep statistic is bit
// for bit what the sweep plan alone gives.
TEST(CascadeSelective, RiskCoverageAndBinAccuraciesEqualDirectCounts) {
  const std::string path = write_temp("cascade_selective.csv", study_csv(120));
  const ItemMatrix m = load_item_matrix(path);
  CascadeOptions o;
  o.first = "F";
  o.fallback = "S";
  o.select = 0;
  o.bootstrap.replicates = 300;
  const CascadeReport r = run_cascade(m, o, cpu2());
  const CascadeSelective& sel = r.sweep.selective;
  const auto& iv = r.sweep.result.intervals;
  const auto& labels = r.sweep.result.labels;
  const CascadePool pool = build_cascade_pool(m, "F", "S", 0, "benchmark");
  std::vector<int32_t> valid;
  for (int32_t i = 0; i < pool.size(); ++i)
    if (pool.q[i] > 0) valid.push_back(i);
  const auto n = static_cast<int64_t>(valid.size());
  ASSERT_EQ(sel.n, n);
  ASSERT_EQ(n, 120);

  // Selective accuracy: q_c = the ⌈c·n⌉-th largest q, every item with q >= q_c covered.
  std::vector<double> sorted;
  for (int32_t i : valid) sorted.push_back(pool.q[i]);
  std::sort(sorted.rbegin(), sorted.rend());
  ASSERT_EQ(sel.at.size(), 3u);
  const int64_t ranks[] = {60, 96, 108};  // ⌈c·120⌉ for c = 0.5, 0.8, 0.9
  for (size_t k = 0; k < 3; ++k) {
    const double threshold = sorted[ranks[k] - 1];
    double covered = 0, correct = 0;
    for (int32_t i : valid)
      if (pool.q[i] >= threshold) covered += 1, correct += pool.c1[i];
    EXPECT_EQ(sel.at[k].threshold, threshold);
    EXPECT_EQ(sel.at[k].covered, static_cast<int64_t>(covered));
    EXPECT_NEAR(iv[sel.at[k].accuracy].estimate, correct / covered, 1e-12);
    EXPECT_NEAR(iv[sel.at[k].coverage].estimate, covered / static_cast<double>(n), 1e-12);
    EXPECT_LE(iv[sel.at[k].accuracy].lo, iv[sel.at[k].accuracy].estimate);
    EXPECT_GE(iv[sel.at[k].accuracy].hi, iv[sel.at[k].accuracy].estimate);
    EXPECT_LT(iv[sel.at[k].accuracy].lo, iv[sel.at[k].accuracy].hi);
    EXPECT_EQ(labels[sel.at[k].accuracy].name, "selective_acc");
    EXPECT_EQ(labels[sel.at[k].accuracy].judge, "F");
    EXPECT_EQ(*labels[sel.at[k].accuracy].reference, "S");
  }
  // AURC over every distinct q (fewer than 100): Σ_j (N_j − N_{j−1})/n · E_j/N_j.
  std::vector<double> distinct = sorted;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  ASSERT_LT(distinct.size(), 100u);
  double aurc = 0, previous = 0;
  for (double t : distinct) {
    double covered = 0, errors = 0;
    for (int32_t i : valid)
      if (pool.q[i] >= t) covered += 1, errors += 1 - pool.c1[i];
    aurc += (covered - previous) / static_cast<double>(n) * errors / covered;
    previous = covered;
  }
  EXPECT_EQ(labels[sel.aurc].name, "aurc");
  EXPECT_NEAR(iv[sel.aurc].estimate, aurc, 1e-12);
  EXPECT_LT(iv[sel.aurc].lo, iv[sel.aurc].hi);

  // Per F confidence bin min(⌊10q⌋, 9): F's and S's accuracy over the bin's items.
  std::vector<double> bin_n(10, 0), bin_first(10, 0), bin_fallback(10, 0);
  for (int32_t i : valid) {
    const int b = std::min(static_cast<int>(std::floor(10 * pool.q[i])), 9);
    bin_n[b] += 1, bin_first[b] += pool.c1[i], bin_fallback[b] += pool.c2[i];
  }
  size_t filled = 0;
  for (int b = 0; b < 10; ++b) filled += bin_n[b] > 0;
  ASSERT_EQ(sel.bins.size(), filled);
  ASSERT_GE(filled, 4u);
  for (const ConfidenceBinAccuracy& bin : sel.bins) {
    SCOPED_TRACE(bin.bin);
    EXPECT_EQ(bin.n, static_cast<int64_t>(bin_n[bin.bin]));
    EXPECT_NEAR(iv[bin.first].estimate, bin_first[bin.bin] / bin_n[bin.bin], 1e-12);
    EXPECT_NEAR(iv[bin.fallback].estimate, bin_fallback[bin.bin] / bin_n[bin.bin], 1e-12);
    EXPECT_EQ(labels[bin.first].name, "bin_acc");
    EXPECT_EQ(labels[bin.fallback].name, "fallback_bin_acc");
    EXPECT_EQ(labels[bin.first].n, bin.n);
  }

  // The sweep's own statistics come first and are unchanged by the added rows.
  const CascadePlan plan =
      build_cascade_plan(pool, number_pool_clusters(m, pool), sweep_policies(pool, o.grid), {false, true, nullptr});
  auto backend = make_cpu_backend(2);
  const BootstrapResult alone = run_bootstrap(plan.plan, *backend, o.bootstrap);
  ASSERT_LT(alone.intervals.size(), iv.size());
  for (size_t s = 0; s < alone.intervals.size(); ++s) {
    SCOPED_TRACE(alone.labels[s].name);
    EXPECT_EQ(alone.labels[s].name, labels[s].name);
    EXPECT_EQ(alone.intervals[s].estimate, iv[s].estimate);
    EXPECT_EQ(alone.intervals[s].lo, iv[s].lo);
    EXPECT_EQ(alone.intervals[s].hi, iv[s].hi);
  }
  const std::string text = tables(r, "text");
  EXPECT_NE(text.find("First-stage risk–coverage"), std::string::npos) << text;
  EXPECT_NE(text.find("Accuracy per first-stage confidence bin (JEV Fig. 5)"), std::string::npos);
}

TEST(CascadeTemperature, BadModeNamesTheField) {
  CascadeOptions o = judgebench_options();
  o.temperature = "per-judge";
  try {
    check_cascade_options(o);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("temperature: expected pooled or per-benchmark"), std::string::npos);
  }
}
