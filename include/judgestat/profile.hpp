// CAP profiles (docs/statistics.md §3.6; CAP paper §3–§4, App. D–K) as a library analysis: the profile
// config, several input files as one item matrix, run_profile() and the typed ProfileReport with
// its writers (JSON, tables, radar plots). Every statistic with a CI — the C1–C8 cells, their
// pure-consistency counterparts and stable-but-wrong mass, supported-correct, bias-corrected
// values, stress degradation and its means, L1 family distances, leave-out shifts — goes into
// ONE plan, so all of them share the same bootstrap replicates. Spearman rank correlations are
// not ratios of sums: they are computed on the point estimates.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// Coverage status of a benchmark × condition cell [CAP Table 2, App. D].
enum class Coverage { kDirect, kApprox, kAugmented, kUnavailable };
std::string to_string(Coverage status);

/// How a cell turns verdicts into a per-unit indicator [docs/statistics.md §3.6 table].
enum class CapOperator {
  kPa,         // position-averaged accuracy over the item's orders; unit = item × variant
  kAcc,        // accuracy in order 0
  kBc,         // strict both-correct over orders; unit = item × variant (C7)
  kVariantBc,  // per item, mean over orders of 1[correct in both variants] (C5, C6)
  kRationale,  // order 0, verdict correct, rationale_ok given: mean rationale_ok (C8)
};
std::string to_string(CapOperator op);

/// C1 … C8 and overall, in report order.
const std::vector<std::string>& cap_cell_names();

/// Record filter on the data's own columns; an empty list accepts every value.
struct RecordFilter {
  std::vector<std::string> benchmarks, conditions, variants;
};

struct CellSpec {
  std::string name;  // C1 … C8 or overall
  Coverage status = Coverage::kUnavailable;
  CapOperator op = CapOperator::kPa;
  RecordFilter subset;                    // within the benchmark's records
  std::vector<std::string> variant_pair;  // kVariantBc: {base, perturbed}
  bool main_table = true;                 // false: computed, shown as n.r. in the profile table
  std::string note;                       // what the subset is (e.g. "Knowledge subset")
};

struct BenchmarkSpec {
  std::string name;
  RecordFilter records;
  std::vector<CellSpec> cells;  // one per cap_cell_names(), in that order
  std::string description;
};

struct FamilySpec {
  std::string name;
  std::vector<std::string> members;  // judge names; "prefix*" matches every judge starting so
};

struct StressSpec {
  std::string from, to;  // δ_c(j) = CAP_c(j; from) − CAP_c(j; to) [CAP Eq. 3]
  /// Config `mean_over`: the conditions of a judge's Mean column whatever their coverage status
  /// [CAP Table 6: C1≈, C2≈, C7]; empty: no such column.
  std::vector<std::string> mean_over;
};

/// Config `differences` [CAP §5]: per cell, judge − reference with a CI.
struct DifferenceSpec {
  std::string reference;            // empty: no differences
  std::vector<std::string> judges;  // empty: every other judge
};

/// Config `judge_sets` [CAP Table 19]: a named set of judges whose mean per condition is reported.
struct JudgeSetSpec {
  std::string name;
  std::vector<std::string> members;  // judge names; "prefix*" as in families
};

struct ProfileConfig {
  std::string source;  // the file it came from, for messages
  std::string description;
  std::vector<BenchmarkSpec> benchmarks;
  std::vector<FamilySpec> families;
  std::vector<StressSpec> stress;
  std::vector<std::string> corrected{"C1", "C2", "C3", "C4", "overall"};  // bias correction
  /// Config `families.sum_over`: per benchmark name, the conditions of an extra L1 distance summed
  /// whatever their coverage status [CAP Table 17: C1≈ + C2≈ + C7 on JudgeBench]; a list in the
  /// config applies to every benchmark (key ""). Empty: none.
  std::map<std::string, std::vector<std::string>> l1_over;
  DifferenceSpec differences;
  std::vector<JudgeSetSpec> judge_sets;
  bool hard = false;  // config `hard`: only items some analysed judge gets wrong in order 0 [CAP Table 3]
  /// Config `invalid`: "wrong" keeps an invalid verdict in n as an error; "exclude" drops it from
  /// n as CAP does (App. L Table 20); empty: the run's own setting (wrong).
  std::string invalid;
};

/// Parses and checks a profile config (configs/*.json); UsageError naming the file and key.
ProfileConfig parse_profile_config(const std::string& json_text, const std::string& source);
ProfileConfig load_profile_config(const std::string& path);

/// One input file as docs/statistics.md §4's `input` object reports it.
struct InputFile {
  std::string path, sha256;
  int64_t records = 0, invalid = 0;
};

