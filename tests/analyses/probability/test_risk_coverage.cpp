// Selective prediction as plan statistics (docs/statistics.md §3.2, §7.5; JEV Fig. 5): AURC over
// fixed thresholds, selective accuracy at coverages chosen on the original data, and the first
// stage's and the fallback's accuracy per confidence bin — point values against hand and explicit
// computations, replicates against an explicit loop over docs/statistics.md §2 cluster
// multiplicities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "analyses/probability/risk_coverage.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"

using namespace judgestat;

namespace {

// A plan of one stratum whose units sit in the given clusters.
Plan plan_of(const std::vector<int32_t>& unit_cluster, int64_t clusters) {
  Plan plan;
  plan.stratum_offset = {0, clusters};
  plan.unit_cluster = unit_cluster;
  for (int64_t c = 0; c < clusters; ++c) plan.cluster_names.push_back("c" + std::to_string(c));
  return plan;
}

SelectiveLabels labels_for(const std::string& judge) {
  SelectiveLabels labels;
  labels.base.judge = judge;
  labels.tag = judge;
  return labels;
}

// Σ_u w_u · f(u) over the entering units.
double weighted_sum(const SelectiveUnits& s, const std::vector<double>& w, const std::function<double(size_t)>& f) {
  double total = 0;
  for (size_t u = 0; u < s.q.size(); ++u)
    if (s.mask.empty() || s.mask[u]) total += w[u] * f(u);
  return total;
}

// The AURC of docs/statistics.md §3.2's threshold curve with unit weights w, computed directly:
// for each threshold t (descending), coverage step × risk among the units with q ≥ t.
double explicit_aurc(const SelectiveUnits& s, const std::vector<double>& w, const std::vector<double>& thresholds) {
  const double n = weighted_sum(s, w, [](size_t) { return 1.0; });
  double area = 0, covered_before = 0;
  for (double t : thresholds) {
    const double covered = weighted_sum(s, w, [&](size_t u) { return s.q[u] >= t ? 1.0 : 0.0; });
    const double errors = weighted_sum(s, w, [&](size_t u) { return s.q[u] >= t ? 1.0 - s.first_correct[u] : 0.0; });
    if (covered > 0) area += (covered - covered_before) * errors / covered;
    covered_before = covered;
  }
  return n > 0 ? area / n : NAN;
}

double estimate_of(const Plan& plan, const std::vector<double>& estimates, const std::string& name,
                   const std::string& threshold) {
  for (size_t s = 0; s < plan.statistics.size(); ++s)
    if (plan.statistics[s].label.name == name && plan.statistics[s].label.threshold.value_or("") == threshold)
      return estimates[s];
  ADD_FAILURE() << "no statistic " << name << " at " << threshold;
  return NAN;
}

// Eight entering units with ties at 0.95 and 0.7, and a ninth masked out (q 0.99, wrong).
SelectiveUnits hand_units() {
  SelectiveUnits s;
  s.q = {0.95, 0.95, 0.9, 0.85, 0.7, 0.7, 0.6, 0.55, 0.99};
  s.first_correct = {1, 0, 1, 0.5, 1, 0, 1, 0, 0};
  s.fallback_correct = {1, 1, 0, 1, 1, 1, 0, 1, 1};
  s.mask = {1, 1, 1, 1, 1, 1, 1, 1, 0};
  return s;
}

}  // namespace

