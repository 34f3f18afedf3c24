// Bootstrap driver (memory-bounded chunks on a backend) and docs/statistics.md §2's intervals.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "distributed/rank_replicates.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/records.hpp"
#include "judgestat/replicate_summary.hpp"
#include "support/quantile.hpp"

namespace judgestat {

CiMethod parse_ci_method(const std::string& name) {
  if (name == "percentile") return CiMethod::kPercentile;
  if (name == "basic") return CiMethod::kBasic;
  if (name == "bca") return CiMethod::kBca;
  throw std::invalid_argument("ci: expected percentile, basic or bca, got '" + name + "'");
}

std::string to_string(CiMethod method) {
  switch (method) {
    case CiMethod::kPercentile:
      return "percentile";
    case CiMethod::kBasic:
      return "basic";
    case CiMethod::kBca:
      return "bca";
  }
  return "?";
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) {
    if (p == 0.0) return -std::numeric_limits<double>::infinity();
    if (p == 1.0) return std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  // Acklam's rational approximation (relative error 1.15e-9), then two Newton steps on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  for (int step = 0; step < 2; ++step) {
    const double e = normal_cdf(x) - p;
    const double density = std::exp(-0.5 * x * x) / 2.5066282746310002;
    x -= e / density;
  }
  return x;
}

double quantile_type7(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (!(q >= 0.0 && q <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  const double h = (static_cast<double>(sorted.size()) - 1.0) * q;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return type7_between(sorted[lo], sorted[hi], h - static_cast<double>(lo));
}

std::vector<JackknifeValues> jackknife(const CompiledPlan& plan) {
  const int32_t K = plan.n_columns, S = plan.n_statistics;
  std::vector<double> extras = point_extras(plan);
  extras.push_back(0.0);
  std::vector<int32_t> ones(plan.n_clusters, 1);
  std::vector<JackknifeValues> out(S, JackknifeValues(plan.n_strata()));
  std::vector<int64_t> sums(K);
  // One pass over the clusters: each leave-one-out's sums and rank terms serve every statistic.
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1]; ++c) {
      for (int32_t k = 0; k < K; ++k) sums[k] = plan.totals[k] - plan.cluster_sums[c * K + k];
      ones[c] = 0;  // leave cluster c out of the rank terms too
      for (int32_t t = 0; t < plan.n_rank_terms; ++t)
        extras[plan.n_normals + t] =
            static_cast<double>(rank_term_2u(plan.rank_offset.data(), plan.rank_cluster.data(),
                                             plan.rank_positive.data(), plan.rank_tie_start.data(), t, ones.data()));
      ones[c] = 1;
      for (int32_t s = 0; s < S; ++s)
        out[s][h].push_back(evaluate(plan.ops.data() + plan.op_offset[s], plan.op_offset[s + 1] - plan.op_offset[s],
                                     sums.data(), plan.column_unscale.data(), extras.data()));
    }
  }
  return out;
}

