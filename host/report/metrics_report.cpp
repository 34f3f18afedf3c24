// Writers of the metrics report (judgestat/metrics.hpp): its JSON (docs/statistics.md §4), its
// tables for people in sections (accuracy, classification, agreement, position, cost,
// probability quality, differences), and the tidy CSV, one row per statistic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "report/covariate_plots.hpp"
#include "report/html_report.hpp"
#include "report/paper_plots.hpp"
#include "report/plot_axes.hpp"
#include "report/plot_score_calibration.hpp"
#include "report/probability_report.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string statistic_title(const StatLabel& label) {
  const bool difference = label.name == "diff" || label.name == "group_diff";  // both name what they difference
  std::string title = difference ? label.name + " " + *label.of : label.name;
  if (label.label) title += " " + *label.label;
  if (label.position) title += " [position " + std::to_string(*label.position) + "]";
  if (label.order) title += " [order " + std::to_string(*label.order) + "]";
  // A within-judge gain (both orders averaged − order 0, JEV Table 25) has no other judge.
  if (label.reference && label.reference != label.judge) title += (difference ? " − " : " vs ") + *label.reference;
  return title;
}

std::string group_of(const std::optional<std::string>& benchmark, const std::optional<std::string>& condition) {
  return benchmark ? *benchmark : condition ? *condition : "all";
}
std::string group_of(const StatLabel& label) { return group_of(label.benchmark, label.condition); }

// Each section: its name, its one-line header, and the statistics it holds.
struct Section {
  const char* name;
  const char* header;
  std::vector<std::string> statistics;
};

const std::vector<Section>& sections() {
  static const std::vector<Section> all{
      {"accuracy",
       "Accuracy (docs/statistics.md §3.1): per judge, clustered bootstrap CIs",
       {"acc", "pa", "bc", "cons", "stable_wrong", "jb_score", "acc_avg"}},
      {"scores",
       "Score judges (§8.2): each judge against the gold scores; pairs decided from two scores",
       {"pearson", "spearman", "kendall_tau_b", "mae", "rmse", "exact", "within_one", "qwk", "pair_acc",
        "pair_tie_rate", "mean_score", "mean_gold"}},
      {"classification",
       "Classification (§7.1): order 0; macro averages over the gold labels; per label P/R/F1; composition_acc, "
       "agreement per verdict reweighted to --verdict-shares's shares",
       {"macro_precision", "macro_recall", "macro_f1", "precision", "recall", "f1", "composition_acc"}},
      {"agreement",
       "Agreement (§3.1, §7.1): κ between a judge's orders or with another rater; Fleiss' κ and "
       "Krippendorff's α over the raters",
       {"kappa", "fleiss_kappa", "krippendorff_alpha", "kendall_w", "disagree", "label_share"}},
      {"position",
       "Position bias (§7.1): share of valid verdicts picking the label shown at each position",
       {"position_rate", "always_first", "always_second"}},
      {"cost",
       "Cost and speed (§7.1): fee per 1,000 records with CI; latency quantiles over records (no CI)",
       {"fee_per_1k", "latency_p50", "latency_p95", "failure_rate"}},
      {"probability quality",
       "Probability quality (§3.2): valid records only; 'orders pooled' rows take every order's record as a "
       "judgment (--pooled-orders)",
       {"brier", "nll", "mean_q", "ece", "auroc_err", "high_q_error_rate", "native_auroc_err", "native_q_rho"}},
      {"covariates",
       "Covariates (§8.3): order 0; length bias on length-mismatched pairs (rates over verdicts picking A or B); "
       "point-biserial r and Spearman's ρ of a covariate with correctness; a binned row names its bin",
       {"longer_rate", "gold_longer_rate", "longer_rate_gold_shorter", "acc_gold_longer", "acc_gold_shorter",
        "length_acc_diff", "length_acc", "point_biserial", "assoc_rho", "assoc_acc"}},
      {"differences",
       "Differences (§7.3): judge − reference on the same replicates; p two-sided (bootstrap, cluster "
       "sign-flip); Holm and BH adjust p over the run's differences; diff order_gain (acc_avg − acc [order 0], "
       "JEV Table 25): Holm over each group's judges",
       {"diff", "oracle_acc", "group_diff"}},
  };
  return all;
}

