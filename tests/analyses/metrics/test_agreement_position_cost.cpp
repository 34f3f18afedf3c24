// Position bias and cost (docs/statistics.md §7.1): position rates on rotated 4-way items and on
// pairs by explicit search of what each order showed, always_first / always_second, fee per 1,000
// records and latency quantiles on hand values.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/metrics/position_cost.hpp"
#include "analyses/metrics/test_agreement_fixture.hpp"

using namespace judgestat;
using namespace judgestat::agreement_testing;

namespace {

struct Shown {
  std::string item, verdict;  // verdict "" = invalid
  int order;
};

// The position at which `order` showed `verdict` (order o shows labels[(p + o) mod K] at p),
// found by looking through the shown list; -1 for a verdict shown nowhere (tie).
int shown_at(const std::vector<std::string>& labels, int order, const std::string& verdict) {
  const int K = static_cast<int>(labels.size());
  for (int p = 0; p < K; ++p)
    if (labels[(p + order) % K] == verdict) return p;
  return -1;
}

// J's records, and a second judge W presenting every item in all `orders` orders, so that each
// item's number of candidates K (1 + its largest order in the data) is `orders` even where J
// lacks a record.
std::string records_csv(const std::vector<Shown>& records, int orders) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,order\n";
  for (const Shown& r : records) csv << "J," << r.item << ",A," << r.verdict << "," << r.order << "\n";
  std::vector<std::string> items;
  for (const Shown& r : records)
    if (std::find(items.begin(), items.end(), r.item) == items.end()) items.push_back(r.item);
  for (const std::string& item : items)
    for (int o = 0; o < orders; ++o) csv << "W," << item << ",A,A," << o << "\n";
  return csv.str();
}

}  // namespace

// A judge that picks position 0 half of the time and otherwise a random label, an invalid
// answer ("tie" is invalid on a 4-way item) or no answer at all.
TEST(AgreementPosition, RotatedFourWayRatesByExplicitSearch) {
  const std::vector<std::string> labels = {"A", "B", "C", "D"};
  std::mt19937 rng(17);
  std::vector<Shown> records;
  for (int i = 0; i < 30; ++i)
    for (int o = 0; o < 4; ++o) {
      const unsigned pick = rng() % 10;
      if (pick == 9) continue;  // no record
      const std::string verdict = pick < 5 ? labels[o] : pick < 8 ? labels[rng() % 4] : pick == 8 ? "tie" : "";
      records.push_back({"i" + std::to_string(i), verdict, o});
    }
  Fixture f = make_fixture(records_csv(records, 4), "rotated.csv", LoadOptions{labels});
  ASSERT_EQ(f.m.orders, 4);
  add_position_bias(f.m, f.judge("J"), 4, f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  std::vector<double> at(4, 0.0);
  double valid = 0;
  for (const Shown& r : records) {
    const int p = shown_at(labels, r.order, r.verdict);
    if (p < 0) continue;  // invalid: no label of the item
    ++valid;
    ++at[p];
  }
  ASSERT_GT(at[0], at[1]);
  for (int p = 0; p < 4; ++p) {
    SCOPED_TRACE(p);
    EXPECT_NEAR(estimate(f.plan, {"position_rate", std::nullopt, std::nullopt, p}), at[p] / valid, 1e-15);
    EXPECT_EQ(label_of(f.plan, {"position_rate", std::nullopt, std::nullopt, p}).n, static_cast<int64_t>(valid));
  }
  EXPECT_EQ(f.plan.statistics.size(), 4u);  // no always_* beyond pairs
  // Orders 0..1 only.
  Plan two = f.plan;
  two.statistics.clear();
  add_position_bias(f.m, f.judge("J"), 2, f.scope("t2"), two);
  std::vector<double> at2(4, 0.0);
  double valid2 = 0;
  for (const Shown& r : records) {
    const int p = shown_at(labels, r.order, r.verdict);
    if (p < 0 || r.order >= 2) continue;
    ++valid2;
    ++at2[p];
  }
  for (int p = 0; p < 4; ++p)
    EXPECT_NEAR(estimate(two, {"position_rate", std::nullopt, std::nullopt, p}), at2[p] / valid2, 1e-15);
  EXPECT_THROW(add_position_bias(f.m, f.judge("J"), 5, f.scope(), f.plan), std::invalid_argument);
  EXPECT_THROW(add_position_bias(f.m, f.judge("J"), 0, f.scope(), f.plan), std::invalid_argument);
}

// Pairs: order 0 shows A first, order 1 shows B first. A valid tie is in position_rate's
// denominator at no position, and makes an item complete but neither always_first nor
// always_second; an invalid or missing order makes it incomplete.
TEST(AgreementPosition, PairsAlwaysFirstAndSecond) {
  const std::vector<std::string> labels = {"A", "B"};
  const std::vector<std::pair<std::string, std::string>> verdicts = {
      {"A", "B"},   {"A", "B"}, {"A", "B"}, {"B", "A"}, {"A", "A"}, {"B", "B"},
      {"tie", "B"}, {"A", ""},  {"", ""},   {"A", "."}, {".", "A"}, {"tie", "tie"}};
  std::vector<Shown> records;
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const std::string item = "p" + std::to_string(i);
    if (verdicts[i].first != ".") records.push_back({item, verdicts[i].first, 0});
    if (verdicts[i].second != ".") records.push_back({item, verdicts[i].second, 1});
  }
  Fixture f = make_fixture(records_csv(records, 2), "pairs.csv", LoadOptions{labels});
  add_position_bias(f.m, f.judge("J"), 2, f.scope(), f.plan);
  double valid = 0, first = 0, second = 0, complete = 0, all_first = 0, all_second = 0;
  for (const Shown& r : records) {
    if (r.verdict.empty()) continue;
    ++valid;
    const int p = shown_at(labels, r.order, r.verdict);
    first += p == 0;
    second += p == 1;
  }
  for (const auto& [v0, v1] : verdicts) {
    const bool valid0 = v0 != "." && !v0.empty(), valid1 = v1 != "." && !v1.empty();
    if (!valid0 || !valid1) continue;
    ++complete;
    all_first += shown_at(labels, 0, v0) == 0 && shown_at(labels, 1, v1) == 0;
    all_second += shown_at(labels, 0, v0) == 1 && shown_at(labels, 1, v1) == 1;
  }
  ASSERT_EQ(complete, 8);
  ASSERT_EQ(all_first, 3);  // the three (A, B)
  ASSERT_EQ(all_second, 1);
  EXPECT_NEAR(estimate(f.plan, {"position_rate", std::nullopt, std::nullopt, 0}), first / valid, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"position_rate", std::nullopt, std::nullopt, 1}), second / valid, 1e-15);
  EXPECT_LT(first + second, valid);  // the ties
  EXPECT_NEAR(estimate(f.plan, {"always_first"}), all_first / complete, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"always_second"}), all_second / complete, 1e-15);
  EXPECT_EQ(label_of(f.plan, {"always_first"}).n, 8);
  EXPECT_EQ(label_of(f.plan, {"always_first"}).judge, "J");
  EXPECT_FALSE(label_of(f.plan, {"always_first"}).order.has_value());
  // One order: no always_* (they compare orders).
  Plan one = f.plan;
  one.statistics.clear();
  add_position_bias(f.m, f.judge("J"), 1, f.scope("one"), one);
  EXPECT_EQ(one.statistics.size(), 2u);
}

