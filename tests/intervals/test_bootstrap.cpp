// The bootstrap engine against an independent brute-force bootstrap, its invariance to threads
// and chunking, and BCa against scipy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"
#include "summary_cases.hpp"
#include "test_plans.hpp"

using namespace judgestat;

namespace {

// 2 strata (5 and 7 clusters by default), units spread over them; a is real-valued, b a count,
// c half-valued.
struct SmallInput {
  std::vector<int64_t> offsets;
  std::vector<int32_t> unit_cluster;
  std::vector<double> a, b, c;
  explicit SmallInput(int first_stratum = 5, int second_stratum = 7, int units = 31)
      : offsets{0, first_stratum, first_stratum + second_stratum} {
    const int clusters = first_stratum + second_stratum;
    for (int u = 0; u < units; ++u) {
      unit_cluster.push_back((u * 7 + u / 3) % clusters);
      a.push_back(0.1 * ((u * 37) % 11) + 0.013 * u);
      b.push_back((u % 4) != 0);
      c.push_back(0.5 * ((u * 5) % 3));
    }
  }
  Plan plan() const { return testing_support::abc_ratio_plan(offsets, unit_cluster, a, b, c, "a_over_b"); }
};

// Brute force: explicit loops over strata, draws and units, sums in double.
std::vector<std::vector<double>> brute_force(const SmallInput& in, uint64_t seed, int B) {
  std::vector<std::vector<double>> out(3);
  for (int r = 0; r < B; ++r) {
    double sa = 0, sb = 0, sc = 0;
    for (int h = 0; h < 2; ++h) {
      const uint32_t size = static_cast<uint32_t>(in.offsets[h + 1] - in.offsets[h]);
      for (uint32_t d = 0; d < size; ++d) {
        const Words4 w = philox4x32_10(d / 4, r, h, 0, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
        const uint64_t cluster = in.offsets[h] + ((static_cast<uint64_t>(w.w[d % 4]) * size) >> 32);
        for (size_t u = 0; u < in.unit_cluster.size(); ++u) {
          if (static_cast<uint64_t>(in.unit_cluster[u]) != cluster) continue;
          sa += in.a[u];
          sb += in.b[u];
          sc += in.c[u];
        }
      }
    }
    out[0].push_back(sb == 0 ? NAN : sa / sb);
    out[1].push_back(sb == 0 ? NAN : sa / sb - sc / sb);
    out[2].push_back(sb == 0 ? NAN : std::fabs(sc / sb - 0.6));
  }
  return out;
}

double percentile(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  std::sort(v.begin(), v.end());
  const double h = (v.size() - 1) * q;
  const size_t lo = static_cast<size_t>(h);
  return v[lo] + (h - lo) * (v[std::min(lo + 1, v.size() - 1)] - v[lo]);
}

// The engine's replicates of `input` (CPU backend, kept), to compare with brute_force.
BootstrapResult engine_replicates(const SmallInput& input, uint64_t seed, int B) {
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = B;
  options.seed = seed;
  options.keep_replicates = true;
  return run_bootstrap(input.plan(), *backend, options);
}

}  // namespace

TEST(Bootstrap, PercentileMatchesBruteForceOnStratifiedInput) {
  const SmallInput input;
  const uint64_t seed = 20261130ull | (3ull << 32);
  const int B = 3000;
  const BootstrapResult result = engine_replicates(input, seed, B);
  const auto expected = brute_force(input, seed, B);
  for (int s = 0; s < 3; ++s) {
    for (int r = 0; r < B; ++r) {
      const double got = result.replicates[r * 3 + s], want = expected[s][r];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got));
      } else {
        EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want))) << "stat " << s << " r " << r;
      }
    }
    EXPECT_NEAR(result.intervals[s].lo, percentile(expected[s], 0.025), 1e-12);
    EXPECT_NEAR(result.intervals[s].hi, percentile(expected[s], 0.975), 1e-12);
  }
  // The count statistic c/b is exact in fixed point: bit-identical to the brute force.
  EXPECT_EQ(result.intervals[2].lo, percentile(expected[2], 0.025));
}

