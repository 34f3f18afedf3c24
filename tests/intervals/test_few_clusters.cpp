// docs/statistics.md §2's intervals for few clusters: the t quantile against closed forms and table values,
// the `t` interval and the cluster bootstrap-t against explicit loops written here (jackknife;
// bootstrap with the same Philox stream), the t interval of a ratio against the textbook
// cluster-robust interval, and the per-row cluster and distinct-value counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"
#include "judgestat/replicate_summary.hpp"
#include "test_plans.hpp"

using namespace judgestat;

namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(FewClusters, StudentTQuantileMatchesClosedFormsAndTables) {
  // df = 1 (Cauchy): tan(π (p − ½)); df = 2: (2p − 1) / sqrt(2 p (1 − p)).
  for (double p : {0.6, 0.9, 0.975, 0.995, 0.05}) {
    EXPECT_NEAR(student_t_quantile(p, 1), std::tan(kPi * (p - 0.5)), 1e-12 * std::max(1.0, std::tan(kPi * (p - 0.5))));
    EXPECT_NEAR(student_t_quantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-13);
  }
  // Table values (mpmath at 30 digits, betainc inverted by findroot): t(0.975, 9) =
  // 2.262157162798205, t(0.975, 19) = 2.0930240544083093, t(0.995, 4) = 4.604094871349992,
  // t(0.975, 120) = 1.9799304050824405.
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.262157162798205, 1e-13);
  EXPECT_NEAR(student_t_quantile(0.975, 19), 2.0930240544083093, 1e-13);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604094871349992, 1e-12);
  EXPECT_NEAR(student_t_quantile(0.975, 120), 1.9799304050824405, 1e-13);
  // Large df tends to the normal quantile.
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), normal_quantile(0.975), 1e-6);
  EXPECT_NEAR(student_t_cdf(student_t_quantile(0.3, 7.5), 7.5), 0.3, 1e-14);
  // I_0.5(2, 3) = (C(4,2) + C(4,3) + C(4,4)) / 2^4 = 11/16.
  EXPECT_NEAR(incomplete_beta(0.5, 2, 3), 11.0 / 16.0, 1e-15);
  EXPECT_TRUE(std::isnan(student_t_quantile(0.975, 0)));
}

// Two strata of 5 and 6 clusters (df = 11 − 2 = 9), 37 units; a and c are counts of right
// answers of two judges, b the unit count, w a half-valued column.
struct Clustered {
  std::vector<int64_t> offsets{0, 5, 11};
  std::vector<int32_t> unit_cluster;
  std::vector<double> a, b, c;
  Clustered() {
    for (int u = 0; u < 37; ++u) {
      unit_cluster.push_back((u * 7 + u / 5) % 11);
      a.push_back((u * 13) % 5 != 0);
      c.push_back((u * 11) % 3 != 0);
      b.push_back(1.0 + (u % 4 == 0));  // some units count double (unequal weights)
    }
  }
  Plan plan() const { return testing_support::abc_ratio_plan(offsets, unit_cluster, a, b, c, "acc"); }
  // Per cluster sums of a, b, c.
  std::vector<std::array<double, 3>> cluster_sums() const {
    std::vector<std::array<double, 3>> s(offsets.back(), {0, 0, 0});
    for (size_t u = 0; u < a.size(); ++u) {
      s[unit_cluster[u]][0] += a[u];
      s[unit_cluster[u]][1] += b[u];
      s[unit_cluster[u]][2] += c[u];
    }
    return s;
  }
};

// Statistic `which` (0: a/b, 1: a/b − c/b) of weighted cluster sums.
double statistic(const std::vector<std::array<double, 3>>& sums, const std::vector<double>& m, int which) {
  double A = 0, B = 0, Cs = 0;
  for (size_t k = 0; k < sums.size(); ++k) A += m[k] * sums[k][0], B += m[k] * sums[k][1], Cs += m[k] * sums[k][2];
  return which == 0 ? A / B : A / B - Cs / B;
}

// The pivot interval [θ̂ − upper·SE, θ̂ − lower·SE]: of `acc` (statistic 0, in [0, 1]) on the logit
// scale with the delta method's SE/(θ̂(1 − θ̂)), mapped back by 1/(1 + e^−y); of the diff without
// `of` (statistic 1, unbounded) as it stands.
std::array<double, 2> pivot_ends(int which, double estimate, double se, double upper, double lower) {
  if (which == 1) return {estimate - upper * se, estimate - lower * se};
  const double centre = std::log(estimate / (1 - estimate)), scaled = se / (estimate * (1 - estimate));
  return {1 / (1 + std::exp(-(centre - upper * scaled))), 1 / (1 + std::exp(-(centre - lower * scaled)))};
}

