// `metrics --pooled-orders` (docs/statistics.md §3.2; JEV App. E Table 15, "both presentation orders
// pooled"): every order's valid record a separate judgment. Brier, NLL, mean q, ECE, error AUROC and
// the error rate at q >= 0.9, each computed here judgment by judgment from the file's numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analyses/metrics/replicates_identical.hpp"
#include "analyses/metrics/report_notes.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "judgestat/metrics.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// J judges six items in both orders (canonical probabilities); i6's order-1 record is invalid and
// i5 has no order-1 record: ten valid judgments.
const char* kPooledCsv =
    "judge,item,order,gold,verdict,p.A,p.B\n"
    "J,i1,0,A,A,0.95,0.05\nJ,i1,1,A,A,0.90,0.10\n"
    "J,i2,0,A,A,0.70,0.30\nJ,i2,1,A,B,0.40,0.60\n"
    "J,i3,0,B,A,0.92,0.08\nJ,i3,1,B,B,0.45,0.55\n"
    "J,i4,0,B,B,0.20,0.80\nJ,i4,1,B,B,0.05,0.95\n"
    "J,i5,0,A,B,0.35,0.65\n"
    "J,i6,0,B,B,0.30,0.70\nJ,i6,1,B,,,\n";

struct Judgment {
  double p_a;
  bool gold_a;
};
// The ten valid judgments above, in any order.
const std::vector<Judgment> kJudgments = {{0.95, true},  {0.90, true},  {0.70, true},  {0.40, true}, {0.92, false},
                                          {0.45, false}, {0.20, false}, {0.05, false}, {0.35, true}, {0.30, false}};

double q_of(const Judgment& j) { return std::max(j.p_a, 1 - j.p_a); }
bool right(const Judgment& j) { return (j.p_a > 0.5) == j.gold_a; }

MetricsReport run_on(MetricsOptions options, int threads = 1, const std::string& csv = kPooledCsv) {
  options.bootstrap.replicates = 300;
  return run_metrics(load_item_matrix(write_temp("pooled.csv", csv)), options, cpu_target(threads));
}

MetricsOptions pooled() {
  MetricsOptions options;
  options.pooled_orders = true;
  return options;
}

const Interval* pooled_row(const MetricsReport& r, const std::string& name, int64_t* n = nullptr) {
  for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
    const StatLabel& l = r.statistics.labels[s];
    if (l.name != name || l.label != std::optional<std::string>(kOrdersPooled)) continue;
    EXPECT_FALSE(l.order);
    if (n) *n = l.n;
    return &r.statistics.intervals[s];
  }
  return nullptr;
}

}  // namespace

TEST(PooledOrders, EveryStatisticIsTheMeanOverJudgments) {
  const MetricsReport r = run_on(pooled());
  double brier = 0, nll = 0, q = 0;
  std::vector<double> gap(10, 0.0);
  for (const Judgment& j : kJudgments) {
    const double y = j.gold_a ? 1 : 0;
    brier += (j.p_a - y) * (j.p_a - y) + ((1 - j.p_a) - (1 - y)) * ((1 - j.p_a) - (1 - y));
    nll += -std::log(j.gold_a ? j.p_a : 1 - j.p_a);
    q += q_of(j);
    gap[std::min(9, static_cast<int>(q_of(j) * 10))] += right(j) - q_of(j);
  }
  double ece = 0;
  for (double g : gap) ece += std::fabs(g);
  int64_t n = 0;
  ASSERT_NE(pooled_row(r, "brier", &n), nullptr);
  EXPECT_EQ(n, 10);
  EXPECT_NEAR(pooled_row(r, "brier")->estimate, brier / 10, 1e-12);
  EXPECT_NEAR(pooled_row(r, "nll")->estimate, nll / 10, 1e-12);
  EXPECT_NEAR(pooled_row(r, "mean_q")->estimate, q / 10, 1e-12);
  EXPECT_NEAR(pooled_row(r, "ece")->estimate, ece / 10, 1e-12);
}

TEST(PooledOrders, ErrorAurocCountsPairsOfJudgmentsAndHighConfidenceErrors) {
  const MetricsReport r = run_on(pooled());
  // AUROC: an error outranks a right judgment when its q is lower (score 1 − q), ties ½.
  double wins = 0;
  int pairs = 0, high = 0, high_errors = 0;
  for (const Judgment& e : kJudgments) {
    if (q_of(e) >= 0.9) ++high, high_errors += !right(e);
    if (right(e)) continue;
    for (const Judgment& c : kJudgments) {
      if (!right(c)) continue;
      ++pairs;
      wins += q_of(e) < q_of(c) ? 1 : q_of(e) == q_of(c) ? 0.5 : 0;
    }
  }
  EXPECT_NEAR(pooled_row(r, "auroc_err")->estimate, wins / pairs, 1e-12);
  int64_t n = 0;
  ASSERT_NE(pooled_row(r, "high_q_error_rate", &n), nullptr);
  EXPECT_EQ(n, high);  // 0.95, 0.90, 0.92 (an error), 0.95
  EXPECT_NEAR(pooled_row(r, "high_q_error_rate")->estimate, static_cast<double>(high_errors) / high, 1e-12);
  EXPECT_EQ(high_errors, 1);
}

