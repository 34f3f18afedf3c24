// Probability quality (docs/statistics.md §3.2): Brier, NLL, ECE and the reliability summaries on small
// hand-computed inputs; AUROC with replicate weights against an O(n²) brute force; temperature
// scaling against its closed form; CUDA = CPU on a probability plan.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::write_temp;

namespace {

// Probability statistics of every selected judge, in a plan of their own.
struct Built {
  ItemMatrix matrix;
  Selection selection;
  Plan plan;
  ProbabilityQuality quality;
  std::vector<double> estimates;
};

Built build(const std::string& csv, const std::string& name) {
  Built b;
  b.matrix = load_item_matrix(write_temp(name, csv));
  b.selection = select_records(b.matrix, {});
  b.plan = plan_for(b.selection);
  b.quality = add_probability_quality(b.matrix, b.selection, false, b.plan);
  b.estimates = point_estimates(b.plan);
  return b;
}

double estimate_of(const Built& b, const std::string& name, std::optional<int> order) {
  for (size_t s = 0; s < b.plan.statistics.size(); ++s)
    if (b.plan.statistics[s].label.name == name && b.plan.statistics[s].label.order == order) return b.estimates[s];
  ADD_FAILURE() << "no statistic " << name;
  return NAN;
}

}  // namespace

TEST(ProbabilityScore, HandComputedBinaryCases) {
  const double right[] = {0.7, 0.3};
  ScoredProbabilities s = score_probabilities(right, 2, 0);
  EXPECT_DOUBLE_EQ(s.q, 0.7);
  EXPECT_EQ(s.correct, 1.0);
  EXPECT_NEAR(s.brier, 0.18, 1e-15);
  EXPECT_DOUBLE_EQ(s.nll, -std::log(0.7));
  s = score_probabilities(right, 2, 1);
  EXPECT_EQ(s.correct, 0.0);
  EXPECT_NEAR(s.brier, 0.98, 1e-15);
  EXPECT_DOUBLE_EQ(s.nll, -std::log(0.3));
  const double tie[] = {0.5, 0.5};
  EXPECT_EQ(score_probabilities(tie, 2, 1).correct, 0.5);  // an exact tie earns half credit
  const double sure[] = {1.0, 0.0};
  EXPECT_DOUBLE_EQ(score_probabilities(sure, 2, 1).nll, -std::log(1e-6));  // floored at 1e-6
  EXPECT_EQ(confidence_bin(0.7), 7);
  EXPECT_EQ(confidence_bin(1.0), 9);
  EXPECT_EQ(confidence_bin(0.0), 0);
}

// Four single-order records (hand computation in the comments):
//   i1 gold A, p.A 0.9  -> correct, q 0.9,  Brier 0.02,   NLL −ln 0.9
//   i2 gold A, p.A 0.8  -> correct, q 0.8,  Brier 0.08,   NLL −ln 0.8
//   i3 gold B, p.A 0.6  -> wrong,   q 0.6,  Brier 0.72,   NLL −ln 0.4
//   i4 gold B, p.B 0.95 -> correct, q 0.95, Brier 0.005,  NLL −ln 0.95
// ECE: bin 9 holds i1, i4 (gaps 0.1 + 0.05), bin 8 i2 (0.2), bin 6 i3 (−0.6): (0.15+0.2+0.6)/4.
// AUROC: the one error has the lowest confidence -> 1.
TEST(ProbabilityPlan, BrierNllEceAurocOnHandComputedInput) {
  const Built b = build(
      "judge,item,gold,verdict,p.A,p.B\n"
      "J,i1,A,A,0.9,0.1\nJ,i2,A,A,0.8,0.2\nJ,i3,B,A,0.6,0.4\nJ,i4,B,B,0.05,0.95\n",
      "hand.csv");
  EXPECT_NEAR(estimate_of(b, "brier", 0), (0.02 + 0.08 + 0.72 + 0.005) / 4, 1e-12);
  EXPECT_NEAR(estimate_of(b, "nll", 0), -(std::log(0.9) + std::log(0.8) + std::log(0.4) + std::log(0.95)) / 4, 1e-12);
  EXPECT_NEAR(estimate_of(b, "ece", 0), (0.15 + 0.2 + 0.6) / 4, 1e-12);
  EXPECT_EQ(estimate_of(b, "auroc_err", 0), 1.0);
  ASSERT_EQ(b.quality.summaries.size(), 1u);  // one order: no order-averaged variant
  const ReliabilityTable& t = b.quality.summaries[0].reliability;
  EXPECT_EQ(t.bins[9].n, 2);
  EXPECT_DOUBLE_EQ(t.bins[9].mean_q, 0.925);
  EXPECT_EQ(t.bins[9].accuracy, 1.0);
  EXPECT_EQ(t.bins[6].accuracy, 0.0);
  EXPECT_NEAR(t.ece, (0.15 + 0.2 + 0.6) / 4, 1e-12);
  EXPECT_EQ(t.n_high, 2);
  EXPECT_EQ(t.error_rate_high(), 0.0);
  EXPECT_EQ(t.error_share_high(), 0.0);
  for (const StatisticDef& stat : b.plan.statistics) EXPECT_EQ(stat.label.n, 4) << stat.label.name;
}