double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = (v.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  return v[lo] + (h - lo) * (v[std::min(lo + 1, v.size() - 1)] - v[lo]);
}

BootstrapResult run(const Plan& plan, CiMethod ci, uint64_t B, uint64_t seed = 7, bool keep = false) {
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = B;
  options.seed = seed;
  options.ci = ci;
  options.keep_replicates = keep;
  return run_bootstrap(plan, *backend, options);
}

TEST(FewClusters, TIntervalEqualsAnExplicitJackknife) {
  const Clustered in;
  const auto sums = in.cluster_sums();
  const BootstrapResult result = run(in.plan(), CiMethod::kT, 50);
  for (int which = 0; which < 2; ++which) {
    std::vector<double> m(11, 1.0);
    const double estimate = statistic(sums, m, which);
    double variance = 0;
    for (int h = 0; h < 2; ++h) {
      std::vector<double> leave_out;
      for (int64_t k = in.offsets[h]; k < in.offsets[h + 1]; ++k) {
        m[k] = 0;
        leave_out.push_back(statistic(sums, m, which));
        m[k] = 1;
      }
      const double n = static_cast<double>(leave_out.size());
      double mean = 0;
      for (double v : leave_out) mean += v / n;
      for (double v : leave_out) variance += (n - 1) / n * (v - mean) * (v - mean);
    }
    const double q = 2.262157162798205;  // t(0.975, 11 clusters − 2 strata)
    const auto ends = pivot_ends(which, estimate, std::sqrt(variance), q, -q);
    const Interval& got = result.intervals[which];
    EXPECT_NEAR(got.estimate, estimate, 1e-15);
    EXPECT_NEAR(got.lo, ends[0], 1e-12) << which;
    EXPECT_NEAR(got.hi, ends[1], 1e-12) << which;
    EXPECT_EQ(got.clusters, 11);
    EXPECT_EQ(got.strata, 2);
  }
  EXPECT_EQ(result.ci, CiMethod::kT);
}

// SE*² of weighted cluster sums: Σ_h C_h/(C_h − 1) [Σ m e² − (Σ m e)² / C_h], e per cluster.
double linearised_variance(const std::vector<std::array<double, 3>>& sums, const std::vector<double>& m,
                           const std::vector<int64_t>& offsets, int which) {
  double A = 0, B = 0, Cs = 0;
  for (size_t k = 0; k < sums.size(); ++k) A += m[k] * sums[k][0], B += m[k] * sums[k][1], Cs += m[k] * sums[k][2];
  const double R1 = A / B, R2 = Cs / B;
  double variance = 0;
  for (size_t h = 0; h + 1 < offsets.size(); ++h) {
    const double n = static_cast<double>(offsets[h + 1] - offsets[h]);
    double sum = 0, squares = 0;
    for (int64_t k = offsets[h]; k < offsets[h + 1]; ++k) {
      double e = (sums[k][0] - R1 * sums[k][1]) / B;
      if (which == 1) e -= (sums[k][2] - R2 * sums[k][1]) / B;
      sum += m[k] * e;
      squares += m[k] * e * e;
    }
    variance += n / (n - 1) * (squares - sum * sum / n);
  }
  return variance;
}

TEST(FewClusters, StudentizedEqualsAnExplicitBootstrapT) {
  const Clustered in;
  const auto sums = in.cluster_sums();
  const uint64_t B = 400, seed = 11;
  const BootstrapResult result = run(in.plan(), CiMethod::kStudentized, B, seed, true);
  ASSERT_EQ(result.replicates.size(), B * 3);  // the t* statistics are not returned
  for (int which = 0; which < 2; ++which) {
    const std::vector<double> ones(11, 1.0);
    const double estimate = statistic(sums, ones, which);
    const double se = std::sqrt(linearised_variance(sums, ones, in.offsets, which));
    std::vector<double> t;
    int64_t undefined = 0;
    for (uint64_t r = 0; r < B; ++r) {
      std::vector<double> m(11, 0.0);
      for (int h = 0; h < 2; ++h) {
        const auto size = static_cast<uint32_t>(in.offsets[h + 1] - in.offsets[h]);
        for (uint32_t d = 0; d < size; ++d) {
          const Words4 w = philox4x32_10(d / 4, static_cast<uint32_t>(r), h, 0, static_cast<uint32_t>(seed), 0);
          m[in.offsets[h] + ((static_cast<uint64_t>(w.w[d % 4]) * size) >> 32)] += 1;
        }
      }
      const double value = statistic(sums, m, which);
      EXPECT_NEAR(result.replicates[r * 3 + which], value, 1e-15);
      const double v = linearised_variance(sums, m, in.offsets, which);
      if (!(v > 1e-300) || std::isnan(value)) {
        ++undefined;
        continue;
      }
      t.push_back((value - estimate) / std::sqrt(v));
    }
    const Interval& got = result.intervals[which];
    EXPECT_EQ(got.undefined, undefined);
    const auto ends = pivot_ends(which, estimate, se, sorted_quantile(t, 0.975), sorted_quantile(t, 0.025));
    EXPECT_NEAR(got.lo, ends[0], 1e-12) << which;
    EXPECT_NEAR(got.hi, ends[1], 1e-12) << which;
    EXPECT_TRUE(got.note.empty());
  }
  // |c/b − 0.6| is not a ratio: null, with a note.
  EXPECT_TRUE(std::isnan(result.intervals[2].lo) && std::isnan(result.intervals[2].hi));
  EXPECT_NE(result.intervals[2].note.find("ratios"), std::string::npos);
}