bool in_section(const Section& section, const std::string& name) {
  for (const auto& s : section.statistics)
    if (s == name) return true;
  return false;
}

std::string p_cell(double p) {
  if (!std::isfinite(p)) return "—";
  if (p < 1e-4) return "<0.0001";
  return fixed(p, 4);
}

struct Row {
  const StatLabel* label;
  const Interval* interval;  // nullptr for point statistics
  double point = 0, p_holm = NAN, p_bh = NAN;
};

std::vector<Row> all_rows(const MetricsReport& report) {
  std::vector<Row> rows;
  const BootstrapResult& result = report.statistics;
  for (size_t s = 0; s < result.labels.size(); ++s)
    rows.push_back({&result.labels[s], &result.intervals[s], 0, report.p_holm.empty() ? NAN : report.p_holm[s],
                    report.p_bh.empty() ? NAN : report.p_bh[s]});
  for (const auto& [label, value] : report.point_statistics) rows.push_back({&label, nullptr, value});
  return rows;
}

Table section_table(const MetricsReport& report, const Section& section, const std::vector<Row>& rows) {
  const bool grouped = !report.strata.empty();
  const bool differences = std::string(section.name) == "differences";
  Table table;
  table.header = {"judge"};
  if (grouped) table.header.push_back(report.strata);
  for (const std::string& h : std::vector<std::string>{
           "statistic", "estimate", fixed(100 * report.statistics.level, 0) + "% CI", "clusters", "SE", "n", "undef"})
    table.header.push_back(h);
  if (differences)
    for (const char* h : {"p", "perm p", "p Holm", "p BH"}) table.header.push_back(h);
  table.header.push_back("flag");
  for (const Row& r : rows) {
    if (!in_section(section, r.label->name)) continue;
    std::vector<std::string> row{r.label->judge};
    if (grouped) row.push_back(group_of(*r.label));
    row.push_back(statistic_title(*r.label));
    if (r.interval) {
      row.push_back(fixed(r.interval->estimate));
      row.push_back("(" + fixed(r.interval->lo) + ", " + fixed(r.interval->hi) + ")");
      row.push_back(std::to_string(r.interval->clusters));
      row.push_back(fixed(r.interval->se));
      row.push_back(std::to_string(r.label->n));
      row.push_back(std::to_string(r.interval->undefined));
    } else {
      for (const std::string& cell : {fixed(r.point), std::string("—"), std::string("—"), std::string("—"),
                                      std::to_string(r.label->n), std::string("—")})
        row.push_back(cell);
    }
    if (differences) {
      const bool is_diff = r.label->name == "diff" && r.interval;
      for (double p : {is_diff ? r.interval->p : NAN, is_diff ? r.interval->perm_p : NAN, r.p_holm, r.p_bh})
        row.push_back(p_cell(p));
    }
    row.push_back(r.interval ? interval_flag(*r.label, *r.interval, report.statistics.ci) : "");
    table.rows.push_back(row);
  }
  return table;
}

std::string confusion_text(const MetricsReport& report, const std::string& format) {
  std::string out;
  for (const Confusion& c : report.confusion) {
    if (c.counts.empty()) continue;
    Table table;
    table.header = {"gold \\ verdict"};
    table.header.insert(table.header.end(), c.verdict_labels.begin(), c.verdict_labels.end());
    for (size_t r = 0; r < c.gold_labels.size(); ++r) {
      std::vector<std::string> row{c.gold_labels[r]};
      for (int64_t count : c.counts[r]) row.push_back(std::to_string(count));
      table.rows.push_back(row);
    }
    out += "\nConfusion (order 0): " + c.judge +
           (c.scope.benchmark || c.scope.condition ? ", " + group_of(c.scope) : "") + "\n" + table.render(format);
  }
  return out;
}

std::string share(int64_t count, int64_t of) { return of ? fixed(100.0 * count / of, 1) + "%" : "—"; }
// "153 (43.7%)": a count with its share.
std::string count_cell(int64_t count, int64_t of) { return std::to_string(count) + " (" + share(count, of) + ")"; }

