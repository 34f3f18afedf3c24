// The coverage check (judgestat/coverage.hpp): its design read from a file, its simulated data
// against the stated model's moments (means per order, within-cluster covariances), and its
// determinism across runs and thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>

#include "judgestat/coverage.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// 24 clusters in two benchmarks (12 each), clusters of 1–3 items, two orders, two judges: J1
// right on most items, J2 on fewer and better in order 1.
std::string design_csv() {
  std::ostringstream out;
  out << "judge,item,gold,verdict,cluster,benchmark,order\n";
  int item = 0;
  for (int c = 0; c < 24; ++c)
    for (int k = 0; k < 1 + c % 3; ++k, ++item)
      for (int o = 0; o < 2; ++o) {
        const bool j1 = (item * 7 + c) % 5 != 0, j2 = (item * 3 + o + c / 4) % 3 != 0;
        out << "J1,i" << item << ",A," << (j1 ? "A" : "B") << ",c" << c << "," << (c < 12 ? "b0" : "b1") << "," << o
            << "\n";
        out << "J2,i" << item << ",A," << (j2 ? "A" : "B") << ",c" << c << "," << (c < 12 ? "b0" : "b1") << "," << o
            << "\n";
      }
  return out.str();
}

TEST(Coverage, NormalExpectationMatchesClosedForms) {
  EXPECT_NEAR(normal_expectation([](double z) { return z * z; }), 1.0, 1e-12);
  EXPECT_NEAR(normal_expectation([](double z) { return std::exp(z); }), std::exp(0.5), 1e-12);
  EXPECT_NEAR(normal_expectation([](double z) { return 1 / (1 + std::exp(-z)); }), 0.5, 1e-13);
}

TEST(Coverage, DesignReadsClusterSizesPerStratumAndSolvesTheModel) {
  const ItemMatrix m = load_item_matrix(write_temp("coverage_design.csv", design_csv()));
  const CoverageDesign d = coverage_design(m, {"J1", "J2"});
  ASSERT_EQ(d.stratum_clusters, (std::vector<int64_t>{12, 12}));
  EXPECT_EQ(d.orders, 2);
  ASSERT_EQ(d.n_clusters(), 24);
  for (int c = 0; c < 24; ++c) EXPECT_EQ(d.cluster_items[c], 1 + c % 3);
  ASSERT_EQ(d.judges.size(), 2u);
  for (const CoverageJudge& j : d.judges) {
    // The model's order-averaged accuracy is the observed one (mu was solved for it).
    EXPECT_NEAR(0.5 * (j.truth_by_order[0] + j.truth_by_order[1]), j.accuracy, 1e-10) << j.name;
    EXPECT_NEAR(j.sigma * j.sigma, j.icc / (1 - j.icc) * M_PI * M_PI / 3, 1e-12);
  }
  // J1's accuracy: share of right cells counted from the CSV's rule.
  int right = 0, cells = 0, item = 0;
  for (int c = 0; c < 24; ++c)
    for (int k = 0; k < 1 + c % 3; ++k, ++item) right += 2 * ((item * 7 + c) % 5 != 0), cells += 2;
  EXPECT_NEAR(d.judges[0].accuracy, static_cast<double>(right) / cells, 1e-15);
  EXPECT_THROW(coverage_design(m, {"J9"}), UsageError);
  EXPECT_THROW(coverage_design(m, {}), UsageError);
}

TEST(Coverage, SimulatedDataReproduceTheModelsMoments) {
  // One stratum of 40 clusters of 3 items, two orders; one judge with a strong cluster effect.
  CoverageDesign d;
  d.stratum_clusters = {40};
  d.stratum_names = {"all"};
  d.cluster_items.assign(40, 3);
  d.orders = 2;
  CoverageJudge j;
  j.name = "J";
  j.mu = 0.8, j.sigma = 1.2, j.offset = {-0.3, 0.3};
  d.judges = {j};
  auto p = [&](double z, int o) { return 1 / (1 + std::exp(-(j.mu + j.sigma * z + j.offset[o]))); };
  double mean[2], same_order[2], cross_order;
  for (int o = 0; o < 2; ++o) {
    mean[o] = normal_expectation([&](double z) { return p(z, o); });
    same_order[o] = normal_expectation([&](double z) { return p(z, o) * p(z, o); }) - mean[o] * mean[o];
  }
  cross_order = normal_expectation([&](double z) { return p(z, 0) * p(z, 1); }) - mean[0] * mean[1];
  // Over many datasets: per-order means, and the covariance of two different items of a cluster
  // in one order and across orders (units: cluster-major, items, then orders).
  const int datasets = 600;
  double sum[2] = {0, 0}, pairs_same = 0, pairs_cross = 0;
  double n_units = 0, n_same = 0, n_cross = 0;
  for (int k = 0; k < datasets; ++k) {
    const std::vector<uint8_t> y = simulate_dataset(d, 5, static_cast<uint32_t>(k));
    for (int c = 0; c < 40; ++c) {
      auto at = [&](int item, int o) { return static_cast<double>(y[(c * 3 + item) * 2 + o]); };
      for (int item = 0; item < 3; ++item)
        for (int o = 0; o < 2; ++o) sum[o] += at(item, o);
      n_units += 3;
      pairs_same += (at(0, 0) - mean[0]) * (at(1, 0) - mean[0]);
      pairs_cross += (at(0, 0) - mean[0]) * (at(2, 1) - mean[1]);
      n_same += 1, n_cross += 1;
    }
  }
  for (int o = 0; o < 2; ++o) {
    const double estimate = sum[o] / n_units;
    // MC SE of a mean of clustered Bernoullis: the cluster effect inflates the item variance.
    const double se = std::sqrt((mean[o] * (1 - mean[o]) + 2 * same_order[o]) / n_units);
    EXPECT_NEAR(estimate, mean[o], 4 * se) << o;
  }
  // Products of two centred Bernoullis have variance below 1/16 · … ≤ 0.0625: SE ≤ 0.25/sqrt(n).
  EXPECT_NEAR(pairs_same / n_same, same_order[0], 4 * 0.25 / std::sqrt(n_same));
  EXPECT_NEAR(pairs_cross / n_cross, cross_order, 4 * 0.25 / std::sqrt(n_cross));
  EXPECT_GT(same_order[0], 0.02);  // the effect being checked is there
}