TEST(Bootstrap, CountOnlyPlanMatchesBruteForceExactly) {
  // Counts and quarters only: the CPU backend takes its multiplicity form (histogram of draws,
  // eight-wide Philox for strata of 32+ clusters, then column dot products); the values must
  // equal the brute force exactly.
  for (auto [first_stratum, second_stratum] : {std::pair{5, 7}, std::pair{70, 45}}) {
    SmallInput input(first_stratum, second_stratum, 300);
    for (double& v : input.a) v = std::floor(v * 4) / 4;  // quarters: exact in fixed point
    const uint64_t seed = 99;
    const int B = 2000;
    const BootstrapResult result = engine_replicates(input, seed, B);
    const auto expected = brute_force(input, seed, B);
    for (int s = 0; s < 3; ++s)
      for (int r = 0; r < B; ++r) {
        const double got = result.replicates[r * 3 + s], want = expected[s][r];
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got));
        else
          ASSERT_EQ(got, want) << "stat " << s << " r " << r;
      }
  }
}

TEST(Bootstrap, ReplicatesIdenticalAcrossThreadsAndChunks) {
  const SmallInput input;
  BootstrapOptions options;
  options.replicates = 1001;
  options.seed = 7;
  options.keep_replicates = true;
  auto reference_backend = make_cpu_backend(1);
  const auto reference = run_bootstrap(input.plan(), *reference_backend, options);
  for (int threads : {2, 3, 8}) {
    for (uint64_t chunk : {1ull, 7ull, 1000ull, 0ull}) {
      auto backend = make_cpu_backend(threads, chunk);
      const auto result = run_bootstrap(input.plan(), *backend, options);
      ASSERT_EQ(result.replicates.size(), reference.replicates.size());
      EXPECT_EQ(0, std::memcmp(result.replicates.data(), reference.replicates.data(),
                               reference.replicates.size() * sizeof(double)))
          << threads << " threads, chunk " << chunk;
      for (size_t s = 0; s < result.intervals.size(); ++s) {
        EXPECT_EQ(result.intervals[s].lo, reference.intervals[s].lo);
        EXPECT_EQ(result.intervals[s].hi, reference.intervals[s].hi);
        EXPECT_EQ(result.intervals[s].se, reference.intervals[s].se);
      }
    }
  }
}

TEST(Bootstrap, ReusedReplicateBufferGivesFreshResults) {
  // One backend, runs of growing and shrinking B (its replicate buffer kept, grown, reused
  // with stale values in it): each equals a run on a fresh backend.
  const SmallInput input;
  auto reused = make_cpu_backend(2);
  for (uint64_t B : {300ull, 1200ull, 50ull, 1200ull}) {
    BootstrapOptions options;
    options.replicates = B;
    options.seed = B;
    options.keep_replicates = true;
    auto fresh = make_cpu_backend(2);
    const auto want = run_bootstrap(input.plan(), *fresh, options);
    const auto got = run_bootstrap(input.plan(), *reused, options);
    ASSERT_EQ(got.replicates.size(), B * 3);
    EXPECT_EQ(0, std::memcmp(got.replicates.data(), want.replicates.data(), B * 3 * sizeof(double)));
    for (size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(got.intervals[s].lo, want.intervals[s].lo) << "B " << B;
      EXPECT_EQ(got.intervals[s].hi, want.intervals[s].hi) << "B " << B;
      EXPECT_EQ(got.intervals[s].undefined, want.intervals[s].undefined) << "B " << B;
    }
  }
}