std::string complementarity_text(const MetricsReport& report, const std::string& format) {
  if (report.complementarity.empty()) return "";
  Table table;
  table.header = {"judge", "reference", "group", "n", "both right", "judge only", "reference only", "both wrong"};
  for (const Complementarity& c : report.complementarity)
    table.rows.push_back({c.judge, c.reference, group_of(c.benchmark, c.condition), std::to_string(c.n),
                          count_cell(c.both_right, c.n), count_cell(c.judge_only, c.n),
                          count_cell(c.reference_only, c.n), count_cell(c.both_wrong, c.n)});
  return "\nComplementarity (§7.3): order 0, items both judges rated\n" + table.render(format);
}

// JEV Table 9's S2 and S3: the adjudicated items where the two verdicts agree.
std::string agreed_strata_text(const MetricsReport& report, const std::string& format) {
  Table table;
  table.header = {"judge",          "reference",         "group",   "both wrong",
                  "confirms label", "sides with judges", "neither", "controls (both right)",
                  "control = label"};
  for (const Disputes& d : report.disputes)
    table.rows.push_back({d.judge, d.reference, group_of(d.benchmark, d.condition), std::to_string(d.both_wrong),
                          count_cell(d.both_wrong_confirms_label, d.both_wrong),
                          count_cell(d.both_wrong_sides_with_judges, d.both_wrong),
                          count_cell(d.both_wrong_neither, d.both_wrong), std::to_string(d.controls),
                          count_cell(d.controls_confirm_label, d.controls)});
  return "\nAdjudication strata (§7.2, JEV Table 9 S2/S3): adjudicated items where judge and reference agree in "
         "order 0; neither = indecisive or a third label\n" +
         table.render(format);
}

std::string disputes_text(const MetricsReport& report, const std::string& format) {
  if (report.disputes.empty()) return "";
  Table table;
  table.header = {"judge",  "reference", "group", "adjudicated", "disputed", "sides with judge", "sides with reference",
                  "neither"};
  for (const Disputes& d : report.disputes)
    table.rows.push_back({d.judge, d.reference, group_of(d.benchmark, d.condition), std::to_string(d.adjudicated),
                          std::to_string(d.disputed), count_cell(d.sides_with_judge, d.disputed),
                          count_cell(d.sides_with_reference, d.disputed),
                          count_cell(d.sides_with_neither, d.disputed)});
  return "\nDisputes (§7.2): adjudicated items where judge and reference disagree in order 0\n" + table.render(format) +
         agreed_strata_text(report, format);
}

std::vector<std::string> footer(const MetricsReport& report) {
  std::vector<std::string> lines;
  const BootstrapResult& result = report.statistics;
  for (const auto& v : report.validity)
    lines.push_back("validity: " + v.judge + ": " + std::to_string(v.invalid) + " invalid of " +
                    std::to_string(v.records) + " records");
  if (report.adjudicated_gold)
    lines.push_back("gold: adjudicated labels replace gold on " + std::to_string(report.gold_substituted) + " items");
  if (!report.disputes.empty())
    lines.push_back(report.indecisive_zero
                        ? "adjudication: an indecisive item contributes 0 to diff acc_adjudicated (--indecisive zero, "
                          "JEV App. C)"
                        : "adjudication: an indecisive item is scored by gold in diff acc_adjudicated (--indecisive "
                          "zero: 0, JEV App. C)");
  if (report.tie_half_credit) lines.push_back("ties: a valid tie verdict earns 1/2 in acc and pa (--tie-credit half)");
  if (report.difficulty_others)
    lines.push_back(
        "difficulty: judges wrong in order 0 among the file's judges not analysed (--difficulty-from "
        "others)");
  if (!report.strata_note.empty()) lines.push_back("note: " + report.strata_note);
  for (const auto& [judge, t] : report.temperature)
    lines.push_back("temperature: " + judge + "'s probabilities scaled with T = " + fixed(t, 4) +
                    " (fitted with --temperature-fit)");
  for (const auto& note : report.notes) lines.push_back("note: " + note);
  for (const auto& note : report.probability.notes) lines.push_back("note: " + note);
  for (const auto& note : interval_notes(interval_warnings(result))) lines.push_back(note);
  const std::string strata = report.strata.empty()          ? ""
                             : report.strata_mode == "none" ? ", per " + report.strata + " by domain estimation"
                                                            : ", stratified by " + report.strata;
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, %lld clusters%s, backend %s (%s), %.2fs",
                static_cast<unsigned long long>(result.replicates_run), to_string(result.ci).c_str(),
                static_cast<unsigned long long>(result.seed), static_cast<long long>(result.n_clusters), strata.c_str(),
                result.backend.c_str(), result.device.c_str(), result.resample_s);
  lines.push_back(summary);
  return lines;
}

