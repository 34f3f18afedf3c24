// Spearman's ρ of a covariate with correctness (docs/statistics.md §8.3, `--assoc`, `assoc_rho`):
// on the original data against mid-ranks and Pearson's r written here, and on every kept bootstrap
// replicate against the same computation on the resample itself (each item repeated as often as
// its cluster was drawn, then re-ranked), so the plan's form is exact under the reweighting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/philox.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Fourteen items in seven clusters (c0: i0, i1; …): subtlety with ties, and whether J / K is right.
struct Item {
  double subtlety;
  bool j_right, k_right;
};
const std::vector<Item> kItems = {{1, 1, 1}, {1, 1, 0}, {2, 1, 0}, {2, 0, 1}, {2.5, 1, 1}, {3, 1, 0}, {3, 0, 1},
                                  {3, 0, 0}, {4, 1, 1}, {4, 0, 0}, {4, 0, 1}, {5, 0, 0},   {5, 1, 0}, {6, 0, 1}};

std::string subtlety_file() {
  std::string csv = "judge,item,gold,verdict,cluster,x.subtlety\n";
  for (size_t i = 0; i < kItems.size(); ++i) {
    const std::string item = "i" + std::to_string(i), cluster = "c" + std::to_string(i / 2);
    char number[32];
    std::snprintf(number, sizeof number, "%g", kItems[i].subtlety);
    csv += "J," + item + ",A," + (kItems[i].j_right ? "A" : "B") + "," + cluster + "," + number + "\n";
    csv += "K," + item + ",A," + (kItems[i].k_right ? "A" : "B") + "," + cluster + "," + number + "\n";
  }
  return write_temp("assoc_rho.csv", csv);
}

/// Mid-ranks (1-based; tied values share the mean of their positions), the textbook way.
std::vector<double> mid_ranks(const std::vector<double>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    double below = 0, equal = 0;
    for (double w : v) below += w < v[i], equal += w == v[i];
    out[i] = below + (equal + 1) / 2;
  }
  return out;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / x.size(), my += y[i] / y.size();
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx == 0 || syy == 0 ? NAN : sxy / std::sqrt(sxx * syy);
}

/// scipy.stats.spearmanr(x, right)[0] on the items repeated weight[i] times.
double spearman_of_resample(const std::vector<double>& weight, bool Item::*right) {
  std::vector<double> x, y;
  for (size_t i = 0; i < kItems.size(); ++i)
    for (int copy = 0; copy < weight[i]; ++copy) {
      x.push_back(kItems[i].subtlety);
      y.push_back(kItems[i].*right);
    }
  return pearson(mid_ranks(x), mid_ranks(y));
}

/// Replicate r's weight of each item: how often its cluster (c0: i0, i1; …) was drawn, the seven
/// draws taken as the CPU backend takes them.
std::vector<double> item_weights(const PhiloxKey& key, uint32_t r) {
  std::vector<double> cluster_draws(7, 0.0), weight(kItems.size());
  for (uint32_t draw = 0; draw < 7; ++draw) ++cluster_draws[scale_to(draw_word(key, draw, r, bootstrap_stream(0)), 7)];
  for (size_t i = 0; i < kItems.size(); ++i) weight[i] = cluster_draws[i / 2];
  return weight;
}

MetricsOptions assoc_options() {
  MetricsOptions options;
  options.covariates.assoc = "x.subtlety";
  options.covariates.assoc_bins = "1";
  return options;
}

size_t statistic(const Plan& plan, const std::string& name, const std::string& judge) {
  for (size_t s = 0; s < plan.statistics.size(); ++s)
    if (plan.statistics[s].label.name == name && plan.statistics[s].label.judge == judge) return s;
  ADD_FAILURE() << "no " << name << " of " << judge;
  return 0;
}

}  // namespace