TEST(Bootstrap, BcaMatchesScipy) {
  // Values from tests/scripts/bca_reference.py (scipy 1.10.1's _bca_interval on the same
  // replicates): lo 0.595, hi 0.8376871916260518.
  const std::vector<double> a{3.25, 1.5, 0.125, 2.75, 3.875, 1.0, 1.375, 0.25, 2.5, 2.0, 2.625, 1.125};
  const std::vector<double> b{4, 2, 1, 3, 4, 2, 3, 1, 3, 2, 4, 2};
  Plan plan;
  plan.stratum_offset = {0, 12};
  for (int c = 0; c < 12; ++c) plan.unit_cluster.push_back(c);
  const int32_t ka = plan.add_column("a"), kb = plan.add_column("b");
  plan.columns[ka] = a;
  plan.columns[kb] = b;
  plan.statistics = {{{"ratio"}, ratio_program(ka, kb)}};
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = 2000;
  options.seed = 42;
  options.ci = CiMethod::kBca;
  const auto result = run_bootstrap(plan, *backend, options);
  EXPECT_NEAR(result.intervals[0].estimate, 0.7217741935483871, 1e-15);
  EXPECT_NEAR(result.intervals[0].lo, 0.595, 1e-12);
  EXPECT_NEAR(result.intervals[0].hi, 0.8376871916260518, 1e-12);
}

TEST(Bootstrap, BasicIsReflectedPercentile) {
  const SmallInput input;
  auto backend = make_cpu_backend(2);
  BootstrapOptions options;
  options.replicates = 500;
  const auto percentile_result = run_bootstrap(input.plan(), *backend, options);
  options.ci = CiMethod::kBasic;
  const auto basic = run_bootstrap(input.plan(), *backend, options);
  for (size_t s = 0; s < basic.intervals.size(); ++s) {
    const double theta = basic.intervals[s].estimate;
    EXPECT_DOUBLE_EQ(basic.intervals[s].lo, 2 * theta - percentile_result.intervals[s].hi);
    EXPECT_DOUBLE_EQ(basic.intervals[s].hi, 2 * theta - percentile_result.intervals[s].lo);
  }
}

TEST(Bootstrap, UndefinedReplicatesAreCountedAndLeftOut) {
  // One cluster of two holds the only denominator: about a quarter of replicates miss it.
  Plan plan;
  plan.stratum_offset = {0, 2};
  plan.unit_cluster = {0, 1};
  const int32_t kn = plan.add_column("num"), kd = plan.add_column("den");
  plan.columns[kn] = {1, 0};
  plan.columns[kd] = {1, 0};
  plan.statistics = {{{"r"}, ratio_program(kn, kd)}};
  auto backend = make_cpu_backend(1);
  BootstrapOptions options;
  options.replicates = 4000;
  options.keep_replicates = true;
  const auto result = run_bootstrap(plan, *backend, options);
  int64_t nan_count = 0;
  for (double v : result.replicates) nan_count += std::isnan(v);
  EXPECT_EQ(result.intervals[0].undefined, nan_count);
  EXPECT_NEAR(nan_count / 4000.0, 0.25, 0.03);
  EXPECT_EQ(result.intervals[0].lo, 1.0);
  EXPECT_EQ(result.intervals[0].se, 0.0);
}

TEST(Bootstrap, RankTermMatchesPairwiseBruteForce) {
  // AUROC-style rank statistic 2U / (2·P·N) on clustered units with tied scores, against an
  // O(n²) loop over unit pairs weighted by their clusters' multiplicities. Run once with count
  // columns only (multiplicity form) and once with a real-valued column (gather form).
  const int units = 60, clusters = 40;
  std::vector<int32_t> unit_cluster, all_units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (int u = 0; u < units; ++u) {
    unit_cluster.push_back((u * 13) % clusters);
    all_units.push_back(u);
    scores.push_back(0.1 * ((u * 7) % 9));  // many ties
    positive.push_back((u % 3) == 0);
  }
  for (bool with_real_column : {false, true}) {
    Plan plan;
    plan.stratum_offset = {0, clusters};
    plan.unit_cluster = unit_cluster;
    const int32_t kp = plan.add_column("pos"), kn = plan.add_column("neg");
    for (int u = 0; u < units; ++u) {
      plan.columns[kp][u] = positive[u];
      plan.columns[kn][u] = !positive[u];
    }
    if (with_real_column) {
      const int32_t kr = plan.add_column("real");
      plan.columns[kr][0] = 0.123456789;
      plan.statistics.push_back({{"real"}, ratio_program(kr, kp)});
    }
    const int32_t term = plan.add_rank_term(all_units, scores, positive);
    plan.statistics.push_back({{"auroc"},
                               {{OpCode::kRank, term},
                                {OpCode::kConstant, 0, 2.0},
                                {OpCode::kColumn, kp},
                                {OpCode::kMul},
                                {OpCode::kColumn, kn},
                                {OpCode::kMul},
                                {OpCode::kDiv}}});
    const int S = static_cast<int>(plan.statistics.size());
    auto backend = make_cpu_backend(2);
    BootstrapOptions options;
    options.replicates = 300;
    options.seed = 5;
    options.keep_replicates = true;
    const auto result = run_bootstrap(plan, *backend, options);
    for (int r = 0; r < 300; ++r) {
      std::vector<int64_t> m(clusters, 0);
      for (int d = 0; d < clusters; ++d) ++m[scale_to(draw_word(PhiloxKey(5), d, r, 0), clusters)];
      int64_t twice_u = 0, p = 0, n = 0;
      for (int i = 0; i < units; ++i) {
        const int64_t wi = m[unit_cluster[i]];
        (positive[i] ? p : n) += wi;
        if (!positive[i]) continue;
        for (int j = 0; j < units; ++j) {
          if (positive[j]) continue;
          const int64_t wj = m[unit_cluster[j]];
          twice_u += wi * wj * (scores[i] > scores[j] ? 2 : scores[i] == scores[j] ? 1 : 0);
        }
      }
      const double want = static_cast<double>(twice_u) / (2.0 * p * n);
      ASSERT_EQ(result.replicates[r * S + (S - 1)], want) << "replicate " << r;
    }
  }
}