std::string sections_text(const MetricsReport& report, const std::string& format) {
  const std::vector<Row> rows = all_rows(report);
  std::string out = all_invalid_warnings(report.validity, format);
  if (format != "csv")
    for (const std::string& warning : report.order_warnings) out += "WARNING: " + warning + "\n";
  for (const Section& section : sections()) {
    const Table table = section_table(report, section, rows);
    const bool probability = std::string(section.name) == "probability quality";
    if (table.rows.empty() && !(probability && !report.probability.empty())) continue;
    if (!out.empty()) out += "\n";
    out += std::string(section.header) + "\n";
    if (!table.rows.empty()) out += table.render(format);
    if (probability) out += probability_tables_text(report.probability, format);
    if (std::string(section.name) == "classification") out += confusion_text(report, format);
    if (std::string(section.name) == "differences")
      out += complementarity_text(report, format) + disputes_text(report, format);
  }
  out += "\n";
  for (const auto& line : footer(report)) out += line + "\n";
  return out;
}

std::string optional_cell(const std::optional<std::string>& value) { return value ? *value : ""; }
std::string optional_cell(const std::optional<int>& value) { return value ? std::to_string(*value) : ""; }
std::string number_cell(double value) {
  if (!std::isfinite(value)) return "";
  std::string out;
  append_17g(out, value);
  return out;
}

// One row per statistic with numeric columns, empty for not applicable: pandas.read_csv loads it as is.
std::string tidy_csv(const MetricsReport& report) {
  Table table;
  table.header = {"name",      "of",       "judge",     "reference", "benchmark", "condition", "order",   "variant",
                  "label",     "position", "threshold", "n",         "estimate",  "ci_lo",     "ci_hi",   "se",
                  "undefined", "p",        "perm_p",    "p_holm",    "p_bh",      "clusters",  "distinct"};
  for (const Row& r : all_rows(report)) {
    const StatLabel& l = *r.label;
    const Interval none{r.point, NAN, NAN, NAN, 0};
    const Interval& ci = r.interval ? *r.interval : none;
    const bool is_diff = l.name == "diff" && r.interval;
    table.rows.push_back({l.name,
                          optional_cell(l.of),
                          l.judge,
                          optional_cell(l.reference),
                          optional_cell(l.benchmark),
                          optional_cell(l.condition),
                          optional_cell(l.order),
                          optional_cell(l.variant),
                          optional_cell(l.label),
                          optional_cell(l.position),
                          optional_cell(l.threshold),
                          std::to_string(l.n),
                          number_cell(ci.estimate),
                          number_cell(ci.lo),
                          number_cell(ci.hi),
                          number_cell(ci.se),
                          r.interval ? std::to_string(ci.undefined) : "",
                          number_cell(is_diff ? ci.p : NAN),
                          number_cell(is_diff ? ci.perm_p : NAN),
                          number_cell(r.p_holm),
                          number_cell(r.p_bh),
                          r.interval ? std::to_string(ci.clusters) : "",
                          r.interval ? std::to_string(ci.distinct) : ""});
  }
  return table.render("csv");
}