/// Several record files as one item matrix. Each file is checked on its own first (errors name
/// the file and line). With more than one file, item and cluster ids are prefixed with the
/// file's stem ("stem/id") so files never merge items, and records without a benchmark take the
/// stem as benchmark name; line numbers are offset so first appearance runs file by file.
struct ProfileInput {
  ItemMatrix matrix;
  std::vector<InputFile> files;
};
ProfileInput load_profile_inputs(const std::vector<std::string>& paths, const LoadOptions& options);

/// What plan statistic s is.
struct ProfileStat {
  enum class Kind {
    kCell,                 // C1 … C8, overall
    kConsistency,          // C5_cons … C7_cons
    kStableWrong,          // cons − strict of C5 … C7
    kSupportedCorrect,     // overall × C8
    kCorrected,            // (raw + q0 − 1) / (q0 + q1 − 1), joint bootstrap
    kStress,               // CAP_c(from) − CAP_c(to)
    kStressJudgeMean,      // a judge's mean δ over the conditions of one status
    kStressConditionMean,  // a condition's mean δ over judges
    kL1,                   // mean L1 distance of judge pairs within a family, or across families
    kLeaveOut,             // value without flag = 1 items minus the value with them
    kStressSelectedMean,   // a judge's mean δ over the config's mean_over conditions, any status
    kStressMeanAbs,        // mean |δ| over every judge × condition delta of a stress pair [CAP Table 16]
    kL1Selected,           // mean L1 over the config's sum_over conditions, any status [CAP Table 17]
    kSpread,               // max − min over judges of one cell [CAP §4.1]
    kDifference,           // judge − reference on one cell [CAP §5]
    kMeanAbsDifference,    // mean |judge − reference| over the compared judges on one cell
    kJudgeSetMean,         // mean over a judge set on one cell [CAP Table 19]
  };
  Kind kind = Kind::kCell;
  int32_t benchmark = -1;  // index into ProfilePlan::benchmarks (stress: from)
  int32_t to = -1;         // stress: the `to` benchmark
  int32_t judge = -1;      // index into ProfilePlan::judges; -1 for means over judges
  std::string condition;   // C1 … C8 / overall; empty for judge means and L1
  Coverage status = Coverage::kDirect;
  bool main_table = true;
  std::string group;              // L1: family name or "cross-family"; stress judge means: status; judge set name
  std::vector<std::string> over;  // conditions a mean or L1 distance runs over
  int64_t pairs = 0;              // L1: judge pairs averaged
};

/// Per judge and benchmark, the position-conditional accuracies of the bias correction
/// [CAP App. K]: q1 with the gold response shown first, q0 with it shown second.
struct CorrectionParams {
  int32_t benchmark = -1, judge = -1;
  double q0 = 0, q1 = 0, se0 = 0, se1 = 0;
  int64_t n0 = 0, n1 = 0;
};

struct ProfiledBenchmark {
  BenchmarkSpec spec;
  int64_t items = 0;                // items in its records
  std::vector<int64_t> cell_items;  // per cell: items in the cell's subset (0: unavailable)
  bool has_flagged = false;         // some item has flag = 1
};

struct ProfilePlan {
  Plan plan;
  std::vector<ProfileStat> stats;   // parallel to plan.statistics
  std::vector<std::string> judges;  // in report order
  std::vector<ProfiledBenchmark> benchmarks;
  std::vector<FamilySpec> families;  // members resolved to judge names
  std::vector<StressSpec> stress;    // pairs that were computed
  std::vector<CorrectionParams> corrections;
  std::string reference;                 // differences: the reference judge; empty: none
  std::vector<JudgeSetSpec> judge_sets;  // members resolved to judge names
  std::vector<std::string> notes;        // what was left out and why
  int32_t orders = 1;

  /// Index of a statistic, or -1 when it was not computed.
  int32_t find(ProfileStat::Kind kind, int32_t benchmark, int32_t judge, const std::string& condition,
               const std::string& group = "", int32_t to = -1) const;
  /// Index of the L1 mean of `group` (a family or "cross-family") over the benchmark's
  /// conditions of one coverage status, or -1.
  int32_t find_l1(int32_t benchmark, const std::string& group, Coverage status) const;
  void index(int32_t statistic);  // registers plan.statistics[statistic] for find()

 private:
  /// What find() looks a statistic up by; status only tells L1 means apart.
  struct Key {
    ProfileStat::Kind kind;
    int32_t benchmark, to, judge;
    std::string condition, group;
    Coverage status;
    bool operator<(const Key& other) const;
  };
  std::map<Key, int32_t> index_;
};

/// Spearman ρ of paired values with its two p-values [docs/statistics.md §3.6].
struct SpearmanResult {
  int n = 0;
  double rho = 0;      // NaN when either side is constant or n < 2
  double p_t = 0;      // two-sided, t approximation with n − 2 degrees of freedom; NaN for n < 3
  double p_exact = 0;  // two-sided exact permutation p; NaN when n > exact_max_n or rho is NaN
  bool exact = false;  // p_exact was computed
};

