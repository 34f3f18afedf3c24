// The §7.1 statistics on the bootstrap's replicates: each kept replicate equals the statistic
// recomputed here by explicit loops over the items, every item weighted by its cluster's
// multiplicity in that replicate (docs/statistics.md §2 draws: Philox word d of stream 0,
// cluster (u · C) >> 32).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/metrics/agreement.hpp"
#include "analyses/metrics/classification.hpp"
#include "analyses/metrics/position_cost.hpp"
#include "analyses/metrics/test_agreement_fixture.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"

using namespace judgestat;
using namespace judgestat::agreement_testing;

namespace {

constexpr int kJudges = 3, kItems = 48, kOrders = 2;
const std::vector<std::string> kLabels = {"A", "B"};

// Three judges on pairs in both orders: verdicts A, B, tie, invalid ("") or no record (".");
// fees on most records. Items in 17 clusters, numbered here by first appearance as the
// selection numbers them.
struct Data {
  std::vector<std::string> gold;
  std::vector<int> cluster;
  std::string verdict[kJudges][kItems][kOrders];
  double fee[kJudges][kItems][kOrders];
  std::string csv;
};

Data make_data() {
  Data d;
  std::mt19937 rng(23);
  const char* choices[] = {"A", "A", "B", "B", "A", "tie", "", "."};
  std::map<int, int> cluster_number;
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict,order,fee_usd\n";
  for (int i = 0; i < kItems; ++i) {
    const int source = (i * 5) % 17;
    d.cluster.push_back(cluster_number.emplace(source, static_cast<int>(cluster_number.size())).first->second);
    d.gold.push_back(rng() % 3 ? "A" : "B");
    for (int j = 0; j < kJudges; ++j)
      for (int o = 0; o < kOrders; ++o) {
        // Judges 1 and 2 copy judge 0's order-0 verdict often, so agreement is far from 0.
        std::string v = choices[rng() % 8];
        if (j > 0 && rng() % 2) v = d.verdict[0][i][0];
        if (j == 0 && o == 0 && v == ".") v = "B";  // every item is a unit
        d.verdict[j][i][o] = v;
        d.fee[j][i][o] = rng() % 4 ? 0.001 * static_cast<double>(1 + rng() % 9) : NAN;
        if (v == ".") continue;
        csv << "J" << j << ",i" << i << ",c" << source << "," << d.gold[i] << "," << v << "," << o << ",";
        if (!std::isnan(d.fee[j][i][o])) csv << d.fee[j][i][o];
        csv << "\n";
      }
  }
  d.csv = csv.str();
  return d;
}

bool has(const std::string& v) { return v != "."; }
bool is_valid(const std::string& v) { return v == "A" || v == "B" || v == "tie"; }
double or_nan(double num, double den) { return den == 0 ? NAN : num / den; }

// The statistics of the plan below, on items weighted w (w = 1: the original data).
struct Weighted {
  const Data& d;
  std::vector<double> w;

