// The confidence cascade as a library analysis (docs/statistics.md §3.3, §3.4; JEV §7–§9): F answers first and
// keeps the items it is confident on, the fallback S answers the rest. run_cascade sweeps the
// threshold grid (clustered CIs, the dollar-matched random baseline, the oracle), splits the
// clusters into a seeded selection part and a held-out part, chooses the point and lower-bound
// rules' thresholds on the selection part, scores them on the held-out part and fits a
// temperature to F's probabilities. Writers (JSON, tables, plots) live in the report room.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/budget.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "judgestat/rules.hpp"

namespace judgestat {

/// What run_cascade is asked. Invalid fields throw std::invalid_argument("field: …").
struct CascadeOptions {
  std::string first, fallback;            // judges: the first stage (needs probabilities), the fallback
  ThresholdGrid grid = default_grid();    // ascending thresholds; `all` is implied
  int gate_orders = 2;                    // 1: F's order 0; 2: all orders, probabilities averaged
  std::map<std::string, double> fee;      // judge → per-call fee (USD), replacing the file's fee_usd
  std::map<std::string, double> latency;  // judge → per-call latency (s), replacing the file's latency_s
  double select = 0.4;                    // share of clusters per benchmark choosing the threshold; 0 = sweep only
  double tol = 0.02;                      // tolerated accuracy loss of the rules
  double z = 1.645;                       // z of the lower-bound rule
  bool per_stratum = false;               // each stratum chooses its own threshold
  std::string strata = "benchmark";       // strata of per_stratum: benchmark or condition
  BootstrapOptions bootstrap;             // replicates, seed, ci, level, keep_replicates (the sweep's)
  /// (replicates done, total) over the sweep's and then the held-out part's bootstrap.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

/// Where one judge's fees (or latencies) come from: "--fee" / "--latency" (the per-call override),
/// "file", or "not given"; `missing` counts the calls the cascade reads without a value in the file.
struct ValueSource {
  std::string from = "not given";
  int64_t missing = 0;
};

/// Fees as plan columns: when every fee is a whole number of a decimal unit, fee / unit (exact).
struct FeeScale {
  double unit = 1.0;
  bool exact = false;
};

/// Indices into a BootstrapResult's statistics of one policy's statistics (−1 where not built).
struct PolicyStatistics {
  int32_t cascade_acc = -1, cascade_delta = -1, escalated = -1, errors_escalated = -1, fee_ratio = -1, random_acc = -1;
};

/// Latency quantiles (type 7) and mean over items, on the original data.
struct LatencySummary {
  double p50 = 0, p95 = 0, mean = 0;
};

/// One row of the selection-set trials (JEV Table 33): the items' exact sums at one grid
/// threshold, d_i = cascade_i(τ) − c2_i.
struct SelectionTrial {
  int64_t n = 0, accepted = 0, sum_2d = 0, sum_4d2 = 0;
  double mean_delta = NAN, lower_bound = NAN;  // rule_mean_delta / rule_lower_bound (NaN when n too small)
  bool point_passes = false, lower_passes = false;
};

/// A rule's outcome on the selection part: the chosen index per stratum (one entry when pooled).
struct RuleChoice {
  ThresholdRule rule = ThresholdRule::kLower;
  bool per_stratum = false;
  std::vector<int32_t> chosen;                      // per stratum (pool strata) or one pooled entry
  std::vector<std::vector<SelectionTrial>> trials;  // per stratum, or one pooled set
  std::vector<int64_t> labelled;                    // selection items per stratum (or pooled)
};

/// Temperature scaling of F's probabilities: fitted on the selection items, NLL before (the
/// probabilities as given) and after, on both parts.
struct TemperatureResult {
  double temperature = 1.0;
  int64_t selection_items = 0, heldout_items = 0;
  double selection_nll_before = NAN, selection_nll_after = NAN;
  double heldout_nll_before = NAN, heldout_nll_after = NAN;
};

/// The threshold sweep over the whole pool: every grid threshold, then `all`.
struct CascadeSweep {
  BootstrapResult result;                  // the JSON's `statistics`
  std::vector<PolicyStatistics> policies;  // per threshold, then `all`
  int32_t oracle_acc = -1;
  std::vector<LatencySummary> latencies;  // per policy
  LatencySummary first_latency, fallback_latency;
  double first_alone = NAN, fallback_alone = NAN, first_fee_ratio = NAN;  // accuracies; fee ratio NaN without fees
};

/// One rule's policy scored on the held-out part.
struct HeldoutRule {
  PolicyStatistics statistics;  // into CascadeRules::heldout
  LatencySummary latency;
};

/// The selection / held-out split, the rules chosen on it and their held-out scores.
struct CascadeRules {
  int64_t selection_items = 0, selection_clusters = 0, heldout_items = 0, heldout_clusters = 0;
  std::vector<RuleChoice> choices;                 // point rule, then lower-bound rule
  BootstrapResult heldout;                         // the held-out part's bootstrap, both rules
  std::vector<HeldoutRule> rules;                  // per choice
  double first_alone = NAN, fallback_alone = NAN;  // held-out accuracies
  LatencySummary fallback_latency;
  TemperatureResult temperature;
};

struct CascadeReport {
  CascadeOptions options;  // as asked (progress dropped)
  // The pool (docs/statistics.md §3.3).
  int32_t items = 0, clusters = 0, first_orders = 1;
  int64_t gate_ok = 0;
  std::vector<std::string> strata_names;
  ValueSource fee_first, fee_fallback, latency_first, latency_fallback;
  bool fees = false, latency = false;  // fee_ratio / random_acc and latency quantiles reported
  FeeScale fee_scale;
  CascadeSweep sweep;
  std::optional<CascadeRules> rules;  // absent when select = 0
  /// F's gate confidence q and correctness on the items with q > 0: the reliability diagram
  /// and risk–coverage curve of the first stage.
  std::vector<double> gate_q, gate_correct;
  std::vector<std::string> notes;
};

/// std::invalid_argument("field: …") for an empty grid, first = fallback, or tol, z, select or
/// strata out of range (run_cascade checks the same).
void check_cascade_options(const CascadeOptions& options);

/// Runs the cascade analysis on `target`. std::invalid_argument naming the options' fields,
/// UsageError for unknown judges and unusable inputs.
CascadeReport run_cascade(const ItemMatrix& matrix, const CascadeOptions& options, const ExecTarget& target);

/// docs/statistics.md §4's JSON: head.envelope, then settings, pool, statistics, baselines, latency, split,
/// selection_trials, rules, temperature, reliability, risk_coverage, notes, timing.
Json to_json(const CascadeReport& report, const ReportHead& head);
/// Tables for people: text, md or csv.
std::string tables(const CascadeReport& report, const std::string& format);
/// cascade_accuracy_fee.svg and cascade_reliability.svg into `dir` (created when missing).
void plots(const CascadeReport& report, const std::string& dir);

}  // namespace judgestat