TEST(AssocRho, EqualsPearsonOfMidRanks) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  const std::vector<double> point = point_estimates(built.plan);
  const std::vector<double> ones(kItems.size(), 1.0);
  const double j = spearman_of_resample(ones, &Item::j_right), k = spearman_of_resample(ones, &Item::k_right);
  EXPECT_NEAR(point[statistic(built.plan, "assoc_rho", "J")], j, 1e-12);
  EXPECT_NEAR(point[statistic(built.plan, "assoc_rho", "K")], k, 1e-12);
  // scipy.stats.spearmanr(x, j)[0] = -0.4125602019171507, spearmanr(x, k)[0] = -0.05381220025006314
  // (scipy 1.17.1 on the table above).
  EXPECT_NEAR(j, -0.4125602019171507, 1e-12);
  EXPECT_NEAR(k, -0.05381220025006314, 1e-12);
  EXPECT_EQ(built.plan.statistics[statistic(built.plan, "assoc_rho", "J")].label.n, 14);
  // By hand for J: the mid-ranks of x are 1.5 1.5 3.5 3.5 5 7 7 7 10 10 10 12.5 12.5 14; J is right
  // on i0 i1 i2 i4 i5 i8 i12 (7 of 14), whose ranks sum to 1.5+1.5+3.5+5+7+10+12.5 = 41 against
  // 7 × 7.5 = 52.5 without association, so ρ < 0 (subtler items are harder).
  EXPECT_LT(j, 0);
}

TEST(AssocRho, EveryReplicateIsSpearmanOfItsResample) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  ASSERT_EQ(built.plan.n_clusters(), 7);
  for (size_t u = 0; u < kItems.size(); ++u) ASSERT_EQ(built.plan.unit_cluster[u], static_cast<int32_t>(u / 2));
  const size_t j = statistic(built.plan, "assoc_rho", "J"), k = statistic(built.plan, "assoc_rho", "K");
  const size_t S = built.plan.statistics.size();
  BootstrapOptions options;
  options.replicates = 200;
  options.seed = 41;
  options.keep_replicates = true;
  auto backend = make_cpu_backend(2);
  const BootstrapResult result = run_bootstrap(built.plan, *backend, options);
  const PhiloxKey key(options.seed);
  int defined = 0;
  for (uint32_t r = 0; r < options.replicates; ++r) {
    const std::vector<double> weight = item_weights(key, r);
    for (const auto& [s, right] : {std::pair{j, &Item::j_right}, std::pair{k, &Item::k_right}}) {
      const double expected = spearman_of_resample(weight, right), got = result.replicates[r * S + s];
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << "replicate " << r;
      } else {
        EXPECT_NEAR(got, expected, 1e-12) << "replicate " << r;
        ++defined;
      }
    }
  }
  EXPECT_GT(defined, 300);
}

/// Spearman's ρ (or, `ranked` false, Pearson's r) of x and right pooled over both judges: each
/// item's J and K judgments are two observations, the items repeated weight[i] times.
double pooled_correlation(const std::vector<double>& weight, bool ranked) {
  std::vector<double> x, y;
  for (size_t i = 0; i < kItems.size(); ++i)
    for (int copy = 0; copy < weight[i]; ++copy)
      for (bool Item::*right : {&Item::j_right, &Item::k_right}) {
        x.push_back(kItems[i].subtlety);
        y.push_back(kItems[i].*right);
      }
  return ranked ? pearson(mid_ranks(x), mid_ranks(y)) : pearson(x, y);
}