  double macro_f1() const {
    double sum = 0, labels = 0;
    for (const std::string& k : kLabels) {
      double tp = 0, pred = 0, gold = 0, occurs = 0;
      for (int i = 0; i < kItems; ++i) {
        const std::string& v = d.verdict[0][i][0];
        if (!has(v)) continue;
        occurs += d.gold[i] == k;
        tp += w[i] * (d.gold[i] == k && v == k);
        pred += w[i] * (v == k);
        gold += w[i] * (d.gold[i] == k);
      }
      if (occurs == 0) continue;  // on the original data: the label is not averaged
      ++labels;
      sum += pred + gold == 0 ? 0 : 2 * tp / (pred + gold);
    }
    return sum / labels;
  }
  double recall_b() const {
    double tp = 0, gold = 0;
    for (int i = 0; i < kItems; ++i)
      if (has(d.verdict[0][i][0]) && d.gold[i] == "B") {
        tp += w[i] * (d.verdict[0][i][0] == "B");
        gold += w[i];
      }
    return gold == 0 ? 0 : tp / gold;
  }
  double kappa() const {  // J0 against J1 in order 0
    std::map<std::string, double> row, column;
    double n = 0, agree = 0;
    for (int i = 0; i < kItems; ++i) {
      const std::string &a = d.verdict[0][i][0], &b = d.verdict[1][i][0];
      if (!has(a) || !has(b)) continue;
      n += w[i];
      agree += w[i] * (a == b);
      row[a] += w[i];
      column[b] += w[i];
    }
    double chance = 0;
    for (const auto& [c, x] : row) chance += x * column[c];
    chance = or_nan(chance, n * n);
    return or_nan(or_nan(agree, n) - chance, 1 - chance);
  }
  double fleiss() const {  // all three judges, order 0
    double units = 0, agreeing = 0;
    std::map<std::string, double> total;
    for (int i = 0; i < kItems; ++i) {
      std::map<std::string, double> n_ic;
      for (int j = 0; j < kJudges; ++j)
        if (has(d.verdict[j][i][0])) ++n_ic[d.verdict[j][i][0]];
      double m = 0, squares = 0;
      for (const auto& [c, x] : n_ic) m += x, squares += x * x;
      if (m != kJudges) continue;
      units += w[i];
      agreeing += w[i] * (squares - kJudges) / (kJudges * (kJudges - 1));
      for (const auto& [c, x] : n_ic) total[c] += w[i] * x;
    }
    double chance = 0;
    for (const auto& [c, x] : total) chance += (x / (units * kJudges)) * (x / (units * kJudges));
    return or_nan(or_nan(agreeing, units) - chance, 1 - chance);
  }
  double alpha() const {  // all three judges, order 1
    double n = 0, matching = 0;
    std::map<std::string, double> n_c;
    for (int i = 0; i < kItems; ++i) {
      std::map<std::string, double> n_uc;
      double m = 0;
      for (int j = 0; j < kJudges; ++j)
        if (has(d.verdict[j][i][1])) ++n_uc[d.verdict[j][i][1]], ++m;
      if (m < 2) continue;
      n += w[i] * m;
      for (const auto& [c, x] : n_uc) {
        matching += w[i] * x * (x - 1) / (m - 1);
        n_c[c] += w[i] * x;
      }
    }
    double squares = 0;
    for (const auto& [c, x] : n_c) squares += x * x;
    return 1 - or_nan((n - 1) * (n - matching), n * n - squares);
  }
  // J0's position rate at `p` over both orders and always_first.
  double position_rate(int p) const {
    double at = 0, valid = 0;
    for (int i = 0; i < kItems; ++i)
      for (int o = 0; o < kOrders; ++o) {
        const std::string& v = d.verdict[0][i][o];
        if (!is_valid(v)) continue;
        valid += w[i];
        at += w[i] * (v != "tie" && kLabels[(p + o) % 2] == v);
      }
    return or_nan(at, valid);
  }
  double always_first() const {
    double complete = 0, first = 0;
    for (int i = 0; i < kItems; ++i) {
      const std::string &v0 = d.verdict[0][i][0], &v1 = d.verdict[0][i][1];
      if (!is_valid(v0) || !is_valid(v1)) continue;
      complete += w[i];
      first += w[i] * (v0 == "A" && v1 == "B");
    }
    return or_nan(first, complete);
  }
  double fee_per_1k() const {
    double fee = 0, records = 0;
    for (int i = 0; i < kItems; ++i)
      for (int o = 0; o < kOrders; ++o)
        if (has(d.verdict[0][i][o]) && !std::isnan(d.fee[0][i][o])) {
          fee += w[i] * d.fee[0][i][o];
          records += w[i];
        }
    return 1000 * or_nan(fee, records);
  }
};

void expect_same(double engine, double loop, const std::string& what, uint32_t r) {
  if (std::isnan(loop)) {
    EXPECT_TRUE(std::isnan(engine)) << what << " replicate " << r;
    return;
  }
  EXPECT_NEAR(engine, loop, 1e-12 * std::max(1.0, std::fabs(loop))) << what << " replicate " << r;
}

}  // namespace