TEST(FewClusters, TOfARatioIsTheClusterRobustIntervalAtLargeC) {
  // 2,000 clusters of 1 to 6 units, one stratum: the jackknife SE of a ratio equals the
  // linearised (sandwich) SE sqrt(C/(C − 1) Σ e_c²), e_c = (a_c − R b_c)/B, to first order. An
  // unbounded name ("ratio"): the interval is the symmetric one, on the original scale.
  Plan plan;
  const int64_t C = 2000;
  plan.stratum_offset = {0, C};
  std::vector<double> a, b;
  std::vector<double> ca(C, 0), cb(C, 0);
  for (int64_t k = 0; k < C; ++k)
    for (int j = 0; j < 1 + (k * 7) % 6; ++j) {
      plan.unit_cluster.push_back(static_cast<int32_t>(k));
      const double right = ((k * 31 + j * 17) % 10) < 7 + (k % 3 == 0);
      a.push_back(right);
      b.push_back(1);
      ca[k] += right;
      cb[k] += 1;
    }
  const int32_t ka = plan.add_column("a"), kb = plan.add_column("b");
  plan.columns[ka] = a;
  plan.columns[kb] = b;
  plan.statistics = {{{"ratio"}, ratio_program(ka, kb)}};
  double A = 0, Bs = 0;
  for (int64_t k = 0; k < C; ++k) A += ca[k], Bs += cb[k];
  const double R = A / Bs;
  double squares = 0;
  for (int64_t k = 0; k < C; ++k) squares += std::pow((ca[k] - R * cb[k]) / Bs, 2);
  const double se = std::sqrt(C / (C - 1.0) * squares);
  const double half = student_t_quantile(0.975, C - 1.0) * se;
  const Interval got = run(plan, CiMethod::kT, 20).intervals[0];
  EXPECT_NEAR(got.estimate, R, 1e-15);
  EXPECT_NEAR(got.hi - got.lo, 2 * half, 2 * half * 2e-3);
  EXPECT_NEAR(0.5 * (got.lo + got.hi), R, 1e-14);
}

TEST(FewClusters, RowsCountClustersOfTheirStrataAndDistinctValues) {
  // Statistic 0 reads stratum 0 only (a per-group statistic of a stratified design); statistic 1
  // reads both. Three clusters in stratum 0 make few distinct replicate values.
  Plan plan;
  plan.stratum_offset = {0, 3, 10};
  plan.stratum_names = {"g0", "g1"};
  std::vector<double> in0, in1, right;
  for (int u = 0; u < 30; ++u) {
    const int32_t cluster = u % 10;
    plan.unit_cluster.push_back(cluster);
    in0.push_back(cluster < 3);
    in1.push_back(1);
    right.push_back((u * 7) % 3 != 0);
  }
  std::vector<double> right0(30);
  for (int u = 0; u < 30; ++u) right0[u] = right[u] * in0[u];
  const int32_t k0 = plan.add_column("n0"), k1 = plan.add_column("n"), kr0 = plan.add_column("r0"),
                kr = plan.add_column("r");
  plan.columns[k0] = in0;
  plan.columns[k1] = in1;
  plan.columns[kr0] = right0;
  plan.columns[kr] = right;
  plan.statistics = {{{"acc0"}, ratio_program(kr0, k0)}, {{"acc"}, ratio_program(kr, k1)}};
  const BootstrapResult result = run(plan, CiMethod::kPercentile, 300, 3, true);
  EXPECT_EQ(result.intervals[0].clusters, 3);
  EXPECT_EQ(result.intervals[0].strata, 1);
  EXPECT_EQ(result.intervals[1].clusters, 10);
  EXPECT_EQ(result.intervals[1].strata, 2);
  for (int s = 0; s < 2; ++s) {
    std::set<double> values;
    for (uint64_t r = 0; r < 300; ++r)
      if (!std::isnan(result.replicates[r * 2 + s])) values.insert(result.replicates[r * 2 + s] + 0.0);
    EXPECT_EQ(result.intervals[s].distinct, static_cast<int64_t>(values.size())) << s;
  }
  EXPECT_LT(result.intervals[0].distinct, 20);
  // Equal cluster sizes (3 units each): coefficient of variation 0.
  EXPECT_NEAR(result.intervals[1].size_cv, 0.0, 1e-15);
}

