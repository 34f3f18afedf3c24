// The confidence cascade as a library analysis (docs/statistics.md §3.3, §3.4, §7.5; JEV §7–§9): F
// answers first and keeps the items it is confident on, the fallback S answers the rest.
// run_cascade sweeps the threshold grid (clustered CIs, the dollar-matched random baseline, the
// oracle); takes a selection part (a seeded share of the clusters, or the user's own labelled
// items from a column or a list), chooses the point and lower-bound rules' thresholds on it,
// scores them on the held-out rest and fits a temperature to F's probabilities; scores a
// threshold frozen in advance; and reports all of it per benchmark (or condition) beside the
// pooled rows. Writers (JSON, tables, plots) live in the report room.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "judgestat/rules.hpp"

namespace judgestat {

/// A threshold frozen in advance (docs/statistics.md §7.5, JEV §9 Table 5): accept iff q >= value;
/// `all` (value NaN) escalates every item.
struct FrozenThreshold {
  std::string label;   // as written: "0.9" or "all"
  double value = NAN;  // NaN for `all`
};

/// `--tau 0.9` or `--tau mmlu=0.9,livebench=0.95`: one threshold for every benchmark, or one per
/// benchmark (a bare value then covers the benchmarks not named).
struct FrozenTau {
  std::optional<FrozenThreshold> every;                                // a bare value
  std::vector<std::pair<std::string, FrozenThreshold>> per_benchmark;  // benchmark → τ, as given
  bool empty() const { return !every && per_benchmark.empty(); }
};

/// Parses entries "0.9", "all", "mmlu=0.9", "mmlu=all" (the CLI splits --tau at commas).
/// std::invalid_argument("tau: …") for a value that is not a number in [0, 1] or `all`, a
/// benchmark named twice, two bare values, or no entry.
FrozenTau parse_frozen_tau(const std::vector<std::string>& entries);

/// What run_cascade is asked besides its bootstrap and progress: what a CascadeReport keeps.
/// Invalid fields throw std::invalid_argument("field: …").
struct CascadeSettings {
  std::string first, fallback;            // judges: the first stage (needs probabilities), the fallback
  ThresholdGrid grid = default_grid();    // ascending thresholds; `all` is implied
  int gate_orders = 0;                    // 0: the orders each item has (§3.3); 1: order 0; 2: every order of the file
  std::map<std::string, double> fee;      // judge → per-call fee (USD), replacing the file's fee_usd
  std::map<std::string, double> latency;  // judge → per-call latency (s), replacing the file's latency_s
  std::vector<std::string> benchmarks;    // only these benchmarks' items (empty: all)
  /// Labelled items. `select`: share of clusters per benchmark drawn (seeded) for the selection
  /// part, in [0, 1]; 0 = sweep only (no rules), 1 = every item chooses τ and nothing is held
  /// out. `select_column` (an item-level column the matrix was loaded with, LoadOptions::
  /// item_column, values `select` / `heldout`) or `select_items` (a file, one item id per line)
  /// name the selection part instead; at most one of the two, and `select` is then not used.
  double select = 0.4;
  std::string select_column;
  std::string select_items;
  double tol = 0.02;                 // tolerated accuracy loss of the rules
  double z = 1.645;                  // z of the lower-bound rule
  bool per_stratum = false;          // each stratum chooses its own threshold
  std::string strata = "benchmark";  // strata of per_stratum: benchmark or condition
  /// A frozen policy to score with CIs: on the held-out part when there is one (a selection
  /// with items held out), else on every pool item.
  std::optional<FrozenTau> tau;
  /// "" or a grouping key (benchmark, condition): every sweep, rule and frozen statistic also per
  /// group, after the pooled rows; the bootstrap stratifies by the groups when every cluster lies
  /// in one (else domain estimation, docs/statistics.md §2).
  std::string by;
  /// Temperature scaling of F on the selection part: "pooled" (one T) or "per-benchmark" (each
  /// benchmark's T fitted on its own selection items; one without any uses the pooled T).
  std::string temperature = "pooled";
  /// F confidence bins of the bin table (JEV Fig. 5, §7.4): empty = 10 equal bins; else ascending
  /// edges e_1 < … < e_m in (0, 1] giving the bins [0, e_1), [e_1, e_2), …, [e_{m−1}, e_m) and
  /// a last bin [e_m, 1], which is q = 1 alone when e_m = 1 (parse_bin_edges: `paper`).
  std::vector<double> bin_edges;
  /// The file of a second run of the same items (`--compare-gate`, JEV Table 36), as given; its gate
  /// outcomes arrive in CascadeOptions::compare_gate_items. Needs `tau`.
  std::string compare_gate;
  /// `--other-gate-orders` (JEV Fig. 9): 0 = off; 1 or 2 (not gate_orders) = the threshold sweep run
  /// again under that gate (same grid, seed and replicates), reported beside this gate's sweep.
  int other_gate_orders = 0;
};

/// `--bins paper` (q < 0.6 pooled, [0.6, 0.7), [0.7, 0.8), [0.8, 0.9), [0.9, 0.95), [0.95, 0.99),
/// [0.99, 1), q = 1) or `--bins 0.5,0.9,1` (edges). std::invalid_argument("bins: …") otherwise.
std::vector<double> parse_bin_edges(const std::string& text);

/// A second run's gate input on one item (JEV Table 36's gate agreement): F's gate confidence and
/// whether every gated order is valid there.
struct GateOutcome {
  double q = 0;
  bool gate_ok = false;
};

/// What run_cascade is asked: the settings, the bootstrap and a progress callback.
struct CascadeOptions;
/// The gate inputs of a second run of the items (`--compare-gate FILE2`) by item id: its pool
/// (docs/statistics.md §3.3) under the same first stage, fallback and gate_orders. UsageError as
/// build_cascade_pool.
std::map<std::string, GateOutcome> gate_outcomes(const ItemMatrix& second, const CascadeSettings& settings);

struct CascadeOptions : CascadeSettings {
  BootstrapOptions bootstrap;  // replicates, seed, ci, level, keep_replicates (the sweep's)
  /// The second run's gate inputs by item id (gate_outcomes of its matrix); used with compare_gate.
  std::map<std::string, GateOutcome> compare_gate_items;
  /// (replicates done, total) over the sweep's, the held-out part's and the frozen policy's bootstrap.
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
  /// The frozen policy's only (JEV §7.1): F's and S's accuracy and their agreement (1 − |c1 − c2|:
  /// right or wrong together) on the accepted and on the escalated items; gate_agreement: the
  /// share of the items of both runs that this run and the compared one gate alike (JEV Table 36).
  int32_t accepted_first_acc = -1, accepted_fallback_acc = -1, accepted_agree = -1;
  int32_t escalated_first_acc = -1, escalated_fallback_acc = -1, escalated_agree = -1;
  int32_t gate_agreement = -1;
};

/// Latency quantiles (type 7) and mean over items, on the original data.
struct LatencySummary {
  double p50 = 0, p95 = 0, mean = 0;
};

/// One scope of a set of policies: the pooled items, or one group's (`by`). Statistics index the
/// owning BootstrapResult; the rest are point summaries on the scope's items.
struct CascadeScope {
  std::optional<std::string> group;        // the group's name; nullopt for the pooled scope
  int64_t items = 0, clusters = 0;         // the scope's items and the clusters they lie in
  std::vector<PolicyStatistics> policies;  // per policy of the plan, in order
  int32_t oracle_acc = -1;                 // the sweep's only
  std::vector<LatencySummary> latencies;   // per policy
  /// Per policy: the latency of its accepted items (F's) and of its escalated items (F's + S's).
  std::vector<LatencySummary> accepted_latencies, escalated_latencies;
  double first_alone = NAN, fallback_alone = NAN, first_fee_ratio = NAN;  // fee ratio NaN without fees
  LatencySummary first_latency, fallback_latency;
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

/// Mean NLL, mean multiclass Brier and ECE (10 bins) of some rows (docs/statistics.md §3.2).
struct CalibrationSummary {
  int64_t n = 0;
  double nll = NAN, brier = NAN, ece = NAN;
};

/// One benchmark's (or every row's, name "all") temperature and scores before (as given) and
/// after (each row at its benchmark's T) on the selection and held-out parts.
struct TemperatureGroupResult {
  std::string name;
  double temperature = 1.0;      // NaN for "all" per benchmark (no single T applies)
  bool pooled_fallback = false;  // per benchmark: no selection items, the pooled T is used
  CalibrationSummary selection_before, selection_after, heldout_before, heldout_after;
};

/// Temperature scaling of F's probabilities: fitted on the selection items, NLL before (the
/// probabilities as given) and after, on both parts. The scalar fields are the pooled fit's
/// (`temperature` is the pooled T in both modes; the *_nll_after fields score the pooled T);
/// `all` and `groups` score the chosen mode (options.temperature) with Brier and ECE too.
struct TemperatureResult {
  double temperature = 1.0;
  int64_t selection_items = 0, heldout_items = 0;
  double selection_nll_before = NAN, selection_nll_after = NAN;
  double heldout_nll_before = NAN, heldout_nll_after = NAN;
  bool per_benchmark = false;
  TemperatureGroupResult all;
  std::vector<TemperatureGroupResult> groups;  // per benchmark with F outputs, first appearance
};

/// Selective accuracy of F at one target coverage: the threshold chosen on the original data.
struct SelectiveAccuracyRows {
  double target = 0, threshold = 0;
  int64_t covered = 0;
  int32_t accuracy = -1, coverage = -1;  // selective_acc / selective_coverage statistics
};

/// F's and the fallback's accuracy in one F confidence bin (JEV Fig. 5).
struct ConfidenceBinAccuracy {
  int bin = 0;
  int64_t n = 0;
  double mean_q = NAN;
  int32_t first = -1, fallback = -1;  // bin_acc / fallback_bin_acc statistics
  /// The bin's q range [lo, hi) ([lo, hi] for the last; lo = hi = 1 for q = 1 alone).
  double lo = NAN, hi = NAN;
  /// With bin_edges: bin_agree (1 − |c1 − c2| averaged: right or wrong together), F's errors
  /// (c1 < 1) and the items on which the two judges differ (c1 ≠ c2).
  int32_t agree = -1;
  int64_t first_errors = -1, disagree = -1;
};

/// Risk–coverage of F with CIs, over the pool items with a valid F output (q > 0) of a scope
/// (pooled, or one `by` group's); statistics index the sweep's BootstrapResult (docs/statistics.md
/// §3.2, §7.5).
struct CascadeSelective {
  std::optional<std::string> group;  // nullopt for the pooled scope
  int64_t n = 0;
  int32_t aurc = -1;                      // -1 when no item has a valid F output
  double aurc_tie_averaged = NAN;         // the tie-averaged AURC on the original data (no CI)
  std::vector<SelectiveAccuracyRows> at;  // coverages 0.5, 0.8, 0.9
  std::vector<ConfidenceBinAccuracy> bins;
  /// The risk–coverage curve (pooled scope only): selective_risk per AURC threshold t_1 > … > t_K
  /// and the share of the n items with q ≥ t_j on the original data.
  std::vector<double> curve_thresholds, curve_coverage;
  std::vector<int32_t> curve;
};

/// The threshold sweep over the whole pool: every grid threshold, then `all`.
struct CascadeSweep {
  BootstrapResult result;                         // the JSON's `statistics`
  std::vector<CascadeScope> scopes;               // pooled, then each group with items
  CascadeSelective selective;                     // rows after the scopes' statistics
  std::vector<CascadeSelective> group_selective;  // with `by`: per group with items, after the pooled rows
  const CascadeScope& pooled() const { return scopes.front(); }
};

/// Where the labelled items came from (the selection table says so).
struct SelectionSource {
  std::string kind = "random";  // "random" (select, seeded), "column" (select_column), "items" (select_items)
  double fraction = NAN;        // random
  std::string column, file;     // column / items
  int64_t listed = 0;           // items: ids in the file
  int64_t listed_outside = 0;   // items: listed ids of the file's items that are not in the pool
  /// Own sets: clusters with items in both parts (the parts are then not independent).
  int64_t straddling_clusters = 0;
};

/// The selection / held-out split, the rules chosen on it and their held-out scores.
struct CascadeRules {
  SelectionSource source;
  int64_t selection_items = 0, selection_clusters = 0, heldout_items = 0, heldout_clusters = 0;
  std::vector<RuleChoice> choices;  // point rule, then lower-bound rule
  /// The held-out part's bootstrap of the rules' policies (one per choice, in order) and its
  /// scopes; both empty when nothing is held out (select = 1).
  BootstrapResult heldout;
  std::vector<CascadeScope> heldout_scopes;
  TemperatureResult temperature;
  bool scored() const { return !heldout_scopes.empty(); }
};

/// The frozen policy (`tau`) scored with CIs, beside the fallback alone on the same replicates.
/// The frozen policy's gate in this run against a second run of the same items (JEV Table 36),
/// on the items both runs have: counts on the original data (the CI is gate_agreement's).
struct GateComparison {
  std::string file;
  int64_t common = 0, both_accept = 0, both_escalate = 0, accepted_here_only = 0, accepted_there_only = 0;
  int64_t only_here = 0;  // pool items the second run lacks
};

struct CascadeFrozen {
  FrozenTau tau;
  std::optional<GateComparison> gate_comparison;
  bool heldout = false;  // scored on the held-out part, else on every pool item
  /// Per group of the pool (benchmark names, first appearance) the τ applied, for the report.
  std::vector<std::pair<std::string, FrozenThreshold>> applied;
  BootstrapResult result;
  /// policies[0]: the frozen policy; policies[1]: `all` (its cascade_acc is the fallback alone).
  std::vector<CascadeScope> scopes;
};

/// `by`: the groups and how the bootstrap resamples them (docs/statistics.md §2).
struct CascadeGrouping {
  std::string key;  // benchmark or condition
  std::vector<std::string> names;
  bool domain = false;  // a cluster spans groups: unstratified replicates, domain estimates
  std::string note;     // in domain mode: why
};

/// other_gate_orders (JEV Fig. 9): the threshold sweep under the other gate, on that gate's pool of
/// the same input (the items its first stage covers), with the same grid, seed and replicates: the
/// sweep's policy rows of a run with gate_orders = other_gate_orders (its risk–coverage rows left out).
struct OtherGateSweep {
  int gate_orders = 1;
  int32_t items = 0, clusters = 0, first_orders = 1;
  int64_t gate_ok = 0, fewer_orders = 0;
  BootstrapResult result;            // the JSON's other_gate.statistics
  std::vector<CascadeScope> scopes;  // pooled, then each `by` group with items
};

struct CascadeReport {
  /// As asked. The run's bootstrap settings are its results' (sweep.result's seed,
  /// replicates_run, ci, level), kept once there.
  CascadeSettings options;
  // The pool (docs/statistics.md §3.3).
  int32_t items = 0, clusters = 0, first_orders = 1;
  int64_t gate_ok = 0;
  int64_t fewer_orders = 0, escalated_for_missing_orders = 0;  // CascadePool's
  std::vector<std::string> strata_names;
  ValueSource fee_first, fee_fallback, latency_first, latency_fallback;
  bool fees = false, latency = false;  // fee_ratio / random_acc and latency quantiles reported
  FeeScale fee_scale;
  std::optional<CascadeGrouping> grouping;  // with `by`
  CascadeSweep sweep;
  std::optional<CascadeRules> rules;         // absent when select = 0 (and no own set)
  std::optional<CascadeFrozen> frozen;       // with `tau`
  std::optional<OtherGateSweep> other_gate;  // with other_gate_orders
  std::vector<JudgeValidity> validity;  // first's and fallback's records on the whole input (docs/statistics.md §1)
  /// F's gate confidence q and correctness on the items with q > 0: the reliability diagram
  /// and risk–coverage curve of the first stage.
  std::vector<double> gate_q, gate_correct;
  std::vector<std::string> notes;
};

/// std::invalid_argument("field: …") for an empty grid, first = fallback, or tol, z, select,
/// strata, by, gate_orders, other_gate_orders (1 or 2, not gate_orders), temperature out of range,
/// or both select_column and select_items (run_cascade checks the same).
void check_cascade_options(const CascadeOptions& options);

/// Runs the cascade analysis on `target`. std::invalid_argument naming the options' fields,
/// UsageError for unknown judges, benchmarks and unusable inputs, InputError for a selection
/// column or item list the data contradicts (naming file, line and column).
CascadeReport run_cascade(const ItemMatrix& matrix, const CascadeOptions& options, const ExecTarget& target);
/// The same on a matrix given up: it is freed (left empty) once everything the cascade reads from it
/// is read, before the first plan is resampled, so that the matrix and the resampling are not held
/// together (issue 26 part 7: the command's peak memory).
CascadeReport run_cascade(ItemMatrix&& matrix, const CascadeOptions& options, const ExecTarget& target);

/// docs/statistics.md §4's JSON: head.envelope, then settings, pool, statistics, baselines, latency, split,
/// selection_trials, rules, temperature, frozen, groups, reliability, risk_coverage, notes, timing.
Json to_json(const CascadeReport& report, const ReportHead& head);
/// Tables for people: text, md or csv.
std::string tables(const CascadeReport& report, const std::string& format);
/// cascade_accuracy_fee.svg and cascade_reliability.svg into `dir` (created when missing).
/// The figures in memory (file stem, SVG, data as CSV); plots() writes them.
std::vector<PlotFile> plot_files(const CascadeReport& report);
void plots(const CascadeReport& report, const std::string& dir);

}  // namespace judgestat