TEST(PooledOrders, OnlyWhenAskedAndOnlyWithTwoOrders) {
  EXPECT_EQ(pooled_row(run_on({}), "brier"), nullptr);
  const MetricsReport asked = run_on(pooled());
  EXPECT_TRUE(has_note(asked, "rows 'orders pooled' (--pooled-orders, JEV Table 15)"));
  // Asked for where there is nothing to pool: no rows, and a note says why.
  const std::string one_order = "judge,item,gold,verdict,p.A,p.B\nJ,i1,A,A,0.9,0.1\nJ,i2,B,A,0.6,0.4\n";
  const MetricsReport single = run_on(pooled(), 1, one_order);
  EXPECT_EQ(pooled_row(single, "brier"), nullptr);
  EXPECT_TRUE(has_note(single, "--pooled-orders: the analysed records have one presentation order; nothing to pool"));
  const std::string no_probabilities = "judge,item,order,gold,verdict\nJ,i1,0,A,A\nJ,i1,1,A,B\n";
  EXPECT_TRUE(has_note(run_on(pooled(), 1, no_probabilities),
                       "--pooled-orders: no analysed judge has probabilities; nothing to pool"));
  LoadOptions on_a_scale;  // score judges (docs/statistics.md §8.2): nothing to pool
  on_a_scale.scale = ScoreScale{1, 5};
  const ItemMatrix scored =
      load_item_matrix(write_temp("pooled_scores.csv", "judge,item,gold,verdict\nJ,i1,3,3\nJ,i2,1,2\n"), on_a_scale);
  EXPECT_TRUE(contains(thrown_message([&] { run_metrics(scored, pooled(), cpu_target(1)); }),
                       "--pooled-orders: score judges give scores, not probabilities to pool"));
}

TEST(PooledOrders, OtherRowsAreUnchangedBitForBit) {
  // Two judges (J and a copy K with other numbers) and --diff brier: every row of the run without the flag is in
  // the run with it, with the same estimate; matched by the whole label, not by position.
  std::string csv = kPooledCsv;
  csv +=
      "K,i1,0,A,A,0.85,0.15\nK,i1,1,A,A,0.80,0.20\nK,i2,0,A,B,0.45,0.55\nK,i2,1,A,A,0.60,0.40\n"
      "K,i3,0,B,B,0.30,0.70\nK,i3,1,B,B,0.25,0.75\nK,i4,0,B,B,0.10,0.90\n";
  MetricsOptions plain, with = pooled();
  plain.diff = with.diff = {"acc", "brier"};
  const MetricsReport a = run_on(plain, 1, csv), b = run_on(with, 1, csv);
  auto key = [](const StatLabel& l) {
    return l.name + "|" + l.judge + "|" + l.of.value_or("") + "|" + l.reference.value_or("") + "|" +
           l.label.value_or("") + "|" + (l.order ? std::to_string(*l.order) : "avg") + "|" +
           (l.position ? std::to_string(*l.position) : "");
  };
  size_t matched = 0;
  for (size_t s = 0; s < a.statistics.labels.size(); ++s)
    for (size_t t = 0; t < b.statistics.labels.size(); ++t)
      if (key(a.statistics.labels[s]) == key(b.statistics.labels[t])) {
        EXPECT_EQ(a.statistics.intervals[s].estimate, b.statistics.intervals[t].estimate)
            << key(a.statistics.labels[s]);
        ++matched;
      }
  EXPECT_EQ(matched, a.statistics.labels.size());
  // The pooled brier rows are differenced too (K − J), as every presentation's are.
  bool pooled_diff = false;
  for (const StatLabel& l : b.statistics.labels)
    pooled_diff = pooled_diff || (l.name == "diff" && l.of == std::string("brier") && l.label == kOrdersPooled);
  EXPECT_TRUE(pooled_diff);
}

TEST(PooledOrders, SameSeedSameReplicatesOnAnyThreadCount) {
  MetricsOptions options = pooled();
  options.bootstrap.keep_replicates = true;
  const MetricsReport one = run_on(options, 1), two = run_on(options, 2);
  expect_same_replicates(one.statistics.replicates, two.statistics.replicates);
}

TEST(PooledOrders, TheReportRendersAgainFromItsJson) {
  const AnalysisResult run = render_support::run_on(write_temp("pooled_render.csv", kPooledCsv),
                                                    {"metrics", {"--pooled-orders", "--full", "--replicates", "200"}});
  EXPECT_TRUE(contains(run.text, "brier orders pooled")) << run.text;
  EXPECT_TRUE(contains(run.text, "high_q_error_rate orders pooled")) << run.text;
  render_support::expect_renders_the_run("metrics", run);
}