TEST(AgreementBootstrap, KeptReplicatesMatchMultiplicityLoops) {
  const Data d = make_data();
  // --labels A,B: canonical order A, B whichever gold comes first (order 0 shows A first).
  Fixture f = make_fixture(d.csv, "replicates.csv", LoadOptions{kLabels});
  ASSERT_EQ(f.units.size(), static_cast<size_t>(kItems));
  for (int i = 0; i < kItems; ++i) ASSERT_EQ(f.plan.unit_cluster[i], d.cluster[i]);
  const std::vector<int32_t> raters = {f.judge("J0"), f.judge("J1"), f.judge("J2")};
  add_classification(f.m, raters[0], f.scope("J0"), f.plan);
  add_pair_kappa(f.m, raters[0], raters[1], 0, f.scope("J0"), f.plan);
  add_fleiss_kappa(f.m, raters, 0, f.scope("raters"), f.plan);
  add_krippendorff_alpha(f.m, raters, 1, f.scope("raters"), f.plan);
  add_position_bias(f.m, raters[0], kOrders, f.scope("J0"), f.plan);
  add_fee_per_1k(f.m, raters[0], f.scope("J0"), std::nullopt, f.plan);
  expect_stack_within_limit(f.plan);

  struct Check {
    int32_t statistic;
    std::string what;
    double (*loop)(const Weighted&);
  };
  const std::vector<Check> checks = {
      {index_of(f.plan, {"macro_f1"}), "macro_f1", [](const Weighted& x) { return x.macro_f1(); }},
      {index_of(f.plan, {"recall", "B"}), "recall B", [](const Weighted& x) { return x.recall_b(); }},
      {index_of(f.plan, {"kappa"}), "kappa", [](const Weighted& x) { return x.kappa(); }},
      {index_of(f.plan, {"fleiss_kappa"}), "fleiss_kappa", [](const Weighted& x) { return x.fleiss(); }},
      {index_of(f.plan, {"krippendorff_alpha"}), "alpha", [](const Weighted& x) { return x.alpha(); }},
      {index_of(f.plan, {"position_rate", std::nullopt, std::nullopt, 0}), "position 0",
       [](const Weighted& x) { return x.position_rate(0); }},
      {index_of(f.plan, {"position_rate", std::nullopt, std::nullopt, 1}), "position 1",
       [](const Weighted& x) { return x.position_rate(1); }},
      {index_of(f.plan, {"always_first"}), "always_first", [](const Weighted& x) { return x.always_first(); }},
      {index_of(f.plan, {"fee_per_1k"}), "fee_per_1k", [](const Weighted& x) { return x.fee_per_1k(); }},
  };
  for (const Check& c : checks) ASSERT_GE(c.statistic, 0) << c.what;

  // The original data first: the point estimates are the loops at weight 1.
  const std::vector<double> point = point_estimates(f.plan);
  const Weighted original{d, std::vector<double>(kItems, 1.0)};
  for (const Check& c : checks) {
    EXPECT_NEAR(point[c.statistic], c.loop(original), 1e-12) << c.what;
    EXPECT_TRUE(std::isfinite(point[c.statistic])) << c.what;
  }

  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = 64;
  options.seed = 29;
  options.keep_replicates = true;
  const BootstrapResult result = run_bootstrap(f.plan, *backend, options);
  const size_t S = f.plan.statistics.size();
  ASSERT_EQ(result.replicates.size(), options.replicates * S);
  const uint32_t C = static_cast<uint32_t>(f.plan.n_clusters());
  ASSERT_EQ(C, 17u);
  const PhiloxKey key(options.seed);
  for (uint32_t r = 0; r < options.replicates; ++r) {
    std::vector<double> mult(C, 0.0);
    for (uint32_t draw = 0; draw < C; ++draw) ++mult[scale_to(draw_word(key, draw, r, bootstrap_stream(0)), C)];
    Weighted replicate{d, std::vector<double>(kItems)};
    for (int i = 0; i < kItems; ++i) replicate.w[i] = mult[d.cluster[i]];
    for (const Check& c : checks) expect_same(result.replicates[r * S + c.statistic], c.loop(replicate), c.what, r);
  }
}
