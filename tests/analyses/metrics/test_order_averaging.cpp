// Order averaging (docs/statistics.md §3.1; JEV Tables 24–25): acc_avg, the accuracy of the
// probabilities averaged over both orders (an exact tie ½, an invalid order an error), its gain
// over the base order (`diff` of order_gain, Holm over each group's judges), and mean q (JEV
// Tables 15, 18).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/order_averaging.hpp"
#include "analyses/metrics/replicates_identical.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Gold A. p(A) per order (−1: no record; 2: an invalid record, verdict C), verdict the argmax.
struct Item {
  double p0, p1;
};
const std::vector<Item> kItems{{0.9, 0.7}, {0.4, 0.8}, {0.5, 0.5}, {0.9, 2}, {0.2, 0.3}, {0.7, -1}};

std::string record(const std::string& judge, size_t i, int order, double pa) {
  const std::string head = judge + ",i" + std::to_string(i) + ",c" + std::to_string(i) + ",A,";
  if (pa > 1) return head + "C," + std::to_string(order) + ",,\n";
  return head + (pa >= 0.5 ? "A," : "B,") + std::to_string(order) + "," + std::to_string(pa) + "," +
         std::to_string(1 - pa) + "\n";
}

// Judge J as kItems; a second judge K (when asked for) right on i4 in order 0 too.
std::string records(const std::vector<std::string>& judges) {
  std::string csv = "judge,item,cluster,gold,verdict,order,p.A,p.B\n";
  for (const std::string& judge : judges)
    for (size_t i = 0; i < kItems.size(); ++i) {
      csv += record(judge, i, 0, judge == "K" && i == 4 ? 0.6 : kItems[i].p0);
      if (kItems[i].p1 >= 0) csv += record(judge, i, 1, kItems[i].p1);
    }
  return csv;
}

// By JEV's rule, over the items with both orders: the averaged p(A)'s credit (an invalid order
// 0), order 0's, and mean q of the valid order-0 records.
struct Expected {
  double acc_avg = 0, gain = 0, mean_q0 = 0;
  int64_t n = 0;
};
Expected by_hand() {
  Expected e;
  double credit_sum = 0, base_sum = 0, q_sum = 0;
  int64_t q_n = 0;
  for (const Item& item : kItems) {
    q_sum += std::max(item.p0, 1 - item.p0);
    ++q_n;
    if (item.p1 < 0) continue;
    ++e.n;
    const double mean = (item.p0 + item.p1) / 2;
    credit_sum += item.p1 > 1 ? 0.0 : mean > 0.5 ? 1.0 : mean == 0.5 ? 0.5 : 0.0;
    base_sum += item.p0 >= 0.5;
  }
  e.acc_avg = credit_sum / e.n;
  e.gain = (credit_sum - base_sum) / e.n;
  e.mean_q0 = q_sum / q_n;
  return e;
}

LoadOptions two_labels() { return LoadOptions{{"A", "B"}}; }

}  // namespace

TEST(OrderAveraging, AccAvgGainAndMeanQByJevsRule) {
  const ItemMatrix m = load_item_matrix(write_temp("order_averaging.csv", records({"J"})), two_labels());
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), MetricsOptions{});
  const std::vector<double> point = point_estimates(built.plan);
  const Expected want = by_hand();
  std::map<std::string, double> got;
  std::map<std::string, int64_t> n;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    const std::string key = l.name + (l.of ? " " + *l.of : "") + (l.order ? " " + std::to_string(*l.order) : "");
    got[key] = point[s];
    n[key] = l.n;
  }
  EXPECT_NEAR(got.at("acc_avg"), want.acc_avg, 1e-15);  // (1 + 1 + ½ + 0 + 0) / 5
  EXPECT_NEAR(got.at("diff order_gain"), want.gain, 1e-15);
  EXPECT_EQ(n.at("acc_avg"), want.n);
  EXPECT_NEAR(got.at("mean_q 0"), want.mean_q0, 1e-15);
  EXPECT_NEAR(want.acc_avg, 0.5, 1e-15);
  EXPECT_NEAR(want.gain, -0.1, 1e-15);
}

TEST(OrderAveraging, GainsAreHolmAdjustedOverTheJudgesAlone) {
  const ItemMatrix m = load_item_matrix(write_temp("order_averaging2.csv", records({"J", "K"})), two_labels());
  MetricsOptions options;
  options.diff = {"acc"};
  options.bootstrap.replicates = 200;
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  const BootstrapResult& r = report.statistics;
  std::vector<size_t> gains, others;
  for (size_t s = 0; s < r.labels.size(); ++s)
    if (r.labels[s].name == "diff")
      (r.labels[s].of == std::optional<std::string>(kOrderGain) ? gains : others).push_back(s);
  ASSERT_EQ(gains.size(), 2u);
  const std::vector<double> holm = holm_adjust({r.intervals[gains[0]].p, r.intervals[gains[1]].p});
  EXPECT_EQ(report.p_holm[gains[0]], holm[0]);
  EXPECT_EQ(report.p_holm[gains[1]], holm[1]);
  EXPECT_TRUE(std::isnan(report.p_bh[gains[0]]));
  // The judge comparison's family is the other diff rows only.
  std::vector<double> p;
  for (size_t s : others) p.push_back(r.intervals[s].p);
  const std::vector<double> others_holm = holm_adjust(p);
  for (size_t i = 0; i < others.size(); ++i) EXPECT_EQ(report.p_holm[others[i]], others_holm[i]);
  EXPECT_TRUE(contains(tables(report, "text"), "diff order_gain "));
}

TEST(OrderAveraging, IsBitIdenticalAcrossThreads) {
  const ItemMatrix m = load_item_matrix(write_temp("order_averaging.csv", records({"J"})), two_labels());
  expect_replicates_identical_across_threads(build_metrics_run_plan(m, select_records(m, {}), MetricsOptions{}).plan);
}
