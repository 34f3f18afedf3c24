// Bootstrap driver (memory-bounded chunks on a backend) and docs/statistics.md §2's intervals.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "distributed/rank_replicates.hpp"
#include "intervals/studentized.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/records.hpp"
#include "judgestat/replicate_summary.hpp"
#include "support/quantile.hpp"

namespace judgestat {

CiMethod parse_ci_method(const std::string& name) {
  if (name == "percentile") return CiMethod::kPercentile;
  if (name == "basic") return CiMethod::kBasic;
  if (name == "bca") return CiMethod::kBca;
  if (name == "t") return CiMethod::kT;
  if (name == "studentized") return CiMethod::kStudentized;
  throw std::invalid_argument("ci: expected percentile, basic, bca, t or studentized, got '" + name + "'");
}

std::string to_string(CiMethod method) {
  switch (method) {
    case CiMethod::kPercentile:
      return "percentile";
    case CiMethod::kBasic:
      return "basic";
    case CiMethod::kBca:
      return "bca";
    case CiMethod::kT:
      return "t";
    case CiMethod::kStudentized:
      return "studentized";
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

double jackknife_se(const JackknifeValues& jack) {
  double variance = 0;
  bool any = false;
  for (const auto& values : jack) {
    double n = 0, mean = 0;
    for (double v : values)
      if (!std::isnan(v)) n += 1, mean += v;
    if (n < 2) continue;
    mean /= n;
    double squares = 0;
    for (double v : values)
      if (!std::isnan(v)) squares += (v - mean) * (v - mean);
    variance += (n - 1) / n * squares;
    any = true;
  }
  return any ? std::sqrt(variance) : std::numeric_limits<double>::quiet_NaN();
}

void t_interval(Interval& interval, const JackknifeValues& jack, int64_t df, double level, StatisticRange range) {
  interval.lo = interval.hi = std::numeric_limits<double>::quiet_NaN();
  if (df < 1) return;
  const double q = student_t_quantile(1 - (1 - level) / 2, static_cast<double>(df));
  set_pivot_interval(interval, range, jackknife_se(jack), q, -q);
}

namespace {

// Whether statistic s reads something non-zero in stratum h: a column's cluster sum or a rank
// term's entry.
std::vector<uint8_t> strata_used(const CompiledPlan& plan, int32_t s) {
  std::vector<uint8_t> used(plan.n_strata(), 0);
  std::vector<int32_t> stratum_of(plan.n_clusters);
  for (int32_t h = 0; h < plan.n_strata(); ++h)
    for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1]; ++c) stratum_of[c] = h;
  for (int32_t i = plan.op_offset[s]; i < plan.op_offset[s + 1]; ++i) {
    const Op op = plan.ops[i];
    if (op.code == OpCode::kColumn) {
      for (int64_t c = 0; c < plan.n_clusters; ++c)
        if (plan.cluster_sums[c * plan.n_columns + op.arg] != 0) used[stratum_of[c]] = 1;
    } else if (op.code == OpCode::kRank) {
      const int32_t t = op.arg - plan.n_normals;
      for (int64_t e = plan.rank_offset[t]; e < plan.rank_offset[t + 1]; ++e)
        used[stratum_of[plan.rank_cluster[e]]] = 1;
    }
  }
  if (std::none_of(used.begin(), used.end(), [](uint8_t u) { return u; })) used.assign(used.size(), 1);
  return used;
}

// Coefficient of variation (ddof 0) of the positive denominator sums over the used strata.
double cluster_size_cv(const CompiledPlan& plan, int32_t den, const std::vector<uint8_t>& used) {
  double n = 0, sum = 0, squares = 0;
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    if (!used[h]) continue;
    for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1]; ++c) {
      const double b = static_cast<double>(plan.cluster_sums[c * plan.n_columns + den]) * plan.column_unscale[den];
      if (b == 0) continue;
      n += 1, sum += b, squares += b * b;
    }
  }
  if (n < 1 || sum == 0) return std::numeric_limits<double>::quiet_NaN();
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, squares / n - mean * mean)) / std::fabs(mean);
}

}  // namespace

std::vector<StatisticSupport> statistic_support(const CompiledPlan& plan) {
  std::vector<StatisticSupport> out(plan.n_statistics);
  for (int32_t s = 0; s < plan.n_statistics; ++s) {
    const std::vector<uint8_t> used = strata_used(plan, s);
    for (int32_t h = 0; h < plan.n_strata(); ++h) {
      if (!used[h]) continue;
      out[s].clusters += plan.stratum_offset[h + 1] - plan.stratum_offset[h];
      ++out[s].strata;
    }
    if (const std::optional<RatioForm> form = ratio_form(plan, s))
      out[s].size_cv = cluster_size_cv(plan, form->den[0], used);
  }
  return out;
}

