// Writers of the systems report (judgestat/systems.hpp, docs/statistics.md §8.4): the JSON, and the
// win-rate, system-level and self-preference tables (text, md; csv as one tidy table).
#include <cmath>
#include <cstdio>
#include <functional>

#include "judgestat/systems.hpp"
#include "report/report.hpp"

namespace judgestat {

namespace {

Json optional_json(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }
std::string cell(const std::optional<std::string>& value) { return value ? *value : ""; }

// p-values: four decimals, or two significant digits below 0.001; "—" when withheld.
std::string p_cell(double p) {
  if (!std::isfinite(p)) return "—";
  char text[32];
  std::snprintf(text, sizeof text, p < 0.001 ? "%.2g" : "%.4f", p);
  return text;
}

// Rows whose p (of "the difference is 0") is reported.
bool is_difference(const StatLabel& label, const SystemsRowKey& key) {
  return label.name == "win_rate_diff" || key.part == std::optional<std::string>("own-other");
}

Json settings_json(const SystemsReport& report) {
  Json settings = bootstrap_settings_json(report.statistics, "");
  settings["systems"] = report.system_columns;
  settings["baseline"] = report.baseline.empty() ? Json(nullptr) : Json(report.baseline);
  settings["self"] = report.self_columns;
  Json family = Json::object();
  for (const auto& [judge, name] : report.judge_family) family[judge] = name;
  settings["family"] = family;
  settings["scored"] = report.scored;
  return settings;
}

Json statistics_rows(const SystemsReport& report) {
  const BootstrapResult& result = report.statistics;
  Json rows = Json::array();
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const SystemsRowKey& key = report.keys[s];
    const Interval& interval = result.intervals[s];
    Json row{{"section", key.section}, {"name", label.name}, {"judge", label.judge}};
    row["system"] = optional_json(key.system);
    row["opponent"] = optional_json(key.opponent);
    row["part"] = optional_json(key.part);
    row["n"] = label.n;
    row["estimate"] = interval.estimate;
    row["ci"] = Json::array({interval.lo, interval.hi});
    row["se"] = interval.se;
    row["undefined"] = interval.undefined;
    row["undefined_share"] = std::isfinite(interval.undefined_share) ? Json(interval.undefined_share) : Json(nullptr);
    if (interval.clipped) row["clipped"] = true;
    row["clusters"] = interval.clusters;
    row["distinct"] = interval.distinct;
    if (is_difference(label, key)) row["p"] = interval.p;
    rows.push_back(row);
  }
  return rows;
}

// The rows of one section as a table; `columns` gives each row's leading cells.
using RowCells = std::function<std::vector<std::string>(const StatLabel&, const SystemsRowKey&)>;
Table section_table(const SystemsReport& report, const std::string& section, std::vector<std::string> header,
                    const RowCells& cells, bool with_p) {
  const BootstrapResult& result = report.statistics;
  Table table;
  header.insert(header.end(), {"n", "estimate (CI)"});
  if (with_p) header.push_back("p");
  header.push_back("flag");
  table.header = header;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    if (report.keys[s].section != section) continue;
    std::vector<std::string> row = cells(result.labels[s], report.keys[s]);
    row.push_back(std::to_string(result.labels[s].n));
    row.push_back(estimate_cell(result.intervals[s]));
    if (with_p) row.push_back(is_difference(result.labels[s], report.keys[s]) ? p_cell(result.intervals[s].p) : "");
    row.push_back(interval_flag(result.labels[s], result.intervals[s], result.ci));
    table.rows.push_back(row);
  }
  return table;
}

std::string sections_text(const SystemsReport& report, const std::string& format) {
  std::string out = all_invalid_warnings(report.validity, format);
  const auto add = [&](const std::string& title, const Table& table) {
    if (table.rows.empty()) return;
    out += (out.empty() ? "" : "\n") + title + "\n" + table.render(format);
  };
  add("Win rates (§8.4): the system's share of its comparisons won, ties half",
      section_table(
          report, "win_rates", {"judge", "statistic", "system", "against"},
          [](const StatLabel& l, const SystemsRowKey& k) {
            return std::vector<std::string>{l.judge, l.name, cell(k.system), cell(k.opponent)};
          },
          true));
  add("System level (§8.4): each system's score by the judge and by gold, and the rankings' agreement",
      section_table(
          report, "system_level", {"judge", "statistic", "system", "by"},
          [](const StatLabel& l, const SystemsRowKey& k) {
            return std::vector<std::string>{l.judge, l.name, cell(k.system), cell(k.part)};
          },
          false));
  add("Self-preference (§8.4): own-family responses against the rest",
      section_table(
          report, "self_preference", {"judge", "family", "statistic", "responses"},
          [&](const StatLabel& l, const SystemsRowKey& k) {
            const auto family = report.judge_family.find(l.judge);
            return std::vector<std::string>{l.judge, family == report.judge_family.end() ? "" : family->second, l.name,
                                            cell(k.part)};
          },
          true));
  out += "\n";
  for (const auto& v : report.validity)  // repeat 0's records when there are others (§8.5: read by repeats only)
    out += "validity: " + v.judge + ": " + std::to_string(v.invalid) + " invalid of " + std::to_string(v.records) +
           (v.repeat_records > 0 ? " records of repeat 0\n" : " records\n");
  for (const auto& note : report.notes) out += "note: " + note + "\n";
  for (const auto& note : interval_notes(interval_warnings(report.statistics))) out += note + "\n";
  const BootstrapResult& result = report.statistics;
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, %lld clusters, backend %s (%s), %.2fs\n",
                static_cast<unsigned long long>(result.replicates_run), to_string(result.ci).c_str(),
                static_cast<unsigned long long>(result.seed), static_cast<long long>(result.n_clusters),
                result.backend.c_str(), result.device.c_str(), result.resample_s);
  return out + summary;
}

std::string number_cell(double value) {
  if (!std::isfinite(value)) return "";
  std::string out;
  append_17g(out, value);
  return out;
}

// One row per statistic, as pandas.read_csv loads it.
std::string tidy_csv(const SystemsReport& report) {
  const BootstrapResult& result = report.statistics;
  Table table;
  table.header = {"section",  "statistic", "judge", "system", "opponent",  "part", "n",
                  "estimate", "ci_lo",     "ci_hi", "se",     "undefined", "p"};
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    const SystemsRowKey& k = report.keys[s];
    const Interval& i = result.intervals[s];
    const bool with_p = is_difference(l, k);
    table.rows.push_back({k.section, l.name, l.judge, cell(k.system), cell(k.opponent), cell(k.part),
                          std::to_string(l.n), number_cell(i.estimate), number_cell(i.lo), number_cell(i.hi),
                          number_cell(i.se), std::to_string(i.undefined), with_p ? number_cell(i.p) : ""});
  }
  return table.render("csv");
}

}  // namespace

Json to_json(const SystemsReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(report);
  json["systems"] = report.systems;
  json["statistics"] = statistics_rows(report);
  json["validity"] = validity_json(report.validity);
  json["notes"] = notes_after_validity(report.validity, report.notes);
  json["timing"] = bootstrap_timing_json(head.load_s + report.plan_s, report.statistics);
  return json;
}

std::string tables(const SystemsReport& report, const std::string& format) {
  if (format == "csv") return tidy_csv(report);
  return sections_text(report, format);
}

}  // namespace judgestat