/// Spearman ρ of one pair of judge rankings.
struct SpearmanEntry {
  std::string scope;  // between conditions: the benchmark; between benchmarks: the condition
  std::string a, b;   // the conditions (or benchmarks) compared
  Coverage status_a = Coverage::kDirect, status_b = Coverage::kDirect;
  std::vector<std::string> judges;  // judges with a value on both sides
  SpearmanResult result;
  double pearson_r = 0, pearson_p = 0;  // Pearson r beside ρ [CAP App. C]; p: t with n − 2 df; NaN when undefined
};

/// Per benchmark, over its between-condition pairs with a defined ρ [CAP Table 14].
struct ConditionRhoSummary {
  std::string benchmark;
  int pairs = 0, negative = 0;
  double mean_abs_rho = 0;
};

/// Per condition, over its between-benchmark pairs with a defined ρ [CAP Table 13]: the range and
/// how many are significant (p_t < 0.05, as the matrices mark "(ns)").
struct BenchmarkRhoSummary {
  std::string condition;
  int pairs = 0, significant = 0;
  double min_rho = 0, max_rho = 0;
};

/// A judge's rank on one cell among the judges with a value (1 = highest; ties share the best rank).
struct CellRank {
  std::string benchmark, condition, judge;
  int rank = 0, of = 0;
};

struct MeanRho {
  std::string condition;
  int pairs = 0;  // direct–direct benchmark pairs with a defined ρ
  double mean = 0;
};

struct L1Pair {
  std::string benchmark, status, judge_a, judge_b, family;  // family empty: cross-family pair
  double distance = 0;
};

/// What summarize_profile derives from the point estimates.
struct ProfileSummary {
  std::vector<SpearmanEntry> between_conditions, between_benchmarks;
  std::vector<MeanRho> mean_rho;  // per condition, over direct–direct benchmark pairs only
  std::vector<L1Pair> l1_pairs;   // every pair inside the L1 means, point values
  std::vector<ConditionRhoSummary> condition_rho;
  std::vector<BenchmarkRhoSummary> benchmark_rho;
  std::vector<CellRank> ranks;  // per benchmark and main-table cell
};

/// What a profile run is asked for besides its bootstrap: what a ProfileReport keeps. Errors
/// name these fields ("exact_max_n: …", "benchmarks: …").
struct ProfileSettings {
  ProfileConfig config;                 // load_profile_config()
  std::vector<std::string> judges;      // empty: every judge
  std::vector<std::string> benchmarks;  // config benchmarks to profile; empty: all with records
  bool invalid_match = false;           // two invalid verdicts agree in the _cons statistics
  bool leave_out = true;                // leave-out sensitivity for flag = 1 items
  int exact_max_n = 9;                  // exact Spearman p-values up to this many judges (0 … 10)
  bool hard = false;                    // --hard: the Hard-Empirical subset (or the config's `hard`)
  std::string diff_reference;           // --diff-reference: overrides the config's differences.reference
};

/// What a profile run is asked for: the settings and the bootstrap (replicates, seed, interval,
/// level; its progress callback is bootstrap.progress).
struct ProfileOptions : ProfileSettings {
  BootstrapOptions bootstrap;
};

/// A profile: the plan (what each statistic is), its bootstrap intervals and what is derived
/// from the point estimates.
struct ProfileReport {
  /// As asked (config, judges, …). The run's bootstrap settings are result's (seed,
  /// replicates_run, ci, level), kept once there.
  ProfileSettings options;
  ProfilePlan plan;
  BootstrapResult result;  // parallel to plan.stats
  ProfileSummary summary;
  double plan_s = 0;                    // building the plan (joins the load time in `timing`)
  std::vector<JudgeValidity> validity;  // the plan's judges' records on the whole input (docs/statistics.md §1)
};

/// Builds the plan, runs the bootstrap on `target` and summarizes. UsageError names the
/// benchmark and cell for cells the data cannot fill; std::invalid_argument names the field.
ProfileReport run_profile(const ItemMatrix& matrix, const ProfileOptions& options, const ExecTarget& target);

/// docs/statistics.md §4's `input` for the profile's files: the envelope's own for one file (its path set),
/// an array of {path, sha256, records, invalid} for several.
void set_profile_inputs(Json& envelope, const std::vector<InputFile>& files);
/// docs/statistics.md §4's JSON: head.envelope, then settings, statistics, coverage, spearman, stress, l1,
/// bias_correction, leave_out, notes, timing.
Json to_json(const ProfileReport& report, const ReportHead& head);
/// The paper's tables (text, md or csv).
std::string tables(const ProfileReport& report, const std::string& format);
/// One radar chart per benchmark, DIR/radar_<benchmark>.svg (DIR is created).
/// The figures in memory (file stem, SVG, data as CSV); plots() writes them.
std::vector<PlotFile> plot_files(const ProfileReport& report);
void plots(const ProfileReport& report, const std::string& dir);

}  // namespace judgestat