namespace {

// Distinct values by bisecting the ranks of each statistic's sorted defined values: a range
// whose end values are equal holds one value; otherwise the middle pair splits it.
struct RankRange {
  int32_t statistic;
  uint64_t first, last;
  double at_first, at_last;
};

}  // namespace

std::vector<uint64_t> KeptReplicates::distinct_counts(const std::vector<uint64_t>& defined) {
  std::vector<uint64_t> out(defined.size(), 0);
  std::vector<OrderStatisticQuery> queries;
  for (size_t s = 0; s < defined.size(); ++s)
    if (defined[s] > 0) {
      queries.push_back({static_cast<int32_t>(s), 0});
      queries.push_back({static_cast<int32_t>(s), defined[s] - 1});
    }
  if (queries.empty()) return out;
  const std::vector<std::pair<double, double>> ends = order_statistics(queries);
  std::vector<RankRange> open;
  for (size_t q = 0; q < queries.size(); q += 2) {
    const int32_t s = queries[q].statistic;
    out[s] = 1;
    if (ends[q].first != ends[q + 1].first) open.push_back({s, 0, defined[s] - 1, ends[q].first, ends[q + 1].first});
  }
  // Invariant: each open range has different end values; its count of value changes is added.
  while (!open.empty()) {
    std::vector<RankRange> next;
    queries.clear();
    for (const RankRange& r : open) {
      if (r.last == r.first + 1) {
        ++out[r.statistic];
        continue;
      }
      queries.push_back({r.statistic, r.first + (r.last - r.first) / 2});
      next.push_back(r);
    }
    if (queries.empty()) break;
    const std::vector<std::pair<double, double>> middle = order_statistics(queries);
    open.clear();
    for (size_t q = 0; q < next.size(); ++q) {
      const RankRange& r = next[q];
      const uint64_t m = queries[q].rank;
      const auto [at, after] = middle[q];
      if (at != r.at_first) open.push_back({r.statistic, r.first, m, r.at_first, at});
      if (after != at) ++out[r.statistic];
      if (m + 1 < r.last && after != r.at_last) open.push_back({r.statistic, m + 1, r.last, after, r.at_last});
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

}  // namespace

std::string p_withheld_reason(const Interval& interval, uint64_t replicates) {
  if (interval.clusters > 0 && interval.clusters <= std::max<int64_t>(interval.strata, 1))
    return "one cluster per stratum";
  if (static_cast<double>(interval.undefined) > kMaxUndefinedShareForP * static_cast<double>(replicates))
    return "more than 5% of replicates undefined";
  if (!std::isfinite(interval.lo) && !std::isfinite(interval.hi) && interval.note.empty()) return "no interval";
  return "";
}

void withhold_unsupported_p(std::vector<Interval>& intervals, uint64_t replicates) {
  for (Interval& interval : intervals)
    if (!p_withheld_reason(interval, replicates).empty()) interval.p = std::numeric_limits<double>::quiet_NaN();
}

namespace {

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
                                     CiMethod method, double level, const std::vector<JackknifeValues>* jack,
                                     const std::vector<StatisticSupport>* support,
                                     const std::vector<StatisticRange>* ranges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto S = static_cast<int32_t>(estimates.size());
  if ((method == CiMethod::kBca || method == CiMethod::kT) && (!jack || jack->size() != estimates.size()))
    throw std::logic_error("intervals_from: BCa and t need every statistic's jackknife values");
  if (support && support->size() != estimates.size())
    throw std::logic_error("intervals_from: one support per statistic");
  if (ranges && ranges->size() != estimates.size()) throw std::logic_error("intervals_from: one range per statistic");
  auto t_for = [&](int32_t s, Interval& interval) {
    t_interval(interval, (*jack)[s], interval.clusters - interval.strata, level,
               ranges ? (*ranges)[s] : StatisticRange::kUnbounded);
  };
  const std::vector<ReplicateFacts> facts = kept.facts(estimates);
  std::vector<Interval> out(S);
  for (int32_t s = 0; s < S; ++s) {
    if (support) {
      out[s].clusters = (*support)[s].clusters;
      out[s].strata = (*support)[s].strata;
      out[s].size_cv = (*support)[s].size_cv;
    } else if (jack && !jack->empty()) {
      for (const auto& stratum : (*jack)[s]) out[s].clusters += static_cast<int64_t>(stratum.size());
      out[s].strata = static_cast<int32_t>((*jack)[s].size());
    }
  }
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
    interval.undefined_share = B ? static_cast<double>(interval.undefined) / static_cast<double>(B) : nan;
    interval.lo = interval.hi = interval.se = nan;
    if (f.defined < 2) {
      if (method == CiMethod::kT) t_for(s, interval);
      continue;
    }
    const auto n = static_cast<double>(f.defined);
    interval.se = canonical_nan(std::sqrt(f.sum_squares / (n - 1)));

    if (method == CiMethod::kT || method == CiMethod::kStudentized) {
      if (method == CiMethod::kT) t_for(s, interval);
      continue;
    }
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
    if (method == CiMethod::kT || method == CiMethod::kStudentized) continue;
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
  if ((method == CiMethod::kBca || method == CiMethod::kT) && !jack)
    throw std::logic_error("summarize: BCa and t need jackknife values");
  const std::vector<JackknifeValues> jacks =
      jack ? std::vector<JackknifeValues>{*jack} : std::vector<JackknifeValues>{};
  const auto kept = host_kept_replicates(values.data(), values.size(), 1);
  std::vector<Interval> interval =
      intervals_from(*kept, values.size(), {estimate}, method, level, jack ? &jacks : nullptr);
  fill_bootstrap_p(*kept, interval);
  withhold_unsupported_p(interval, values.size());
  return interval[0];
}

namespace {

// Statistic s's point estimate on the original data (every multiplicity 1).
std::vector<double> estimates_on_original(const CompiledPlan& plan) {
  std::vector<double> extras = point_extras(plan);
  extras.push_back(0.0);
  std::vector<double> estimates(plan.n_statistics);
  for (int32_t s = 0; s < plan.n_statistics; ++s)
    estimates[s] = evaluate(plan.ops.data() + plan.op_offset[s], plan.op_offset[s + 1] - plan.op_offset[s],
                            plan.totals.data(), plan.column_unscale.data(), extras.data());
  return estimates;
}

// The first S of every replicate's S_all values.
std::vector<double> first_statistics(const std::vector<double>& values, uint64_t B, int32_t S_all, int32_t S) {
  std::vector<double> out(B * S);
  for (uint64_t r = 0; r < B; ++r) std::copy_n(values.begin() + r * S_all, S, out.begin() + r * S);
  return out;
}

// Every row's count of distinct defined replicate values (docs/statistics.md §2), where the
// replicates are kept.
void fill_distinct(KeptReplicates& kept, uint64_t B, std::vector<Interval>& intervals) {
  std::vector<uint64_t> defined;
  for (const Interval& interval : intervals) defined.push_back(B - static_cast<uint64_t>(interval.undefined));
  const std::vector<uint64_t> distinct = kept.distinct_counts(defined);
  for (size_t s = 0; s < intervals.size(); ++s) intervals[s].distinct = static_cast<int64_t>(distinct[s]);
}

// t*·|t*| back to t*: the order is the same, so order statistics map one to one.
double signed_root(double v) { return v < 0 ? -std::sqrt(-v) : std::sqrt(v); }

// docs/statistics.md §2's bootstrap-t endpoints [θ̂ − q*_(1−α/2) SE, θ̂ − q*_(α/2) SE] of every
// studentised statistic from its t*·|t*| replicates; the others get a null interval and a note.
void fill_studentized(KeptReplicates& kept, const StudentizedPlan& studentized, uint64_t B, double level,
                      const std::vector<StatisticRange>& ranges, std::vector<Interval>& intervals) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), alpha = 1 - level;
  std::vector<OrderStatisticQuery> queries;
  std::vector<double> fractions;
  std::vector<int32_t> owners;
  for (size_t s = 0; s < studentized.t_statistic.size(); ++s) {
    Interval& interval = intervals[s];
    interval.lo = interval.hi = nan;
    const int32_t t = studentized.t_statistic[s];
    if (t < 0) {
      interval.note = "studentized applies to ratios and differences of two ratios only";
      continue;
    }
    const uint64_t defined = B - static_cast<uint64_t>(intervals[t].undefined);
    interval.undefined = intervals[t].undefined;
    interval.undefined_share = intervals[t].undefined_share;
    if (defined < 2 || !std::isfinite(studentized.se[s])) continue;
    for (double q : {alpha / 2, 1 - alpha / 2}) {
      const double h = (static_cast<double>(defined) - 1.0) * q;
      queries.push_back({t, static_cast<uint64_t>(std::floor(h))});
      fractions.push_back(h - std::floor(h));
    }
    owners.push_back(static_cast<int32_t>(s));
  }
  if (queries.empty()) return;
  const std::vector<std::pair<double, double>> pairs = kept.order_statistics(queries);
  for (size_t i = 0; i < owners.size(); ++i) {
    Interval& interval = intervals[owners[i]];
    double q[2];
    for (int k = 0; k < 2; ++k) {
      const double at = signed_root(pairs[2 * i + k].first), next = signed_root(pairs[2 * i + k].second);
      q[k] = at + fractions[2 * i + k] * (next - at);
    }
    set_pivot_interval(interval, ranges[owners[i]], studentized.se[owners[i]], q[1], q[0]);
  }
}

}  // namespace

