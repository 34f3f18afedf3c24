// Reports read back from their JSON (report/report_from_json.hpp). Each reader takes exactly the
// fields its to_json writes (host/report/*_report.cpp) under the same names, and names the first
// one that is missing or of the wrong type, so that an edited cache entry is rejected, not
// half-read. The field readers (namespace from_json, report/from_json_fields.hpp) are shared
// with the readers in their own files (profile_from_json.cpp).
#include "report/report_from_json.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/from_json_fields.hpp"
#include "report/invalid_exclusion.hpp"
#include "report/repeats_from_json.hpp"
#include "report/report.hpp"
#include "report/systems_from_json.hpp"

namespace judgestat {
namespace from_json {

// `where` is a path in the result, or in the render state when it starts "render".
[[noreturn]] void bad_field(const std::string& where, const std::string& what) {
  const bool in_render = where.compare(0, 6, "render") == 0;
  throw std::invalid_argument((in_render ? "" : "result.") + where + ": " + what);
}

const Json& field(const Json& object, const std::string& key, const std::string& where) {
  if (!object.is_object()) bad_field(where, "expected an object");
  const auto found = object.find(key);
  if (found == object.end()) bad_field(where.empty() ? key : where + "." + key, "missing");
  return *found;
}

std::string path_of(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

// A number as the writers print it; null is how dump_json writes NaN and the infinities.
double number(const Json& value, const std::string& where) {
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value.is_number()) bad_field(where, "expected a number or null");
  return value.get<double>();
}

uint64_t count(const Json& value, const std::string& where) {
  if (!value.is_number_unsigned()) bad_field(where, "expected a whole number ≥ 0");
  return value.get<uint64_t>();
}

int64_t signed_count(const Json& value, const std::string& where) {
  if (!value.is_number_integer()) bad_field(where, "expected a whole number");
  return value.get<int64_t>();
}

// `object[name]` as signed_count reads it, named `at.name` in an error.
int64_t signed_count_of(const Json& object, const std::string& name, const std::string& at) {
  return signed_count(field(object, name, at), at + "." + name);
}

std::string text(const Json& value, const std::string& where) {
  if (!value.is_string()) bad_field(where, "expected a string");
  return value.get<std::string>();
}

bool flag(const Json& value, const std::string& where) {
  if (!value.is_boolean()) bad_field(where, "expected true or false");
  return value.get<bool>();
}

const Json& array_of(const Json& value, const std::string& where, size_t size) {
  if (!value.is_array()) bad_field(where, "expected an array");
  if (size && value.size() != size) bad_field(where, "expected " + std::to_string(size) + " elements");
  return value;
}

// A list of strings, or null for none (list_or_null).
std::vector<std::string> texts_or_null(const Json& value, const std::string& where) {
  std::vector<std::string> out;
  if (value.is_null()) return out;
  const Json& list = array_of(value, where);
  for (size_t i = 0; i < list.size(); ++i) out.push_back(text(list[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

std::optional<std::string> optional_text(const Json& value, const std::string& where) {
  if (value.is_null()) return std::nullopt;
  return text(value, where);
}

std::optional<int> optional_int(const Json& value, const std::string& where) {
  if (value.is_null()) return std::nullopt;
  const int64_t v = signed_count(value, where);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) bad_field(where, "out of range");
  return static_cast<int>(v);
}

}  // namespace from_json

using namespace from_json;

namespace {

// One row of the JSON's `budget` array (compare_row).
CompareSummary compare_summary(const Json& row, const std::string& where) {
  CompareSummary s;
  const uint64_t k = count(field(row, "k", where), where + ".k");
  if (k > std::numeric_limits<uint32_t>::max()) bad_field(where + ".k", "too large");
  s.k = static_cast<uint32_t>(k);
  s.draws = count(field(row, "draws", where), where + ".draws");
  s.power = number(field(row, "power", where), where + ".power");
  s.wrong_sign = number(field(row, "wrong_sign", where), where + ".wrong_sign");
  s.d_median = number(field(row, "d_median", where), where + ".d_median");
  const Json& d_q = array_of(field(row, "d_q", where), where + ".d_q", 2);
  s.d_q[0] = number(d_q[0], where + ".d_q[0]");
  s.d_q[1] = number(d_q[1], where + ".d_q[1]");
  s.pool_diff = number(field(row, "pool_diff", where), where + ".pool_diff");
  return s;
}

void read_compare_settings(const Json& json, BudgetCompareReport& report) {
  const Json& settings = field(json, "settings", "");
  const std::string at = "settings";
  report.seed = count(field(settings, "seed", at), at + ".seed");
  report.draws = count(field(settings, "draws", at), at + ".draws");
  report.backend = text(field(settings, "backend", at), at + ".backend");
  report.device = text(field(settings, "device", at), at + ".device");
  const Json& pair = array_of(field(settings, "compare", at), at + ".compare", 2);
  report.a = text(pair[0], at + ".compare[0]");
  report.b = text(pair[1], at + ".compare[1]");
  report.statistic = text(field(settings, "statistic", at), at + ".statistic");
  report.level = number(field(settings, "level", at), at + ".level");
  report.z = number(field(settings, "z", at), at + ".z");
  report.variant = text(field(settings, "variant", at), at + ".variant");
  report.benchmarks = texts_or_null(field(settings, "benchmarks", at), at + ".benchmarks");
  report.conditions = texts_or_null(field(settings, "conditions", at), at + ".conditions");
  report.common_items = flag(field(settings, "common_items", at), at + ".common_items");
}

void read_compare_pool(const Json& json, BudgetCompareReport& report) {
  const Json& pool = field(json, "pool", "");
  report.items = signed_count(field(pool, "items", "pool"), "pool.items");
  report.dropped = signed_count(field(pool, "dropped", "pool"), "pool.dropped");
  const Json& values = field(pool, "values", "pool");
  report.value_a = number(field(values, report.a, "pool.values"), path_of("pool.values", report.a));
  report.value_b = number(field(values, report.b, "pool.values"), path_of("pool.values", report.b));
  report.pool_diff = number(field(pool, "pool_diff", "pool"), "pool.pool_diff");
}

}  // namespace

namespace from_json {
namespace {

// The all-invalid note of one of `judges` (all_invalid_notes's wording) read back into the
// validity that writes it; false for any other note. The note is rewritten from what was read
// and must come out the same, so that a note this misreads stays an ordinary note.
bool all_invalid_validity(const std::string& note, const std::vector<std::string>& judges, JudgeValidity& out) {
  for (const std::string& judge : judges) {
    const std::string head = "every record of judge " + judge + " is invalid (";
    if (note.compare(0, head.size(), head) != 0) continue;
    JudgeValidity v{judge, 0, 0, ""};
    size_t used = 0;
    const std::string rest = note.substr(head.size());
    try {
      v.invalid = std::stoll(rest, &used);
      const size_t of = rest.find(" of ", used);
      v.records = std::stoll(rest.substr(of + 4));
      const std::string reason_head = "), most often ";
      const size_t reason = rest.find(reason_head);
      const size_t end = rest.find("; its accuracy-type statistics", reason);
      if (of == std::string::npos || reason == std::string::npos || end == std::string::npos) continue;
      v.invalid_reason = rest.substr(reason + reason_head.size(), end - reason - reason_head.size());
    } catch (const std::exception&) {
      continue;
    }
    const std::vector<std::string> rewritten = all_invalid_notes({v});
    if (rewritten.size() == 1 && rewritten.front() == note) {
      out = v;
      return true;
    }
  }
  return false;
}

// many_invalid_note's wording ("J: N of M records invalid (P%), most often VALUE (C)") read back
// into the validity that writes it, rewritten and compared like the all-invalid note.
bool many_invalid_validity(const std::string& note, const std::vector<std::string>& judges, JudgeValidity& out) {
  for (const std::string& judge : judges) {
    const std::string head = judge + ": ";
    const size_t often = note.find("), most often ");
    const size_t open = note.rfind(" (");
    if (note.compare(0, head.size(), head) != 0 || often == std::string::npos || open == std::string::npos ||
        open < often || note.back() != ')')
      continue;
    JudgeValidity v{judge, 0, 0, ""};
    try {
      size_t used = 0;
      const std::string rest = note.substr(head.size());
      v.invalid = std::stoll(rest, &used);
      v.records = std::stoll(rest.substr(rest.find(" of ", used) + 4));
      v.common_invalid_value = note.substr(often + 14, open - often - 14);
      v.common_invalid_count = std::stoll(note.substr(open + 2));
    } catch (const std::exception&) {
      continue;
    }
    if (many_invalid_note(v) == note) {
      out = v;
      return true;
    }
  }
  return false;
}

// no_gold_note's wording read back into items, items_without_gold and gold_statistics.
bool no_gold_validity(const std::string& note, JudgeValidity& out) {
  JudgeValidity v;
  try {
    size_t used = 0;
    v.items_without_gold = std::stoll(note, &used);
    v.items = std::stoll(note.substr(note.find(" of ", used) + 4));
  } catch (const std::exception&) {
    return false;
  }
  const size_t head_end = note.find(" no gold");
  if (head_end == std::string::npos) return false;
  const size_t stats = head_end + 8;
  if (note.compare(stats, 2, ": ") == 0) {
    size_t end = note.find(" need gold and are left out (undefined)", stats);
    if (end == std::string::npos) end = note.rfind(" are over the ");
    if (end == std::string::npos || end < stats + 2) return false;
    v.gold_statistics = note.substr(stats + 2, end - stats - 2);
  }
  if (no_gold_note(v) != note) return false;
  out.items = v.items;
  out.items_without_gold = v.items_without_gold;
  out.gold_statistics = v.gold_statistics;
  return true;
}

}  // namespace

StatLabel label_fields(const Json& row, const std::string& at) {
  StatLabel l;
  l.name = text(field(row, "name", at), at + ".name");
  const Json& judge = field(row, "judge", at);
  if (!judge.is_null()) l.judge = text(judge, at + ".judge");
  l.reference = optional_text(field(row, "reference", at), at + ".reference");
  l.of = optional_text(field(row, "of", at), at + ".of");
  l.benchmark = optional_text(field(row, "benchmark", at), at + ".benchmark");
  l.condition = optional_text(field(row, "condition", at), at + ".condition");
  l.order = optional_int(field(row, "order", at), at + ".order");
  l.variant = optional_text(field(row, "variant", at), at + ".variant");
  return l;
}

void read_bootstrap_settings(const Json& settings, const std::string& at, BootstrapOptions& out) {
  out.seed = count(field(settings, "seed", at), at + ".seed");
  out.replicates = count(field(settings, "replicates", at), at + ".replicates");
  const std::string ci = text(field(settings, "ci", at), at + ".ci");
  try {
    out.ci = parse_ci_method(ci);
  } catch (const std::exception&) {
    bad_field(at + ".ci", "not a CI method: '" + ci + "'");
  }
  out.level = number(field(settings, "level", at), at + ".level");
}

Interval interval_fields(const Json& row, const std::string& at, bool full) {
  Interval i;
  i.estimate = number(field(row, "estimate", at), at + ".estimate");
  const Json& ci = array_of(field(row, "ci", at), at + ".ci", 2);
  i.lo = number(ci[0], at + ".ci[0]");
  i.hi = number(ci[1], at + ".ci[1]");
  i.se = number(field(row, "se", at), at + ".se");
  i.undefined = signed_count_of(row, "undefined", at);
  if (!full) return i;
  // undefined_share and clipped are optional here, so that results cached before they were written still read.
  if (row.contains("undefined_share") && !row["undefined_share"].is_null())
    i.undefined_share = number(row["undefined_share"], at + ".undefined_share");
  if (row.contains("clipped")) i.clipped = row["clipped"].is_boolean() && row["clipped"].get<bool>();
  i.clusters = signed_count_of(row, "clusters", at);
  i.distinct = signed_count_of(row, "distinct", at);
  if (row.contains("note")) i.note = text(row["note"], at + ".note");
  return i;
}

int32_t strata_of(const Json& state, const std::string& at) {
  const int64_t strata = signed_count_of(state, "strata", at);
  if (strata < 0 || strata > std::numeric_limits<int32_t>::max()) bad_field(at + ".strata", "out of range");
  return static_cast<int32_t>(strata);
}

size_t read_validity_notes(const std::vector<std::string>& notes, size_t n, const std::vector<std::string>& judges,
                           std::vector<JudgeValidity>& validity) {
  auto entry = [&](const std::string& judge) -> JudgeValidity& {
    for (JudgeValidity& v : validity)
      if (v.judge == judge) return v;
    validity.push_back({judge, 0, 0, ""});
    return validity.back();
  };
  for (JudgeValidity v; n < notes.size() && many_invalid_validity(notes[n], judges, v); ++n) {
    JudgeValidity& mine = entry(v.judge);
    if (mine.records != 0 && (mine.records != v.records || mine.invalid != v.invalid))
      bad_field("notes[" + std::to_string(n) + "]", "does not match the validity of judge " + v.judge);
    mine.records = v.records;
    mine.invalid = v.invalid;
    mine.common_invalid_value = v.common_invalid_value;
    mine.common_invalid_count = v.common_invalid_count;
  }
  JudgeValidity gold;
  if (n < notes.size() && no_gold_validity(notes[n], gold)) {
    if (validity.empty()) validity.push_back({"", 0, 0, ""});  // carries the note only: no records
    for (JudgeValidity& v : validity) {
      v.items = gold.items;
      v.items_without_gold = gold.items_without_gold;
      v.gold_statistics = gold.gold_statistics;
    }
    ++n;
  }
  // repeats_note's wording read back (§8.5): a count, then the rest as repeats_note writes it.
  if (n < notes.size() && std::isdigit(static_cast<unsigned char>(notes[n][0]))) {
    JudgeValidity repeats;
    try {
      repeats.repeat_records = std::stoll(notes[n]);
    } catch (const std::exception&) {
      repeats.repeat_records = 0;
    }
    if (repeats.repeat_records > 0 && repeats_note(repeats) == notes[n]) {
      if (validity.empty()) validity.push_back({"", 0, 0, ""});  // carries the note only: no records
      for (JudgeValidity& v : validity) v.repeat_records = repeats.repeat_records;
      ++n;
    }
  }
  return n;
}

void split_notes(const Json& json, const std::vector<std::string>& judges, std::vector<JudgeValidity>& validity,
                 std::vector<std::string>& notes) {
  const std::vector<std::string> all = texts_or_null(array_of(field(json, "notes", ""), "notes"), "notes");
  size_t n = 0;
  for (JudgeValidity v; n < all.size() && all_invalid_validity(all[n], judges, v); ++n) validity.push_back(v);
  n = read_validity_notes(all, n, judges, validity);
  notes.assign(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
}

}  // namespace from_json

namespace {

std::vector<uint64_t> counts(const Json& value, const std::string& where) {
  const Json& list = array_of(value, where);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < list.size(); ++i) out.push_back(count(list[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

void three_numbers(const Json& value, const std::string& where, double (&out)[3]) {
  const Json& list = array_of(value, where, 3);
  for (size_t i = 0; i < 3; ++i) out[i] = number(list[i], where + "[" + std::to_string(i) + "]");
}

void read_budget_settings(const Json& json, BudgetReport& report) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  report.seed = count(field(settings, "seed", at), at + ".seed");
  report.draws = count(field(settings, "draws", at), at + ".draws");
  report.backend = text(field(settings, "backend", at), at + ".backend");
  report.device = text(field(settings, "device", at), at + ".device");
  report.first = text(field(settings, "first", at), at + ".first");
  report.fallback = text(field(settings, "fallback", at), at + ".fallback");
  const Json& grid = array_of(field(settings, "grid", at), at + ".grid");
  for (size_t i = 0; i < grid.size(); ++i)
    report.grid.values.push_back(number(grid[i], at + ".grid[" + std::to_string(i) + "]"));
  report.tol = number(field(settings, "tol", at), at + ".tol");
  report.z = number(field(settings, "z", at), at + ".z");
  const Json& strata = field(settings, "strata", at);
  report.per_stratum = !strata.is_null();
  if (report.per_stratum) report.strata = text(strata, at + ".strata");
  const int64_t orders = signed_count_of(settings, "gate_orders", at);
  if (orders != 1 && orders != 2) bad_field(at + ".gate_orders", "expected 1 or 2");
  report.gate_orders = static_cast<int>(orders);
}

// A summary's tau_hist, an object keyed by the grid's labels and "all" in index order; the
// first summary's keys are the grid's labels, and every other's must be the same.
std::vector<uint64_t> tau_hist(const Json& value, const std::string& where, ThresholdGrid& grid, bool first) {
  if (!value.is_object() || value.size() != grid.values.size() + 1)
    bad_field(where, "expected an object with one count per threshold and 'all'");
  std::vector<uint64_t> out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const size_t c = out.size();
    if (first && c < grid.values.size()) grid.labels.push_back(it.key());
    if (it.key() != grid.label(static_cast<int32_t>(c))) bad_field(where, "key '" + it.key() + "' out of place");
    out.push_back(count(it.value(), path_of(where, it.key())));
  }
  return out;
}

BudgetSummary budget_summary(const Json& row, const std::string& where, ThresholdGrid& grid, bool first) {
  BudgetSummary s;
  const uint64_t k = count(field(row, "k", where), where + ".k");
  if (k > std::numeric_limits<uint32_t>::max()) bad_field(where + ".k", "too large");
  s.k = static_cast<uint32_t>(k);
  const std::string rule = text(field(row, "rule", where), where + ".rule");
  if (rule != "point" && rule != "lower") bad_field(where + ".rule", "expected point or lower");
  s.rule = parse_rule(rule);
  s.per_stratum = flag(field(row, "per_stratum", where), where + ".per_stratum");
  s.draws = count(field(row, "draws", where), where + ".draws");
  s.loss_share = number(field(row, "loss_share", where), where + ".loss_share");
  s.delta_mean = number(field(row, "delta_mean", where), where + ".delta_mean");
  three_numbers(field(row, "delta_q", where), where + ".delta_q", s.delta_q);
  s.delta_p10 = number(field(row, "delta_p10", where), where + ".delta_p10");
  s.fee_ratio_median = number(field(row, "fee_ratio_median", where), where + ".fee_ratio_median");
  three_numbers(field(row, "fee_ratio_q", where), where + ".fee_ratio_q", s.fee_ratio_q);
  s.tau_hist = tau_hist(field(row, "tau_hist", where), where + ".tau_hist", grid, first);
  s.escalate_all_share = number(field(row, "escalate_all_share", where), where + ".escalate_all_share");
  s.escalated_median = number(field(row, "escalated_median", where), where + ".escalated_median");
  return s;
}

// The grid's labels (tau_hist's keys) are the text of its values: the table prints the one, the
// JSON's settings the other.
void check_grid_labels(const ThresholdGrid& grid) {
  for (size_t i = 0; i < grid.labels.size(); ++i) {
    char* end = nullptr;
    const std::string& label = grid.labels[i];
    if (label.empty() || std::strtod(label.c_str(), &end) != grid.values[i] || *end != '\0')
      bad_field("settings.grid[" + std::to_string(i) + "]", "not the value of tau_hist's label '" + label + "'");
  }
}

// The render state's part of one summary; its Δ histogram must count every draw once.
void read_budget_render(const Json& state, const std::string& where, BudgetSummary& s) {
  s.heldout_items = signed_count(field(state, "heldout_items", where), where + ".heldout_items");
  s.fee_ratio_undefined = count(field(state, "fee_ratio_undefined", where), where + ".fee_ratio_undefined");
  s.delta_hist = counts(field(state, "delta_hist", where), where + ".delta_hist");
  uint64_t total = 0;
  for (uint64_t draws : s.delta_hist) total += draws;
  if (total != s.draws || s.heldout_items < 0 || s.delta_hist.size() > 4 * static_cast<uint64_t>(s.heldout_items) + 1)
    bad_field(where + ".delta_hist", "expected one count per draw on the held-out Δ grid");
}

// Notes that must all be all-invalid notes of `judges` (the report keeps no others).
std::vector<JudgeValidity> validity_notes(const Json& json, const std::vector<std::string>& judges) {
  std::vector<JudgeValidity> validity;
  if (!json.contains("notes")) return validity;
  const std::vector<std::string> notes = texts_or_null(array_of(json["notes"], "notes"), "notes");
  size_t n = 0;
  for (JudgeValidity v; n < notes.size() && all_invalid_validity(notes[n], judges, v); ++n) validity.push_back(v);
  n = read_validity_notes(notes, n, judges, validity);
  if (n < notes.size()) bad_field("notes[" + std::to_string(n) + "]", "not a note this analysis writes");
  return validity;
}

}  // namespace

Json render_state(const BudgetReport& report) {
  Json summaries = Json::array();
  for (const BudgetSummary& s : report.summaries)
    summaries.push_back({{"heldout_items", s.heldout_items},
                         {"fee_ratio_undefined", s.fee_ratio_undefined},
                         {"delta_hist", s.delta_hist}});
  return {{"summaries", summaries}};
}

BudgetReport budget_report_from_json(const Json& json, const Json& render) {
  BudgetReport report;
  read_budget_settings(json, report);
  const Json& pool = field(json, "pool", "");
  report.pool_items = signed_count(field(pool, "items", "pool"), "pool.items");
  report.gate_ok = signed_count(field(pool, "gate_ok", "pool"), "pool.gate_ok");
  report.pool_strata = texts_or_null(array_of(field(pool, "strata", "pool"), "pool.strata"), "pool.strata");
  const Json& rows = array_of(field(json, "budget", ""), "budget");
  if (!render.is_object()) throw std::invalid_argument("render: expected an object");
  const Json& states = field(render, "summaries", "render");
  if (!states.is_array() || states.size() != rows.size())
    throw std::invalid_argument("render.summaries: expected one element per result.budget row");
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string at = "[" + std::to_string(r) + "]";
    report.summaries.push_back(budget_summary(rows[r], "budget" + at, report.grid, r == 0));
    read_budget_render(states[r], "render.summaries" + at, report.summaries.back());
    report.total_draws += report.summaries.back().draws;  // draws × ks × rules, as run_budget counts them
  }
  check_grid_labels(report.grid);
  if (rows.empty()) report.grid.labels.assign(report.grid.values.size(), "");  // printed nowhere without rows
  report.validity = validity_notes(json, {report.first, report.fallback});
  const Json& timing = field(json, "timing", "");
  report.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  return report;
}

BudgetCompareReport budget_compare_report_from_json(const Json& json) {
  BudgetCompareReport report;
  read_compare_settings(json, report);
  read_compare_pool(json, report);
  const Json& rows = array_of(field(json, "budget", ""), "budget");
  for (size_t r = 0; r < rows.size(); ++r) {
    report.summaries.push_back(compare_summary(rows[r], "budget[" + std::to_string(r) + "]"));
    report.total_draws += report.summaries.back().draws;  // draws × ks, as run_budget_compare counts them
  }
  split_notes(json, {report.a, report.b}, report.validity, report.notes);
  const Json& timing = field(json, "timing", "");
  report.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  return report;
}

ItemsReport items_report_from_json(const Json& json) {
  ItemsReport report;
  report.columns = texts_or_null(array_of(field(json, "columns", ""), "columns"), "columns");
  const Json& rows = array_of(field(json, "rows", ""), "rows");
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string where = "rows[" + std::to_string(r) + "]";
    if (!rows[r].is_object() || rows[r].size() != report.columns.size())
      bad_field(where, "expected an object with one value per column");
    std::vector<ItemsValue> row;
    for (const std::string& column : report.columns) {
      const Json& value = field(rows[r], column, where);
      if (value.is_string())
        row.emplace_back(value.get<std::string>());
      else if (value.is_number())
        row.emplace_back(value.get<double>());
      else if (value.is_null())
        row.emplace_back(std::monostate{});
      else
        bad_field(path_of(where, column), "expected a string, a number or null");
    }
    report.rows.push_back(std::move(row));
  }
  report.disagreeing = signed_count(field(json, "disagreeing", ""), "disagreeing");
  return report;
}

namespace {

// The label of one `statistics` row (statistics_json's fields and metrics' label, position).
// Metrics rows carry no threshold value: its text would not come back from the number.
StatLabel stat_label(const Json& row, const std::string& where) {
  StatLabel l = label_fields(row, where);
  if ((l.name == "diff" || l.name == "group_diff") && !l.of)
    bad_field(where + ".of", "a " + l.name + " row names the statistic it differences");
  const Json& threshold = field(row, "threshold", where);
  if (threshold.is_string() && threshold.get<std::string>() == "all")
    l.threshold = "all";
  else if (!threshold.is_null())
    bad_field(where + ".threshold", "expected null or \"all\"");
  l.n = signed_count(field(row, "n", where), where + ".n");
  l.label = optional_text(field(row, "label", where), where + ".label");
  l.position = optional_int(field(row, "position", where), where + ".position");
  return l;
}

// One interval row; `state` is its render state (strata, size_cv), which the JSON lacks.
Interval interval_row(const Json& row, const std::string& where, const Json& state, const std::string& state_at) {
  Interval i = interval_fields(row, where);
  i.p = number(field(row, "p", where), where + ".p");
  i.perm_p = number(field(row, "perm_p", where), where + ".perm_p");
  i.strata = strata_of(state, state_at);
  i.size_cv = number(field(state, "size_cv", state_at), state_at + ".size_cv");
  return i;
}

// The `statistics` rows: intervals (ci an array) first, then point statistics (ci null).
void read_metrics_statistics(const Json& json, const Json& render, MetricsReport& r) {
  const Json& rows = array_of(field(json, "statistics", ""), "statistics");
  const Json& states = array_of(field(render, "intervals", "render"), "render.intervals");
  bool any_adjusted = false;
  for (size_t s = 0; s < rows.size(); ++s) {
    const std::string at = "statistics[" + std::to_string(s) + "]";
    StatLabel label = stat_label(rows[s], at);
    if (field(rows[s], "ci", at).is_null()) {
      r.point_statistics.emplace_back(std::move(label), number(field(rows[s], "estimate", at), at + ".estimate"));
      continue;
    }
    const size_t i = r.statistics.intervals.size();
    if (i >= states.size()) throw std::invalid_argument("render.intervals: expected one element per interval row");
    r.statistics.intervals.push_back(
        interval_row(rows[s], at, states[i], "render.intervals[" + std::to_string(i) + "]"));
    r.statistics.labels.push_back(std::move(label));
    r.p_holm.push_back(number(field(rows[s], "p_holm", at), at + ".p_holm"));
    r.p_bh.push_back(number(field(rows[s], "p_bh", at), at + ".p_bh"));
    any_adjusted = any_adjusted || !std::isnan(r.p_holm.back()) || !std::isnan(r.p_bh.back());
  }
  if (states.size() != r.statistics.intervals.size())
    throw std::invalid_argument("render.intervals: expected one element per interval row");
  if (!any_adjusted) r.p_holm.clear(), r.p_bh.clear();  // the writers print an empty list as all NaN
}

void read_metrics_settings(const Json& json, MetricsReport& r) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  BootstrapOptions read;
  read_bootstrap_settings(settings, at, read);
  r.statistics.seed = read.seed;
  r.statistics.replicates_run = read.replicates;
  r.statistics.ci = read.ci;
  r.statistics.level = read.level;
  r.statistics.backend = text(field(settings, "backend", at), at + ".backend");
  r.statistics.device = text(field(settings, "device", at), at + ".device");
  const Json& strata = field(settings, "strata", at);
  if (!strata.is_null()) r.strata_mode = text(strata, at + ".strata");
  const Json& by = field(settings, "by", at);
  if (!by.is_null()) r.strata = text(by, at + ".by");
  r.adjudicated_gold = text(field(settings, "gold", at), at + ".gold") == "adjudicated";
  if (r.adjudicated_gold) r.gold_substituted = signed_count_of(settings, "gold_substituted", at);
  if (settings.contains("temperature")) {
    const Json& temperature = settings["temperature"];
    if (!temperature.is_object()) bad_field(at + ".temperature", "expected an object");
    for (auto it = temperature.begin(); it != temperature.end(); ++it)
      r.temperature[it.key()] = number(it.value(), path_of(at + ".temperature", it.key()));
  }
  r.invalid_match = flag(field(settings, "invalid_match", at), at + ".invalid_match");
}

// validity, then the notes: strata_note (when render says so), the all-invalid notes (their
// reasons back into validity), the order guard's warnings, then the report's own and probability quality's.
void read_metrics_notes(const Json& json, const Json& render, MetricsReport& r) {
  const Json& rows = array_of(field(json, "validity", ""), "validity");
  std::vector<std::string> judges;
  for (size_t v = 0; v < rows.size(); ++v) {
    const std::string at = "validity[" + std::to_string(v) + "]";
    r.validity.push_back({text(field(rows[v], "judge", at), at + ".judge"), signed_count_of(rows[v], "records", at),
                          signed_count_of(rows[v], "invalid", at), ""});
    judges.push_back(r.validity.back().judge);
  }
  const std::vector<std::string> all = texts_or_null(array_of(field(json, "notes", ""), "notes"), "notes");
  size_t n = 0;
  if (flag(field(render, "strata_note", "render"), "render.strata_note")) {
    if (all.empty()) bad_field("notes", "expected the note on domain estimation first");
    r.strata_note = all[n++];
  }
  for (JudgeValidity v; n < all.size() && all_invalid_validity(all[n], judges, v); ++n)
    for (JudgeValidity& mine : r.validity)
      if (mine.judge == v.judge) mine.invalid_reason = v.invalid_reason;
  n = read_validity_notes(all, n, judges, r.validity);
  for (; n < all.size() && all[n].find(kOrderGuardWarning) != std::string::npos; ++n)
    r.order_warnings.push_back(all[n]);
  r.notes.assign(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
}

std::vector<std::vector<int64_t>> count_rows(const Json& value, const std::string& where, size_t rows, size_t cols) {
  const Json& list = array_of(value, where);
  if (!list.empty() && list.size() != rows) bad_field(where, "expected one row per gold label");
  std::vector<std::vector<int64_t>> out;
  for (size_t r = 0; r < list.size(); ++r) {
    const std::string at = where + "[" + std::to_string(r) + "]";
    const Json& row = array_of(list[r], at);
    if (row.size() != cols) bad_field(at, "expected one count per verdict label");
    out.emplace_back();
    for (size_t c = 0; c < row.size(); ++c)
      out.back().push_back(signed_count(row[c], at + "[" + std::to_string(c) + "]"));
  }
  return out;
}

void read_confusion(const Json& json, MetricsReport& r) {
  const Json& rows = array_of(field(json, "confusion", ""), "confusion");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "confusion[" + std::to_string(i) + "]";
    Confusion c;
    c.judge = text(field(rows[i], "judge", at), at + ".judge");
    c.scope.name = "confusion";
    c.scope.judge = c.judge;
    c.scope.order = 0;
    c.scope.benchmark = optional_text(field(rows[i], "benchmark", at), at + ".benchmark");
    c.scope.condition = optional_text(field(rows[i], "condition", at), at + ".condition");
    c.scope.n = signed_count_of(rows[i], "n", at);
    c.gold_labels = texts_or_null(array_of(field(rows[i], "gold", at), at + ".gold"), at + ".gold");
    c.verdict_labels = texts_or_null(array_of(field(rows[i], "verdict", at), at + ".verdict"), at + ".verdict");
    c.counts = count_rows(field(rows[i], "counts", at), at + ".counts", c.gold_labels.size(), c.verdict_labels.size());
    r.confusion.push_back(std::move(c));
  }
}

// A pair's judge, reference and group, as complementarity and disputes rows start.
template <typename Pair>
Pair pair_head(const Json& row, const std::string& at) {
  Pair p;
  p.judge = text(field(row, "judge", at), at + ".judge");
  p.reference = text(field(row, "reference", at), at + ".reference");
  p.benchmark = optional_text(field(row, "benchmark", at), at + ".benchmark");
  p.condition = optional_text(field(row, "condition", at), at + ".condition");
  return p;
}

void read_comparisons(const Json& json, MetricsReport& r) {
  const Json& rows = array_of(field(json, "complementarity", ""), "complementarity");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "complementarity[" + std::to_string(i) + "]";
    Complementarity c = pair_head<Complementarity>(rows[i], at);
    c.n = signed_count_of(rows[i], "n", at);
    c.both_right = signed_count_of(rows[i], "both_right", at);
    c.judge_only = signed_count_of(rows[i], "judge_only", at);
    c.reference_only = signed_count_of(rows[i], "reference_only", at);
    c.both_wrong = signed_count_of(rows[i], "both_wrong", at);
    r.complementarity.push_back(std::move(c));
  }
  if (!json.contains("disputes")) return;
  const Json& disputes = array_of(json["disputes"], "disputes");
  for (size_t i = 0; i < disputes.size(); ++i) {
    const std::string at = "disputes[" + std::to_string(i) + "]";
    Disputes d = pair_head<Disputes>(disputes[i], at);
    d.adjudicated = signed_count_of(disputes[i], "adjudicated", at);
    d.disputed = signed_count_of(disputes[i], "disputed", at);
    d.sides_with_judge = signed_count_of(disputes[i], "sides_with_judge", at);
    d.sides_with_reference = signed_count_of(disputes[i], "sides_with_reference", at);
    d.sides_with_neither = signed_count_of(disputes[i], "sides_with_neither", at);
    r.disputes.push_back(std::move(d));
  }
}

ReliabilityTable reliability_table(const Json& row, const std::string& at) {
  ReliabilityTable t;
  t.n = signed_count_of(row, "n", at);
  t.errors = number(field(row, "errors", at), at + ".errors");
  t.ece = number(field(row, "ece", at), at + ".ece");
  const Json& bins = array_of(field(row, "bins", at), at + ".bins", kConfidenceBins);
  for (size_t b = 0; b < bins.size(); ++b) {
    const std::string bin_at = at + ".bins[" + std::to_string(b) + "]";
    t.bins.push_back({signed_count(field(bins[b], "n", bin_at), bin_at + ".n"),
                      number(field(bins[b], "mean_q", bin_at), bin_at + ".mean_q"),
                      number(field(bins[b], "accuracy", bin_at), bin_at + ".accuracy")});
  }
  const Json& high = field(row, "high_confidence", at);
  t.n_high = signed_count(field(high, "n", at + ".high_confidence"), at + ".high_confidence.n");
  t.errors_high = number(field(high, "errors", at + ".high_confidence"), at + ".high_confidence.errors");
  // JEV Table 30's invalid outputs (counted among the errors of error_share_with_invalid).
  t.invalid = signed_count(field(high, "invalid", at + ".high_confidence"), at + ".high_confidence.invalid");
  return t;
}

RiskCoverage risk_coverage(const Json& row, const std::string& at) {
  RiskCoverage curve;
  curve.aurc = number(field(row, "aurc", at), at + ".aurc");
  const Json& points = array_of(field(row, "points", at), at + ".points");
  curve.points.reserve(points.size());
  for (size_t p = 0; p < points.size(); ++p) {
    const std::string point_at = at + ".points[" + std::to_string(p) + "]";
    curve.points.push_back({number(field(points[p], "q", point_at), point_at + ".q"),
                            number(field(points[p], "coverage", point_at), point_at + ".coverage"),
                            number(field(points[p], "risk", point_at), point_at + ".risk")});
  }
  return curve;
}

FlipTable flip_table(const Json& row, const std::string& at) {
  FlipTable t;
  t.total_items = signed_count_of(row, "items", at);
  t.total_flips = signed_count_of(row, "flips", at);
  t.flips_high = signed_count(field(row, "flips_at_q_at_least_0.9", at), at + ".flips_at_q_at_least_0.9");
  const Json& bins = array_of(field(row, "bins", at), at + ".bins", kConfidenceBins);
  for (size_t b = 0; b < bins.size(); ++b) {
    const std::string bin_at = at + ".bins[" + std::to_string(b) + "]";
    t.items.push_back(signed_count(field(bins[b], "items", bin_at), bin_at + ".items"));
    t.flips.push_back(signed_count(field(bins[b], "flips", bin_at), bin_at + ".flips"));
  }
  return t;
}

// A group from the render state (the JSON names a difficulty group nowhere).
std::optional<std::string> render_group(const Json& groups, size_t i, const std::string& at) {
  if (!groups.is_array() || i >= groups.size()) throw std::invalid_argument(at + ": expected one group per row");
  return optional_text(groups[i], at + "[" + std::to_string(i) + "]");
}

// reliability and risk_coverage (one row each per summary) and flip_by_confidence.
void read_probability(const Json& json, const Json& render, ProbabilityQuality& q) {
  const Json& state = field(render, "probability", "render");
  q.strata = text(field(state, "strata", "render.probability"), "render.probability.strata");
  if (!json.contains("reliability")) return;
  const Json& tables = array_of(json["reliability"], "reliability");
  const Json& curves = array_of(field(json, "risk_coverage", ""), "risk_coverage", tables.size());
  const Json& groups = field(state, "groups", "render.probability");
  if (tables.empty() || groups.size() != tables.size())
    throw std::invalid_argument("render.probability.groups: expected one group per reliability row");
  for (size_t i = 0; i < tables.size(); ++i) {
    const std::string at = "reliability[" + std::to_string(i) + "]";
    ProbabilitySummary s;
    s.judge = text(field(tables[i], "judge", at), at + ".judge");
    s.group = render_group(groups, i, "render.probability.groups");
    s.order = optional_int(field(tables[i], "order", at), at + ".order");
    s.reliability = reliability_table(tables[i], at);
    s.risk_coverage = risk_coverage(curves[i], "risk_coverage[" + std::to_string(i) + "]");
    q.summaries.push_back(std::move(s));
  }
  const Json& flip_groups = field(state, "flip_groups", "render.probability");
  const size_t flips =
      json.contains("flip_by_confidence") ? array_of(json["flip_by_confidence"], "flip_by_confidence").size() : 0;
  if (flip_groups.size() != flips)
    throw std::invalid_argument("render.probability.flip_groups: expected one group per flip_by_confidence row");
  for (size_t i = 0; i < flips; ++i) {
    const std::string at = "flip_by_confidence[" + std::to_string(i) + "]";
    const Json& row = json["flip_by_confidence"][i];
    q.flips.push_back({text(field(row, "judge", at), at + ".judge"),
                       render_group(flip_groups, i, "render.probability.flip_groups"), flip_table(row, at)});
  }
}

}  // namespace

Json render_state(const MetricsReport& report) {
  Json intervals = Json::array();
  for (const Interval& i : report.statistics.intervals)
    intervals.push_back({{"strata", i.strata}, {"size_cv", i.size_cv}});
  Json groups = Json::array(), flip_groups = Json::array();
  for (const ProbabilitySummary& s : report.probability.summaries)
    groups.push_back(s.group ? Json(*s.group) : Json(nullptr));
  for (const FlipSummary& f : report.probability.flips) flip_groups.push_back(f.group ? Json(*f.group) : Json(nullptr));
  return {{"replicates_run", report.statistics.replicates_run},
          {"n_clusters", report.statistics.n_clusters},
          {"strata_note", !report.strata_note.empty()},
          {"intervals", intervals},
          {"probability", {{"strata", report.probability.strata}, {"groups", groups}, {"flip_groups", flip_groups}}}};
}

MetricsReport metrics_report_from_json(const Json& json, const Json& render) {
  if (!render.is_object()) throw std::invalid_argument("render: expected an object");
  MetricsReport r;
  read_metrics_settings(json, r);
  read_metrics_statistics(json, render, r);
  read_metrics_notes(json, render, r);
  read_confusion(json, r);
  read_comparisons(json, r);
  read_probability(json, render, r.probability);
  // settings.replicates gave replicates_run; the render state repeats it (study caches keep it).
  if (count(field(render, "replicates_run", "render"), "render.replicates_run") != r.statistics.replicates_run)
    bad_field("render.replicates_run", "differs from settings.replicates");
  r.statistics.n_clusters = signed_count(field(render, "n_clusters", "render"), "render.n_clusters");
  const Json& timing = field(json, "timing", "");
  r.statistics.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  r.statistics.summary_s = number(field(timing, "summary_s", "timing"), "timing.summary_s");
  return r;
}

namespace {

bool is_budget_compare(const Json& json) {
  return json.is_object() && json.contains("settings") && json["settings"].is_object() &&
         json["settings"].contains("compare");
}

// Where `read` and `written` first differ: a key path ("result.frozen.items"), for the error.
std::string first_difference(const Json& read, const Json& written, const std::string& at) {
  if (read.is_object() && written.is_object()) {
    auto r = read.begin();
    auto w = written.begin();
    for (; r != read.end() && w != written.end(); ++r, ++w) {
      if (r.key() != w.key()) return at + "." + r.key() + " where the writer gives " + w.key();
      if (dump_json(r.value()) != dump_json(w.value()))
        return first_difference(r.value(), w.value(), at + "." + r.key());
    }
    if (r != read.end()) return at + "." + r.key() + ", which the writer does not give";
    if (w != written.end()) return at + "." + w.key() + ", missing";
  }
  if (read.is_array() && written.is_array())
    for (size_t i = 0; i < read.size() && i < written.size(); ++i)
      if (dump_json(read[i]) != dump_json(written[i]))
        return first_difference(read[i], written[i], at + "[" + std::to_string(i) + "]");
  return at;
}

// The tables and figures of `report`, read back from `json`, once to_json(report) gives `json`
// again: the envelope is what precedes the report's `keys`, and timing.load_s is taken as written.
template <typename Report>
RenderedReport rendered(const Report& report, const Json& json, const std::vector<std::string>& keys) {
  ReportHead head;
  head.envelope = json;
  for (const std::string& key : keys) head.envelope.erase(key);
  head.load_s = number(field(field(json, "timing", ""), "load_s", "timing"), "timing.load_s");
  const Json again = to_json(report, head);
  for (auto it = json.begin(); it != json.end(); ++it)
    if (!again.contains(it.key()) || dump_json(again[it.key()]) != dump_json(it.value()))
      bad_field(it.key(), "does not read back as the report's own (a value its writer does not give)");
  if (dump_json(again) != dump_json(json))
    throw std::invalid_argument("result: keys missing or out of the writer's order (first at " +
                                first_difference(json, again, "result") + ")");
  return {tables(report, "text"), tables(report, "csv"), tables(report, "md"), plot_files(report)};
}

}  // namespace

bool renders_from_json(const std::string& command, const Json& json) {
  return command == "items" || ((command == "budget" || command == "metrics" || command == "profile" ||
                                 command == "cascade" || command == "repeats" || command == "systems") &&
                                json.is_object());
}

namespace {

RenderedReport render_as_written(const std::string& command, const Json& json, const Json& render) {
  if (command == "items") {
    const std::string csv = items_csv(items_report_from_json(json));
    return {csv, csv, "", {}};  // as run_items_analysis: the CSV in text and csv, no md
  }
  if (command == "budget" && is_budget_compare(json))
    return rendered(budget_compare_report_from_json(json), json, {"settings", "pool", "budget", "notes", "timing"});
  if (command == "budget")
    return rendered(budget_report_from_json(json, render), json, {"settings", "pool", "budget", "notes", "timing"});
  if (command == "metrics")
    return rendered(metrics_report_from_json(json, render), json,
                    {"settings", "statistics", "validity", "notes", "confusion", "complementarity", "disputes",
                     "reliability", "risk_coverage", "flip_by_confidence", "timing"});
  if (command == "profile")
    return rendered(profile_report_from_json(json, render), json,
                    {"settings", "statistics", "coverage", "spearman", "stress", "l1", "bias_correction", "leave_out",
                     "across_judges", "ranks", "notes", "timing"});
  if (command == "cascade")
    return rendered(
        cascade_report_from_json(json, render), json,
        {"settings", "pool", "statistics", "baselines", "latency", "split", "selection_trials", "rules", "temperature",
         "frozen", "groups", "other_gate", "confidence_bins", "reliability", "risk_coverage", "notes", "timing"});
  if (command == "repeats")
    return rendered(repeats_report_from_json(json, render), json,
                    {"settings", "statistics", "requests", "validity", "notes", "timing"});
  if (command == "systems")
    return rendered(systems_report_from_json(json, render), json,
                    {"settings", "systems", "statistics", "validity", "notes", "timing"});
  throw std::invalid_argument("command: the outputs of '" + command + "' are not rendered from its JSON");
}

}  // namespace

// `--invalid exclude` is the request layer's (note_invalid_exclusion), not the report's: its
// settings come off before the report reads its JSON back, and its line goes back above the tables.
RenderedReport render_from_json(const std::string& command, const Json& json, const Json& render) {
  if (command == "items" || command == "profile" || !json.is_object()) return render_as_written(command, json, render);
  Json report = json;
  const InvalidExclusion exclusion = take_invalid_exclusion(report);
  RenderedReport out = render_as_written(command, report, render);
  if (exclusion.judges.empty()) return out;
  const std::string line = invalid_exclusion_line(exclusion);
  out.text = line + "\n" + out.text;
  if (!out.md.empty()) out.md = line + "\n\n" + out.md;
  return out;
}

}  // namespace judgestat
