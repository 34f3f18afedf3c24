// Writers of the repeat statistics (judgestat/repeats.hpp): one table of intervals for people,
// the tidy CSV (one row per statistic), the JSON and JEV's Figs. 17–19 as far as the statistics
// carry them (probability variation and decision changes per judge and family, with CIs).
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/repeats.hpp"
#include "report/paper_plots.hpp"
#include "report/repeat_request_words.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string group_cell(const StatLabel& l) {
  if (l.benchmark) return "benchmark " + *l.benchmark;
  if (l.condition) return "condition " + *l.condition;
  if (l.variant) return "variant " + *l.variant;
  if (l.label) return "repeat " + *l.label + " vs 0";  // --by repeat's repeat_match rows
  return "all";
}

std::string optional_cell(const std::optional<std::string>& value) { return value ? *value : ""; }

std::string number_cell(double value) {
  if (!std::isfinite(value)) return "";
  std::string out;
  append_17g(out, value);
  return out;
}

std::string fixed_cell(double value) { return std::isfinite(value) ? fixed(value) : ""; }

// The members' verdicts, space-separated in member order ("A A B").
std::string verdicts_cell(const RepeatRequest& r) {
  std::string out;
  for (const RepeatRequestMember& m : r.members) out += (out.empty() ? "" : " ") + m.verdict;
  return out;
}

// docs/statistics.md §8.5 "Per request": after the statistics, one row per request.
std::string requests_table(const RepeatsReport& report, const std::string& format) {
  Table table;
  table.header = {"judge", "family", "item", "gold", "fixed", "verdicts", "all agree", "mean q", "q range", "mean tv"};
  for (const RepeatRequest& r : report.requests)
    table.rows.push_back({r.judge, r.family, r.item, r.gold, fixed_coordinates(r), verdicts_cell(r),
                          r.all_agree ? "yes" : "no", fixed_cell(r.q_mean), fixed_cell(r.q_range),
                          fixed_cell(r.tv_mean)});
  return "Per request (--requests): " + std::to_string(report.requests.size()) +
         " request(s) with two present members; q and tv over the members with probabilities\n" + table.render(format) +
         "\n";
}

// The lines under the table: validity, notes, the interval warnings and the run's settings.
std::vector<std::string> footer(const RepeatsReport& report) {
  std::vector<std::string> lines;
  const BootstrapResult& result = report.statistics;
  for (const auto& v : report.validity)
    lines.push_back("validity: " + v.judge + ": " + std::to_string(v.invalid) + " invalid of " +
                    std::to_string(v.records) + " records" + (report.repeats > 1 ? ", every repeat" : ""));
  for (const auto& note : report.notes) lines.push_back("note: " + note);
  for (const auto& note : interval_notes(interval_warnings(result))) lines.push_back(note);
  const std::string by = report.by.empty()              ? ""
                         : report.by == "repeat"        ? ", per repeat against repeat 0 on every request"
                         : report.strata_mode == "none" ? ", per " + report.by + " by domain estimation"
                                                        : ", stratified by " + report.by;
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, %lld clusters%s, backend %s (%s)",
                static_cast<unsigned long long>(result.replicates_run), to_string(result.ci).c_str(),
                static_cast<unsigned long long>(result.seed), static_cast<long long>(result.n_clusters), by.c_str(),
                result.backend.c_str(), result.device.c_str());
  lines.push_back(summary);
  return lines;
}

std::string people_table(const RepeatsReport& report, const std::string& format) {
  const BootstrapResult& result = report.statistics;
  Table table;
  table.header = {"judge", "group", "statistic", "n", "estimate (CI)", "se", "flag"};
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    const Interval& v = result.intervals[s];
    table.rows.push_back({l.judge, group_cell(l), l.name, std::to_string(l.n), estimate_cell(v), fixed(v.se),
                          interval_flag(l, v, result.ci)});
  }
  for (const auto& [l, value] : report.point_statistics)  // medians: no interval
    table.rows.push_back({l.judge, group_cell(l), l.name, std::to_string(l.n), fixed(value), "", "point"});
  std::string out = all_invalid_warnings(report.validity, format);
  out += "Repeat statistics (§8.5): agreement across repeats, variants and orders\n" + table.render(format) + "\n";
  for (const auto& line : footer(report)) out += line + "\n";
  if (report.with_requests) out += "\n" + requests_table(report, format);
  return out;
}

std::string tidy_csv(const RepeatsReport& report) {
  const BootstrapResult& result = report.statistics;
  Table table;
  table.header = {"name",     "judge", "benchmark", "condition", "variant",   "label",    "n",
                  "estimate", "ci_lo", "ci_hi",     "se",        "undefined", "clusters", "distinct"};
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    const Interval& v = result.intervals[s];
    table.rows.push_back({l.name, l.judge, optional_cell(l.benchmark), optional_cell(l.condition),
                          optional_cell(l.variant), optional_cell(l.label), std::to_string(l.n),
                          number_cell(v.estimate), number_cell(v.lo), number_cell(v.hi), number_cell(v.se),
                          std::to_string(v.undefined), std::to_string(v.clusters), std::to_string(v.distinct)});
  }
  for (const auto& [l, value] : report.point_statistics)
    table.rows.push_back({l.name, l.judge, optional_cell(l.benchmark), optional_cell(l.condition),
                          optional_cell(l.variant), optional_cell(l.label), std::to_string(l.n), number_cell(value), "",
                          "", "", "", "", ""});
  return table.render("csv");
}

}  // namespace