void validate_bootstrap_options(const BootstrapOptions& options) {
  if (options.replicates < 2) throw std::invalid_argument("replicates: need at least 2");
  if (options.replicates > kMaxReplicates)
    throw std::invalid_argument("replicates: at most 2^32 (replicate numbers are 32-bit in docs/statistics.md §2)");
  if (!(options.level > 0 && options.level < 1)) throw std::invalid_argument("level: expected 0 < level < 1");
}

BootstrapResult run_bootstrap(const Plan& plan, Backend& backend, const BootstrapOptions& options) {
  std::vector<StatLabel> labels;
  for (const auto& stat : plan.statistics) labels.push_back(stat.label);
  return run_bootstrap(compile(plan), labels, backend, options);
}

BootstrapResult run_bootstrap(const CompiledPlan& plan, const std::vector<StatLabel>& labels, Backend& backend,
                              const BootstrapOptions& options) {
  validate_bootstrap_options(options);
  const int32_t S = plan.n_statistics;
  const uint64_t B = options.replicates;
  BootstrapResult result;
  result.labels = labels;
  result.backend = backend.name();
  result.device = backend.device();
  result.n_clusters = plan.n_clusters;
  result.seed = options.seed;

  result.ci = options.ci;
  result.level = options.level;
  const std::vector<double> estimates = estimates_on_original(plan);
  // Studentized: the plan with the product columns and t*·|t*| statistics added.
  std::optional<StudentizedPlan> studentized;
  if (options.ci == CiMethod::kStudentized) studentized = studentize(plan, estimates);
  const CompiledPlan& run_plan = studentized ? studentized->plan : plan;

  // The engine runs them (on one backend, or a share per MPI rank) and keeps them where they
  // were made; the summaries below are the same on every rank.
  const auto start = std::chrono::steady_clock::now();
  distributed::KeptRun run = distributed::run_replicates_kept_everywhere(backend, run_plan, options.seed, B,
                                                                         options.keep_replicates, [&](uint64_t done) {
                                                                           if (options.progress)
                                                                             options.progress(done, B);
                                                                         });
  result.resample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.replicates_run = B;

  const auto summary_start = std::chrono::steady_clock::now();
  const std::vector<JackknifeValues> jack =
      options.ci == CiMethod::kBca || options.ci == CiMethod::kT ? jackknife(plan) : std::vector<JackknifeValues>{};
  std::vector<StatisticSupport> support = statistic_support(plan);
  // The studentised run's extra statistics are summarised too (their replicates are t*·|t*|),
  // then dropped; their estimates only serve as the counts' reference.
  std::vector<double> all_estimates = estimates;
  all_estimates.resize(run_plan.n_statistics, 0.0);
  support.resize(run_plan.n_statistics);
  std::vector<StatisticRange> ranges(run_plan.n_statistics, StatisticRange::kUnbounded);
  for (size_t s = 0; s < labels.size() && s < ranges.size(); ++s) ranges[s] = statistic_range(labels[s]);
  result.intervals = intervals_from(*run.kept, B, all_estimates, options.ci, options.level, &jack, &support, &ranges);
  fill_bootstrap_p(*run.kept, result.intervals);
  fill_distinct(*run.kept, B, result.intervals);
  if (studentized) fill_studentized(*run.kept, *studentized, B, options.level, ranges, result.intervals);
  result.intervals.resize(S);
  withhold_unsupported_p(result.intervals, B);
  result.summary_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - summary_start).count();
  run.kept.reset();  // it reads run.values, which move next
  if (run_plan.n_statistics != S && !run.values.empty())
    run.values = first_statistics(run.values, B, run_plan.n_statistics, S);

  // The sign flips are resampling too: on the backend (a share per rank), counted in resample_s.
  const auto flips_start = std::chrono::steady_clock::now();
  fill_permutation_p(backend, plan, options.seed, B, result.intervals);
  result.resample_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - flips_start).count();
  result.replicates = std::move(run.values);
  return result;
}

}  // namespace judgestat
