// The repeats report read back from its JSON (report/repeats_from_json.hpp), and the field readers
// it shares with the systems report's reader. Each takes exactly the fields the writers
// (host/report/repeats_report.cpp, systems_report.cpp) give, and names the first one missing or of
// the wrong type; render_from_json then checks that the report read back writes the same JSON.
#include "report/repeats_from_json.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "report/from_json_fields.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace from_json {

void read_bootstrap_head(const Json& json, BootstrapResult& out) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  BootstrapOptions read;
  read_bootstrap_settings(settings, at, read);
  out.seed = read.seed;
  out.replicates_run = read.replicates;
  out.ci = read.ci;
  out.level = read.level;
  out.backend = text(field(settings, "backend", at), at + ".backend");
  out.device = text(field(settings, "device", at), at + ".device");
  const Json& timing = field(json, "timing", "");
  out.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  out.summary_s = number(field(timing, "summary_s", "timing"), "timing.summary_s");
}

// Fields every entry shares (§8.1's gold counts, §8.5's repeat records) come from the first note
// entry; a judge's own (its reasons and most common invalid value) from its entry. An entry of a
// judge the rows lack is kept, so that the report's JSON differs and the document is refused.
void read_validity_and_notes(const Json& json, std::vector<JudgeValidity>& validity, std::vector<std::string>& notes) {
  const Json& rows = array_of(field(json, "validity", ""), "validity");
  std::vector<std::string> judges;
  for (size_t v = 0; v < rows.size(); ++v) {
    const std::string at = "validity[" + std::to_string(v) + "]";
    validity.push_back({text(field(rows[v], "judge", at), at + ".judge"), signed_count_of(rows[v], "records", at),
                        signed_count_of(rows[v], "invalid", at), ""});
    judges.push_back(validity.back().judge);
  }
  std::vector<JudgeValidity> from_notes;
  split_notes(json, judges, from_notes, notes);
  for (const JudgeValidity& read : from_notes) {
    const auto mine =
        std::find_if(validity.begin(), validity.end(), [&](const JudgeValidity& v) { return v.judge == read.judge; });
    if (mine == validity.end()) {
      validity.push_back(read);
      continue;
    }
    mine->invalid_reason = read.invalid_reason;
    mine->common_invalid_value = read.common_invalid_value;
    mine->common_invalid_count = read.common_invalid_count;
  }
  if (from_notes.empty()) return;
  for (JudgeValidity& v : validity) {
    v.items = from_notes.front().items;
    v.items_without_gold = from_notes.front().items_without_gold;
    v.gold_statistics = from_notes.front().gold_statistics;
    v.repeat_records = from_notes.front().repeat_records;
  }
}

Json interval_render_state(const BootstrapResult& result, bool with_note) {
  Json intervals = Json::array();
  for (const Interval& i : result.intervals) {
    Json state{{"size_cv", i.size_cv}};
    if (with_note) state["note"] = i.note;
    intervals.push_back(state);
  }
  return {{"n_clusters", result.n_clusters}, {"intervals", intervals}};
}

void read_interval_render(const Json& render, bool with_note, BootstrapResult& result) {
  if (!render.is_object()) throw std::invalid_argument("render: expected an object");
  result.n_clusters = signed_count(field(render, "n_clusters", "render"), "render.n_clusters");
  const Json& states = field(render, "intervals", "render");
  if (!states.is_array() || states.size() != result.intervals.size())
    throw std::invalid_argument("render.intervals: expected one element per statistics row");
  for (size_t i = 0; i < states.size(); ++i) {
    const std::string at = "render.intervals[" + std::to_string(i) + "]";
    result.intervals[i].size_cv = number(field(states[i], "size_cv", at), at + ".size_cv");
    if (with_note) result.intervals[i].note = text(field(states[i], "note", at), at + ".note");
  }
}

}  // namespace from_json

using namespace from_json;