// Two orders: i1 p.A 0.8 / 0.4 -> averaged 0.6 (A, gold A: correct), a flip at base q 0.8;
// i2 p.A 0.7 / 0.3 -> averaged 0.5: an exact tie, half credit; i3 p.B 0.9 / 0.9, gold A: wrong.
TEST(ProbabilityPlan, OrderAveragedVariantAndFlipTable) {
  const Built b = build(
      "judge,item,order,gold,verdict,p.A,p.B\n"
      "J,i1,0,A,A,0.8,0.2\nJ,i1,1,A,B,0.4,0.6\n"
      "J,i2,0,B,A,0.7,0.3\nJ,i2,1,B,B,0.3,0.7\n"
      "J,i3,0,A,B,0.1,0.9\nJ,i3,1,A,B,0.1,0.9\n",
      "orders.csv");
  // Averaged: (0.6, 0.4) gold A; (0.5, 0.5) gold B; (0.1, 0.9) gold A.
  EXPECT_NEAR(estimate_of(b, "brier", std::nullopt), (2 * 0.16 + 2 * 0.25 + 2 * 0.81) / 3.0, 1e-12);
  EXPECT_NEAR(estimate_of(b, "nll", std::nullopt), -(std::log(0.6) + std::log(0.5) + std::log(0.1)) / 3.0, 1e-12);
  // ECE averaged: bins 6 (1 − 0.6), 5 (0.5 − 0.5), 9 (0 − 0.9): (0.4 + 0 + 0.9) / 3.
  EXPECT_NEAR(estimate_of(b, "ece", std::nullopt), 1.3 / 3.0, 1e-12);
  // AUROC averaged: errors (c < 1) i2 (q 0.5) and i3 (q 0.9); correct i1 (q 0.6): 1 of 2 pairs.
  EXPECT_NEAR(estimate_of(b, "auroc_err", std::nullopt), 0.5, 1e-15);
  ASSERT_EQ(b.quality.flips.size(), 1u);
  const FlipTable& f = b.quality.flips[0].table;
  EXPECT_EQ(f.total_items, 3);
  EXPECT_EQ(f.total_flips, 2);  // i1 and i2 change their verdict between orders
  EXPECT_EQ(f.flips[8], 1);     // i1 at base q 0.8
  EXPECT_EQ(f.flips[7], 1);     // i2 at base q 0.7
  EXPECT_EQ(f.flips_high, 0);
  EXPECT_EQ(f.items[9], 1);  // i3, stable
}

TEST(ProbabilityPlan, NothingAddedWithoutProbabilities) {
  const ItemMatrix m = load_item_matrix(write_temp("bare.csv", "judge,item,gold,verdict\nJ,a,A,A\nJ,b,B,A\n"));
  const Selection sel = select_records(m, {});
  MetricsPlan built = build_metrics_plan(m, sel, {});
  const Plan before = built.plan;
  const ProbabilityQuality q = add_probability_quality(m, sel, false, built.plan);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(built.plan.n_units(), before.n_units());
  EXPECT_EQ(built.plan.columns, before.columns);
  EXPECT_EQ(built.plan.statistics.size(), before.statistics.size());
}

TEST(ProbabilitySummaries, RiskCoverageWithTiesAndReliability) {
  const std::vector<double> q{0.9, 0.9, 0.7, 0.6}, correct{1, 0, 1, 0};
  const RiskCoverage curve = risk_coverage(q, correct);
  ASSERT_EQ(curve.points.size(), 3u);
  EXPECT_DOUBLE_EQ(curve.points[0].coverage, 0.5);
  EXPECT_DOUBLE_EQ(curve.points[0].risk, 0.5);
  EXPECT_DOUBLE_EQ(curve.points[1].risk, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(curve.points[2].risk, 0.5);
  // Risk at k = 1..4: the tie group of two spreads its one error evenly: 0.5, 0.5, 1/3, 0.5.
  EXPECT_DOUBLE_EQ(curve.aurc, (0.5 + 0.5 + 1.0 / 3.0 + 0.5) / 4.0);
  const ReliabilityTable t = reliability_table(q, correct);
  EXPECT_EQ(t.bins[9].n, 2);
  EXPECT_DOUBLE_EQ(t.bins[9].accuracy, 0.5);
  EXPECT_DOUBLE_EQ(t.error_rate_high(), 0.5);
  EXPECT_DOUBLE_EQ(t.error_share_high(), 0.5);
  EXPECT_TRUE(std::isnan(t.bins[0].mean_q));
}

// Every output says 0.9 for its verdict and 3 in 4 are right: the NLL-optimal scaled
// probability is 0.75, i.e. 9^(1/T) = 3, T = 2.
TEST(ProbabilityTemperature, RecoversClosedForm) {
  std::vector<double> probs;
  std::vector<int32_t> gold;
  for (int i = 0; i < 40; ++i) {
    probs.insert(probs.end(), {0.9, 0.1});
    gold.push_back(i % 4 == 3 ? 1 : 0);
  }
  const double t = fit_temperature(probs, 2, gold);
  EXPECT_NEAR(t, 2.0, 1e-6);
  EXPECT_NEAR(mean_nll_at_temperature(probs, 2, gold, t), -(0.75 * std::log(0.75) + 0.25 * std::log(0.25)), 1e-10);
  EXPECT_NEAR(mean_nll_at_temperature(probs, 2, gold, 1.0), -(0.75 * std::log(0.9) + 0.25 * std::log(0.1)), 1e-12);
}

namespace {

// 60 items in 23 clusters, two benchmarks, one order; confidences on a 0.05 grid so ties are
// common.
std::string clustered_csv() {
  std::mt19937 rng(7);
  std::ostringstream csv;
  csv << "judge,item,cluster,benchmark,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 60; ++i) {
    const int cluster = (i * 7) % 23;
    const double q = 0.5 + 0.05 * static_cast<double>(rng() % 11);
    const bool gold_a = rng() % 2, right = rng() % 100 < 40 + 55 * (q - 0.5) * 2;
    const bool says_a = right ? gold_a : !gold_a;
    csv << "J,i" << i << ",c" << cluster << "," << (cluster % 3 ? "x" : "y") << "," << (gold_a ? "A" : "B") << ","
        << (says_a ? "A" : "B") << "," << (says_a ? q : 1 - q) << "," << (says_a ? 1 - q : q) << "\n";
  }
  return csv.str();
}

}  // namespace

