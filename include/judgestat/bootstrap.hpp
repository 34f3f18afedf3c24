// Clustered bootstrap of a plan on a backend, and the intervals of docs/statistics.md §2: the result a user
// expects (estimate, CI, SE, undefined count; the replicate distribution on request).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"

namespace judgestat {

/// docs/statistics.md §2's interval methods: kT is the jackknife-SE interval with t(C − H) tails
/// (no replicates needed), kStudentized the cluster bootstrap-t of ratios and differences of two
/// ratios (null with a note for other statistics).
enum class CiMethod { kPercentile, kBasic, kBca, kT, kStudentized };
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

/// The most replicates a run may ask for: replicate numbers are 32-bit Philox counters
/// (docs/statistics.md §2).
inline constexpr uint64_t kMaxReplicates = 1ull << 32;
/// std::invalid_argument naming the field ("replicates: …", "level: …") for options no bootstrap
/// can run: fewer than 2 or more than kMaxReplicates replicates, a level outside (0, 1). The
/// one check of these options: run_bootstrap calls it, and so do callers that check early.
void validate_bootstrap_options(const BootstrapOptions& options);

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
  /// Clusters the statistic was resampled over (its strata's; all of them for a domain
  /// estimate) and the strata among them: the t interval's df is clusters − strata.
  int64_t clusters = 0;
  int32_t strata = 0;
  /// Distinct defined replicate values (−0 = +0); few of them make a quantile interval coarse.
  int64_t distinct = 0;
  /// Coefficient of variation of the statistic's cluster sizes (its denominator's per-cluster
  /// sums over the clusters it has units in) for ratios and differences of two ratios; NaN else.
  double size_cv = std::numeric_limits<double>::quiet_NaN();
  /// Why the interval is null when the method does not apply (studentized: not a ratio).
  std::string note;
  /// undefined / replicates run (0 … 1; NaN when none ran): reported beside the interval, with a
  /// note above kMaxUndefinedShareForP (interval_warnings).
  double undefined_share = std::numeric_limits<double>::quiet_NaN();
  /// A `t` or `studentized` end of a bounded statistic (statistic_range) was moved onto its range:
  /// the estimate sits at a bound, where the transformed scale has no room (docs/statistics.md §2).
  bool clipped = false;
};

/// The values a statistic can take, known from its name (StatLabel::name, and `of` for diff
/// rows): proportions and rates in [0, 1], correlations, agreement coefficients and differences of
/// two proportions in [−1, 1]; anything else unbounded. `t` and `studentized` intervals of a
/// bounded statistic are computed on the logit (kUnit) or Fisher-z (kSigned) scale and mapped back.
enum class StatisticRange { kUnbounded, kUnit, kSigned };
StatisticRange statistic_range(const StatLabel& label);

/// The pivot interval [θ̂ − upper·SE, θ̂ − lower·SE] (t: upper = −lower = t quantile; studentized:
/// the t* quantiles at 1 − α/2 and α/2) of interval.estimate. Bounded statistics: computed as
/// g⁻¹(g(θ̂) − upper·SE·g′(θ̂)) … with g = logit or atanh (the delta method's SE on that scale), so
/// the ends stay inside the range; an estimate on a bound (no transformed scale) keeps the
/// original-scale ends clipped to the range, `clipped` set when an end moved. NaN ends when SE,
/// θ̂ or a pivot is not finite.
void set_pivot_interval(Interval& interval, StatisticRange range, double se, double upper, double lower);

struct BootstrapResult {
  std::vector<StatLabel> labels;
  std::vector<Interval> intervals;
  std::vector<double> replicates;  // B x S, replicate-major, when keep_replicates
  double resample_s = 0;           // running the replicates (and gathering them under MPI)
  double summary_s = 0;            // intervals from the replicates (quantile selection, SE, BCa)
  uint64_t replicates_run = 0;
  uint64_t seed = 0;  // the run's (BootstrapOptions::seed)
  int64_t n_clusters = 0;
  std::string backend, device;
  CiMethod ci = CiMethod::kPercentile;
  double level = 0.95;
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

/// docs/statistics.md §2's stratified leave-one-cluster-out jackknife SE:
/// SE_J² = Σ_h ((n_h − 1)/n_h) Σ_c (θ_(−c) − θ̄_h)² over each stratum's n_h defined leave-outs.
double jackknife_se(const JackknifeValues& jack);

/// The clusters and strata a statistic depends on: the strata in which a column its program
/// reads (or a rank term it uses) is non-zero in some cluster, and their clusters. A statistic of
/// constants only spans every stratum.
struct StatisticSupport {
  int64_t clusters = 0;
  int32_t strata = 0;
  double size_cv = std::numeric_limits<double>::quiet_NaN();  // Interval::size_cv
};
std::vector<StatisticSupport> statistic_support(const CompiledPlan& compiled);

/// Student's t distribution with df > 0 degrees of freedom: CDF by the regularised incomplete
/// beta function (continued fraction), quantile by bisection then Newton on it (≈1e-15).
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);
/// The regularised incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double incomplete_beta(double x, double a, double b);