TEST(Bootstrap, RealColumnsGiveTheGatherSumsOnEveryPath) {
  // Real-valued columns of both signs and wide range: the CPU backend splits their fixed-point
  // cluster sums into 15-bit planes for the int16 dot products (fewer than 2^16 clusters) or
  // gathers rows (more). Both must give exactly the integers an explicit per-draw int64 sum over
  // the compiled cluster sums gives, so the statistics are equal, not close.
  for (int clusters : {37, 700, 70000}) {
    const int units = clusters + clusters / 2;
    Plan plan;
    plan.stratum_offset = {0, clusters / 3, clusters};
    plan.unit_cluster.resize(units);
    const int32_t kr = plan.add_column("real"), kw = plan.add_column("wide"), kn = plan.add_column("count");
    for (int u = 0; u < units; ++u) {
      plan.unit_cluster[u] = u < clusters ? u : (u * 7919) % clusters;
      plan.columns[kr][u] = std::sin(0.37 * u) * 0.731;                       // both signs
      plan.columns[kw][u] = std::cos(1.3 * u) * std::pow(10.0, (u % 9) - 3);  // 1e-3 … 1e5
      plan.columns[kn][u] = (u % 3) != 0;
    }
    plan.statistics = {{{"r"}, ratio_program(kr, kn)},
                       {{"w"}, difference_program(ratio_program(kw, kn), ratio_program(kr, kn))}};
    const CompiledPlan compiled = compile(plan);
    ASSERT_FALSE(compiled.fits_int32);
    const int B = clusters > 1000 ? 20 : 300, S = 2, K = compiled.n_columns;
    const uint64_t seed = 77;
    std::vector<double> got(static_cast<size_t>(B) * S);
    make_cpu_backend(2)->run_replicates(compiled, seed, 0, B, got.data());
    for (int r = 0; r < B; ++r) {
      std::vector<int64_t> sums(K, 0);
      for (int h = 0; h < compiled.n_strata(); ++h) {
        const int64_t offset = compiled.stratum_offset[h];
        const auto size = static_cast<uint32_t>(compiled.stratum_offset[h + 1] - offset);
        for (uint32_t d = 0; d < size; ++d) {
          const int64_t c = offset + scale_to(draw_word(PhiloxKey(seed), d, r, h), size);
          for (int k = 0; k < K; ++k) sums[k] += compiled.cluster_sums[c * K + k];
        }
      }
      for (int s = 0; s < S; ++s) {
        const double want =
            evaluate(compiled.ops.data() + compiled.op_offset[s], compiled.op_offset[s + 1] - compiled.op_offset[s],
                     sums.data(), compiled.column_unscale.data(), static_cast<const double*>(nullptr));
        ASSERT_EQ(got[r * S + s], want) << clusters << " clusters, replicate " << r << " stat " << s;
      }
    }
  }
}

