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
#include <cmath>
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
  /// Also report every compared request with its members (RepeatsReport::requests; JEV Figs. 7c,
  /// 17–19 are drawn from them). Off by default: one row per request and family.
  bool requests = false;
  /// The bootstrap: replicates, seed, ci, level, keep_replicates, progress.
  BootstrapOptions bootstrap;
};

/// One member of a compared request: which repeat, variant or order it is, its verdict and, when
/// it carries probabilities, its confidence q = max_k p_k and the probability of the item's gold
/// label (of the first label when the item has none), the probabilities aligned as in the data.
struct RepeatRequestMember {
  int32_t index = 0;    // the repeat, order or variant number: members' order across requests
  std::string member;   // repeat or order index ("0", "1", …), or the variant's name
  std::string verdict;  // the label, "tie" or "invalid"
  double q = NAN, p_gold = NAN;
};

/// One compared request of a judge and family (docs/statistics.md §8.5 "Per request"): the item,
/// what is held fixed (repeat: order and variant; variant: order; rotation: variant), whether its
/// present members' verdicts all agree and, over its members that carry probabilities (at least
/// two, else NaN), the confidence's mean and range and the mean pairwise total-variation distance.
struct RepeatRequest {
  std::string judge, family, item;
  std::string gold;     // "" when the item has none
  int32_t order = -1;   // -1 for the rotation family
  std::string variant;  // "" for the variant family
  bool all_agree = true;
  double q_mean = NAN, q_range = NAN, tv_mean = NAN;
  std::vector<RepeatRequestMember> members;
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
  /// With RepeatsOptions::requests: every request with two present members, per judge, then family
  /// (repeat, variant, rotation), then item, then the fixed order and variant.
  std::vector<RepeatRequest> requests;
  bool with_requests = false;  // as run (an empty list may still have been asked for)
  std::string by;              // as run
  std::string strata_mode;     // settings.strata
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

/// The figures: repeats_paper_plot_files, then, with requests, repeats_request_plot_files.
std::vector<PlotFile> plot_files(const RepeatsReport& report);

/// JEV Figs. 17–19 as far as the statistics carry them: `repeats_paper_probability_variation`
/// (the `<family>_tv` rows) and `repeats_paper_decision_changes` (`_agree`, `_flip`,
/// `_pair_agree`, `repeat_match`), each a forest of estimates with their CIs and a CSV.
std::vector<PlotFile> repeats_paper_plot_files(const RepeatsReport& report);

/// The per-request figures (empty without requests), each with its CSV: `repeats_variation_spread`
/// (JEV Fig. 17: each request's mean total-variation distance per judge and family, on a scale
/// linear to 0.02 and logarithmic above, with the family's mean and CI); per judge and family
/// `repeats_confidence_range_<judge>_<family>` (Fig. 7c: the confidence's range against its mean,
/// crosses where the verdict changes) and `repeats_members_<judge>_<family>` (Figs. 18–19: each
/// request's probability of the gold label across its members, coloured by the gold label).
std::vector<PlotFile> repeats_request_plot_files(const RepeatsReport& report);

}  // namespace judgestat
