// Clustered bootstrap of a plan on a backend, and the intervals of docs/statistics.md §2: the result a user
// expects (estimate, CI, SE, undefined count; the replicate distribution on request).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"

namespace judgestat {

enum class CiMethod { kPercentile, kBasic, kBca };
CiMethod parse_ci_method(const std::string& name);  // UsageError on an unknown name
std::string to_string(CiMethod method);

struct BootstrapOptions {
  uint64_t replicates = 10000;
  uint64_t seed = 1;
  CiMethod ci = CiMethod::kPercentile;
  double level = 0.95;
  bool keep_replicates = false;  // return the B x S replicate values
  /// Called after each chunk with (replicates done, total); may print progress.
  std::function<void(uint64_t, uint64_t)> progress;
};

struct Interval {
  double estimate = 0, lo = 0, hi = 0, se = 0;
  int64_t undefined = 0;  // replicates whose value was undefined (left out of CI and SE)
  /// Two-sided bootstrap p-value of "the statistic is 0" by test inversion (docs/statistics.md
  /// §7.3): min(1, 2 (min(a, b) + 1) / (n + 1)), a = #replicates ≤ 0, b = #replicates ≥ 0,
  /// n = defined replicates; NaN when none is defined.
  double p = std::numeric_limits<double>::quiet_NaN();
  /// Cluster sign-flip permutation p-value (docs/statistics.md §7.3), (1 + #{|T_r| ≥ |T_obs|}) /
  /// (1 + R): for statistics with a Plan::sign_flip_tests entry, NaN for the others.
  double perm_p = std::numeric_limits<double>::quiet_NaN();
};

struct BootstrapResult {
  std::vector<StatLabel> labels;
  std::vector<Interval> intervals;
  std::vector<double> replicates;  // B x S, replicate-major, when keep_replicates
  double resample_s = 0;           // running the replicates (and gathering them under MPI)
  double summary_s = 0;            // intervals from the replicates (quantile selection, SE, BCa)
  uint64_t replicates_run = 0;
  int64_t n_clusters = 0;
  std::string backend, device;
};

/// Compiles the plan, runs options.replicates replicates in memory-bounded chunks on the
/// backend and summarises each statistic.
BootstrapResult run_bootstrap(const Plan& plan, Backend& backend, const BootstrapOptions& options);
BootstrapResult run_bootstrap(const CompiledPlan& compiled, const std::vector<StatLabel>& labels, Backend& backend,
                              const BootstrapOptions& options);

/// Quantile type 7 (numpy's linear) of sorted values, q in [0, 1].
double quantile_type7(const std::vector<double>& sorted, double q);

/// Jackknife values of one statistic: per stratum, the statistic with each cluster left out.
using JackknifeValues = std::vector<std::vector<double>>;
/// Every statistic's jackknife values, in statistic order.
std::vector<JackknifeValues> jackknife(const CompiledPlan& compiled);

/// docs/statistics.md §2 intervals of every statistic from its B replicate values, wherever they are kept
/// (host memory, a device): estimates[s] is statistic s's point estimate; `jack` (one entry per
/// statistic) is needed for BCa only.
std::vector<Interval> intervals_from(KeptReplicates& kept, uint64_t B, const std::vector<double>& estimates,
                                     CiMethod method, double level, const std::vector<JackknifeValues>* jack = nullptr);

/// docs/statistics.md §2 interval from the replicate values of one statistic (NaN = undefined).
/// `jack` is needed for BCa only.
Interval summarize(double estimate, std::vector<double> values, CiMethod method, double level,
                   const JackknifeValues* jack = nullptr);

/// Holm's step-down adjustment of p-values (R's p.adjust(p, "holm")): the i-th smallest of the m
/// non-NaN values becomes max over j ≤ i of min(1, (m − j + 1) p_(j)). NaN entries stay NaN and
/// do not count in m. Output in input order.
std::vector<double> holm_adjust(const std::vector<double>& p);
/// Benjamini–Hochberg's step-up adjustment (R's p.adjust(p, "BH")): the i-th smallest becomes min
/// over j ≥ i of min(1, m p_(j) / j). NaN entries as holm_adjust.
std::vector<double> bh_adjust(const std::vector<double>& p);

/// Standard normal CDF and its inverse (Acklam's rational start + Newton refinement).
double normal_cdf(double x);
double normal_quantile(double p);

}  // namespace judgestat