namespace {

// scipy's acceleration: per stratum ("sample") U = (n - 1)(mean - theta_i), summed over strata.
// Undefined leave-one-out values (the cluster held all of a statistic's units) are skipped.
double bca_acceleration(const JackknifeValues& jack) {
  double num = 0, den = 0;
  for (const auto& values : jack) {
    std::vector<double> defined;
    for (double v : values)
      if (!std::isnan(v)) defined.push_back(v);
    const double n = static_cast<double>(defined.size());
    if (defined.size() < 2) continue;
    double mean = 0;
    for (double v : defined) mean += v;
    mean /= n;
    double u2 = 0, u3 = 0;
    for (double v : defined) {
      const double u = (n - 1) * (mean - v);
      u2 += u * u;
      u3 += u * u * u;
    }
    num += u3 / (n * n * n);
    den += u2 / (n * n);
  }
  return num / 6.0 / std::pow(den, 1.5);
}

// docs/statistics.md §7.3's test-inversion p from the facts counted against 0.
double bootstrap_p(const ReplicateFacts& at_zero) {
  if (at_zero.defined == 0) return std::numeric_limits<double>::quiet_NaN();
  const uint64_t at_or_below = at_zero.at_or_below, at_or_above = at_zero.defined - at_zero.below;
  const double tail = static_cast<double>(std::min(at_or_below, at_or_above)) + 1.0;
  return std::min(1.0, 2.0 * tail / (static_cast<double>(at_zero.defined) + 1.0));
}

// Every interval's p from the replicates where they are kept (one more facts() call, so every
// backend, and every rank, gets the same bits).
void fill_bootstrap_p(KeptReplicates& kept, std::vector<Interval>& intervals) {
  const std::vector<ReplicateFacts> at_zero = kept.facts(std::vector<double>(intervals.size(), 0.0));
  for (size_t s = 0; s < intervals.size(); ++s) intervals[s].p = bootstrap_p(at_zero[s]);
}

// perm_p of the statistics with a sign-flip test: (1 + exceedances) / (1 + B).
void fill_permutation_p(Backend& backend, const CompiledPlan& plan, uint64_t seed, uint64_t B,
                        std::vector<Interval>& intervals) {
  if (plan.sign_flip_tests.empty()) return;
  const std::vector<uint64_t> exceed = distributed::count_sign_flip_exceedances_everywhere(backend, plan, seed, B);
  for (size_t t = 0; t < plan.sign_flip_tests.size(); ++t)
    intervals.at(plan.sign_flip_tests[t].statistic).perm_p =
        (1.0 + static_cast<double>(exceed[t])) / (1.0 + static_cast<double>(B));
}

// The non-NaN entries' indices by ascending p (stable: ties keep input order).
std::vector<size_t> defined_by_p(const std::vector<double>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<double> out(p.size(), std::numeric_limits<double>::quiet_NaN());
  const std::vector<size_t> order = defined_by_p(p);
  const double m = static_cast<double>(order.size());
  double running_max = 0;
  for (size_t j = 0; j < order.size(); ++j) {
    running_max = std::max(running_max, std::min(1.0, (m - static_cast<double>(j)) * p[order[j]]));
    out[order[j]] = running_max;
  }
  return out;
}

std::vector<double> bh_adjust(const std::vector<double>& p) {
  std::vector<double> out(p.size(), std::numeric_limits<double>::quiet_NaN());
  const std::vector<size_t> order = defined_by_p(p);
  const double m = static_cast<double>(order.size());
  double running_min = 1.0;
  for (size_t j = order.size(); j-- > 0;) {
    running_min = std::min(running_min, m * p[order[j]] / static_cast<double>(j + 1));
    out[order[j]] = running_min;
  }
  return out;
}

std::vector<Interval> intervals_from(KeptReplicates& kept, uint64_t B, const std::vector<double>& estimates,
                                     CiMethod method, double level, const std::vector<JackknifeValues>* jack) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto S = static_cast<int32_t>(estimates.size());
  if (method == CiMethod::kBca && (!jack || jack->size() != estimates.size()))
    throw std::logic_error("intervals_from: BCa needs every statistic's jackknife values");
  const std::vector<ReplicateFacts> facts = kept.facts(estimates);
  std::vector<Interval> out(S);
  // Each endpoint is a type-7 quantile: the order statistics at floor(h) and the next,
  // h = (defined - 1) q, interpolated by h's fraction; none when q is not a level (BCa's can
  // fail to be).
  struct Endpoint {
    int32_t statistic;
    bool upper;
    double fraction;
  };
  std::vector<Endpoint> endpoints;
  std::vector<OrderStatisticQuery> queries;
  for (int32_t s = 0; s < S; ++s) {
    const ReplicateFacts& f = facts[s];
    Interval& interval = out[s];
    interval.estimate = estimates[s];
    interval.undefined = static_cast<int64_t>(B - f.defined);
    interval.lo = interval.hi = interval.se = nan;
    if (f.defined < 2) continue;
    const auto n = static_cast<double>(f.defined);
    interval.se = canonical_nan(std::sqrt(f.sum_squares / (n - 1)));

    const double alpha = 1.0 - level;
    double q[2] = {alpha / 2, 1 - alpha / 2};
    if (method == CiMethod::kBca) {
      if (std::isnan(estimates[s])) continue;
      // z0 from the share of replicates below the estimate, ties counted half (scipy's
      // percentile-of-score 'mean' kind, which is the plain share when nothing ties).
      const double share = (static_cast<double>(f.below) + static_cast<double>(f.at_or_below)) / (2.0 * n);
      const double z0 = normal_quantile(share);
      const double a = bca_acceleration((*jack)[s]);
      const double z_lo = normal_quantile(alpha / 2), z_hi = -z_lo;
      q[0] = normal_cdf(z0 + (z0 + z_lo) / (1 - a * (z0 + z_lo)));
      q[1] = normal_cdf(z0 + (z0 + z_hi) / (1 - a * (z0 + z_hi)));
    }
    for (int upper = 0; upper < 2; ++upper) {
      if (!(q[upper] >= 0.0 && q[upper] <= 1.0)) continue;
      const double h = (n - 1.0) * q[upper];
      const double rank = std::floor(h);
      endpoints.push_back({s, upper == 1, h - rank});
      queries.push_back({s, static_cast<uint64_t>(rank)});
    }
  }
  const std::vector<std::pair<double, double>> pairs = kept.order_statistics(queries);
  std::vector<double> quantile(2 * size_t(S), nan);
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const auto [at, next] = pairs[i];
    quantile[2 * endpoints[i].statistic + endpoints[i].upper] = at + endpoints[i].fraction * (next - at);
  }
  for (int32_t s = 0; s < S; ++s) {
    const double p_lo = quantile[2 * s], p_hi = quantile[2 * s + 1];
    if (method == CiMethod::kBasic) {
      out[s].lo = 2 * estimates[s] - p_hi;
      out[s].hi = 2 * estimates[s] - p_lo;
    } else {
      out[s].lo = p_lo;
      out[s].hi = p_hi;
    }
  }
  return out;
}