Json settings_json(const MetricsReport& report) {
  Json settings = bootstrap_settings_json(report.statistics, report.strata_mode);
  settings["by"] = report.strata.empty() ? Json(nullptr) : Json(report.strata);
  settings["gold"] = report.adjudicated_gold ? "adjudicated" : "gold";
  if (report.adjudicated_gold) settings["gold_substituted"] = report.gold_substituted;
  // The papers' rules one option away (docs/statistics.md §7.2, §3.1), named when asked for.
  if (report.indecisive_zero) settings["indecisive"] = "zero";
  if (report.tie_half_credit) settings["tie_credit"] = "half";
  // --by difficulty's count and bins (JEV Table 11), only when asked for.
  if (report.difficulty_others) settings["difficulty_from"] = "others";
  if (!report.difficulty_bins.empty()) settings["difficulty_bins"] = report.difficulty_bins;
  if (!report.temperature.empty()) settings["temperature"] = report.temperature;
  settings["invalid_match"] = report.invalid_match;
  return settings;
}

Json optional_number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// docs/statistics.md §4 rows plus §7's fields: label, position, p, perm_p, p_holm, p_bh.
Json statistics_rows(const MetricsReport& report) {
  Json rows = statistics_json(report.statistics);
  for (size_t s = 0; s < rows.size(); ++s) {
    const StatLabel& label = report.statistics.labels[s];
    const Interval& interval = report.statistics.intervals[s];
    const bool is_diff = label.name == "diff";
    rows[s]["label"] = label.label ? Json(*label.label) : Json(nullptr);
    rows[s]["position"] = label.position ? Json(*label.position) : Json(nullptr);
    rows[s]["p"] = is_diff ? optional_number(interval.p) : Json(nullptr);
    rows[s]["perm_p"] = is_diff ? optional_number(interval.perm_p) : Json(nullptr);
    rows[s]["p_holm"] = report.p_holm.empty() ? Json(nullptr) : optional_number(report.p_holm[s]);
    rows[s]["p_bh"] = report.p_bh.empty() ? Json(nullptr) : optional_number(report.p_bh[s]);
  }
  for (const auto& [label, value] : report.point_statistics)
    rows.push_back({{"name", label.name},
                    {"judge", label.judge},
                    {"reference", nullptr},
                    {"of", nullptr},
                    {"benchmark", label.benchmark ? Json(*label.benchmark) : Json(nullptr)},
                    {"condition", label.condition ? Json(*label.condition) : Json(nullptr)},
                    {"order", label.order ? Json(*label.order) : Json(nullptr)},
                    {"variant", nullptr},
                    {"threshold", nullptr},
                    {"n", label.n},
                    {"estimate", optional_number(value)},
                    {"ci", nullptr},
                    {"se", nullptr},
                    {"undefined", nullptr},
                    {"clusters", nullptr},
                    {"distinct", nullptr},
                    {"label", nullptr},
                    {"position", nullptr},
                    {"p", nullptr},
                    {"perm_p", nullptr},
                    {"p_holm", nullptr},
                    {"p_bh", nullptr}});
  return rows;
}

Json group_json(const std::optional<std::string>& benchmark, const std::optional<std::string>& condition) {
  return {{"benchmark", benchmark ? Json(*benchmark) : Json(nullptr)},
          {"condition", condition ? Json(*condition) : Json(nullptr)}};
}

Json confusion_json(const MetricsReport& report) {
  Json out = Json::array();
  for (const Confusion& c : report.confusion) {
    Json row{{"judge", c.judge}};
    row.update(group_json(c.scope.benchmark, c.scope.condition));
    row.update(
        {{"order", 0}, {"n", c.scope.n}, {"gold", c.gold_labels}, {"verdict", c.verdict_labels}, {"counts", c.counts}});
    out.push_back(row);
  }
  return out;
}

// Each named count, then `shares`: each count over `of` (null when `of` is 0).
Json counts_with_shares(const std::vector<std::pair<const char*, int64_t>>& counts, int64_t of) {
  Json out, shares;
  for (const auto& [name, count] : counts) {
    out[name] = count;
    shares[name] = of ? Json(static_cast<double>(count) / static_cast<double>(of)) : Json(nullptr);
  }
  out["shares"] = shares;
  return out;
}