/// docs/statistics.md §2 intervals of every statistic from its B replicate values, wherever they are kept
/// (host memory, a device): estimates[s] is statistic s's point estimate; `jack` (one entry per
/// statistic) is needed for BCa and t, `support` for t (its df; without it, one stratum of
/// jackknife-counted clusters per statistic). kStudentized needs the augmented plan that
/// run_bootstrap builds (host/intervals/studentized.hpp): here it gives null intervals.
/// `ranges` (one per statistic; none: all unbounded) are the statistics' ranges for kT.
std::vector<Interval> intervals_from(KeptReplicates& kept, uint64_t B, const std::vector<double>& estimates,
                                     CiMethod method, double level, const std::vector<JackknifeValues>* jack = nullptr,
                                     const std::vector<StatisticSupport>* support = nullptr,
                                     const std::vector<StatisticRange>* ranges = nullptr);

/// The t interval θ̂ ± t_(1−α/2, df) · SE_J (on the range's scale: set_pivot_interval); null (NaN)
/// when df < 1 or SE_J is undefined.
void t_interval(Interval& interval, const JackknifeValues& jack, int64_t df, double level,
                StatisticRange range = StatisticRange::kUnbounded);

/// docs/statistics.md §2 interval from the replicate values of one statistic (NaN = undefined).
/// `jack` is needed for BCa only.
Interval summarize(double estimate, std::vector<double> values, CiMethod method, double level,
                   const JackknifeValues* jack = nullptr);

/// docs/statistics.md §7.3: a row's bootstrap p is withheld (NaN) where its replicates cannot
/// support it: the statistic's strata hold one cluster each (every replicate repeats the data),
/// more than kMaxUndefinedShareForP of the replicates are undefined (the defined ones are then a
/// selected subset), or the row has no interval (both ends null) for a reason other than the
/// method not applying to it (Interval::note).
inline constexpr double kMaxUndefinedShareForP = 0.05;
/// Why the row's p is withheld ("" when it stands), for a run of `replicates` replicates. Rows
/// whose cluster count is unknown (0) are judged on the other two rules.
std::string p_withheld_reason(const Interval& interval, uint64_t replicates);
/// Sets p to NaN on every row with a p_withheld_reason.
void withhold_unsupported_p(std::vector<Interval>& intervals, uint64_t replicates);

/// docs/statistics.md §2's thresholds for reading intervals: warn below kFewClusters clusters,
/// strongly below kStronglyFewClusters; flag intervals whose replicates take fewer than
/// kFewDistinct values; note cluster sizes whose coefficient of variation reaches kUnequalSizesCv.
inline constexpr int64_t kFewClusters = 50, kStronglyFewClusters = 20, kFewDistinct = 20;
inline constexpr double kUnequalSizesCv = 0.5;

/// Whether the interval is read off replicates that take fewer than kFewDistinct values (never
/// for kT, which does not read them): such an interval is coarse.
bool few_distinct_values(const Interval& interval, CiMethod method);

/// Where coverage was measured: the mean coverage (%) bench/RESULTS.md's simulation found for
/// this method at exactly this many clusters and level 0.95; nothing elsewhere.
std::optional<double> measured_coverage(CiMethod method, int64_t clusters, double level);

/// What a result's intervals cannot promise, found by interval_warnings (the rules of
/// docs/statistics.md §2 and §7.3), in the order a report lists them.
enum class IntervalWarningKind {
  kVeryFewClusters,      // some statistic is resampled over fewer than kStronglyFewClusters clusters
  kFewClusters,          // ... over fewer than kFewClusters (and none under kStronglyFewClusters)
  kUnequalClusterSizes,  // ratios whose cluster sizes vary with CV ≥ kUnequalSizesCv
  kCoarseIntervals,      // few distinct replicate values, or both ends equal
  kNoCoverageGuarantee,  // ece: biased upward in small samples, rarely covered near 0
  kMethodNotApplicable,  // the method gives these statistics no interval (Interval::note)
  kPWithheld,            // diff rows whose p is withheld, one warning per p_withheld_reason
  kManyUndefined,        // rows with more than kMaxUndefinedShareForP of their replicates undefined
  kClippedToRange,       // t/studentized rows of a bounded statistic whose estimate is on a bound
};

struct IntervalWarning {
  IntervalWarningKind kind = IntervalWarningKind::kFewClusters;
  CiMethod method = CiMethod::kPercentile;  // the run's
  /// The rule's bound: clusters (kStronglyFewClusters, kFewClusters), a CV (kUnequalSizesCv),
  /// distinct values (kFewDistinct); 0 for rules without one.
  double threshold = 0;
  /// What crossed it: the fewest clusters, the largest CV; NaN for rules without one.
  double observed = std::numeric_limits<double>::quiet_NaN();
  /// Methods that hold better here, best first; empty where the run's method is already one.
  std::vector<CiMethod> suggested_methods;
  /// Few clusters: the coverage measured for the run's method at `observed` clusters and its
  /// level (measured_coverage), absent where none was measured.
  std::optional<double> measured_coverage;
  /// The statistics concerned (names, first appearance, once each); kPWithheld: the statistics
  /// the diff rows difference (StatLabel::of). Empty for the few-clusters kinds.
  std::vector<std::string> statistics;
  std::string reason;  // kPWithheld: p_withheld_reason
};
// kManyUndefined: threshold = kMaxUndefinedShareForP, observed = the largest undefined share,
// statistics = the rows' names. kClippedToRange: statistics = the clipped rows' names.

/// The warnings a report of `result` must carry, in kind order.
std::vector<IntervalWarning> interval_warnings(const BootstrapResult& result);

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