// The replicate's AUROC = Σ_{i err, j right} m_i m_j (2[s_i > s_j] + [s_i = s_j]) / (2 P N) with
// m the multiplicity of the item's cluster, computed here by explicit docs/statistics.md §2 draws and an
// O(n²) double loop.
TEST(ProbabilityAuroc, ReplicateWeightsMatchBruteForce) {
  const Built b = build(clustered_csv(), "clustered.csv");
  int32_t auroc = -1;
  for (size_t s = 0; s < b.plan.statistics.size(); ++s)
    if (b.plan.statistics[s].label.name == "auroc_err") auroc = static_cast<int32_t>(s);
  ASSERT_GE(auroc, 0);
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = 300;
  options.seed = 11;
  options.keep_replicates = true;
  const BootstrapResult result = run_bootstrap(b.plan, *backend, options);
  const size_t S = b.plan.statistics.size();

  // Per item: cluster, error flag, score 1 − q (from the matrix directly).
  const ItemMatrix& m = b.matrix;
  std::vector<int32_t> cluster;
  std::vector<double> score;
  std::vector<int> error;
  for (int32_t i : b.selection.items) {
    const size_t c = m.cell(0, i, 0, 0);
    const double* p = m.probs_of(c);
    cluster.push_back(b.selection.item_cluster[i]);
    score.push_back(1.0 - std::max(p[0], p[1]));
    error.push_back(!m.correct(c, i));
  }
  const uint32_t C = static_cast<uint32_t>(b.plan.n_clusters());
  const PhiloxKey key(options.seed);
  int checked = 0;
  for (uint32_t r = 0; r < options.replicates; ++r) {
    std::vector<int64_t> mult(C, 0);
    for (uint32_t d = 0; d < C; ++d) ++mult[scale_to(draw_word(key, d, r, bootstrap_stream(0)), C)];
    int64_t twice_u = 0, positives = 0, negatives = 0;
    for (size_t i = 0; i < score.size(); ++i) {
      (error[i] ? positives : negatives) += mult[cluster[i]];
      if (!error[i]) continue;
      for (size_t j = 0; j < score.size(); ++j)
        if (!error[j])
          twice_u += mult[cluster[i]] * mult[cluster[j]] * (score[i] > score[j] ? 2 : score[i] == score[j] ? 1 : 0);
    }
    const double value = result.replicates[r * S + auroc];
    if (positives == 0 || negatives == 0) {
      EXPECT_TRUE(std::isnan(value));
      continue;
    }
    EXPECT_EQ(value,
              static_cast<double>(twice_u) / (2.0 * static_cast<double>(positives) * static_cast<double>(negatives)))
        << "replicate " << r;
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST(ProbabilityCuda, CudaEqualsCpu) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const Built b = build(clustered_csv(), "clustered_cuda.csv");
  const CompiledPlan compiled = compile(b.plan);
  const uint64_t count = 2000;
  std::vector<double> cpu(count * compiled.n_statistics), cuda(count * compiled.n_statistics);
  make_cpu_backend(2)->run_replicates(compiled, 5, 0, count, cpu.data());
  make_cuda_backend()->run_replicates(compiled, 5, 0, count, cuda.data());
  for (size_t k = 0; k < cpu.size(); ++k) {
    if (std::isnan(cpu[k])) {
      EXPECT_TRUE(std::isnan(cuda[k])) << k;
      continue;
    }
    // Counts and ranks are exact; Brier/NLL/ECE sums are fixed point: equal to 1e-12 relative.
    EXPECT_NEAR(cuda[k], cpu[k], 1e-12 * std::max(1.0, std::fabs(cpu[k]))) << "value " << k;
  }
}
