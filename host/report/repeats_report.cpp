// Writers of the repeat statistics (judgestat/repeats.hpp): one table of intervals for people,
// the tidy CSV (one row per statistic) and the JSON.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/repeats.hpp"
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
  std::string out = all_invalid_warnings(report.validity, format);
  out += "Repeat statistics (§8.5): agreement across repeats, variants and orders\n" + table.render(format) + "\n";
  for (const auto& line : footer(report)) out += line + "\n";
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
  return table.render("csv");
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
  json["statistics"] = rows;
  json["validity"] = validity_json(report.validity);
  json["notes"] = notes_after_validity(report.validity, report.notes);
  json["timing"] = bootstrap_timing_json(head.load_s + report.plan_s, report.statistics);
  return json;
}

std::vector<PlotFile> plot_files(const RepeatsReport&) { return {}; }

std::string tables(const RepeatsReport& report, const std::string& format) {
  if (format == "csv") return tidy_csv(report);
  return people_table(report, format);
}

}  // namespace judgestat