Interval summarize(double estimate, std::vector<double> values, CiMethod method, double level,
                   const JackknifeValues* jack) {
  if (method == CiMethod::kBca && !jack) throw std::logic_error("summarize: BCa needs jackknife values");
  const std::vector<JackknifeValues> jacks =
      jack ? std::vector<JackknifeValues>{*jack} : std::vector<JackknifeValues>{};
  const auto kept = host_kept_replicates(values.data(), values.size(), 1);
  std::vector<Interval> interval =
      intervals_from(*kept, values.size(), {estimate}, method, level, jack ? &jacks : nullptr);
  fill_bootstrap_p(*kept, interval);
  return interval[0];
}

BootstrapResult run_bootstrap(const Plan& plan, Backend& backend, const BootstrapOptions& options) {
  std::vector<StatLabel> labels;
  for (const auto& stat : plan.statistics) labels.push_back(stat.label);
  return run_bootstrap(compile(plan), labels, backend, options);
}

BootstrapResult run_bootstrap(const CompiledPlan& plan, const std::vector<StatLabel>& labels, Backend& backend,
                              const BootstrapOptions& options) {
  if (options.replicates < 2) throw std::invalid_argument("replicates: need at least 2");
  if (options.replicates > (1ull << 32))
    throw std::invalid_argument("replicates: at most 2^32 (replicate numbers are 32-bit in docs/statistics.md §2)");
  if (!(options.level > 0 && options.level < 1)) throw std::invalid_argument("level: expected 0 < level < 1");
  const int32_t S = plan.n_statistics;
  const uint64_t B = options.replicates;
  BootstrapResult result;
  result.labels = labels;
  result.backend = backend.name();
  result.device = backend.device();
  result.n_clusters = plan.n_clusters;

  // The engine runs them (on one backend, or a share per MPI rank) and keeps them where they
  // were made; the summaries below are the same on every rank.
  const auto start = std::chrono::steady_clock::now();
  distributed::KeptRun run = distributed::run_replicates_kept_everywhere(backend, plan, options.seed, B,
                                                                         options.keep_replicates, [&](uint64_t done) {
                                                                           if (options.progress)
                                                                             options.progress(done, B);
                                                                         });
  result.resample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.replicates_run = B;

  const auto summary_start = std::chrono::steady_clock::now();
  std::vector<double> extras = point_extras(plan);
  extras.push_back(0.0);
  std::vector<double> estimates(S);
  for (int32_t s = 0; s < S; ++s)
    estimates[s] = evaluate(plan.ops.data() + plan.op_offset[s], plan.op_offset[s + 1] - plan.op_offset[s],
                            plan.totals.data(), plan.column_unscale.data(), extras.data());
  const std::vector<JackknifeValues> jack =
      options.ci == CiMethod::kBca ? jackknife(plan) : std::vector<JackknifeValues>{};
  result.intervals = intervals_from(*run.kept, B, estimates, options.ci, options.level, &jack);
  fill_bootstrap_p(*run.kept, result.intervals);
  result.summary_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - summary_start).count();
  run.kept.reset();  // it reads run.values, which move next

  // The sign flips are resampling too: on the backend (a share per rank), counted in resample_s.
  const auto flips_start = std::chrono::steady_clock::now();
  fill_permutation_p(backend, plan, options.seed, B, result.intervals);
  result.resample_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - flips_start).count();
  result.replicates = std::move(run.values);
  return result;
}

}  // namespace judgestat
