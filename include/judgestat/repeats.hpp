// The repeat statistics (docs/statistics.md §8.5): how stable a judge's verdict is when the same
// request is run again (`repeat`), asked in other words (`variant`, e.g. a paraphrased rubric) or
// shown in another order (`order`: the rotations of a K-candidate item, the swap of a pair).
// Per judge and family, with clustered bootstrap intervals: the share of requests whose verdicts
// all agree, the pairwise flip rate (rotations: the pairwise agreement) and, for probability
// judges, the mean total-variation distance between the probability vectors [JEV §7.3, Table 26].
//
//   RepeatsReport report = run_repeats(matrix, options, target);
//   Json json = to_json(report, head);  std::string text = tables(report, "text");
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

struct RepeatsOptions {
  // Which records: each list empty = all; names as in the data.
  std::vector<std::string> judges, benchmarks, conditions, variants;
  /// "benchmark" or "condition": statistics per group as well (stratified bootstrap when every
  /// cluster lies in one group, else domain estimation); "variant": per variant as well (domain
  /// estimation: an item's variants share its cluster); "repeat": per repeat r >= 1 its agreement
  /// with repeat 0 (`repeat_match`); "" = overall only.
  std::string by;
  bool invalid_match = false;  // two invalid verdicts agree (LLMBar's `equal`); default: they never do
  /// The bootstrap: replicates, seed, ci, level, keep_replicates, progress.
  BootstrapOptions bootstrap;
};

struct RepeatsReport {
  /// Per judge, family (repeat, variant, rotation) and scope: `<family>_agree`, `repeat_flip` /
  /// `variant_flip` / `rotation_pair_agree`, `<family>_tv`, `<family>_q_range`, each with its interval.
  BootstrapResult statistics;
  /// `<family>_q_range_median` per judge, family and scope: the median of the confidence's range
  /// across a request's members (no interval: a median is not a ratio of sums).
  std::vector<std::pair<StatLabel, double>> point_statistics;
  std::vector<JudgeValidity> validity;  // every record of each analysed judge, all repeats
  std::vector<std::string> notes;       // families or statistics left out and why
  std::string by;                       // as run
  std::string strata_mode;              // settings.strata
  bool invalid_match = false;
  int32_t repeats = 1;         // 1 + the largest repeat among the analysed records
  int64_t repeat_records = 0;  // records of repeat >= 1 in the input
  double plan_s = 0;           // selecting the records and building the plan
};

/// Selects the records, builds the plan and runs the bootstrap on `target`. UsageError for names
/// the data lacks and for a `by` other than "", benchmark, condition, variant or repeat.
RepeatsReport run_repeats(const ItemMatrix& matrix, const RepeatsOptions& options, const ExecTarget& target);

/// The report's JSON: head.envelope, then settings, statistics, validity, notes and timing.
Json to_json(const RepeatsReport& report, const ReportHead& head);

/// The statistics table; format "text", "md" or "csv" (tidy, one row per statistic).
std::string tables(const RepeatsReport& report, const std::string& format);

/// No figures: the statistics table says it all (empty; render_from_json asks every report).
std::vector<PlotFile> plot_files(const RepeatsReport& report);

/// JEV Figs. 17–19 as far as the statistics carry them: `repeats_paper_probability_variation`
/// (the `<family>_tv` rows) and `repeats_paper_decision_changes` (`_agree`, `_flip`,
/// `_pair_agree`, `repeat_match`), each a forest of estimates with their CIs and a CSV.
std::vector<PlotFile> repeats_paper_plot_files(const RepeatsReport& report);

}  // namespace judgestat