TEST(Bootstrap, IntervalsBySelectionEqualSortedQuantiles) {
  // summarize() selects order statistics (a sample bracket, then a pass) instead of sorting;
  // its percentile bounds must equal type-7 quantiles of the sorted values exactly, for inputs
  // with heavy ties, NaNs, a sorted order, one repeated value, and a stride sample that
  // misrepresents the data (the bracket misses and the plain selection takes over).
  auto sorted_bounds = [](std::vector<double> v, double level) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    std::sort(v.begin(), v.end());
    return std::pair{quantile_type7(v, (1 - level) / 2), quantile_type7(v, 1 - (1 - level) / 2)};
  };
  const size_t n = 100003;
  std::vector<std::vector<double>> inputs(5, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t w = draw_word(PhiloxKey(11), i, 0, 0);
    inputs[0][i] = (w % 400) / 400.0;  // ties, like a ratio of counts
    inputs[1][i] = w % 97 == 0 ? NAN : std::ldexp(double(w), -32) - 0.5;
    inputs[2][i] = static_cast<double>(i) / n;                    // already sorted
    inputs[3][i] = 0.25;                                          // one value
    inputs[4][i] = i % (n / 1024) == 0 ? 0.0 : 1.0 + (w % 1000);  // the sample sees only zeros
  }
  for (size_t which = 0; which < inputs.size(); ++which)
    for (double level : {0.95, 0.5, 0.999, 0.99999}) {
      const Interval got = summarize(0.0, inputs[which], CiMethod::kPercentile, level);
      const auto [lo, hi] = sorted_bounds(inputs[which], level);
      EXPECT_EQ(got.lo, lo) << "input " << which << " level " << level;
      EXPECT_EQ(got.hi, hi) << "input " << which << " level " << level;
    }
}

// The summary contract (replicate_summary.hpp) that every place keeping replicate values meets:
// the host's row-major passes and selections against a plain per-column reference (full sort,
// blocked sums written out), through intervals_from for every CI method. The CUDA backend's
// device summaries are held to the same bits in test_cuda_backend.cpp.
namespace {

class SortingReference final : public KeptReplicates {
 public:
  SortingReference(const std::vector<double>& values, uint64_t B, int32_t S) : B_(B), S_(S) {
    columns_.resize(S);
    for (int32_t s = 0; s < S; ++s)
      for (uint64_t r = 0; r < B; ++r) columns_[s].push_back(values[r * S + s]);
  }
  std::vector<ReplicateFacts> facts(const std::vector<double>& reference) override {
    std::vector<ReplicateFacts> out(S_);
    for (int32_t s = 0; s < S_; ++s) {
      const std::vector<double>& v = columns_[s];
      double total = 0;
      for (uint64_t first = 0; first < B_; first += kSummaryBlock) {
        double block = 0;
        for (uint64_t r = first; r < std::min(B_, first + kSummaryBlock); ++r)
          if (!std::isnan(v[r])) {
            block += v[r];
            ++out[s].defined;
          }
        total += block;
      }
      if (out[s].defined == 0) continue;
      out[s].mean = total / static_cast<double>(out[s].defined);
      double squares = 0;
      for (uint64_t first = 0; first < B_; first += kSummaryBlock) {
        double block = 0;
        for (uint64_t r = first; r < std::min(B_, first + kSummaryBlock); ++r)
          if (!std::isnan(v[r])) {
            block += (v[r] - out[s].mean) * (v[r] - out[s].mean);
            out[s].below += v[r] < reference[s];
            out[s].at_or_below += v[r] <= reference[s];
          }
        squares += block;
      }
      out[s].sum_squares = squares;
    }
    return out;
  }
  std::vector<std::pair<double, double>> order_statistics(const std::vector<OrderStatisticQuery>& queries) override {
    std::vector<std::pair<double, double>> out;
    for (const OrderStatisticQuery& q : queries) {
      std::vector<double> sorted;
      for (double v : columns_[q.statistic])
        if (!std::isnan(v)) sorted.push_back(v);
      std::sort(sorted.begin(), sorted.end());
      const size_t next = std::min<size_t>(q.rank + 1, sorted.size() - 1);
      out.push_back({sorted.at(q.rank) + 0.0, sorted[next] + 0.0});
    }
    return out;
  }