// Thresholds 0.95, 0.9, 0.85, 0.7, 0.6, 0.55 cover 2, 3, 4, 6, 7, 8 units with error mass 1, 1,
// 1.5, 2.5, 2.5, 3.5. Coverage 0.5: the 4th largest q is 0.85, 4 covered, accuracy 2.5/4;
// coverage 0.6: the 5th is 0.7, whose tie group enters whole: 6 covered, accuracy 3.5/6;
// coverage 0.9: the 8th is 0.55, all 8, accuracy 4.5/8.
TEST(RiskCoveragePlan, HandComputedAurcAndSelectiveAccuracy) {
  const SelectiveUnits s = hand_units();
  Plan plan = plan_of({0, 1, 2, 3, 4, 5, 6, 7, 8}, 9);
  RiskCoverageOptions options;
  options.coverages = {0.5, 0.6, 0.9};
  options.curve = true;
  const RiskCoverageStatistics rc = add_risk_coverage(s, labels_for("F"), plan, options);
  const std::vector<double> est = point_estimates(plan);
  EXPECT_EQ(rc.n, 8);
  EXPECT_EQ(rc.thresholds, (std::vector<double>{0.95, 0.9, 0.85, 0.7, 0.6, 0.55}));
  const double aurc =
      (2 * (1.0 / 2) + 1 * (1.0 / 3) + 1 * (1.5 / 4) + 2 * (2.5 / 6) + 1 * (2.5 / 7) + 1 * (3.5 / 8)) / 8;
  ASSERT_GE(rc.aurc, 0);
  EXPECT_NEAR(est[rc.aurc], aurc, 1e-15);
  EXPECT_EQ(plan.statistics[rc.aurc].label.name, "aurc");
  EXPECT_EQ(plan.statistics[rc.aurc].label.judge, "F");
  EXPECT_FALSE(plan.statistics[rc.aurc].label.threshold.has_value());
  EXPECT_EQ(plan.statistics[rc.aurc].label.n, 8);
  // The tie-averaged point AURC spreads a tie group's errors over its ranks (§3.2): here the
  // risks at k = 1..8 are ½, ½, 1/3, 1.5/4, 2/5, 2.5/6, 2.5/7, 3.5/8.
  EXPECT_NEAR(rc.aurc_tie_averaged, (0.5 + 0.5 + 1.0 / 3 + 1.5 / 4 + 2.0 / 5 + 2.5 / 6 + 2.5 / 7 + 3.5 / 8) / 8, 1e-15);
  ASSERT_EQ(rc.at.size(), 3u);
  const double want_threshold[] = {0.85, 0.7, 0.55}, want_acc[] = {2.5 / 4, 3.5 / 6, 4.5 / 8};
  const int64_t want_covered[] = {4, 6, 8};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(rc.at[k].threshold, want_threshold[k]);
    EXPECT_EQ(rc.at[k].covered, want_covered[k]);
    EXPECT_NEAR(est[rc.at[k].accuracy], want_acc[k], 1e-15);
    EXPECT_NEAR(est[rc.at[k].coverage], want_covered[k] / 8.0, 1e-15);
  }
  EXPECT_EQ(plan.statistics[rc.at[1].accuracy].label.threshold, "coverage=0.6");
  EXPECT_NEAR(estimate_of(plan, est, "selective_acc", "coverage=0.9"), 4.5 / 8, 1e-15);
  // The curve: risk at each threshold.
  ASSERT_EQ(rc.curve.size(), 6u);
  EXPECT_NEAR(est[rc.curve[3]], 2.5 / 6, 1e-15);
  EXPECT_EQ(plan.statistics[rc.curve[3]].label.threshold, "0.7");
}

// Bins 9 (q 0.95, 0.95, 0.9), 8 (0.85), 7 (0.7, 0.7), 6 (0.6), 5 (0.55); the masked q 0.99
// stays out.
TEST(RiskCoveragePlan, AccuracyPerConfidenceBin) {
  const SelectiveUnits s = hand_units();
  Plan plan = plan_of({0, 1, 2, 3, 4, 5, 6, 7, 8}, 9);
  SelectiveLabels labels = labels_for("F");
  labels.base.reference = "S";
  const std::vector<ConfidenceBinRows> bins = add_confidence_bin_accuracy(s, labels, plan);
  const std::vector<double> est = point_estimates(plan);
  ASSERT_EQ(bins.size(), 5u);
  const int want_bin[] = {5, 6, 7, 8, 9};
  const int64_t want_n[] = {1, 1, 2, 1, 3};
  const double want_first[] = {0, 1, 0.5, 0.5, 2.0 / 3}, want_fallback[] = {1, 0, 1, 1, 2.0 / 3};
  const double want_mean_q[] = {0.55, 0.6, 0.7, 0.85, (0.95 + 0.95 + 0.9) / 3};
  for (size_t b = 0; b < bins.size(); ++b) {
    EXPECT_EQ(bins[b].bin, want_bin[b]);
    EXPECT_EQ(bins[b].n, want_n[b]);
    EXPECT_NEAR(bins[b].mean_q, want_mean_q[b], 1e-15);
    EXPECT_NEAR(est[bins[b].first], want_first[b], 1e-15) << "bin " << want_bin[b];
    EXPECT_NEAR(est[bins[b].fallback], want_fallback[b], 1e-15) << "bin " << want_bin[b];
    EXPECT_EQ(plan.statistics[bins[b].first].label.name, "bin_acc");
    EXPECT_EQ(plan.statistics[bins[b].fallback].label.name, "fallback_bin_acc");
    EXPECT_EQ(plan.statistics[bins[b].fallback].label.reference, "S");
    EXPECT_EQ(plan.statistics[bins[b].first].label.n, want_n[b]);
  }
  EXPECT_EQ(plan.statistics[bins[4].first].label.threshold, "[0.9, 1.0]");
  // Without a fallback: F's rows only.
  SelectiveUnits alone = s;
  alone.fallback_correct.clear();
  Plan plan2 = plan_of({0, 1, 2, 3, 4, 5, 6, 7, 8}, 9);
  for (const ConfidenceBinRows& row : add_confidence_bin_accuracy(alone, labels_for("J"), plan2))
    EXPECT_EQ(row.fallback, -1);
  EXPECT_EQ(plan2.statistics.size(), 5u);
}

