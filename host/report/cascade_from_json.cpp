// The cascade report read back from its JSON and render state (report/report_from_json.hpp), so
// that a study's reused cascade entry renders its tables and figures from its result. Read from
// the JSON: the options (settings), the pool, every interval of the sweep, held-out and frozen
// bootstraps, the split, the selection trials, the groups and the notes. The render state holds
// what the JSON lacks or lists only by policy: where each statistic stands in its bootstrap (each
// scope's index map, the selective, bin and curve rows), each interval's strata, size CV and
// threshold text, the few frozen-plan rows the JSON leaves out, the scopes' point summaries, the
// rules' choices, the temperature fit, the judges' validity and F's gate confidences (one pair
// per pool item with a valid F output: the reliability and risk–coverage the JSON summarises).
// Whatever is in both must agree: render_from_json renders only when to_json of the report read
// back gives the JSON again.
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/cascade.hpp"
#include "report/from_json_fields.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"

namespace judgestat {
namespace {

using namespace from_json;

std::string at_index(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

int32_t index32(const Json& value, const std::string& where) {
  const int64_t v = signed_count(value, where);
  if (v < -1 || v > std::numeric_limits<int32_t>::max()) bad_field(where, "out of range");
  return static_cast<int32_t>(v);
}

Json optional_json(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

// ---- the render state ----

Json latency_state(const LatencySummary& l) { return Json::array({l.p50, l.p95, l.mean}); }

LatencySummary read_latency(const Json& value, const std::string& where) {
  const Json& list = array_of(value, where, 3);
  return {number(list[0], where + "[0]"), number(list[1], where + "[1]"), number(list[2], where + "[2]")};
}

// The policy's statistic indices: the six of every policy, then the frozen policy's split (JEV §7.1)
// and gate agreement (a state written before they existed has the six only).
std::vector<int32_t*> policy_fields(PolicyStatistics& s) {
  return {&s.cascade_acc,
          &s.cascade_delta,
          &s.escalated,
          &s.errors_escalated,
          &s.fee_ratio,
          &s.random_acc,
          &s.accepted_first_acc,
          &s.accepted_fallback_acc,
          &s.accepted_agree,
          &s.escalated_first_acc,
          &s.escalated_fallback_acc,
          &s.escalated_agree,
          &s.gate_agreement};
}

Json policy_state(const PolicyStatistics& s) {
  PolicyStatistics copy = s;
  Json out = Json::array();
  for (const int32_t* field : policy_fields(copy)) out.push_back(*field);
  return out;
}

PolicyStatistics read_policy(const Json& value, const std::string& where) {
  const Json& list = array_of(value, where);
  PolicyStatistics s;
  const std::vector<int32_t*> fields = policy_fields(s);
  if (list.size() != 6 && list.size() != fields.size()) bad_field(where, "expected 6 or 13 statistic indices");
  for (size_t f = 0; f < list.size(); ++f) *fields[f] = index32(list[f], at_index(where, f));
  return s;
}

// A list's state, each element by `state_of`, and the list read back by `read` (element, its path).
template <typename T, typename StateOf>
Json list_state(const std::vector<T>& values, StateOf state_of) {
  Json out = Json::array();
  for (const T& value : values) out.push_back(state_of(value));
  return out;
}

template <typename T, typename Read>
std::vector<T> read_list(const Json& value, const std::string& at, Read read) {
  std::vector<T> out;
  const Json& list = array_of(value, at);
  for (size_t k = 0; k < list.size(); ++k) out.push_back(read(list[k], at_index(at, k)));
  return out;
}

Json latencies_state(const std::vector<LatencySummary>& latencies) { return list_state(latencies, latency_state); }

std::vector<LatencySummary> read_latencies(const Json& value, const std::string& at) {
  return read_list<LatencySummary>(value, at, read_latency);
}

Json scope_state(const CascadeScope& s) {
  Json policies = Json::array();
  for (const PolicyStatistics& p : s.policies) policies.push_back(policy_state(p));
  return {{"group", optional_json(s.group)},
          {"items", s.items},
          {"clusters", s.clusters},
          {"policies", policies},
          {"oracle_acc", s.oracle_acc},
          {"latencies", latencies_state(s.latencies)},
          {"accepted_latencies", latencies_state(s.accepted_latencies)},
          {"escalated_latencies", latencies_state(s.escalated_latencies)},
          {"first_alone", s.first_alone},
          {"fallback_alone", s.fallback_alone},
          {"first_fee_ratio", s.first_fee_ratio},
          {"first_latency", latency_state(s.first_latency)},
          {"fallback_latency", latency_state(s.fallback_latency)}};
}

CascadeScope read_scope(const Json& state, const std::string& at) {
  CascadeScope s;
  s.group = optional_text(field(state, "group", at), at + ".group");
  s.items = signed_count_of(state, "items", at);
  s.clusters = signed_count_of(state, "clusters", at);
  const Json& policies = array_of(field(state, "policies", at), at + ".policies");
  for (size_t p = 0; p < policies.size(); ++p)
    s.policies.push_back(read_policy(policies[p], at_index(at + ".policies", p)));
  s.oracle_acc = index32(field(state, "oracle_acc", at), at + ".oracle_acc");
  s.latencies = read_latencies(field(state, "latencies", at), at + ".latencies");
  if (state.contains("accepted_latencies")) {
    s.accepted_latencies = read_latencies(state["accepted_latencies"], at + ".accepted_latencies");
    s.escalated_latencies = read_latencies(field(state, "escalated_latencies", at), at + ".escalated_latencies");
  }
  s.first_alone = number(field(state, "first_alone", at), at + ".first_alone");
  s.fallback_alone = number(field(state, "fallback_alone", at), at + ".fallback_alone");
  s.first_fee_ratio = number(field(state, "first_fee_ratio", at), at + ".first_fee_ratio");
  s.first_latency = read_latency(field(state, "first_latency", at), at + ".first_latency");
  s.fallback_latency = read_latency(field(state, "fallback_latency", at), at + ".fallback_latency");
  return s;
}

Json scopes_state(const std::vector<CascadeScope>& scopes) { return list_state(scopes, scope_state); }

std::vector<CascadeScope> read_scopes(const Json& value, const std::string& at) {
  return read_list<CascadeScope>(value, at, read_scope);
}

Json selective_state(const CascadeSelective& s) {
  Json at = Json::array(), bins = Json::array();
  for (const SelectiveAccuracyRows& a : s.at)
    at.push_back(Json::array({a.target, a.threshold, a.covered, a.accuracy, a.coverage}));
  for (const ConfidenceBinAccuracy& b : s.bins)
    bins.push_back(
        Json::array({b.bin, b.n, b.mean_q, b.first, b.fallback, b.lo, b.hi, b.agree, b.first_errors, b.disagree}));
  return {{"group", optional_json(s.group)},
          {"n", s.n},
          {"aurc", s.aurc},
          {"aurc_tie_averaged", s.aurc_tie_averaged},
          {"at", at},
          {"bins", bins},
          {"curve_thresholds", s.curve_thresholds},
          {"curve_coverage", s.curve_coverage},
          {"curve", s.curve}};
}

std::vector<double> numbers(const Json& value, const std::string& where) {
  std::vector<double> out;
  const Json& list = array_of(value, where);
  for (size_t i = 0; i < list.size(); ++i) out.push_back(number(list[i], at_index(where, i)));
  return out;
}

CascadeSelective read_selective(const Json& state, const std::string& at) {
  CascadeSelective s;
  s.group = optional_text(field(state, "group", at), at + ".group");
  s.n = signed_count_of(state, "n", at);
  s.aurc = index32(field(state, "aurc", at), at + ".aurc");
  s.aurc_tie_averaged = number(field(state, "aurc_tie_averaged", at), at + ".aurc_tie_averaged");
  const Json& rows = array_of(field(state, "at", at), at + ".at");
  for (size_t k = 0; k < rows.size(); ++k) {
    const std::string where = at_index(at + ".at", k);
    const Json& row = array_of(rows[k], where, 5);
    s.at.push_back({number(row[0], where + "[0]"), number(row[1], where + "[1]"), signed_count(row[2], where + "[2]"),
                    index32(row[3], where + "[3]"), index32(row[4], where + "[4]")});
  }
  const Json& bins = array_of(field(state, "bins", at), at + ".bins");
  for (size_t k = 0; k < bins.size(); ++k) {
    const std::string where = at_index(at + ".bins", k);
    const Json& row = array_of(bins[k], where);
    if (row.size() != 5 && row.size() != 10) bad_field(where, "expected 5 or 10 elements");
    const int64_t bin = signed_count(row[0], where + "[0]");
    if (bin < 0 || (row.size() == 5 && bin >= kConfidenceBins) || bin > 1000)
      bad_field(where + "[0]", "not a confidence bin");
    ConfidenceBinAccuracy b{static_cast<int>(bin), signed_count(row[1], where + "[1]"), number(row[2], where + "[2]"),
                            index32(row[3], where + "[3]"), index32(row[4], where + "[4]")};
    if (row.size() == 10) {
      b.lo = number(row[5], where + "[5]");
      b.hi = number(row[6], where + "[6]");
      b.agree = index32(row[7], where + "[7]");
      b.first_errors = signed_count(row[8], where + "[8]");
      b.disagree = signed_count(row[9], where + "[9]");
    }
    s.bins.push_back(b);
  }
  s.curve_thresholds = numbers(field(state, "curve_thresholds", at), at + ".curve_thresholds");
  s.curve_coverage = numbers(field(state, "curve_coverage", at), at + ".curve_coverage");
  const Json& curve = array_of(field(state, "curve", at), at + ".curve");
  for (size_t k = 0; k < curve.size(); ++k) s.curve.push_back(index32(curve[k], at_index(at + ".curve", k)));
  return s;
}

Json calibration_state(const CalibrationSummary& c) { return Json::array({c.n, c.nll, c.brier, c.ece}); }

CalibrationSummary read_calibration(const Json& value, const std::string& where) {
  const Json& list = array_of(value, where, 4);
  return {signed_count(list[0], where + "[0]"), number(list[1], where + "[1]"), number(list[2], where + "[2]"),
          number(list[3], where + "[3]")};
}

Json temperature_group_state(const TemperatureGroupResult& g) {
  return {{"name", g.name},
          {"temperature", g.temperature},
          {"pooled_fallback", g.pooled_fallback},
          {"calibration", Json::array({calibration_state(g.selection_before), calibration_state(g.selection_after),
                                       calibration_state(g.heldout_before), calibration_state(g.heldout_after)})}};
}

TemperatureGroupResult read_temperature_group(const Json& state, const std::string& at) {
  TemperatureGroupResult g;
  g.name = text(field(state, "name", at), at + ".name");
  g.temperature = number(field(state, "temperature", at), at + ".temperature");
  g.pooled_fallback = flag(field(state, "pooled_fallback", at), at + ".pooled_fallback");
  const Json& c = array_of(field(state, "calibration", at), at + ".calibration", 4);
  g.selection_before = read_calibration(c[0], at + ".calibration[0]");
  g.selection_after = read_calibration(c[1], at + ".calibration[1]");
  g.heldout_before = read_calibration(c[2], at + ".calibration[2]");
  g.heldout_after = read_calibration(c[3], at + ".calibration[3]");
  return g;
}

Json temperature_state(const TemperatureResult& t) {
  Json groups = Json::array();
  for (const TemperatureGroupResult& g : t.groups) groups.push_back(temperature_group_state(g));
  return {
      {"temperature", t.temperature},
      {"selection_items", t.selection_items},
      {"heldout_items", t.heldout_items},
      {"nll", Json::array({t.selection_nll_before, t.selection_nll_after, t.heldout_nll_before, t.heldout_nll_after})},
      {"per_benchmark", t.per_benchmark},
      {"all", temperature_group_state(t.all)},
      {"groups", groups}};
}

TemperatureResult read_temperature(const Json& state, const std::string& at) {
  TemperatureResult t;
  t.temperature = number(field(state, "temperature", at), at + ".temperature");
  t.selection_items = signed_count_of(state, "selection_items", at);
  t.heldout_items = signed_count_of(state, "heldout_items", at);
  const Json& nll = array_of(field(state, "nll", at), at + ".nll", 4);
  t.selection_nll_before = number(nll[0], at + ".nll[0]");
  t.selection_nll_after = number(nll[1], at + ".nll[1]");
  t.heldout_nll_before = number(nll[2], at + ".nll[2]");
  t.heldout_nll_after = number(nll[3], at + ".nll[3]");
  t.per_benchmark = flag(field(state, "per_benchmark", at), at + ".per_benchmark");
  t.all = read_temperature_group(field(state, "all", at), at + ".all");
  const Json& groups = array_of(field(state, "groups", at), at + ".groups");
  for (size_t g = 0; g < groups.size(); ++g)
    t.groups.push_back(read_temperature_group(groups[g], at_index(at + ".groups", g)));
  return t;
}

// ---- a bootstrap's statistics: rows from the JSON, placed by the render state ----

// Which statistics of `result` the JSON lists, and where: the sweep lists all in order; the
// held-out part lists each rule's built rows per scope; the frozen part its policy's rows and
// the fallback's accuracy per scope.
std::vector<int32_t> built(const PolicyStatistics& s) {
  std::vector<int32_t> out;
  for (int32_t index : {s.cascade_acc, s.cascade_delta, s.escalated, s.errors_escalated, s.fee_ratio, s.random_acc})
    if (index >= 0) out.push_back(index);
  return out;
}

// Per row of the result: the JSON row it is read from (with its path), filled by the callers.
struct PlacedRows {
  std::vector<const Json*> rows;
  std::vector<std::string> paths;
  void place(int32_t index, const Json& row, const std::string& path) {
    if (index < 0 || static_cast<size_t>(index) >= rows.size()) bad_field(path, "a statistic outside its bootstrap");
    rows[index] = &row;
    paths[index] = path;
  }
};

StatLabel cascade_label(const Json& row, const std::string& where, const Json& state, const std::string& state_at) {
  StatLabel l = label_fields(row, where);
  const Json& threshold = field(row, "threshold", where);
  if (threshold.is_string()) {
    l.threshold = threshold.get<std::string>();
  } else if (threshold.is_number()) {  // its text as written ("0.85"), which the number loses
    l.threshold = text(field(state, "threshold", state_at), state_at + ".threshold");
  } else if (!threshold.is_null()) {
    bad_field(where + ".threshold", "expected a number, a string or null");
  }
  l.n = signed_count(field(row, "n", where), where + ".n");
  return l;
}

Interval cascade_interval(const Json& row, const std::string& where, const Json& state, const std::string& state_at) {
  Interval i = interval_fields(row, where);
  i.strata = strata_of(state, state_at);
  i.size_cv = number(field(state, "size_cv", state_at), state_at + ".size_cv");
  i.p = number(field(state, "p", state_at), state_at + ".p");
  i.perm_p = number(field(state, "perm_p", state_at), state_at + ".perm_p");
  return i;
}

// The render state of a result: its run's counts and per statistic what the JSON lacks; `listed`
// says which statistics the JSON lists (the others keep their whole row here).
Json result_state(const BootstrapResult& result, const std::vector<bool>& listed) {
  Json intervals = Json::array();
  BootstrapResult one;
  for (size_t s = 0; s < result.intervals.size(); ++s) {
    const Interval& i = result.intervals[s];
    Json state = {{"strata", i.strata},
                  {"size_cv", i.size_cv},
                  {"p", i.p},
                  {"perm_p", i.perm_p},
                  {"threshold", optional_json(result.labels[s].threshold)}};
    if (!listed[s]) {
      one.labels = {result.labels[s]};
      one.intervals = {i};
      state["row"] = statistics_json(one).front();
    }
    intervals.push_back(state);
  }
  return {{"replicates_run", result.replicates_run},
          {"n_clusters", result.n_clusters},
          {"summary_s", result.summary_s},
          {"intervals", intervals}};
}

// The result's statistics: each from its JSON row in `placed`, else from its render state's row.
void read_result(const Json& state, const std::string& at, PlacedRows placed, BootstrapResult& result) {
  result.replicates_run = count(field(state, "replicates_run", at), at + ".replicates_run");
  result.n_clusters = signed_count_of(state, "n_clusters", at);
  result.summary_s = number(field(state, "summary_s", at), at + ".summary_s");
  const Json& intervals = array_of(field(state, "intervals", at), at + ".intervals", placed.rows.size());
  if (placed.rows.size() != intervals.size()) bad_field(at + ".intervals", "expected one element per statistic");
  for (size_t s = 0; s < intervals.size(); ++s) {
    const std::string state_at = at_index(at + ".intervals", s);
    const Json* row = placed.rows[s];
    std::string path = placed.paths[s];
    if (!row) {
      if (!intervals[s].contains("row")) bad_field(state_at, "a statistic the result does not list and this lacks");
      row = &intervals[s]["row"];
      path = state_at + ".row";
    } else if (intervals[s].contains("row")) {
      bad_field(state_at + ".row", "a statistic the result lists already");
    }
    result.labels.push_back(cascade_label(*row, path, intervals[s], state_at));
    result.intervals.push_back(cascade_interval(*row, path, intervals[s], state_at));
  }
}

PlacedRows placed_of(size_t size) {
  PlacedRows placed;
  placed.rows.assign(size, nullptr);
  placed.paths.assign(size, "");
  return placed;
}

// The scopes' objects of a with_groups section: the pooled one, then each of `groups`.
std::vector<std::pair<const Json*, std::string>> scope_objects(const Json& section, const std::string& at,
                                                               size_t scopes) {
  std::vector<std::pair<const Json*, std::string>> out{{&section, at}};
  if (scopes > 1) {
    const Json& groups = array_of(field(section, "groups", at), at + ".groups", scopes - 1);
    for (size_t g = 0; g < groups.size(); ++g) out.push_back({&groups[g], at_index(at + ".groups", g)});
  }
  return out;
}

// Each scope's `statistics` rows of a policy, placed at its built statistics.
void place_policy_rows(const Json& object, const std::string& at, const PolicyStatistics& policy, PlacedRows& placed) {
  const std::vector<int32_t> indices = built(policy);
  const Json& rows = array_of(field(object, "statistics", at), at + ".statistics", indices.size());
  if (rows.size() != indices.size()) bad_field(at + ".statistics", "expected one row per statistic of the policy");
  for (size_t k = 0; k < indices.size(); ++k) placed.place(indices[k], rows[k], at_index(at + ".statistics", k));
}

}  // namespace

namespace {

// Which statistics of the held-out and frozen results the JSON lists (the sweep lists them all).
std::vector<bool> listed_heldout(const CascadeRules& rules) {
  std::vector<bool> listed(rules.heldout.intervals.size(), false);
  for (const CascadeScope& s : rules.heldout_scopes)
    for (size_t k = 0; k < rules.choices.size() && k < s.policies.size(); ++k)
      for (int32_t index : built(s.policies[k])) listed[index] = true;
  return listed;
}

std::vector<bool> listed_frozen(const CascadeFrozen& f) {
  std::vector<bool> listed(f.result.intervals.size(), false);
  for (const CascadeScope& s : f.scopes) {
    for (int32_t index : built(s.policies[0])) listed[index] = true;
    listed[s.policies[1].cascade_acc] = true;
  }
  return listed;
}

Json validity_state(const std::vector<JudgeValidity>& validity) {
  Json out = Json::array();
  for (const JudgeValidity& v : validity)
    out.push_back({{"judge", v.judge},
                   {"records", v.records},
                   {"invalid", v.invalid},
                   {"invalid_reason", v.invalid_reason},
                   {"common_invalid_value", v.common_invalid_value},
                   {"common_invalid_count", v.common_invalid_count},
                   {"items", v.items},
                   {"items_without_gold", v.items_without_gold},
                   {"gold_statistics", v.gold_statistics}});
  return out;
}

std::vector<JudgeValidity> read_validity(const Json& value, const std::string& at) {
  std::vector<JudgeValidity> out;
  const Json& list = array_of(value, at);
  for (size_t j = 0; j < list.size(); ++j) {
    const std::string where = at_index(at, j);
    JudgeValidity v;
    v.judge = text(field(list[j], "judge", where), where + ".judge");
    v.records = signed_count_of(list[j], "records", where);
    v.invalid = signed_count_of(list[j], "invalid", where);
    v.invalid_reason = text(field(list[j], "invalid_reason", where), where + ".invalid_reason");
    v.common_invalid_value = text(field(list[j], "common_invalid_value", where), where + ".common_invalid_value");
    v.common_invalid_count = signed_count_of(list[j], "common_invalid_count", where);
    v.items = signed_count_of(list[j], "items", where);
    v.items_without_gold = signed_count_of(list[j], "items_without_gold", where);
    v.gold_statistics = text(field(list[j], "gold_statistics", where), where + ".gold_statistics");
    out.push_back(std::move(v));
  }
  return out;
}

FrozenThreshold frozen_threshold(const Json& label, const std::string& where) {
  FrozenThreshold t;
  t.label = text(label, where);
  if (t.label != "all") {
    try {
      t.value = std::stod(t.label);
    } catch (const std::exception&) {
      bad_field(where, "not a threshold: '" + t.label + "'");
    }
  }
  return t;
}

std::vector<std::pair<std::string, FrozenThreshold>> read_named_thresholds(const Json& value, const std::string& at) {
  std::vector<std::pair<std::string, FrozenThreshold>> out;
  const Json& list = array_of(value, at);
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string where = at_index(at, k);
    const Json& pair = array_of(list[k], where, 2);
    out.push_back({text(pair[0], where + "[0]"), frozen_threshold(pair[1], where + "[1]")});
  }
  return out;
}

Json named_thresholds_state(const std::vector<std::pair<std::string, FrozenThreshold>>& named) {
  Json out = Json::array();
  for (const auto& [name, t] : named) out.push_back(Json::array({name, t.label}));
  return out;
}

}  // namespace

Json render_state(const CascadeReport& r) {
  const CascadeSettings& o = r.options;
  Json state = {{"grid_labels", o.grid.labels},
                {"strata", o.strata},
                {"temperature", o.temperature},
                {"strata_names", r.strata_names},
                {"validity", validity_state(r.validity)},
                {"sweep", result_state(r.sweep.result, std::vector<bool>(r.sweep.result.intervals.size(), true))},
                {"sweep_scopes", scopes_state(r.sweep.scopes)},
                {"selective", selective_state(r.sweep.selective)},
                {"gate_q", r.gate_q},
                {"gate_correct", r.gate_correct}};
  Json group_selective = Json::array();
  for (const CascadeSelective& s : r.sweep.group_selective) group_selective.push_back(selective_state(s));
  state["group_selective"] = group_selective;
  if (o.tau)
    state["tau"] = {{"every", o.tau->every ? Json(o.tau->every->label) : Json(nullptr)},
                    {"per_benchmark", named_thresholds_state(o.tau->per_benchmark)}};
  if (r.rules) {
    Json choices = Json::array();
    for (const RuleChoice& c : r.rules->choices)
      choices.push_back({{"rule", rule_name(c.rule)}, {"per_stratum", c.per_stratum}, {"chosen", c.chosen}});
    state["rules"] = {{"choices", choices},
                      {"heldout", result_state(r.rules->heldout, listed_heldout(*r.rules))},
                      {"heldout_scopes", scopes_state(r.rules->heldout_scopes)},
                      {"temperature", temperature_state(r.rules->temperature)}};
  }
  if (r.frozen)
    state["frozen"] = {{"applied", named_thresholds_state(r.frozen->applied)},
                       {"result", result_state(r.frozen->result, listed_frozen(*r.frozen))},
                       {"scopes", scopes_state(r.frozen->scopes)}};
  if (r.other_gate)  // the JSON lists every statistic of the other gate's sweep
    state["other_gate"] = {
        {"result", result_state(r.other_gate->result, std::vector<bool>(r.other_gate->result.intervals.size(), true))},
        {"scopes", scopes_state(r.other_gate->scopes)}};
  return state;
}

namespace {

std::map<std::string, double> per_judge(const Json& value, const std::string& where) {
  if (!value.is_object()) bad_field(where, "expected an object");
  std::map<std::string, double> out;
  for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = number(it.value(), path_of(where, it.key()));
  return out;
}

void read_cascade_settings(const Json& json, const Json& render, CascadeReport& r) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  CascadeSettings& o = r.options;
  BootstrapOptions run;  // the run's settings: the writers read them from the sweep's result
  read_bootstrap_settings(settings, at, run);
  r.sweep.result.backend = text(field(settings, "backend", at), at + ".backend");
  r.sweep.result.device = text(field(settings, "device", at), at + ".device");
  o.first = text(field(settings, "first", at), at + ".first");
  o.fallback = text(field(settings, "fallback", at), at + ".fallback");
  o.grid.values = numbers(field(settings, "grid", at), at + ".grid");
  o.grid.labels =
      texts_or_null(array_of(field(render, "grid_labels", "render"), "render.grid_labels"), "render.grid_labels");
  if (o.grid.labels.size() != o.grid.values.size())
    bad_field("render.grid_labels", "expected one label per value of settings.grid");
  const Json& gate_orders = field(settings, "gate_orders", at);
  o.gate_orders = gate_orders.is_string() && gate_orders.get<std::string>() == "present"
                      ? 0
                      : optional_int(gate_orders, at + ".gate_orders").value_or(0);
  const Json& select = field(settings, "select", at);
  if (!select.is_null()) o.select = number(select, at + ".select");
  o.select_column = optional_text(field(settings, "select_column", at), at + ".select_column").value_or("");
  o.select_items = optional_text(field(settings, "select_items", at), at + ".select_items").value_or("");
  o.tol = number(field(settings, "tol", at), at + ".tol");
  o.z = number(field(settings, "z", at), at + ".z");
  o.per_stratum = flag(field(settings, "per_stratum", at), at + ".per_stratum");
  o.strata = text(field(render, "strata", "render"), "render.strata");
  o.temperature = text(field(render, "temperature", "render"), "render.temperature");
  o.fee = per_judge(field(settings, "fee", at), at + ".fee");
  o.latency = per_judge(field(settings, "latency", at), at + ".latency");
  if (!field(settings, "tau", at).is_null()) {
    const Json& tau = field(render, "tau", "render");
    FrozenTau frozen;
    const Json& every = field(tau, "every", "render.tau");
    if (!every.is_null()) frozen.every = frozen_threshold(every, "render.tau.every");
    frozen.per_benchmark = read_named_thresholds(field(tau, "per_benchmark", "render.tau"), "render.tau.per_benchmark");
    o.tau = frozen;
  }
  o.by = optional_text(field(settings, "by", at), at + ".by").value_or("");
  if (settings.contains("bins")) o.bin_edges = numbers(settings["bins"], at + ".bins");
  if (settings.contains("compare_gate")) o.compare_gate = text(settings["compare_gate"], at + ".compare_gate");
  if (settings.contains("other_gate_orders")) {
    const int64_t gate = signed_count(settings["other_gate_orders"], at + ".other_gate_orders");
    if (gate != 1 && gate != 2) bad_field(at + ".other_gate_orders", "expected 1 or 2");
    o.other_gate_orders = static_cast<int>(gate);
  }
  o.benchmarks = texts_or_null(field(settings, "benchmarks", at), at + ".benchmarks");
  r.sweep.result.seed = run.seed;  // replicates_run: render.sweep's (to_json then gives the settings again)
  r.sweep.result.ci = run.ci;
  r.sweep.result.level = run.level;
}

std::string judge_source(const Json& sources, const std::string& judge, const std::string& at) {
  return text(field(sources, judge, at), path_of(at, judge));
}

void read_cascade_pool(const Json& json, CascadeReport& r) {
  const std::string at = "pool";
  const Json& pool = field(json, at, "");
  const int64_t items = signed_count_of(pool, "items", at), clusters = signed_count_of(pool, "clusters", at);
  const int64_t orders = signed_count_of(pool, "first_orders", at);
  for (int64_t v : {items, clusters, orders})
    if (v < 0 || v > std::numeric_limits<int32_t>::max()) bad_field(at, "a count out of range");
  r.items = static_cast<int32_t>(items);
  r.clusters = static_cast<int32_t>(clusters);
  r.first_orders = static_cast<int32_t>(orders);
  r.gate_ok = signed_count_of(pool, "gate_ok", at);
  r.fewer_orders = signed_count_of(pool, "fewer_orders", at);
  r.escalated_for_missing_orders = signed_count_of(pool, "escalated_for_missing_orders", at);
  const Json& fees = field(pool, "fee_source", at);
  r.fee_first.from = judge_source(fees, r.options.first, at + ".fee_source");
  r.fee_fallback.from = judge_source(fees, r.options.fallback, at + ".fee_source");
  const Json& latencies = field(pool, "latency_source", at);
  r.latency_first.from = judge_source(latencies, r.options.first, at + ".latency_source");
  r.latency_fallback.from = judge_source(latencies, r.options.fallback, at + ".latency_source");
  const Json& unit = field(pool, "fee_unit_usd", at);
  r.fees = !unit.is_null();
  if (r.fees) {
    r.fee_scale.unit = number(unit, at + ".fee_unit_usd");
    r.fee_scale.exact = flag(field(pool, "fee_exact", at), at + ".fee_exact");
  }
  r.latency = !field(json, "latency", "").is_null();
}

void read_cascade_groups(const Json& json, CascadeReport& r) {
  const Json& groups = field(json, "groups", "");
  if (groups.is_null()) return;
  CascadeGrouping g;
  g.key = text(field(groups, "key", "groups"), "groups.key");
  g.names = texts_or_null(array_of(field(groups, "names", "groups"), "groups.names"), "groups.names");
  g.domain = !flag(field(groups, "stratified", "groups"), "groups.stratified");
  g.note = optional_text(field(groups, "note", "groups"), "groups.note").value_or("");
  r.grouping = g;
}

void read_split(const Json& json, CascadeRules& rules) {
  const std::string at = "split";
  const Json& split = field(json, at, "");
  SelectionSource& source = rules.source;
  source.kind = text(field(split, "source", at), at + ".source");
  if (source.kind != "random" && source.kind != "column" && source.kind != "items")
    bad_field(at + ".source", "not a selection source: '" + source.kind + "'");
  if (source.kind == "random") source.fraction = number(field(split, "select", at), at + ".select");
  if (source.kind == "column") source.column = text(field(split, "column", at), at + ".column");
  if (source.kind == "items") {
    source.file = text(field(split, "file", at), at + ".file");
    source.listed = signed_count_of(split, "listed", at);
    source.listed_outside = signed_count_of(split, "listed_not_analysed", at);
  }
  if (source.kind != "random") source.straddling_clusters = signed_count_of(split, "straddling_clusters", at);
  const Json& selection = field(split, "selection", at);
  rules.selection_items = signed_count_of(selection, "items", at + ".selection");
  rules.selection_clusters = signed_count_of(selection, "clusters", at + ".selection");
  const Json& heldout = field(split, "heldout", at);
  rules.heldout_items = signed_count_of(heldout, "items", at + ".heldout");
  rules.heldout_clusters = signed_count_of(heldout, "clusters", at + ".heldout");
}

// The selection trials (the first rule's, as trials_json writes them) and each stratum's labelled items.
void read_trials(const Json& json, const ThresholdGrid& grid, RuleChoice& choice) {
  const Json& strata = array_of(field(json, "selection_trials", ""), "selection_trials");
  for (size_t h = 0; h < strata.size(); ++h) {
    const std::string at = at_index("selection_trials", h);
    choice.labelled.push_back(signed_count_of(strata[h], "labelled", at));
    const Json& rows = array_of(field(strata[h], "rows", at), at + ".rows", static_cast<size_t>(grid.size()));
    std::vector<SelectionTrial> trials;
    for (size_t g = 0; g < rows.size(); ++g) {
      const std::string row_at = at_index(at + ".rows", g);
      SelectionTrial t;
      t.n = signed_count_of(rows[g], "n", row_at);
      t.accepted = signed_count_of(rows[g], "accepted", row_at);
      t.mean_delta = number(field(rows[g], "mean_delta", row_at), row_at + ".mean_delta");
      t.lower_bound = number(field(rows[g], "lower_bound", row_at), row_at + ".lower_bound");
      t.point_passes = flag(field(rows[g], "point_passes", row_at), row_at + ".point_passes");
      t.lower_passes = flag(field(rows[g], "lower_passes", row_at), row_at + ".lower_passes");
      trials.push_back(t);
    }
    choice.trials.push_back(std::move(trials));
  }
}

// The run's bootstrap settings, which a result read back from its render state shares with the sweep.
void share_run_settings(const BootstrapResult& sweep, BootstrapResult& result) {
  result.seed = sweep.seed;
  result.ci = sweep.ci;
  result.level = sweep.level;
  result.backend = sweep.backend;
  result.device = sweep.device;
}

void read_rules(const Json& json, const Json& render, CascadeReport& r) {
  if (field(json, "rules", "").is_null()) {
    if (render.contains("rules")) bad_field("render.rules", "rules the result does not have");
    return;
  }
  const Json& state = field(render, "rules", "render");
  CascadeRules rules;
  read_split(json, rules);
  const Json& choices = array_of(field(state, "choices", "render.rules"), "render.rules.choices", 2);
  for (size_t k = 0; k < choices.size(); ++k) {
    const std::string at = at_index("render.rules.choices", k);
    RuleChoice choice;
    const std::string rule = text(field(choices[k], "rule", at), at + ".rule");
    if (rule != rule_name(ThresholdRule::kPoint) && rule != rule_name(ThresholdRule::kLower))
      bad_field(at + ".rule", "not a rule: '" + rule + "'");
    choice.rule = rule == rule_name(ThresholdRule::kPoint) ? ThresholdRule::kPoint : ThresholdRule::kLower;
    choice.per_stratum = flag(field(choices[k], "per_stratum", at), at + ".per_stratum");
    const Json& chosen = array_of(field(choices[k], "chosen", at), at + ".chosen");
    for (size_t h = 0; h < chosen.size(); ++h) {
      const int32_t index = index32(chosen[h], at_index(at + ".chosen", h));
      if (index < 0 || index > r.options.grid.size()) bad_field(at_index(at + ".chosen", h), "not a grid index");
      choice.chosen.push_back(index);
    }
    read_trials(json, r.options.grid, choice);
    if (choice.chosen.size() != choice.trials.size())
      bad_field(at + ".chosen", "expected one choice per stratum of result.selection_trials");
    rules.choices.push_back(std::move(choice));
  }
  rules.heldout_scopes = read_scopes(field(state, "heldout_scopes", "render.rules"), "render.rules.heldout_scopes");
  const Json& heldout_state = field(state, "heldout", "render.rules");
  PlacedRows placed = placed_of(
      array_of(field(heldout_state, "intervals", "render.rules.heldout"), "render.rules.heldout.intervals").size());
  const Json& rows = array_of(field(json, "rules", ""), "rules", rules.choices.size());
  for (size_t k = 0; k < rows.size() && rules.scored(); ++k) {
    const std::string at = at_index("rules", k);
    const auto objects = scope_objects(field(rows[k], "heldout", at), at + ".heldout", rules.heldout_scopes.size());
    for (size_t g = 0; g < objects.size(); ++g) {
      if (rules.heldout_scopes[g].policies.size() <= k) bad_field("render.rules.heldout_scopes", "a policy missing");
      place_policy_rows(*objects[g].first, objects[g].second, rules.heldout_scopes[g].policies[k], placed);
    }
  }
  read_result(heldout_state, "render.rules.heldout", placed, rules.heldout);
  share_run_settings(r.sweep.result, rules.heldout);
  rules.temperature = read_temperature(field(state, "temperature", "render.rules"), "render.rules.temperature");
  r.rules = std::move(rules);
}

GateComparison read_gate_comparison(const Json& value) {
  const std::string at = "frozen.gate_comparison";
  GateComparison g;
  g.file = text(field(value, "file", at), at + ".file");
  g.common = signed_count_of(value, "common", at);
  g.both_accept = signed_count_of(value, "both_accept", at);
  g.both_escalate = signed_count_of(value, "both_escalate", at);
  g.accepted_here_only = signed_count_of(value, "accepted_here_only", at);
  g.accepted_there_only = signed_count_of(value, "accepted_there_only", at);
  g.only_here = signed_count_of(value, "only_here", at);
  return g;
}

void read_frozen(const Json& json, const Json& render, CascadeReport& r) {
  const Json& frozen = field(json, "frozen", "");
  if (frozen.is_null()) return;
  if (!r.options.tau) bad_field("settings.tau", "expected the frozen τ the result scores");
  const Json& state = field(render, "frozen", "render");
  CascadeFrozen f;
  f.tau = *r.options.tau;
  const std::string scored_on = text(field(frozen, "scored_on", "frozen"), "frozen.scored_on");
  if (scored_on != "heldout" && scored_on != "all") bad_field("frozen.scored_on", "expected heldout or all");
  f.heldout = scored_on == "heldout";
  f.applied = read_named_thresholds(field(state, "applied", "render.frozen"), "render.frozen.applied");
  f.scopes = read_scopes(field(state, "scopes", "render.frozen"), "render.frozen.scopes");
  if (f.scopes.empty()) bad_field("render.frozen.scopes", "expected the pooled scope");
  const Json& result_state = field(state, "result", "render.frozen");
  PlacedRows placed = placed_of(
      array_of(field(result_state, "intervals", "render.frozen.result"), "render.frozen.result.intervals").size());
  const auto objects = scope_objects(frozen, "frozen", f.scopes.size());
  for (size_t g = 0; g < objects.size(); ++g) {
    const CascadeScope& scope = f.scopes[g];
    if (scope.policies.size() != 2) bad_field("render.frozen.scopes", "expected the frozen policy and `all`");
    const auto& [object, at] = objects[g];
    place_policy_rows(*object, at, scope.policies[0], placed);
    const Json& fallback = array_of(field(*object, "fallback_alone", at), at + ".fallback_alone", 1);
    placed.place(scope.policies[1].cascade_acc, fallback[0], at + ".fallback_alone[0]");
  }
  read_result(result_state, "render.frozen.result", placed, f.result);
  if (frozen.contains("gate_comparison")) f.gate_comparison = read_gate_comparison(frozen["gate_comparison"]);
  share_run_settings(r.sweep.result, f.result);
  r.frozen = std::move(f);
}

// --other-gate-orders: the other gate's sweep, its statistics from result.other_gate (every one, in
// order), its scopes from the render state.
void read_other_gate(const Json& json, const Json& render, CascadeReport& r) {
  if (!json.contains("other_gate")) {
    if (r.options.other_gate_orders != 0) bad_field("other_gate", "missing (settings.other_gate_orders)");
    if (render.contains("other_gate")) bad_field("render.other_gate", "a sweep the result does not have");
    return;
  }
  const Json& other = json["other_gate"];
  const Json& state = field(render, "other_gate", "render");
  OtherGateSweep g;
  const int64_t gate = signed_count_of(other, "gate_orders", "other_gate");
  if (gate != r.options.other_gate_orders) bad_field("other_gate.gate_orders", "expected settings.other_gate_orders");
  g.gate_orders = static_cast<int>(gate);
  const Json& pool = field(other, "pool", "other_gate");
  const int64_t items = signed_count_of(pool, "items", "other_gate.pool");
  const int64_t clusters = signed_count_of(pool, "clusters", "other_gate.pool");
  const int64_t orders = signed_count_of(pool, "first_orders", "other_gate.pool");
  for (int64_t v : {items, clusters, orders})
    if (v < 0 || v > std::numeric_limits<int32_t>::max()) bad_field("other_gate.pool", "a count out of range");
  g.items = static_cast<int32_t>(items);
  g.clusters = static_cast<int32_t>(clusters);
  g.first_orders = static_cast<int32_t>(orders);
  g.gate_ok = signed_count_of(pool, "gate_ok", "other_gate.pool");
  g.fewer_orders = signed_count_of(pool, "fewer_orders", "other_gate.pool");
  g.scopes = read_scopes(field(state, "scopes", "render.other_gate"), "render.other_gate.scopes");
  const Json& rows = array_of(field(other, "statistics", "other_gate"), "other_gate.statistics");
  PlacedRows placed = placed_of(rows.size());
  for (size_t s = 0; s < rows.size(); ++s)
    placed.place(static_cast<int32_t>(s), rows[s], at_index("other_gate.statistics", s));
  read_result(field(state, "result", "render.other_gate"), "render.other_gate.result", placed, g.result);
  share_run_settings(r.sweep.result, g.result);
  r.other_gate = std::move(g);
}

// Every index the writers follow points into its bootstrap, and every scope has what the
// writers read of it, so that a render state the writers would misread is refused, not followed.
void check_scopes(const std::vector<CascadeScope>& scopes, size_t policies, size_t statistics, bool fees, bool grouped,
                  const std::string& at, bool oracle) {
  if (scopes.empty()) bad_field(at, "expected the pooled scope");
  for (size_t k = 0; k < scopes.size(); ++k) {
    const std::string where = at_index(at, k);
    const CascadeScope& s = scopes[k];
    if (s.group.has_value() != (k > 0) || (k > 0 && !grouped))
      bad_field(where + ".group", k ? "expected a group of result.groups" : "expected null for the pooled scope");
    if (s.policies.size() != policies || s.latencies.size() != policies)
      bad_field(where + ".policies", "expected " + std::to_string(policies) + " policies and latencies");
    auto in_range = [&](int32_t index, bool needed, const std::string& name) {
      if ((needed && index < 0) || index < -1 || (index >= 0 && static_cast<size_t>(index) >= statistics))
        bad_field(where + "." + name, "not a statistic of its bootstrap");
    };
    for (size_t p = 0; p < policies; ++p) {
      const PolicyStatistics& ps = s.policies[p];
      const std::string name = at_index("policies", p);
      in_range(ps.cascade_acc, true, name);
      in_range(ps.cascade_delta, true, name);
      in_range(ps.escalated, true, name);
      in_range(ps.errors_escalated, false, name);
      in_range(ps.fee_ratio, fees, name);
      in_range(ps.random_acc, fees, name);
      for (int32_t index : {ps.accepted_first_acc, ps.accepted_fallback_acc, ps.accepted_agree, ps.escalated_first_acc,
                            ps.escalated_fallback_acc, ps.escalated_agree, ps.gate_agreement})
        in_range(index, false, name);
    }
    if ((!s.accepted_latencies.empty() && s.accepted_latencies.size() != policies) ||
        s.escalated_latencies.size() != s.accepted_latencies.size())
      bad_field(where + ".accepted_latencies", "expected one per policy");
    in_range(s.oracle_acc, oracle, "oracle_acc");
  }
}

void check_selective(const CascadeSelective& s, size_t statistics, const std::string& at, bool pooled, bool aurc_read) {
  auto in_range = [&](int32_t index, bool needed, const std::string& name) {
    if ((needed && index < 0) || index < -1 || (index >= 0 && static_cast<size_t>(index) >= statistics))
      bad_field(at + "." + name, "not a statistic of the sweep");
  };
  // The text writer reads every group's AURC, and each bin's fallback, when the pooled AURC is
  // there (cascade_report.cpp's selective_table and confidence_bin_table).
  in_range(s.aurc, !pooled && aurc_read, "aurc");
  for (size_t k = 0; k < s.at.size(); ++k) {
    in_range(s.at[k].accuracy, true, at_index("at", k));
    in_range(s.at[k].coverage, true, at_index("at", k));
  }
  for (size_t k = 0; k < s.bins.size(); ++k) {
    in_range(s.bins[k].first, true, at_index("bins", k));
    in_range(s.bins[k].fallback, aurc_read, at_index("bins", k));
    in_range(s.bins[k].agree, false, at_index("bins", k));
  }
  for (size_t k = 0; k < s.curve.size(); ++k) in_range(s.curve[k], true, at_index("curve", k));
  if (s.curve_coverage.size() < s.curve.size()) bad_field(at + ".curve", "expected a coverage per curve row");
  if (s.group.has_value() == pooled) bad_field(at + ".group", pooled ? "expected null" : "expected a group");
}

void check_indices(const CascadeReport& r) {
  const size_t grid = static_cast<size_t>(r.options.grid.size());
  const bool grouped = r.grouping.has_value();
  check_scopes(r.sweep.scopes, grid + 1, r.sweep.result.intervals.size(), r.fees, grouped, "render.sweep_scopes", true);
  const bool aurc_read = r.sweep.selective.aurc >= 0;
  check_selective(r.sweep.selective, r.sweep.result.intervals.size(), "render.selective", true, aurc_read);
  for (size_t g = 0; g < r.sweep.group_selective.size(); ++g) {
    if (!grouped) bad_field("render.group_selective", "groups the result does not have");
    check_selective(r.sweep.group_selective[g], r.sweep.result.intervals.size(), at_index("render.group_selective", g),
                    false, aurc_read);
  }
  if (r.rules) {
    const CascadeRules& rules = *r.rules;
    if (rules.scored())
      check_scopes(rules.heldout_scopes, rules.choices.size(), rules.heldout.intervals.size(), r.fees, grouped,
                   "render.rules.heldout_scopes", false);
    const size_t strata = rules.choices.front().trials.size();
    if (strata == 0 || (r.options.per_stratum ? r.strata_names.size() != strata : strata != 1))
      bad_field("selection_trials", "expected one stratum per rule stratum (render.strata_names)");
    for (const RuleChoice& choice : rules.choices)
      if (choice.chosen.size() != strata) bad_field("render.rules.choices", "expected one choice per stratum");
  }
  if (r.frozen) {
    const CascadeFrozen& f = *r.frozen;
    if (f.tau.empty() || (f.tau.per_benchmark.empty() && !f.tau.every)) bad_field("render.tau", "expected a frozen τ");
    check_scopes(f.scopes, 2, f.result.intervals.size(), r.fees, grouped, "render.frozen.scopes", false);
  }
  if (r.other_gate)
    check_scopes(r.other_gate->scopes, grid + 1, r.other_gate->result.intervals.size(), r.fees, grouped,
                 "render.other_gate.scopes", true);
}

// The first stage's gate pairs, as cascade_run writes them: at most one per pool item, q the
// top order-averaged probability (in (0, 1]) and correct 1, ½ (a tie with gold) or 0. A q the
// writers cannot bin (NaN, 1e300) is refused here, not passed to the reliability and risk–coverage.
void read_gate(const Json& render, CascadeReport& r) {
  r.gate_q = numbers(field(render, "gate_q", "render"), "render.gate_q");
  r.gate_correct = numbers(field(render, "gate_correct", "render"), "render.gate_correct");
  if (r.gate_q.size() != r.gate_correct.size()) bad_field("render.gate_correct", "expected one value per gate_q");
  if (r.gate_q.size() > static_cast<size_t>(r.items))
    bad_field("render.gate_q", "expected at most one value per pool item (pool.items)");
  for (size_t i = 0; i < r.gate_q.size(); ++i) {
    const double q = r.gate_q[i], c = r.gate_correct[i];
    if (!(q > 0 && q <= 1)) bad_field(at_index("render.gate_q", i), "expected a confidence in (0, 1]");
    if (c != 0 && c != 0.5 && c != 1) bad_field(at_index("render.gate_correct", i), "expected 0, 0.5 or 1");
  }
}

// The notes: the report's own with all_invalid_notes(validity) after the domain note (when any).
void read_cascade_notes(const Json& json, CascadeReport& r) {
  std::vector<std::string> all = texts_or_null(array_of(field(json, "notes", ""), "notes"), "notes");
  const size_t after = r.grouping && r.grouping->domain ? 1 : 0;
  const size_t invalid = all_invalid_notes(r.validity).size();
  if (all.size() < after + invalid) bad_field("notes", "expected the judges' all-invalid notes");
  all.erase(all.begin() + static_cast<std::ptrdiff_t>(after),
            all.begin() + static_cast<std::ptrdiff_t>(after + invalid));
  r.notes = std::move(all);
}

void read_timing(const Json& json, CascadeReport& r) {
  const Json& timing = field(json, "timing", "");
  r.sweep.result.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  r.sweep.result.summary_s = number(field(timing, "summary_s", "timing"), "timing.summary_s");
  if (r.rules && r.rules->scored())
    r.rules->heldout.resample_s = number(field(timing, "heldout_resample_s", "timing"), "timing.heldout_resample_s");
  if (r.frozen)
    r.frozen->result.resample_s = number(field(timing, "frozen_resample_s", "timing"), "timing.frozen_resample_s");
  if (r.other_gate)
    r.other_gate->result.resample_s =
        number(field(timing, "other_gate_resample_s", "timing"), "timing.other_gate_resample_s");
}

}  // namespace

CascadeReport cascade_report_from_json(const Json& json, const Json& render) {
  if (!render.is_object()) throw std::invalid_argument("render: expected an object");
  CascadeReport r;
  read_cascade_settings(json, render, r);
  read_cascade_pool(json, r);
  read_cascade_groups(json, r);
  r.strata_names =
      texts_or_null(array_of(field(render, "strata_names", "render"), "render.strata_names"), "render.strata_names");
  r.sweep.scopes = read_scopes(field(render, "sweep_scopes", "render"), "render.sweep_scopes");
  if (r.sweep.scopes.empty()) bad_field("render.sweep_scopes", "expected the pooled scope");
  const Json& rows = array_of(field(json, "statistics", ""), "statistics");
  PlacedRows placed = placed_of(rows.size());
  for (size_t s = 0; s < rows.size(); ++s) placed.place(static_cast<int32_t>(s), rows[s], at_index("statistics", s));
  read_result(field(render, "sweep", "render"), "render.sweep", placed, r.sweep.result);
  r.sweep.selective = read_selective(field(render, "selective", "render"), "render.selective");
  const Json& groups = array_of(field(render, "group_selective", "render"), "render.group_selective");
  for (size_t g = 0; g < groups.size(); ++g)
    r.sweep.group_selective.push_back(read_selective(groups[g], at_index("render.group_selective", g)));
  read_rules(json, render, r);
  read_frozen(json, render, r);
  read_other_gate(json, render, r);
  r.validity = read_validity(field(render, "validity", "render"), "render.validity");
  read_cascade_notes(json, r);
  read_gate(render, r);
  read_timing(json, r);
  check_indices(r);
  return r;
}

}  // namespace judgestat