namespace {

// The settings after the bootstrap's: strata, by, invalid_match, repeats.
void read_repeats_settings(const Json& json, RepeatsReport& r) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  const Json& strata = field(settings, "strata", at);
  if (!strata.is_null()) r.strata_mode = text(strata, at + ".strata");
  const Json& by = field(settings, "by", at);
  if (!by.is_null()) r.by = text(by, at + ".by");
  r.invalid_match = flag(field(settings, "invalid_match", at), at + ".invalid_match");
  const int64_t repeats = signed_count_of(settings, "repeats", at);
  if (repeats < 1 || repeats > std::numeric_limits<int32_t>::max()) bad_field(at + ".repeats", "out of range");
  r.repeats = static_cast<int32_t>(repeats);
}

// statistics_json's rows with `label` (--by repeat's repeat r); no row has a threshold. A row whose
// `ci` is null is a point statistic (the medians, after the intervals).
void read_repeats_statistics(const Json& json, RepeatsReport& r) {
  const Json& rows = array_of(field(json, "statistics", ""), "statistics");
  for (size_t s = 0; s < rows.size(); ++s) {
    const std::string at = "statistics[" + std::to_string(s) + "]";
    StatLabel label = label_fields(rows[s], at);
    if (!field(rows[s], "threshold", at).is_null()) bad_field(at + ".threshold", "expected null");
    label.n = signed_count(field(rows[s], "n", at), at + ".n");
    label.label = optional_text(field(rows[s], "label", at), at + ".label");
    if (field(rows[s], "ci", at).is_null()) {
      r.point_statistics.emplace_back(std::move(label), number(field(rows[s], "estimate", at), at + ".estimate"));
      continue;
    }
    r.statistics.labels.push_back(std::move(label));
    r.statistics.intervals.push_back(interval_fields(rows[s], at));
  }
}

RepeatRequestMember read_request_member(const Json& row, const std::string& at) {
  const int64_t index = signed_count_of(row, "index", at);
  if (index < 0 || index > std::numeric_limits<int32_t>::max()) bad_field(at + ".index", "out of range");
  return {static_cast<int32_t>(index), text(field(row, "member", at), at + ".member"),
          text(field(row, "verdict", at), at + ".verdict"), number(field(row, "q", at), at + ".q"),
          number(field(row, "p_gold", at), at + ".p_gold")};
}

RepeatRequest read_request(const Json& row, const std::string& at) {
  const auto value = [&](const char* key) -> const Json& { return field(row, key, at); };
  const auto where = [&](const char* key) { return at + "." + key; };
  RepeatRequest r;
  r.judge = text(value("judge"), where("judge"));
  r.family = text(value("family"), where("family"));
  r.item = text(value("item"), where("item"));
  r.gold = optional_text(value("gold"), where("gold")).value_or("");
  r.order = optional_int(value("order"), where("order")).value_or(-1);
  r.variant = optional_text(value("variant"), where("variant")).value_or("");
  r.all_agree = flag(value("all_agree"), where("all_agree"));
  for (auto [key, out] :
       {std::pair{"q_mean", &r.q_mean}, std::pair{"q_range", &r.q_range}, std::pair{"tv_mean", &r.tv_mean}})
    *out = number(value(key), where(key));
  const Json& members = array_of(value("members"), where("members"));
  for (size_t k = 0; k < members.size(); ++k)
    r.members.push_back(read_request_member(members[k], where("members") + "[" + std::to_string(k) + "]"));
  return r;
}

// `requests`, present when the run asked for them (RepeatsOptions::requests).
void read_repeats_requests(const Json& json, RepeatsReport& r) {
  if (!json.contains("requests")) return;
  r.with_requests = true;
  const Json& rows = array_of(json.at("requests"), "requests");
  for (size_t k = 0; k < rows.size(); ++k)
    r.requests.push_back(read_request(rows[k], "requests[" + std::to_string(k) + "]"));
}

}  // namespace

Json render_state(const RepeatsReport& report) { return interval_render_state(report.statistics, false); }

RepeatsReport repeats_report_from_json(const Json& json, const Json& render) {
  RepeatsReport r;
  read_bootstrap_head(json, r.statistics);
  read_repeats_settings(json, r);
  read_repeats_statistics(json, r);
  read_repeats_requests(json, r);
  read_interval_render(render, false, r.statistics);
  read_validity_and_notes(json, r.validity, r.notes);
  return r;
}

}  // namespace judgestat
