// The typed reports read back from their JSON (the inverse of to_json), so that a study's reused
// cache entry renders its tables and figures from its result instead of keeping copies that could
// disagree with it (docs/study.md, "The cache"). Numbers come back exactly: the JSON writes 17
// significant digits, and null (how NaN and the infinities are written) reads back as NaN, which
// every writer prints as "—" or "–" as it prints NaN.
#pragma once
#include <string>
#include <vector>

#include "judgestat/cascade.hpp"
#include "judgestat/items.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/profile.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// The label budget's report from to_json's document and `render`, its render_state: the
/// histograms behind the Δ figures and the counts behind the table's notes, which the JSON lacks.
BudgetReport budget_report_from_json(const Json& json, const Json& render);

/// What the writers of a report read that its JSON lacks, as an object the cache stores beside
/// the result (AnalysisResult::render); null where the JSON holds all of it. Label budget: per
/// summary heldout_items, fee_ratio_undefined and delta_hist.
Json render_state(const BudgetReport& report);
/// Metrics: replicates_run and n_clusters (the JSON holds only their rate and the per-interval
/// clusters), per interval strata and size_cv (the notes' t df and unequal-size warning), whether
/// the first note is strata_note, and probability quality's grouping and per-summary groups
/// (the JSON names a group only as a benchmark or condition, never a difficulty).
Json render_state(const MetricsReport& report);
/// Profile: the judges in report order, leave_out, each benchmark's items and has_flagged, the
/// bootstrap's replicates_run and n_clusters, and per plan statistic in plan order where the JSON
/// lists it (row: statistics, stress, l1 or leave_out; index) with its size_cv, and for the rows
/// interval_json writes, clusters, distinct and note.
Json render_state(const ProfileReport& report);
/// Cascade: the grid's labels, strata and temperature mode, the pool's strata names, the
/// judges' validity, F's gate confidences and correctness (one pair per item with a valid F
/// output), and per bootstrap (sweep, held-out, frozen) its replicates_run, n_clusters and per
/// statistic strata, size_cv, p, perm_p and threshold text (with the whole row where the JSON
/// leaves the statistic out); each scope's index map and point summaries, the selective rows,
/// the rules' choices, the temperature fit and the frozen τ as written.
Json render_state(const CascadeReport& report);
template <typename Report>
Json render_state(const Report&) {
  return nullptr;
}

/// The metrics report from to_json's document and `render`, its render_state; the same errors.
MetricsReport metrics_report_from_json(const Json& json, const Json& render);

/// The profile report from to_json's document and `render`, its render_state; the same errors,
/// and an error naming a judge, benchmark or condition the report does not have.
ProfileReport profile_report_from_json(const Json& json, const Json& render);

/// The cascade report from to_json's document and `render`, its render_state; the same errors,
/// and an error naming a render field whose index the writers would follow outside its bootstrap.
CascadeReport cascade_report_from_json(const Json& json, const Json& render);

/// `budget --compare`'s report from to_json's document: every field its tables and plot_files
/// read. std::invalid_argument("result.KEY…: …") for a missing field or a wrong type.
BudgetCompareReport budget_compare_report_from_json(const Json& json);

/// The items table from its JSON (columns, rows as JSONL objects, disagreeing); the same errors.
ItemsReport items_report_from_json(const Json& json);

/// What the writers render of an analysis: tables(report, "text"/"csv"/"md") and plot_files().
struct RenderedReport {
  std::string text, csv, md;
  std::vector<PlotFile> plots;
};

/// Whether render_from_json rebuilds the outputs of `command` ("metrics", "cascade", "budget",
/// "profile", "items", "repeats", "systems") whose result is `json`: every one of them whose result is
/// an object (items: any), label budget and --compare included.
bool renders_from_json(const std::string& command, const Json& json);

/// The outputs the analysis's run gave, rendered again from its result JSON and render state;
/// the errors of the readers above, and std::invalid_argument for a command renders_from_json
/// refuses. A report is rendered only when to_json of the report read back gives `json` again
/// (its envelope and timing.load_s taken as they are), else std::invalid_argument("result.KEY:
/// …") naming the first key that differs: what the tables show is then exactly the JSON.
RenderedReport render_from_json(const std::string& command, const Json& json, const Json& render = nullptr);

}  // namespace judgestat