// KeptReplicates' default distinct count (bisection over order statistics, what a device's
// summaries use) against the host's direct count.
class SelectionOnly final : public KeptReplicates {
 public:
  explicit SelectionOnly(std::unique_ptr<KeptReplicates> host) : host_(std::move(host)) {}
  std::vector<ReplicateFacts> facts(const std::vector<double>& reference) override { return host_->facts(reference); }
  std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& q) override {
    return host_->order_statistics(q);
  }

 private:
  std::unique_ptr<KeptReplicates> host_;
};

TEST(FewClusters, DistinctByBisectionEqualsTheDirectCount) {
  const uint64_t B = 1000;
  const int32_t S = 4;
  std::vector<double> values(B * S);
  for (uint64_t r = 0; r < B; ++r) {
    values[r * S + 0] = static_cast<double>((r * 7919) % 13);                 // 13 values
    values[r * S + 1] = r % 5 == 0 ? NAN : std::sin(static_cast<double>(r));  // all distinct
    values[r * S + 2] = r % 2 ? 0.0 : -0.0;                                   // one value
    values[r * S + 3] = static_cast<double>((r * r) % 97) / 8;
  }
  auto host = host_kept_replicates(values.data(), B, S);
  const std::vector<ReplicateFacts> facts = host->facts(std::vector<double>(S, 0.0));
  std::vector<uint64_t> defined;
  for (const auto& f : facts) defined.push_back(f.defined);
  const std::vector<uint64_t> direct = host->distinct_counts(defined);
  SelectionOnly bisection(host_kept_replicates(values.data(), B, S));
  EXPECT_EQ(bisection.distinct_counts(defined), direct);
  EXPECT_EQ(direct[0], 13u);
  EXPECT_EQ(direct[1], 800u);
  EXPECT_EQ(direct[2], 1u);
}

TEST(FewClusters, DirectDistinctCountEqualsASetsSize) {
  // Enough distinct values to grow the host's hash table several times (3,001; 90,000 with
  // NaNs left out; 200,000 values of ±0 and ±inf with one key each), against std::set.
  const uint64_t B = 100000;
  const int32_t S = 3;
  std::vector<double> values(B * S);
  for (uint64_t r = 0; r < B; ++r) {
    values[r * S + 0] = static_cast<double>((r * 7919) % 3001) / 3.0;
    values[r * S + 1] = r % 10 == 0 ? NAN : 1e-3 * static_cast<double>(r) - 7.0;
    const double extremes[4] = {0.0, -0.0, INFINITY, -INFINITY};
    values[r * S + 2] = extremes[r % 4];
  }
  auto host = host_kept_replicates(values.data(), B, S);
  const std::vector<uint64_t> got = host->distinct_counts(std::vector<uint64_t>(S, 0));
  for (int32_t s = 0; s < S; ++s) {
    std::set<double> distinct;
    for (uint64_t r = 0; r < B; ++r)
      if (!std::isnan(values[r * S + s])) distinct.insert(values[r * S + s] + 0.0);  // −0 → +0
    EXPECT_EQ(got[s], distinct.size()) << s;
  }
  EXPECT_EQ(got[0], 3001u);
  EXPECT_EQ(got[1], 90000u);
  EXPECT_EQ(got[2], 3u);
}

TEST(FewClusters, ParsesTheNewMethodNames) {
  EXPECT_EQ(parse_ci_method("t"), CiMethod::kT);
  EXPECT_EQ(parse_ci_method("studentized"), CiMethod::kStudentized);
  EXPECT_EQ(to_string(CiMethod::kStudentized), "studentized");
  EXPECT_THROW(parse_ci_method("student"), std::invalid_argument);
}

}  // namespace