TEST(Coverage, IsDeterministicAcrossRunsAndThreads) {
  const ItemMatrix m = load_item_matrix(write_temp("coverage_runs.csv", design_csv()));
  CoverageOptions options;
  options.judges = {"J1", "J2"};
  options.datasets = 12;
  options.bootstrap.replicates = 200;
  options.bootstrap.seed = 3;
  const CoverageReport a = run_coverage(m, options, cpu_target(1));
  const CoverageReport b = run_coverage(m, options, cpu_target(2));
  ASSERT_EQ(a.cells.size(), 3u * 5u);  // acc J1, acc J2, diff J2 − J1; five methods
  for (size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].covered, b.cells[i].covered);
    EXPECT_EQ(a.cells[i].null_intervals, b.cells[i].null_intervals);
    EXPECT_EQ(a.cells[i].mean_width, b.cells[i].mean_width);
    EXPECT_EQ(a.cells[i].datasets, 12u);
  }
  EXPECT_EQ(a.cells[0].statistic, "acc");
  EXPECT_EQ(a.cells.back().statistic, "diff");
  EXPECT_EQ(a.cells.back().reference, "J1");
  // Another seed simulates other datasets.
  options.bootstrap.seed = 4;
  const CoverageReport c = run_coverage(m, options, cpu_target(2));
  double width_a = 0, width_c = 0;
  for (size_t i = 0; i < a.cells.size(); ++i) width_a += a.cells[i].mean_width, width_c += c.cells[i].mean_width;
  EXPECT_NE(width_a, width_c);
}

// The simulated statistics carry the analyses' labels, so `t` and `studentized` are measured on
// the scale the analyses build them on (logit for acc, Fisher z for a difference of accuracies).
TEST(Coverage, StatisticsAreLabelledAsTheAnalysesLabelThem) {
  const ItemMatrix m = load_item_matrix(write_temp("coverage_labels.csv", design_csv()));
  const CoverageDesign d = coverage_design(m, {"J1", "J2"});
  const std::vector<StatLabel> labels = coverage_labels(d, 2);
  ASSERT_EQ(labels.size(), 6u);  // per dataset: acc J1, acc J2, diff J2 − J1
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(labels[3 * k].name, "acc");
    EXPECT_EQ(labels[3 * k].judge, "J1");
    EXPECT_EQ(labels[3 * k + 1].judge, "J2");
    EXPECT_EQ(labels[3 * k + 2].name, "diff");
    EXPECT_EQ(labels[3 * k + 2].judge, "J2");
    EXPECT_EQ(labels[3 * k + 2].reference, std::optional<std::string>("J1"));
    EXPECT_EQ(statistic_range(labels[3 * k]), StatisticRange::kUnit);
    EXPECT_EQ(statistic_range(labels[3 * k + 2]), StatisticRange::kSigned);
  }
  // And a t interval measured there stays in [0, 1]: its mean width is at most 1 even at 4 clusters
  // of one item where accuracies near 1 push an original-scale interval past the bound.
  std::ostringstream tiny;
  tiny << "judge,item,gold,verdict,cluster\n";
  for (int c = 0; c < 4; ++c)
    tiny << "J1,i" << c << ",A," << (c == 0 ? "B" : "A") << ",c" << c << "\n"
         << "J2,i" << c << ",A,A,c" << c << "\n";
  CoverageOptions options;
  options.judges = {"J1", "J2"};
  options.datasets = 40;
  options.methods = {CiMethod::kT};
  options.bootstrap.replicates = 200;
  const CoverageReport report =
      run_coverage(load_item_matrix(write_temp("coverage_tiny.csv", tiny.str())), options, cpu_target(1));
  for (const CoverageCell& cell : report.cells)
    EXPECT_LE(cell.mean_width, cell.statistic == "acc" ? 1.0 : 2.0) << cell.statistic << " " << cell.judge;
}

TEST(Coverage, CliPrintsTheTable) {
  const std::string path = write_temp("coverage_cli.csv", design_csv());
  const CliRun run =
      run_cli("coverage " + path + " --judges J1,J2 --datasets 4 --replicates 100 --backend cpu --threads 2 --quiet");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("studentized"), std::string::npos);
  EXPECT_NE(run.out.find("diff acc J2 − J1"), std::string::npos);
  const CliRun bad = run_cli("coverage " + path + " --judges J1 --methods percentil --backend cpu --quiet");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("--methods"), std::string::npos) << bad.out;
}

}  // namespace