// Without ties and with every distinct q a threshold, the threshold curve's area is the
// tie-free AURC (1/n) Σ_k risk_k of docs/statistics.md §3.2.
TEST(RiskCoveragePlan, AurcEqualsTheRankedMeanWithoutTies) {
  std::mt19937 rng(3);
  SelectiveUnits s;
  std::vector<int32_t> cluster;
  for (int u = 0; u < 30; ++u) {
    s.q.push_back(0.5 + 0.5 * (u * 13 % 30) / 30.0);
    s.first_correct.push_back(rng() % 3 == 0 ? 0.0 : rng() % 5 == 0 ? 0.5 : 1.0);
    cluster.push_back(u % 11);
  }
  Plan plan = plan_of(cluster, 11);
  const RiskCoverageStatistics rc = add_risk_coverage(s, labels_for("J"), plan);
  EXPECT_EQ(rc.thresholds.size(), 30u);
  const double ranked = risk_coverage(s.q, s.first_correct).aurc;
  EXPECT_NEAR(point_estimates(plan)[rc.aurc], ranked, 1e-14);
  EXPECT_NEAR(rc.aurc_tie_averaged, ranked, 1e-15);
}

// 50 distinct q, 7 thresholds: the q at ranks ⌈50j/7⌉ = 8, 15, 22, 29, 36, 43, 50.
TEST(RiskCoveragePlan, AurcThresholdsCappedAtEvenRanks) {
  SelectiveUnits s;
  std::vector<int32_t> cluster;
  for (int u = 0; u < 50; ++u) {
    s.q.push_back(0.99 - 0.01 * u);
    s.first_correct.push_back(u % 4 == 1 || u % 7 == 3 ? 0.0 : 1.0);
    cluster.push_back(u);
  }
  Plan plan = plan_of(cluster, 50);
  RiskCoverageOptions options;
  options.aurc_points = 7;
  const RiskCoverageStatistics rc = add_risk_coverage(s, labels_for("J"), plan, options);
  ASSERT_EQ(rc.thresholds.size(), 7u);
  const int rank[] = {8, 15, 22, 29, 36, 43, 50};
  for (int j = 0; j < 7; ++j) EXPECT_EQ(rc.thresholds[j], s.q[rank[j] - 1]);
  const std::vector<double> ones(50, 1.0);
  EXPECT_NEAR(point_estimates(plan)[rc.aurc], explicit_aurc(s, ones, rc.thresholds), 1e-15);
}

