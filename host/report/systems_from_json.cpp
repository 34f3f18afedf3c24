// The systems report read back from its JSON (report/systems_from_json.hpp): exactly the fields
// host/report/systems_report.cpp writes, the first missing or wrong-typed one named;
// render_from_json then checks that the report read back writes the same JSON.
#include "report/systems_from_json.hpp"

#include <string>
#include <vector>

#include "report/from_json_fields.hpp"
#include "report/repeats_from_json.hpp"

namespace judgestat {
namespace {

using namespace from_json;

std::vector<std::string> texts(const Json& value, const std::string& where) {
  return texts_or_null(array_of(value, where), where);
}

// The settings after the bootstrap's: systems, baseline, self, family, scored.
void read_systems_settings(const Json& json, SystemsReport& r) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  r.system_columns = texts(field(settings, "systems", at), at + ".systems");
  const Json& baseline = field(settings, "baseline", at);
  if (!baseline.is_null()) r.baseline = text(baseline, at + ".baseline");
  r.self_columns = texts(field(settings, "self", at), at + ".self");
  const Json& family = field(settings, "family", at);
  if (!family.is_object()) bad_field(at + ".family", "expected an object");
  for (auto it = family.begin(); it != family.end(); ++it)
    r.judge_family[it.key()] = text(it.value(), path_of(at + ".family", it.key()));
  r.scored = flag(field(settings, "scored", at), at + ".scored");
}

// One statistics row (statistics_rows): its key, label and interval; p where the row has one.
void read_systems_row(const Json& row, const std::string& at, SystemsReport& r) {
  SystemsRowKey key;
  key.section = text(field(row, "section", at), at + ".section");
  key.system = optional_text(field(row, "system", at), at + ".system");
  key.opponent = optional_text(field(row, "opponent", at), at + ".opponent");
  key.part = optional_text(field(row, "part", at), at + ".part");
  StatLabel label{text(field(row, "name", at), at + ".name"), text(field(row, "judge", at), at + ".judge")};
  if (label.name == "win_rate_diff") label.of = "win_rate";  // as add_differences labels it
  label.n = signed_count(field(row, "n", at), at + ".n");
  Interval interval = interval_fields(row, at);
  if (row.contains("p")) interval.p = number(row["p"], at + ".p");
  r.keys.push_back(std::move(key));
  r.statistics.labels.push_back(std::move(label));
  r.statistics.intervals.push_back(std::move(interval));
}

}  // namespace

Json render_state(const SystemsReport& report) { return interval_render_state(report.statistics, true); }

SystemsReport systems_report_from_json(const Json& json, const Json& render) {
  SystemsReport r;
  read_bootstrap_head(json, r.statistics);
  read_systems_settings(json, r);
  r.systems = texts(field(json, "systems", ""), "systems");
  const Json& rows = array_of(field(json, "statistics", ""), "statistics");
  for (size_t s = 0; s < rows.size(); ++s) read_systems_row(rows[s], "statistics[" + std::to_string(s) + "]", r);
  read_interval_render(render, true, r.statistics);
  read_validity_and_notes(json, r.validity, r.notes);
  return r;
}

}  // namespace judgestat