// The top-level `complementarity` and (with an adjudicated column) `disputes` keys.
void add_comparisons_json(const MetricsReport& report, Json& json) {
  Json complementarity = Json::array();
  for (const Complementarity& c : report.complementarity) {
    Json row{{"judge", c.judge}, {"reference", c.reference}};
    row.update(group_json(c.benchmark, c.condition));
    row["n"] = c.n;
    row.update(counts_with_shares({{"both_right", c.both_right},
                                   {"judge_only", c.judge_only},
                                   {"reference_only", c.reference_only},
                                   {"both_wrong", c.both_wrong}},
                                  c.n));
    complementarity.push_back(row);
  }
  json["complementarity"] = complementarity;
  if (report.disputes.empty()) return;
  Json disputes = Json::array();
  for (const Disputes& d : report.disputes) {
    Json row{{"judge", d.judge}, {"reference", d.reference}};
    row.update(group_json(d.benchmark, d.condition));
    row["adjudicated"] = d.adjudicated;
    row["disputed"] = d.disputed;
    row.update(counts_with_shares({{"sides_with_judge", d.sides_with_judge},
                                   {"sides_with_reference", d.sides_with_reference},
                                   {"sides_with_neither", d.sides_with_neither}},
                                  d.disputed));
    // JEV Table 9's S2 and S3 (counts; shares above are of `disputed`).
    row["both_wrong"] = d.both_wrong;
    row["both_wrong_confirms_label"] = d.both_wrong_confirms_label;
    row["both_wrong_sides_with_judges"] = d.both_wrong_sides_with_judges;
    row["both_wrong_neither"] = d.both_wrong_neither;
    row["controls"] = d.controls;
    row["controls_confirm_label"] = d.controls_confirm_label;
    disputes.push_back(row);
  }
  json["disputes"] = disputes;
}

}  // namespace

Json to_json(const MetricsReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(report);
  json["statistics"] = statistics_rows(report);
  json["validity"] = validity_json(report.validity);
  std::vector<std::string> notes = report.order_warnings;  // after the validity notes, before the others
  notes.insert(notes.end(), report.notes.begin(), report.notes.end());
  notes = notes_after_validity(report.validity, notes);
  if (!report.strata_note.empty()) notes.insert(notes.begin(), report.strata_note);
  json["notes"] = notes;
  json["confusion"] = confusion_json(report);
  add_comparisons_json(report, json);
  add_probability_json(report.probability, json);
  json["timing"] = bootstrap_timing_json(head.load_s + report.plan_s, report.statistics);
  return json;
}

std::string tables(const MetricsReport& report, const std::string& format) {
  if (format == "csv") return tidy_csv(report);
  return sections_text(report, format);
}

namespace {

size_t text_width(const std::string& text) {
  size_t n = 0;
  for (unsigned char ch : text) n += (ch & 0xC0) != 0x80;  // UTF-8: count the first byte of each character
  return n;
}

// `rows` (a header first) as text tables of at most `width` columns: the columns after the first
// go into as many blocks as they need, each block repeating the first column.
std::string wrapped_table(const std::vector<std::vector<std::string>>& rows, size_t width) {
  if (rows.empty()) return "";
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], text_width(row[c]));
  std::string out;
  for (size_t first = 1; first < widths.size() || first == 1;) {
    Table block;
    size_t used = widths[0], last = first;
    while (last < widths.size() && (last == first || used + 2 + widths[last] <= width)) used += 2 + widths[last++];
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<std::string> cells{rows[r][0]};
      for (size_t c = first; c < last && c < rows[r].size(); ++c) cells.push_back(rows[r][c]);
      (r == 0 ? block.header : block.rows.emplace_back()) = cells;
    }
    out += (out.empty() ? "" : "\n") + block.render("text");
    if (last == first) break;
    first = last;
  }
  return out;
}

// `line` broken at spaces into lines of at most `width` columns, the later ones indented by two.
std::string wrapped_line(const std::string& line, size_t width) {
  std::string out, current;
  size_t at = 0;
  while (at < line.size()) {
    size_t end = line.find(' ', at);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(at, end - at);
    if (!current.empty() && text_width(current) + 1 + text_width(word) > width) {
      out += current + "\n";
      current = "  ";
    }
    current += (current.empty() || current == "  " ? "" : " ") + word;
    at = end + 1;
  }
  return out + current + "\n";
}

}  // namespace

