// Writers of the metrics report (judgestat/metrics.hpp): its JSON (docs/statistics.md §4) and
// its tables for people.
#include <cstdio>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "report/probability_report.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string statistic_title(const StatLabel& label) {
  std::string title = label.name == "diff" ? "diff " + *label.of : label.name;
  if (label.order && label.name != "macro_f1") title += " [order " + std::to_string(*label.order) + "]";
  if (label.reference) title += " − " + *label.reference;
  return title;
}

Json settings_json(const MetricsReport& report) {
  Json settings = bootstrap_settings_json(report.seed, report.replicates, report.ci, report.level, report.statistics,
                                          report.strata);
  settings["invalid_match"] = report.invalid_match;
  return settings;
}

Json timing_json(const MetricsReport& report, double load_s) {
  return bootstrap_timing_json(load_s + report.plan_s, report.statistics);
}

Table statistics_table(const MetricsReport& report) {
  const BootstrapResult& result = report.statistics;
  Table table;
  const bool grouped = !report.strata.empty();
  const std::string level = fixed(100 * report.level, 0) + "% CI";
  table.header = {"judge"};
  if (grouped) table.header.push_back(report.strata);
  for (const char* h : {"statistic", "estimate", level.c_str(), "SE", "n", "undef"}) table.header.push_back(h);
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const Interval& ci = result.intervals[s];
    std::vector<std::string> row{label.judge};
    if (grouped) row.push_back(label.benchmark ? *label.benchmark : label.condition ? *label.condition : "all");
    row.push_back(statistic_title(label));
    row.push_back(fixed(ci.estimate));
    row.push_back("(" + fixed(ci.lo) + ", " + fixed(ci.hi) + ")");
    row.push_back(fixed(ci.se));
    row.push_back(std::to_string(label.n));
    row.push_back(std::to_string(ci.undefined));
    table.rows.push_back(row);
  }
  return table;
}

void add_notes(const MetricsReport& report, Table& table) {
  const BootstrapResult& result = report.statistics;
  for (const auto& v : report.validity)
    table.notes.push_back("validity: " + v.judge + ": " + std::to_string(v.invalid) + " invalid of " +
                          std::to_string(v.records) + " records");
  for (const auto& note : report.notes) table.notes.push_back("note: " + note);
  for (const auto& note : report.probability.notes) table.notes.push_back("note: " + note);
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, %lld clusters%s, backend %s (%s), %.2fs",
                static_cast<unsigned long long>(report.replicates), to_string(report.ci).c_str(),
                static_cast<unsigned long long>(report.seed), static_cast<long long>(result.n_clusters),
                report.strata.empty() ? "" : (", stratified by " + report.strata).c_str(), result.backend.c_str(),
                result.device.c_str(), result.resample_s);
  table.notes.push_back(summary);
}

}  // namespace

Json to_json(const MetricsReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(report);
  json["statistics"] = statistics_json(report.statistics);
  Json validity = Json::array();
  for (const auto& v : report.validity)
    validity.push_back({{"judge", v.judge}, {"records", v.records}, {"invalid", v.invalid}});
  json["validity"] = validity;
  json["notes"] = report.notes;
  add_probability_json(report.probability, json);
  json["timing"] = timing_json(report, head.load_s);
  return json;
}

std::string tables(const MetricsReport& report, const std::string& format) {
  Table table = statistics_table(report);
  add_notes(report, table);
  return table.render(format) + probability_tables_text(report.probability, format);
}

}  // namespace judgestat
