// The systems analysis (docs/statistics.md §8.4; issue 28 items 3 and 5): what the judges say about
// the systems behind the responses, named by covariate columns (§8.3), every statistic with its
// clustered bootstrap interval:
// - win rates (`--systems x.A,x.B`, the systems behind candidates A and B): per judge, per pair of
//   systems the share of their comparisons one wins (ties count half), per system its win rate over
//   all its comparisons or against `--baseline`, and the paired differences of two systems' win
//   rates. Gold-free.
// - system level (with gold): the ranking of the systems by the judge against their ranking by
//   gold, Kendall's τ-b and Spearman's ρ; pairwise by overall win rate, pointwise (`--systems
//   x.MODEL`, one column) by mean score (score judges, `--scale`).
// - self-preference (`--self x.MODEL` or `--self x.A,x.B` with `--family`): per judge its accuracy
//   (pairwise: its preference when gold is absent; pointwise score judges: its mean score) on
//   responses from its own family against the rest, and the difference.
//
//   SystemsReport report = run_systems(matrix, options, target);
//   Json json = to_json(report, head);  std::string text = tables(report, "text");
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

struct SystemsOptions {
  // Which records: each list empty = all; names as in the data.
  std::vector<std::string> judges, benchmarks, conditions, variants;
  /// --systems: two covariates (the systems behind candidates A and B: win rates and, with gold,
  /// system-level rank agreement), or one (the system behind a pointwise response: system level).
  std::vector<std::string> systems;
  /// --baseline: the system every other system's win rate is taken against ("" = all opponents).
  std::string baseline;
  /// --self: the covariate(s) naming the model that wrote the response (one, pointwise) or the
  /// responses A and B (two, pairwise).
  std::vector<std::string> self;
  /// --family NAME=FAMILY: the family of a judge or of a model named in the --self columns (a model
  /// without an entry is its own family); every analysed judge needs one under --self.
  std::map<std::string, std::string> family;
  /// --family x.NAME: a record column giving each judge's family instead (one value per judge).
  std::string family_column;
  BootstrapOptions bootstrap;
};

/// What a statistic of the report describes, besides its StatLabel (name, judge, n).
struct SystemsRowKey {
  /// "win_rates", "system_level" or "self_preference".
  std::string section;
  /// The system (win_rate, system_score); for a difference the first of the two.
  std::optional<std::string> system;
  /// win_rate: the other system, or "all" (every opponent); win_rate_diff: the second system.
  std::optional<std::string> opponent;
  /// system_score: "judge" or "gold"; self-preference: "own", "other" or "own-other".
  std::optional<std::string> part;
};

struct SystemsReport {
  /// Every statistic with its interval and the bootstrap as run; keys[s] says what statistic s is.
  BootstrapResult statistics;
  std::vector<SystemsRowKey> keys;
  /// The systems by first appearance in the analysed items (A before B).
  std::vector<std::string> systems;
  std::vector<JudgeValidity> validity;
  std::vector<std::string> notes;  // what was left out and why
  // As run.
  std::vector<std::string> system_columns, self_columns;
  std::string baseline;
  std::map<std::string, std::string> judge_family;  // the analysed judges' families under --self
  bool scored = false;                              // score judges (--scale)
  double plan_s = 0;
};

/// Selects the records, builds the plan and runs the bootstrap on `target`. Errors: UsageError for
/// names the data lacks (a judge, a covariate column, the baseline) and for --self without a judge's
/// family; InputError (file:line) for a covariate whose records of one item differ; std::invalid_argument
/// naming the option ("systems: …") for options that cannot run.
SystemsReport run_systems(const ItemMatrix& matrix, const SystemsOptions& options, const ExecTarget& target);

/// The report's JSON: head.envelope, then settings, statistics (each row with its system,
/// opponent and part), validity, notes and timing.
Json to_json(const SystemsReport& report, const ReportHead& head);

/// The win-rate, system-level and self-preference tables; format "text", "md" or "csv" (one tidy table).
std::string tables(const SystemsReport& report, const std::string& format);

/// The figures (`--plots`, the study report): `systems_win_rates` (per judge each system's win
/// rate against all or the baseline, with its CI) and, with gold, `systems_system_level` (each
/// system's score by the judge against by gold, both CIs); none without such rows.
std::vector<PlotFile> plot_files(const SystemsReport& report);

}  // namespace judgestat