// fee_usd and latency_s on five records in two orders; one record has neither.
TEST(AgreementCost, FeePer1kAndLatencyQuantilesOnHandValues) {
  const std::string csv =
      "judge,item,gold,verdict,order,fee_usd,latency_s\n"
      "J,1,A,A,0,0.002,1.0\n"
      "J,1,A,B,1,0.003,4.0\n"
      "J,2,B,B,0,,\n"
      "J,2,B,B,1,0.001,2.0\n"
      "J,3,A,,0,0.004,10.0\n"
      "J,4,A,A,0,0.5,3.0\n"
      "K,4,A,A,0,9,99\n";
  Fixture f = make_fixture(csv, "cost.csv");
  std::vector<double> mask(f.units.size(), 1.0);
  mask[3] = 0;  // item 4 is outside the scope
  const ScopeView scope{f.units, mask, StatLabel{}, "cost"};
  add_fee_per_1k(f.m, f.judge("J"), scope, std::nullopt, f.plan);
  EXPECT_NEAR(estimate(f.plan, {"fee_per_1k"}), 1000 * (0.002 + 0.003 + 0.001 + 0.004) / 4, 1e-12);
  EXPECT_EQ(label_of(f.plan, {"fee_per_1k"}).n, 4);
  // A flat fee per call replaces the file's fees, for every present record.
  Plan flat = f.plan;
  flat.statistics.clear();
  add_fee_per_1k(f.m, f.judge("J"), scope, 0.25, flat);
  EXPECT_NEAR(estimate(flat, {"fee_per_1k"}), 250.0, 1e-12);
  EXPECT_EQ(label_of(flat, {"fee_per_1k"}).n, 5);
  EXPECT_THROW(add_fee_per_1k(f.m, f.judge("J"), scope, -1.0, flat), std::invalid_argument);

  // Latencies 1, 4, 2, 10: type 7 at p sits at h = (n − 1) p between order statistics, so the
  // median is 2 + 0.5 (4 − 2) = 3 and p95 (h = 2.85) is 4 + 0.85 (10 − 4) = 9.1.
  const LatencyQuantiles q = latency_quantiles(f.m, f.judge("J"), scope, std::nullopt);
  EXPECT_EQ(q.n, 4);
  EXPECT_NEAR(q.p50, 3.0, 1e-12);
  EXPECT_NEAR(q.p95, 9.1, 1e-12);
  const LatencyQuantiles flat_q = latency_quantiles(f.m, f.judge("J"), scope, 2.5);
  EXPECT_EQ(flat_q.n, 5);
  EXPECT_EQ(flat_q.p50, 2.5);
  EXPECT_EQ(flat_q.p95, 2.5);
}

TEST(AgreementCost, NothingWithoutFeesOrLatencies) {
  Fixture f = make_fixture("judge,item,gold,verdict\nJ,1,A,A\nJ,2,B,A\n", "no_cost.csv");
  add_fee_per_1k(f.m, f.judge("J"), f.scope(), std::nullopt, f.plan);
  EXPECT_TRUE(f.plan.statistics.empty());
  const LatencyQuantiles q = latency_quantiles(f.m, f.judge("J"), f.scope(), std::nullopt);
  EXPECT_EQ(q.n, 0);
  EXPECT_TRUE(std::isnan(q.p50) && std::isnan(q.p95));
}