 private:
  uint64_t B_;
  int32_t S_;
  std::vector<std::vector<double>> columns_;
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST(ReplicateSummary, OrderKeysSortLikeTheNumbers) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> ascending = {-inf, -1e300, -1.5, -4.9e-324, 0.0, 4.9e-324, 1e-300, 0.5, 2.0, inf};
  for (size_t i = 0; i + 1 < ascending.size(); ++i)
    EXPECT_LT(order_key(ascending[i]), order_key(ascending[i + 1])) << ascending[i];
  for (double v : ascending) EXPECT_TRUE(same_bits(from_order_key(order_key(v)), v)) << v;
  EXPECT_EQ(order_key(-0.0), order_key(0.0));
  EXPECT_TRUE(same_bits(from_order_key(order_key(-0.0)), 0.0));
  EXPECT_EQ(order_key(std::nan("")), ~uint64_t(0));
  EXPECT_EQ(order_key(-std::nan("")), ~uint64_t(0));
  EXPECT_GT(order_key(std::nan("")), order_key(inf));
}

TEST(ReplicateSummary, HostSummariesEqualASortingReferenceBitForBit) {
  // Enough replicates that the host splits its passes between threads and brackets its
  // selections.
  const testing_support::AwkwardReplicates cases = testing_support::awkward_replicates(600001);
  const uint64_t B = cases.B;
  const int32_t S = cases.S;
  const std::vector<double>& values = cases.values;
  const std::vector<double>& estimates = cases.estimates;
  const std::vector<JackknifeValues>& jack = cases.jack;
  auto host = host_kept_replicates(values.data(), B, S);
  SortingReference reference(values, B, S);
  for (CiMethod method : {CiMethod::kPercentile, CiMethod::kBasic, CiMethod::kBca})
    for (double level : {0.95, 0.5}) {
      const auto got = intervals_from(*host, B, estimates, method, level, &jack);
      const auto want = intervals_from(reference, B, estimates, method, level, &jack);
      for (int32_t s = 0; s < S; ++s) {
        const std::string where = to_string(method) + " " + std::to_string(level) + " stat " + std::to_string(s);
        EXPECT_TRUE(same_bits(got[s].estimate, want[s].estimate)) << where;
        EXPECT_TRUE(same_bits(got[s].lo, want[s].lo)) << where << ": " << got[s].lo << " vs " << want[s].lo;
        EXPECT_TRUE(same_bits(got[s].hi, want[s].hi)) << where << ": " << got[s].hi << " vs " << want[s].hi;
        EXPECT_TRUE(same_bits(got[s].se, want[s].se)) << where << ": " << got[s].se << " vs " << want[s].se;
        EXPECT_EQ(got[s].undefined, want[s].undefined) << where;
      }
    }
  // What the statistics' facts say, independently of both implementations.
  const auto percentile = intervals_from(*host, B, estimates, CiMethod::kPercentile, 0.95);
  EXPECT_EQ(percentile[5].undefined, int64_t(B));
  EXPECT_TRUE(std::isnan(percentile[5].lo) && std::isnan(percentile[5].se));
  EXPECT_EQ(percentile[4].undefined, int64_t(B - 1));
  EXPECT_TRUE(std::isnan(percentile[4].se));      // one defined value: no spread
  EXPECT_TRUE(same_bits(percentile[2].lo, 0.0));  // −0 and +0 tie: read as +0
  EXPECT_GT(percentile[0].se, 0.85);              // uniform on [−1, 2): SD √(9/12) ≈ 0.866
  EXPECT_LT(percentile[0].se, 0.88);
  EXPECT_TRUE(std::isnan(percentile[6].se));  // +∞ and −∞ among the values
  EXPECT_GT(percentile[6].hi, 0.9);           // the endpoints stay finite
  EXPECT_LT(percentile[6].lo, 0.1);
}