std::string summary_text(const MetricsReport& report, const Json& json, size_t width) {
  const HtmlSummary summary = analysis_summary("metrics", json);
  std::string out;
  std::string warnings = all_invalid_warnings(report.validity, "text");
  for (const std::string& warning : report.order_warnings) warnings += "WARNING: " + warning + "\n";
  for (size_t at = 0, end; at < warnings.size(); at = end + 1) {  // each warning line wrapped to the width
    end = warnings.find('\n', at);
    if (end == std::string::npos) end = warnings.size();
    if (end > at) out += wrapped_line(warnings.substr(at, end - at), width);
  }
  out += wrapped_line("Summary: " + summary.caption, width) + wrapped_table(summary.rows, width);
  const std::vector<std::string> lines = footer(report);
  out += "\n";
  for (const std::string& note : summary.notes)  // invalid records per judge first, then the run's notes
    if (std::find(lines.begin(), lines.end(), "note: " + note) == lines.end())
      out += wrapped_line("note: " + note, width);
  for (const std::string& line : lines)
    if (line.rfind("validity: ", 0) != 0)
      out += wrapped_line(line, width);  // the notes name judges with invalid records
  out += wrapped_line("every statistic (" + std::to_string(report.statistics.labels.size()) +
                          " rows; the probability, classification and agreement tables): --full, or --format "
                          "md|csv|json",
                      width);
  return out;
}

namespace {

// A forest plot of the accuracy family of one group ("all" = the pooled rows): a section per
// statistic (acc per order, pa, bc, …), the judges inside; the CSV one row per point.
PlotFile metrics_forest(const MetricsReport& report, const std::string& group) {
  const Section& accuracy = sections().front();
  const BootstrapResult& result = report.statistics;
  std::vector<ForestSection> forest;
  std::string csv = "series,label,group,estimate,ci_lo,ci_hi,n\n";
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    if (!in_section(accuracy, label.name) || group_of(label) != group) continue;
    const std::string title = statistic_title(label);
    auto section = std::find_if(forest.begin(), forest.end(), [&](const ForestSection& f) { return f.title == title; });
    if (section == forest.end()) section = forest.insert(forest.end(), ForestSection{title, {}});
    const Interval& v = result.intervals[s];
    section->rows.push_back(
        {label.judge, v.estimate, v.lo, v.hi,
         label.judge + " " + title + ": " + fixed(v.estimate) + " (" + fixed(v.lo) + ", " + fixed(v.hi) + ")"});
    csv += csv_field(title) + "," + csv_field(label.judge) + "," + csv_field(group) + "," + csv_number(v.estimate) +
           "," + csv_number(v.lo) + "," + csv_number(v.hi) + "," + std::to_string(label.n) + "\n";
  }
  const std::string level = fixed(100 * report.statistics.level, 0) + "% CI";
  return {
      group == "all" ? "metrics_forest" : "metrics_forest_" + safe_plot_name(group),
      forest_svg("accuracy family per judge" + (group == "all" ? std::string() : ", " + report.strata + " " + group),
                 "estimate (share of items, as the tables print it)", forest,
                 "estimate with its clustered bootstrap " + level),
      csv};
}

}  // namespace

// One forest plot of the accuracy family per group: the pooled rows, then each group's with `by`.
std::vector<PlotFile> plot_files(const MetricsReport& report) {
  std::vector<std::string> groups;
  for (const StatLabel& label : report.statistics.labels)
    if (in_section(sections().front(), label.name) &&
        std::find(groups.begin(), groups.end(), group_of(label)) == groups.end())
      groups.push_back(group_of(label));
  std::stable_partition(groups.begin(), groups.end(), [](const std::string& g) { return g == "all"; });
  std::vector<PlotFile> figures;
  for (const std::string& group : groups) figures.push_back(metrics_forest(report, group));
  if (auto panel = length_bias_panel(report.statistics)) figures.push_back(std::move(*panel));     // §8.3 --length
  if (auto panel = length_bias_by_panel(report.statistics)) figures.push_back(std::move(*panel));  // … with --by
  // §8.2 --scale: the score judges' calibration against gold.
  if (auto panel = score_calibration_panel(report.statistics)) figures.push_back(std::move(*panel));
  for (PlotFile& figure : paper_plot_files(report)) figures.push_back(std::move(figure));  // JEV's figures
  return figures;
}

void plots(const MetricsReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