// Every replicate value equals the statistic recomputed by an explicit loop with the cluster
// multiplicities of docs/statistics.md §2's draws (counter (d/4, r, 0, 0), word d mod 4).
TEST(RiskCoverageBootstrap, ReplicatesMatchExplicitMultiplicities) {
  std::mt19937 rng(5);
  const int64_t C = 12;
  SelectiveUnits s;
  std::vector<int32_t> cluster;
  for (int u = 0; u < 45; ++u) {
    const double q = 0.5 + 0.05 * static_cast<double>(rng() % 11);  // a 0.05 grid: many ties
    s.q.push_back(q);
    s.first_correct.push_back(rng() % 100 < 100 * q - 20 ? 1.0 : rng() % 4 == 0 ? 0.5 : 0.0);
    s.fallback_correct.push_back(rng() % 100 < 75 ? 1.0 : 0.0);
    s.mask.push_back(u % 9 == 4 ? 0.0 : 1.0);
    cluster.push_back(static_cast<int32_t>(rng() % C));
  }
  Plan plan = plan_of(cluster, C);
  SelectiveLabels labels = labels_for("F");
  const RiskCoverageStatistics rc = add_risk_coverage(s, labels, plan);
  labels.tag = "F/bins";
  const std::vector<ConfidenceBinRows> bins = add_confidence_bin_accuracy(s, labels, plan);
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = 200;
  options.seed = 17;
  options.keep_replicates = true;
  const BootstrapResult result = run_bootstrap(plan, *backend, options);
  const size_t S = plan.statistics.size();
  const PhiloxKey key(options.seed);
  int undefined = 0;
  for (uint32_t r = 0; r < options.replicates; ++r) {
    std::vector<double> m(C, 0.0), w(s.q.size());
    for (uint32_t d = 0; d < C; ++d) ++m[scale_to(draw_word(key, d, r, bootstrap_stream(0)), C)];
    for (size_t u = 0; u < w.size(); ++u) w[u] = m[cluster[u]];
    auto value = [&](int32_t stat) { return result.replicates[r * S + stat]; };
    auto ratio = [](double a, double b) { return b != 0 ? a / b : NAN; };
    auto expect_same = [&](double got, double want, const std::string& what) {
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << what << " replicate " << r;
        ++undefined;
      } else {
        EXPECT_NEAR(got, want, 1e-12) << what << " replicate " << r;
      }
    };
    expect_same(value(rc.aurc), explicit_aurc(s, w, rc.thresholds), "aurc");
    const double n = weighted_sum(s, w, [](size_t) { return 1.0; });
    for (const SelectiveAtCoverage& at : rc.at) {
      // The threshold stays the original data's q_c; nothing is re-ranked.
      const double covered = weighted_sum(s, w, [&](size_t u) { return s.q[u] >= at.threshold ? 1.0 : 0.0; });
      const double right =
          weighted_sum(s, w, [&](size_t u) { return s.q[u] >= at.threshold ? s.first_correct[u] : 0.0; });
      expect_same(value(at.accuracy), ratio(right, covered), "selective_acc");
      expect_same(value(at.coverage), ratio(covered, n), "selective_coverage");
    }
    for (const ConfidenceBinRows& bin : bins) {
      auto in_bin = [&](size_t u) { return confidence_bin(s.q[u]) == bin.bin ? 1.0 : 0.0; };
      const double count = weighted_sum(s, w, in_bin);
      expect_same(value(bin.first),
                  ratio(weighted_sum(s, w, [&](size_t u) { return in_bin(u) * s.first_correct[u]; }), count),
                  "bin_acc");
      expect_same(value(bin.fallback),
                  ratio(weighted_sum(s, w, [&](size_t u) { return in_bin(u) * s.fallback_correct[u]; }), count),
                  "fallback_bin_acc");
    }
  }
  // The bins hold few units, so some replicates leave one empty: undefined there, as in the loop.
  EXPECT_GT(undefined, 0);
  EXPECT_EQ(rc.at.size(), 3u);
  EXPECT_GE(bins.size(), 5u);
}

TEST(RiskCoveragePlan, NothingAddedWhenNoUnitEnters) {
  SelectiveUnits s = hand_units();
  s.mask.assign(s.q.size(), 0.0);
  Plan plan = plan_of({0, 1, 2, 3, 4, 5, 6, 7, 8}, 9);
  const RiskCoverageStatistics rc = add_risk_coverage(s, labels_for("F"), plan);
  EXPECT_EQ(rc.aurc, -1);
  EXPECT_TRUE(rc.at.empty());
  EXPECT_TRUE(add_confidence_bin_accuracy(s, labels_for("F"), plan).empty());
  EXPECT_TRUE(plan.statistics.empty());
  EXPECT_TRUE(plan.columns.empty());
}

TEST(RiskCoveragePlan, BadOptionsAndSizesAreClearErrors) {
  const SelectiveUnits s = hand_units();
  Plan plan = plan_of({0, 1, 2, 3, 4, 5, 6, 7, 8}, 9);
  for (double bad : std::vector<double>{0.0, -0.1, 1.5, NAN}) {
    RiskCoverageOptions options;
    options.coverages = {0.5, bad};
    try {
      add_risk_coverage(s, labels_for("F"), plan, options);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("coverage:", 0), 0u) << e.what();
    }
  }
  RiskCoverageOptions options;
  options.aurc_points = 0;
  EXPECT_THROW(add_risk_coverage(s, labels_for("F"), plan, options), std::invalid_argument);
  SelectiveUnits short_q = s;
  short_q.q.pop_back();
  EXPECT_THROW(add_risk_coverage(short_q, labels_for("F"), plan), std::logic_error);
  SelectiveUnits short_fallback = s;
  short_fallback.fallback_correct.pop_back();
  EXPECT_THROW(add_confidence_bin_accuracy(short_fallback, labels_for("F"), plan), std::logic_error);
  EXPECT_TRUE(plan.statistics.empty());  // nothing added by a failed call
}