namespace {

Json number_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }
Json text_or_null(const std::string& value) { return value.empty() ? Json(nullptr) : Json(value); }

// docs/statistics.md §4 "repeats": `requests`, one object per request with its members.
Json requests_json(const std::vector<RepeatRequest>& requests) {
  Json rows = Json::array();
  for (const RepeatRequest& r : requests) {
    Json members = Json::array();
    for (const RepeatRequestMember& m : r.members)
      members.push_back({{"index", m.index},
                         {"member", m.member},
                         {"verdict", m.verdict},
                         {"q", number_or_null(m.q)},
                         {"p_gold", number_or_null(m.p_gold)}});
    rows.push_back({{"judge", r.judge},
                    {"family", r.family},
                    {"item", r.item},
                    {"gold", text_or_null(r.gold)},
                    {"order", r.order >= 0 ? Json(r.order) : Json(nullptr)},
                    {"variant", text_or_null(r.variant)},
                    {"all_agree", r.all_agree},
                    {"q_mean", number_or_null(r.q_mean)},
                    {"q_range", number_or_null(r.q_range)},
                    {"tv_mean", number_or_null(r.tv_mean)},
                    {"members", members}});
  }
  return rows;
}

}  // namespace

Json to_json(const RepeatsReport& report, const ReportHead& head) {
  Json json = head.envelope;
  Json settings = bootstrap_settings_json(report.statistics, report.strata_mode);
  settings["by"] = report.by.empty() ? Json(nullptr) : Json(report.by);
  settings["invalid_match"] = report.invalid_match;
  settings["repeats"] = report.repeats;
  json["settings"] = settings;
  Json rows = statistics_json(report.statistics);
  for (size_t s = 0; s < rows.size(); ++s) {  // `--by repeat`: repeat_match's repeat r
    const std::optional<std::string>& label = report.statistics.labels[s].label;
    rows[s]["label"] = label ? Json(*label) : Json(nullptr);
  }
  for (const auto& [label, value] : report.point_statistics) {  // after the intervals, `ci` null
    BootstrapResult one;
    one.labels = {label};
    one.intervals.resize(1);
    Json row = statistics_json(one).at(0);
    for (const char* key : {"ci", "se", "undefined", "undefined_share", "clusters", "distinct"}) row[key] = nullptr;
    row["estimate"] = value;
    row["label"] = nullptr;
    rows.push_back(row);
  }
  json["statistics"] = rows;
  if (report.with_requests) json["requests"] = requests_json(report.requests);
  json["validity"] = validity_json(report.validity);
  json["notes"] = notes_after_validity(report.validity, report.notes);
  json["timing"] = bootstrap_timing_json(head.load_s + report.plan_s, report.statistics);
  return json;
}

namespace {

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The rows whose statistic name `wanted` accepts, in the report's order.
template <class Wanted>
std::vector<paper_plots::Row> repeat_rows(const RepeatsReport& report, Wanted wanted) {
  std::vector<paper_plots::Row> rows;
  for (size_t s = 0; s < report.statistics.labels.size(); ++s)
    if (wanted(report.statistics.labels[s].name))
      rows.push_back({&report.statistics.labels[s], &report.statistics.intervals[s]});
  return rows;
}

}  // namespace

std::vector<PlotFile> repeats_paper_plot_files(const RepeatsReport& report) {
  const std::string level = fixed(100 * report.statistics.level, 0) + "% CI";
  struct Spec {
    bool (*wanted)(const std::string&);
    const char *stem, *title, *x_title;
    std::string caption;
  };
  const Spec specs[] = {
      {[](const std::string& name) { return ends_with(name, "_tv"); }, "repeats_paper_probability_variation",
       "Probability variation across repeats, variants and orders",
       "mean total-variation distance between probability vectors",
       "Per judge and family (repeat: the same request again; variant: another wording; rotation: another order) the "
       "mean total-variation distance between the probability vectors of one request, with its clustered bootstrap " +
           level +
           "; judges without probabilities are not drawn. The per-request spread (JEV Fig. 17) is "
           "repeats_variation_spread, drawn with --requests."},
      {[](const std::string& name) {
         return ends_with(name, "_agree") || ends_with(name, "_flip") || name == "repeat_match";
       },
       "repeats_paper_decision_changes", "Decision changes across repeats, variants and orders",
       "share (agree: all verdicts of a request equal; flip: pairs of verdicts that differ)",
       "Per judge and family the share of requests whose verdicts all agree (_agree), the pairwise flip rate (_flip; "
       "rotations: pairwise agreement, _pair_agree) and, with --by repeat, each repeat's agreement with repeat 0, each "
       "with its clustered bootstrap " +
           level + " (JEV §7.3, App. I)."}};
  std::vector<PlotFile> out;
  for (const Spec& spec : specs)
    if (auto figure = paper_plots::statistic_forest(repeat_rows(report, spec.wanted), level, spec.stem, spec.title,
                                                    spec.x_title, spec.caption))
      out.push_back(std::move(*figure));
  return out;
}

std::string tables(const RepeatsReport& report, const std::string& format) {
  if (format == "csv") return tidy_csv(report);
  return people_table(report, format);
}

std::vector<PlotFile> plot_files(const RepeatsReport& report) {
  std::vector<PlotFile> out = repeats_paper_plot_files(report);
  for (PlotFile& file : repeats_request_plot_files(report)) out.push_back(std::move(file));
  return out;
}

}  // namespace judgestat