// CAP App. A.3's single correlation pooled over the judges (judge "J,K", n = 28 judgments): on the
// original data and on every replicate, Spearman's ρ and Pearson's r of the pooled resample.
TEST(AssocRho, PooledOverTheJudgesIsTheCorrelationOfEveryJudgment) {
  const ItemMatrix m = load_item_matrix(subtlety_file());
  MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  const size_t rho = statistic(built.plan, "assoc_rho", "J,K"), r = statistic(built.plan, "point_biserial", "J,K");
  EXPECT_EQ(built.plan.statistics[rho].label.n, 28);
  const std::vector<double> ones(kItems.size(), 1.0), point = point_estimates(built.plan);
  EXPECT_NEAR(point[rho], pooled_correlation(ones, true), 1e-12);
  EXPECT_NEAR(point[r], pooled_correlation(ones, false), 1e-12);
  // scipy 1.17.1 on the 28 pooled pairs (x repeated, J's and K's right/wrong stacked):
  // spearmanr = -0.233186201083607, pearsonr = -0.22190115272469202.
  EXPECT_NEAR(point[rho], -0.233186201083607, 1e-12);
  EXPECT_NEAR(point[r], -0.22190115272469202, 1e-12);
  BootstrapOptions options;
  options.replicates = 100;
  options.seed = 43;
  options.keep_replicates = true;
  auto backend = make_cpu_backend(2);
  const BootstrapResult result = run_bootstrap(built.plan, *backend, options);
  const size_t S = built.plan.statistics.size();
  const PhiloxKey key(options.seed);
  int defined = 0;
  for (uint32_t b = 0; b < options.replicates; ++b) {
    const std::vector<double> weight = item_weights(key, b);
    const double want = pooled_correlation(weight, true), got = result.replicates[b * S + rho];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "replicate " << b;
      continue;
    }
    EXPECT_NEAR(got, want, 1e-12) << "replicate " << b;
    EXPECT_NEAR(result.replicates[b * S + r], pooled_correlation(weight, false), 1e-12) << "replicate " << b;
    ++defined;
  }
  EXPECT_GT(defined, 90);
}

// 200 distinct values (past the 64 an earlier bound allowed; token lengths take that many): ρ is
// kept and is Pearson's r of the mid-ranks, 230 items with 30 ties.
TEST(AssocRho, TwoHundredDistinctValuesKeepRho) {
  std::string csv = "judge,item,gold,verdict,x.len\n";
  std::vector<double> x, y;
  for (int i = 0; i < 230; ++i) {
    x.push_back((i * 67) % 200);
    y.push_back((i * 67) % 200 + 40 * (i % 4) < 160 ? 1 : 0);  // right on short items, mostly
    csv += "J,i" + std::to_string(i) + ",A," + (y.back() > 0 ? "A" : "B") + "," + std::to_string(int(x.back())) + "\n";
  }
  const ItemMatrix m = load_item_matrix(write_temp("assoc_rho_200.csv", csv));
  MetricsOptions options = assoc_options();
  options.covariates.assoc = "x.len";
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  for (const std::string& note : built.notes) EXPECT_FALSE(contains(note, "assoc_rho")) << note;
  const double want = pearson(mid_ranks(x), mid_ranks(y));
  EXPECT_NEAR(want, -0.6982071646202482, 1e-12);  // statistics.correlation of the mid-ranks (Python 3.11)
  EXPECT_NEAR(point_estimates(built.plan)[statistic(built.plan, "assoc_rho", "J")], want, 1e-12);
}

TEST(AssocRho, TooManyDistinctValuesIsLeftOutWithANote) {
  std::string csv = "judge,item,gold,verdict,x.score\n";
  for (int i = 0; i < 520; ++i)
    csv += "J,i" + std::to_string(i) + ",A," + (i % 3 ? "A" : "B") + "," + std::to_string(i) + ".5\n";
  const ItemMatrix m = load_item_matrix(write_temp("assoc_rho_many.csv", csv));
  MetricsOptions options = assoc_options();
  options.covariates.assoc = "x.score";
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  bool rho = false, r = false, noted = false;
  for (const StatisticDef& stat : built.plan.statistics) {
    rho |= stat.label.name == "assoc_rho";
    r |= stat.label.name == "point_biserial";
  }
  for (const std::string& note : built.notes)
    noted |= contains(note, "assoc_rho of J is left out: the covariate takes 520 distinct values, more than the 512");
  EXPECT_FALSE(rho);
  EXPECT_TRUE(r);  // the point-biserial r has no such limit
  EXPECT_TRUE(noted);
}
