// The metrics analysis (docs/statistics.md §3.1, §3.2): per judge the accuracy family (acc per
// order, pa, bc, cons, stable_wrong, jb_score, kappa, macro_f1, diff against a reference judge)
// and, where the records carry probabilities, probability quality (brier, nll, ece, auroc_err),
// every statistic with its clustered bootstrap interval; plus the point summaries that carry no
// interval (reliability, risk–coverage, flips by confidence).
//
//   MetricsReport report = run_metrics(matrix, options, target);
//   Json json = to_json(report, head);  std::string text = tables(report, "text");
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/covariates.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/probability.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "judgestat/scores.hpp"

namespace judgestat {

struct MetricsOptions {
  // Which records: each list empty = all; names as in the data.
  std::vector<std::string> judges, benchmarks, conditions, variants;
  /// "benchmark" or "condition": a stratified bootstrap by that column; "" = none.
  std::string by;
  /// With `by`: statistics per stratum as well as overall (false: `by` only stratifies the
  /// resampling).
  bool per_group = true;
  /// With `by`: "" chooses (stratified when every cluster lies in one group, else domain
  /// estimation), "by" forces the stratified bootstrap, "none" domain estimation (docs/statistics.md §2).
  std::string strata_mode;
  bool hard_only = false;  // only items some selected judge gets wrong in order 0 (§7.1 `hard`)
  /// `by` = "difficulty" (§7.1): count the file's judges that are not analysed (`--difficulty-from
  /// others`, JEV Table 11: the compared pair excluded), and bins of the count (`--difficulty-bins
  /// 0,1-2,3-5,6-9,10-13`; "" = each count its own group).
  bool difficulty_others = false;
  std::string difficulty_bins;
  bool invalid_match = false;  // two invalid verdicts agree in `cons` (LLMBar's `equal`)
  /// `--failure-type x.NAME`: failure_rate per judge and type of invalid record (JEV Table 19).
  std::string failure_type;
  /// `--native-confidence x.NAME`: a second confidence score per record (JEV App. I), its
  /// native_auroc_err and its Spearman ρ with q, native_q_rho (docs/statistics.md §3.2).
  std::string native_confidence;
  /// `--pooled-orders` (JEV Table 15): with two or more orders, probability quality also with every order's record
  /// a separate judgment (rows labelled "orders pooled", with high_q_error_rate; docs/statistics.md §3.2).
  bool pooled_orders = false;
  /// `--group-diff A,B` with `by`: group_diff = each `diff` statistic on group A − on group B per
  /// judge, and its difference between judges (JEV §6's style effect; docs/statistics.md §7.3).
  std::vector<std::string> group_diff;
  /// `--verdict-shares LABEL=W,…` (CAP App. C): composition_acc = Σ_k w_k · Pr[gold = k | verdict = k],
  /// the agreement given each verdict reweighted to another population's verdict shares (w as given,
  /// normalised to sum 1; every label named once; docs/statistics.md §7.1). Empty: not computed.
  std::vector<std::pair<std::string, double>> verdict_shares;
  std::string reference;  // judge for `diff`; empty: the first selected judge
  /// Per-judge statistics to difference (docs/statistics.md §7.3 `--diff`).
  std::vector<std::string> diff{"acc", "pa", "bc"};
  bool all_pairs = false;  // every pair j − i (i < j, selection order) instead of − reference
  /// Two or more judges taken as raters: Fleiss' κ and Krippendorff's α (§7.1).
  std::vector<std::string> raters;
  int agreement_order = 0;  // the order κ, Fleiss' κ and α compare verdicts in
  /// `--gold adjudicated`: the decisive adjudicated label replaces gold (§7.2).
  bool adjudicated_gold = false;
  /// `--indecisive zero` (JEV App. C): in `diff acc_adjudicated` an indecisive item contributes 0;
  /// false (`gold`, the default, docs/statistics.md §7.2): it is scored by its gold.
  bool indecisive_zero = false;
  /// `--tie-credit half` (JEV Tables 1 and 13): a valid `tie` verdict earns ½ in acc and pa;
  /// false (`zero`, JudgeBench's convention, the default): 0.
  bool tie_half_credit = false;
  /// Per-call fee (USD) / latency (s) by judge, replacing the file's fee_usd / latency_s.
  std::map<std::string, double> fee, latency;
  /// Temperatures by judge applied to the probabilities before anything is computed
  /// (`--temperature-fit FILE`: fitted on another file; docs/statistics.md §7.5).
  std::map<std::string, double> temperature;
  /// Covariates (docs/statistics.md §8.3): `--bins` for `by` = "x.NAME", length bias, association.
  CovariateOptions covariates;
  /// Score judges (a scored matrix, docs/statistics.md §8.2): α's level, pairs, tie margin.
  ScoreOptions scores;
  /// The bootstrap: replicates, seed, ci, level, keep_replicates (the B × S values in the
  /// report), progress (called after each chunk with (done, total)).
  BootstrapOptions bootstrap;
  /// Output only (`--full`): the request's text is every table (tables()) instead of the summary
  /// (summary_text()); the JSON, CSV and md are whole either way.
  bool full_text = false;
};

/// Gold × verdict counts of one judge's order-0 records on one scope (docs/statistics.md §7.1).
struct Confusion {
  std::string judge;
  StatLabel scope;                           // group fields, name "confusion", judge, order 0 and n (the records) set
  std::vector<std::string> gold_labels;      // rows: the labels occurring as gold or verdict, by label index
  std::vector<std::string> verdict_labels;   // columns: every label, "tie" (only if any), "invalid"
  std::vector<std::vector<int64_t>> counts;  // counts[row][column]
};

/// A pair's order-0 complementarity (docs/statistics.md §7.3) on one scope (group fields null =
/// all units): units both judges rated, split by who is right.
struct Complementarity {
  std::string judge, reference;
  std::optional<std::string> benchmark, condition;
  int64_t n = 0, both_right = 0, judge_only = 0, reference_only = 0, both_wrong = 0;
};

/// Human adjudication of a judge against its reference (docs/statistics.md §7.2): over the
/// adjudicated units both rated whose order-0 verdicts differ, whom the human sides with.
struct Disputes {
  std::string judge, reference;
  std::optional<std::string> benchmark, condition;
  int64_t adjudicated = 0;  // adjudicated units both judges rated in order 0
  int64_t disputed = 0, sides_with_judge = 0, sides_with_reference = 0, sides_with_neither = 0;
  /// JEV Table 9's other strata, over the adjudicated units where the two verdicts agree: S2, both
  /// wrong (the human confirms the label, sides with the judges' shared verdict, or neither:
  /// indecisive or a third label); S3, the controls both get right (the human = the label).
  int64_t both_wrong = 0, both_wrong_confirms_label = 0, both_wrong_sides_with_judges = 0, both_wrong_neither = 0;
  int64_t controls = 0, controls_confirm_label = 0;
};

/// What every order-guard warning says after its judge's name (a report read back from JSON finds
/// them by it).
inline constexpr const char* kOrderGuardWarning = ": order-1 verdicts agree with gold's presented position";

struct MetricsReport {
  /// Every statistic with its interval (accuracy family, then probability quality), and the
  /// bootstrap as run (seed, replicates_run, ci, level, backend, device).
  BootstrapResult statistics;
  std::vector<JudgeValidity> validity;
  std::vector<std::string> notes;  // accuracy-family statistics left out and why
  /// The order guard (docs/statistics.md §1): judges whose order-1 verdicts look written in
  /// presented terms, warned above the tables and in JSON notes after the validity notes.
  std::vector<std::string> order_warnings;  // each "JUDGE" + kOrderGuardWarning + …
  /// Holm and Benjamini–Hochberg adjustments of the `diff` rows' p over the run, aligned with
  /// statistics (NaN on other rows).
  std::vector<double> p_holm, p_bh;
  /// Statistics without an interval (latency quantiles): label and value.
  std::vector<std::pair<StatLabel, double>> point_statistics;
  std::vector<Confusion> confusion;
  std::vector<Complementarity> complementarity;
  std::vector<Disputes> disputes;
  /// The point summaries of probability quality, with its own notes (empty without
  /// probabilities).
  ProbabilityQuality probability;
  // As run (the bootstrap's settings are statistics').
  std::string strata;       // the grouping column, "" = none
  std::string strata_mode;  // settings.strata: the column when stratified, "none" (domain estimation) or ""
  std::string strata_note;  // why domain estimation was used
  bool adjudicated_gold = false;
  bool indecisive_zero = false;
  bool tie_half_credit = false;               // --tie-credit half
  bool difficulty_others = false;             // --difficulty-from others
  std::string difficulty_bins;                // --difficulty-bins as given
  int64_t gold_substituted = 0;               // items whose gold the adjudication replaced
  std::map<std::string, double> temperature;  // as applied
  bool invalid_match = false;
  double plan_s = 0;  // selecting the records and building the plan (joins timing.load_s)
};

/// Selects the records, builds the plan and runs the bootstrap on `target`. Errors:
/// UsageError/InputError for names that are not in the data; std::invalid_argument naming the
/// target's fields for a target that cannot run.
MetricsReport run_metrics(const ItemMatrix& matrix, const MetricsOptions& options, const ExecTarget& target);

/// The report's JSON (docs/statistics.md §4): head.envelope, then settings, statistics,
/// validity, notes, reliability, risk_coverage, flip_by_confidence and timing.
Json to_json(const MetricsReport& report, const ReportHead& head);

/// The statistics table and the probability-quality tables; format "text", "md" or "csv".
std::string tables(const MetricsReport& report, const std::string& format);

/// What plain `judgestat metrics` prints (issue 31): the summary in the papers' layout (judges as
/// rows, the headline statistics as columns, each cell "estimate (lo,hi)"), wrapped to `width`
/// columns, the notes that change a conclusion and the run line; `--full` prints tables().
std::string summary_text(const MetricsReport& report, const Json& json, size_t width = 100);

/// The figures in memory (file stem, SVG, data as CSV); plots() writes them into `dir`.
std::vector<PlotFile> plot_files(const MetricsReport& report);
void plots(const MetricsReport& report, const std::string& dir);

}  // namespace judgestat
