// The profile report read back from its JSON and render state (report/report_from_json.hpp), so
// that a study's reused profile entry renders its tables and radar and forest figures from its
// result. The JSON lists the plan's statistics by section (statistics, stress, l1, leave_out);
// the render state says where each stands in the plan (the notes under the tables name flagged
// statistics in plan order) and holds what the JSON lacks: the judges in report order, each
// benchmark's items and whether it has flagged items, the intervals' cluster-size CV (and, for
// the sections the JSON writes without them, clusters, distinct values and the interval's note).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "report/from_json_fields.hpp"
#include "report/report_from_json.hpp"

namespace judgestat {
namespace {

using namespace from_json;
using Kind = ProfileStat::Kind;

// One statistic as a section of the JSON lists it, before the render state places it in the plan.
struct ProfileRow {
  ProfileStat stat;
  StatLabel label;
  Interval interval;
  bool used = false;
};

// The sections of the JSON that list statistics, in the order the render state names them.
const char* const kSections[] = {"statistics", "stress", "l1", "leave_out", "across_judges"};
constexpr size_t kSectionCount = sizeof kSections / sizeof kSections[0];

int32_t index_of(const std::vector<std::string>& names, const std::string& name, const std::string& where,
                 const std::string& what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) bad_field(where, "'" + name + "' is not " + what);
  return static_cast<int32_t>(it - names.begin());
}

Coverage coverage_of(const Json& value, const std::string& where) {
  const std::string name = text(value, where);
  for (Coverage c : {Coverage::kDirect, Coverage::kApprox, Coverage::kAugmented, Coverage::kUnavailable})
    if (to_string(c) == name) return c;
  bad_field(where, "not a coverage status: '" + name + "'");
}

CapOperator operator_of(const Json& value, const std::string& where) {
  const std::string name = text(value, where);
  for (CapOperator op :
       {CapOperator::kPa, CapOperator::kAcc, CapOperator::kBc, CapOperator::kVariantBc, CapOperator::kRationale})
    if (to_string(op) == name) return op;
  bad_field(where, "not a cell operator: '" + name + "'");
}

// A condition the tables look a cell up by (C1 … C8, overall).
std::string cell_name(const Json& value, const std::string& where) {
  const std::string name = text(value, where);
  index_of(cap_cell_names(), name, where, "a condition (C1 … C8, overall)");
  return name;
}

// What everything after the coverage matrix refers to by name.
struct ProfileNames {
  std::vector<std::string> judges, benchmarks;
  int32_t judge(const Json& value, const std::string& where) const {
    return index_of(judges, text(value, where), where, "a judge of the render state");
  }
  int32_t benchmark(const Json& value, const std::string& where) const {
    return index_of(benchmarks, text(value, where), where, "a benchmark of result.coverage");
  }
};

void read_profile_settings(const Json& json, ProfileReport& r) {
  const std::string at = "settings";
  const Json& settings = field(json, at, "");
  BootstrapOptions run;  // the run's settings: the writers read them from the result
  read_bootstrap_settings(settings, at, run);
  r.result.seed = run.seed;  // replicates_run: the render state's (to_json then gives the settings again)
  r.result.ci = run.ci;
  r.result.level = run.level;
  r.result.backend = text(field(settings, "backend", at), at + ".backend");
  r.result.device = text(field(settings, "device", at), at + ".device");
  r.options.config.source = text(field(settings, "config", at), at + ".config");
  r.options.config.description = text(field(settings, "config_description", at), at + ".config_description");
  r.options.invalid_match = flag(field(settings, "invalid_match", at), at + ".invalid_match");
  const std::optional<int> exact = optional_int(field(settings, "exact_max_n", at), at + ".exact_max_n");
  if (!exact || *exact < 0 || *exact > 10) bad_field(at + ".exact_max_n", "expected a whole number from 0 to 10");
  r.options.exact_max_n = *exact;
  // Absent from results written before them.
  if (settings.contains("hard")) r.options.hard = flag(settings["hard"], at + ".hard");
  if (settings.contains("invalid")) r.options.config.invalid = text(settings["invalid"], at + ".invalid");
}

RecordFilter subset_of(const Json& row, const std::string& at) {
  const Json& subset = field(row, "subset", at);
  const std::string where = at + ".subset";
  return {texts_or_null(array_of(field(subset, "benchmark", where), where + ".benchmark"), where + ".benchmark"),
          texts_or_null(array_of(field(subset, "condition", where), where + ".condition"), where + ".condition"),
          texts_or_null(array_of(field(subset, "variant", where), where + ".variant"), where + ".variant")};
}

// One cell of the coverage matrix into `cell` and its item count; an unavailable cell has neither
// operator nor subset, and is in the main table as the config leaves it.
void read_cell(const Json& row, const std::string& at, CellSpec& cell, int64_t& items) {
  cell.status = coverage_of(field(row, "status", at), at + ".status");
  if (row.contains("note")) cell.note = text(row["note"], at + ".note");
  if (cell.status == Coverage::kUnavailable) return;
  cell.op = operator_of(field(row, "operator", at), at + ".operator");
  cell.main_table = flag(field(row, "main_table", at), at + ".main_table");
  cell.subset = subset_of(row, at);
  if (cell.op == CapOperator::kVariantBc) std::swap(cell.variant_pair, cell.subset.variants);
  items = signed_count_of(row, "items", at);
}

// The coverage matrix: the benchmarks, each with one cell per condition in cap_cell_names()'s order.
void read_coverage(const Json& json, const Json& render, ProfileReport& r, ProfileNames& names) {
  const Json& coverage = field(json, "coverage", "");
  names.benchmarks =
      texts_or_null(array_of(field(coverage, "benchmarks", "coverage"), "coverage.benchmarks"), "coverage.benchmarks");
  const std::vector<std::string>& conditions = cap_cell_names();
  const Json& cells =
      array_of(field(coverage, "cells", "coverage"), "coverage.cells", names.benchmarks.size() * conditions.size());
  const Json& states = array_of(field(render, "benchmarks", "render"), "render.benchmarks");
  if (states.size() != names.benchmarks.size())
    throw std::invalid_argument("render.benchmarks: expected one element per result.coverage.benchmarks");
  for (size_t b = 0; b < names.benchmarks.size(); ++b) {
    ProfiledBenchmark bench;
    bench.spec.name = names.benchmarks[b];
    const std::string state_at = "render.benchmarks[" + std::to_string(b) + "]";
    bench.items = signed_count_of(states[b], "items", state_at);
    bench.has_flagged = flag(field(states[b], "has_flagged", state_at), state_at + ".has_flagged");
    bench.cell_items.assign(conditions.size(), 0);
    for (size_t c = 0; c < conditions.size(); ++c) {
      const size_t k = b * conditions.size() + c;
      const std::string at = "coverage.cells[" + std::to_string(k) + "]";
      if (text(field(cells[k], "benchmark", at), at + ".benchmark") != bench.spec.name ||
          text(field(cells[k], "condition", at), at + ".condition") != conditions[c])
        bad_field(at, "expected " + bench.spec.name + "'s " + conditions[c]);
      CellSpec cell;
      cell.name = conditions[c];
      read_cell(cells[k], at, cell, bench.cell_items[c]);
      bench.spec.cells.push_back(std::move(cell));
    }
    r.plan.benchmarks.push_back(std::move(bench));
  }
}

// statistics_json's label of a row (a profile row has no threshold, label or position).
StatLabel statistics_label(const Json& row, const std::string& at) {
  StatLabel l = label_fields(row, at);
  if (!field(row, "threshold", at).is_null()) bad_field(at + ".threshold", "expected null");
  l.n = signed_count_of(row, "n", at);
  return l;
}

// The kind and condition of a `statistics` row from its name: C1 … C8 and overall, CELL_cons,
// stable_wrong (of CELL), supported_correct, CELL_corrected.
void statistic_kind(const StatLabel& label, const std::string& at, ProfileStat& stat) {
  const std::vector<std::string>& cells = cap_cell_names();
  auto is_cell = [&](const std::string& name) { return std::find(cells.begin(), cells.end(), name) != cells.end(); };
  auto prefix_before = [&](const std::string& suffix) {
    const std::string& n = label.name;
    return n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0
               ? n.substr(0, n.size() - suffix.size())
               : std::string();
  };
  if (is_cell(label.name)) {
    stat.kind = Kind::kCell, stat.condition = label.name;
  } else if (is_cell(prefix_before("_cons"))) {
    stat.kind = Kind::kConsistency, stat.condition = prefix_before("_cons");
  } else if (label.name == "stable_wrong" && label.of && is_cell(*label.of)) {
    stat.kind = Kind::kStableWrong, stat.condition = *label.of;
  } else if (label.name == "supported_correct") {
    stat.kind = Kind::kSupportedCorrect, stat.condition = "supported_correct";
  } else if (is_cell(prefix_before("_corrected"))) {
    stat.kind = Kind::kCorrected, stat.condition = prefix_before("_corrected");
  } else {
    bad_field(at + ".name", "not a statistic a profile writes: '" + label.name + "'");
  }
}

void read_statistics(const Json& json, const ProfileNames& names, std::vector<ProfileRow>& out) {
  const Json& rows = array_of(field(json, "statistics", ""), "statistics");
  for (size_t s = 0; s < rows.size(); ++s) {
    const std::string at = "statistics[" + std::to_string(s) + "]";
    ProfileRow row;
    row.label = statistics_label(rows[s], at);
    statistic_kind(row.label, at, row.stat);
    row.stat.judge = names.judge(field(rows[s], "judge", at), at + ".judge");
    row.stat.benchmark = names.benchmark(field(rows[s], "benchmark", at), at + ".benchmark");
    row.stat.status = coverage_of(field(rows[s], "coverage", at), at + ".coverage");
    row.stat.main_table = flag(field(rows[s], "main_table", at), at + ".main_table");
    row.interval = interval_fields(rows[s], at, true);
    out.push_back(std::move(row));
  }
}

// A row of interval_json (n, estimate, ci, se, undefined) as a statistic labelled `name` of
// benchmark `b`.
ProfileRow interval_row(const Json& row, const std::string& at, const std::string& name, const ProfileNames& names,
                        int32_t b) {
  ProfileRow out;
  out.label.name = name;
  out.label.benchmark = names.benchmarks[b];
  out.label.n = signed_count_of(row, "n", at);
  out.interval = interval_fields(row, at, false);
  out.stat.benchmark = b;
  return out;
}

void read_stress_parts(const Json& block, const std::string& at, const ProfileNames& names, int32_t from, int32_t to,
                       std::vector<ProfileRow>& out);

// One stress block's deltas, judge means, condition means, mean_over means and mean |δ|, as the
// writer lists them.
void read_stress_block(const Json& block, const std::string& at, const ProfileNames& names, int32_t from, int32_t to,
                       std::vector<ProfileRow>& out) {
  read_stress_parts(block, at, names, from, to, out);
  for (const char* part : {"mean_over", "mean_abs"}) {  // absent from results written before them
    if (!block.contains(part)) continue;
    const std::string part_at = at + "." + part;
    const Json& rows = array_of(block[part], part_at);
    const bool mean_over = part == std::string("mean_over");
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string row_at = part_at + "[" + std::to_string(i) + "]";
      ProfileRow row = interval_row(rows[i], row_at, mean_over ? "stress_mean_over" : "stress_mean_abs", names, from);
      row.stat.kind = mean_over ? Kind::kStressSelectedMean : Kind::kStressMeanAbs;
      row.stat.to = to;
      row.stat.group = part;
      if (mean_over) {
        row.stat.judge = names.judge(field(rows[i], "judge", row_at), row_at + ".judge");
        row.label.judge = names.judges[row.stat.judge];
        row.stat.over = texts_or_null(array_of(field(rows[i], "conditions", row_at), row_at + ".conditions"),
                                      row_at + ".conditions");
      }
      out.push_back(std::move(row));
    }
  }
}

// The deltas, judge means and condition means of one stress block.
void read_stress_parts(const Json& block, const std::string& at, const ProfileNames& names, int32_t from, int32_t to,
                       std::vector<ProfileRow>& out) {
  for (const char* part : {"deltas", "judge_means", "condition_means"}) {
    const std::string part_at = at + "." + part;
    const Json& rows = array_of(field(block, part, at), part_at);
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string row_at = part_at + "[" + std::to_string(i) + "]";
      const bool delta = part == std::string("deltas"), judge_mean = part == std::string("judge_means");
      ProfileRow row = interval_row(rows[i], row_at, delta ? "stress" : "stress_mean", names, from);
      ProfileStat& stat = row.stat;
      stat.kind = delta ? Kind::kStress : judge_mean ? Kind::kStressJudgeMean : Kind::kStressConditionMean;
      stat.to = to;
      stat.status = coverage_of(field(rows[i], "status", row_at), row_at + ".status");
      if (delta || judge_mean) {
        stat.judge = names.judge(field(rows[i], "judge", row_at), row_at + ".judge");
        row.label.judge = names.judges[stat.judge];
      }
      if (judge_mean) {
        stat.group = to_string(stat.status);
        stat.over = texts_or_null(array_of(field(rows[i], "conditions", row_at), row_at + ".conditions"),
                                  row_at + ".conditions");
      } else {
        stat.condition = cell_name(field(rows[i], "condition", row_at), row_at + ".condition");
        row.label.of = stat.condition;
      }
      out.push_back(std::move(row));
    }
  }
}

void read_stress(const Json& json, const ProfileNames& names, ProfileReport& r, std::vector<ProfileRow>& out) {
  const Json& blocks = array_of(field(json, "stress", ""), "stress");
  for (size_t k = 0; k < blocks.size(); ++k) {
    const std::string at = "stress[" + std::to_string(k) + "]";
    const int32_t from = names.benchmark(field(blocks[k], "from", at), at + ".from");
    const int32_t to = names.benchmark(field(blocks[k], "to", at), at + ".to");
    r.plan.stress.push_back({names.benchmarks[from], names.benchmarks[to]});
    read_stress_block(blocks[k], at, names, from, to, out);
  }
}

// l1.means (kL1, one coverage status each) or l1.sum_over_means (kL1Selected, any status).
void read_l1_means(const Json& rows, const std::string& key, Kind kind, const ProfileNames& names,
                   std::vector<ProfileRow>& out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = key + "[" + std::to_string(i) + "]";
    const int32_t b = names.benchmark(field(rows[i], "benchmark", at), at + ".benchmark");
    ProfileRow row = interval_row(rows[i], at, kind == Kind::kL1 ? "l1" : "l1_sum_over", names, b);
    row.stat.kind = kind;
    if (kind == Kind::kL1) row.stat.status = coverage_of(field(rows[i], "status", at), at + ".status");
    row.stat.group = text(field(rows[i], "group", at), at + ".group");
    row.stat.pairs = signed_count_of(rows[i], "pairs", at);
    row.stat.over = texts_or_null(array_of(field(rows[i], "conditions", at), at + ".conditions"), at + ".conditions");
    out.push_back(std::move(row));
  }
}

void read_l1(const Json& json, const ProfileNames& names, ProfileReport& r, std::vector<ProfileRow>& out) {
  const Json& l1 = field(json, "l1", "");
  const Json& families = field(l1, "families", "l1");
  if (!families.is_object()) bad_field("l1.families", "expected an object");
  for (auto it = families.begin(); it != families.end(); ++it) {
    const std::string at = path_of("l1.families", it.key());
    r.plan.families.push_back({it.key(), texts_or_null(array_of(it.value(), at), at)});
  }
  read_l1_means(array_of(field(l1, "means", "l1"), "l1.means"), "l1.means", Kind::kL1, names, out);
  if (l1.contains("sum_over_means"))  // absent from results written before it
    read_l1_means(array_of(l1["sum_over_means"], "l1.sum_over_means"), "l1.sum_over_means", Kind::kL1Selected, names,
                  out);
  const Json& pairs = array_of(field(l1, "pairs", "l1"), "l1.pairs");
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "l1.pairs[" + std::to_string(i) + "]";
    const Json& family = field(pairs[i], "family", at);
    r.summary.l1_pairs.push_back({text(field(pairs[i], "benchmark", at), at + ".benchmark"),
                                  text(field(pairs[i], "status", at), at + ".status"),
                                  text(field(pairs[i], "a", at), at + ".a"), text(field(pairs[i], "b", at), at + ".b"),
                                  family.is_null() ? "" : text(family, at + ".family"),
                                  number(field(pairs[i], "distance", at), at + ".distance")});
  }
}

void read_corrections(const Json& json, const ProfileNames& names, ProfileReport& r) {
  const Json& rows = array_of(field(json, "bias_correction", ""), "bias_correction");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "bias_correction[" + std::to_string(i) + "]";
    CorrectionParams q;
    q.benchmark = names.benchmark(field(rows[i], "benchmark", at), at + ".benchmark");
    q.judge = names.judge(field(rows[i], "judge", at), at + ".judge");
    q.q0 = number(field(rows[i], "q0", at), at + ".q0");
    q.q1 = number(field(rows[i], "q1", at), at + ".q1");
    q.se0 = number(field(rows[i], "se_q0", at), at + ".se_q0");
    q.se1 = number(field(rows[i], "se_q1", at), at + ".se_q1");
    q.n0 = signed_count_of(rows[i], "n_q0", at);
    q.n1 = signed_count_of(rows[i], "n_q1", at);
    r.plan.corrections.push_back(q);
  }
}

void read_leave_out(const Json& json, const ProfileNames& names, const ProfileReport& r, std::vector<ProfileRow>& out) {
  const Json& rows = array_of(field(json, "leave_out", ""), "leave_out");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "leave_out[" + std::to_string(i) + "]";
    const int32_t b = names.benchmark(field(rows[i], "benchmark", at), at + ".benchmark");
    ProfileRow row = interval_row(rows[i], at, "leave_out", names, b);
    row.stat.kind = Kind::kLeaveOut;
    row.stat.judge = names.judge(field(rows[i], "judge", at), at + ".judge");
    row.label.judge = names.judges[row.stat.judge];
    row.stat.condition = cell_name(field(rows[i], "condition", at), at + ".condition");
    row.label.of = row.stat.condition;
    row.stat.status = coverage_of(field(rows[i], "status", at), at + ".status");
    const std::vector<CellSpec>& cells = r.plan.benchmarks[b].spec.cells;
    row.stat.main_table = cells[index_of(cap_cell_names(), row.stat.condition, at, "a condition")].main_table;
    out.push_back(std::move(row));
  }
}

// The across_judges rows (spread, diff, mean_abs_diff, set_mean) with the reference and judge sets.
void read_across_judges(const Json& json, const ProfileNames& names, ProfileReport& r, std::vector<ProfileRow>& out) {
  if (!json.contains("across_judges")) return;  // absent from results written before it
  const Json& across = json["across_judges"];
  const Json& reference = field(across, "reference", "across_judges");
  if (!reference.is_null()) r.plan.reference = text(reference, "across_judges.reference");
  const Json& sets = field(across, "judge_sets", "across_judges");
  if (!sets.is_object()) bad_field("across_judges.judge_sets", "expected an object");
  for (auto it = sets.begin(); it != sets.end(); ++it) {
    const std::string at = path_of("across_judges.judge_sets", it.key());
    r.plan.judge_sets.push_back({it.key(), texts_or_null(array_of(it.value(), at), at)});
  }
  const Json& rows = array_of(field(across, "rows", "across_judges"), "across_judges.rows");
  const std::pair<const char*, Kind> kinds[] = {{"spread", Kind::kSpread},
                                                {"diff", Kind::kDifference},
                                                {"mean_abs_diff", Kind::kMeanAbsDifference},
                                                {"set_mean", Kind::kJudgeSetMean}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "across_judges.rows[" + std::to_string(i) + "]";
    const std::string name = text(field(rows[i], "statistic", at), at + ".statistic");
    const auto kind = std::find_if(std::begin(kinds), std::end(kinds), [&](const auto& k) { return name == k.first; });
    if (kind == std::end(kinds)) bad_field(at + ".statistic", "expected spread, diff, mean_abs_diff or set_mean");
    const int32_t b = names.benchmark(field(rows[i], "benchmark", at), at + ".benchmark");
    ProfileRow row = interval_row(rows[i], at, name, names, b);
    row.stat.kind = kind->second;
    row.stat.condition = cell_name(field(rows[i], "condition", at), at + ".condition");
    row.label.of = row.stat.condition;
    row.stat.status = coverage_of(field(rows[i], "status", at), at + ".status");
    const Json& judge = field(rows[i], "judge", at);
    if (!judge.is_null()) {
      row.stat.judge = names.judge(judge, at + ".judge");
      row.label.judge = names.judges[row.stat.judge];
    }
    const Json& set = field(rows[i], "set", at);
    if (!set.is_null()) row.stat.group = row.label.judge = text(set, at + ".set");
    if (kind->second == Kind::kDifference || kind->second == Kind::kMeanAbsDifference)
      row.label.reference = r.plan.reference;
    row.stat.over = texts_or_null(array_of(field(rows[i], "judges", at), at + ".judges"), at + ".judges");
    out.push_back(std::move(row));
  }
}

// Ranks and the ρ summaries (absent from results written before them).
void read_ranks_and_rho_summaries(const Json& json, ProfileSummary& summary) {
  if (json.contains("ranks"))
    for (const Json& row : array_of(json["ranks"], "ranks")) {
      const std::optional<int> rank = optional_int(field(row, "rank", "ranks"), "ranks.rank");
      const std::optional<int> of = optional_int(field(row, "of", "ranks"), "ranks.of");
      if (!rank || !of) bad_field("ranks", "expected whole-number rank and of");
      summary.ranks.push_back({text(field(row, "benchmark", "ranks"), "ranks.benchmark"),
                               text(field(row, "condition", "ranks"), "ranks.condition"),
                               text(field(row, "judge", "ranks"), "ranks.judge"), *rank, *of});
    }
  const Json& spearman = field(json, "spearman", "");
  auto whole = [](const Json& row, const char* key, const std::string& at) {
    const std::optional<int> value = optional_int(field(row, key, at), at + "." + key);
    if (!value) bad_field(at + "." + key, "expected a whole number");
    return *value;
  };
  if (spearman.contains("condition_summary"))
    for (const Json& row : array_of(spearman["condition_summary"], "spearman.condition_summary")) {
      const std::string at = "spearman.condition_summary";
      summary.condition_rho.push_back({text(field(row, "benchmark", at), at + ".benchmark"), whole(row, "pairs", at),
                                       whole(row, "negative", at),
                                       number(field(row, "mean_abs_rho", at), at + ".mean_abs_rho")});
    }
  if (spearman.contains("benchmark_summary"))
    for (const Json& row : array_of(spearman["benchmark_summary"], "spearman.benchmark_summary")) {
      const std::string at = "spearman.benchmark_summary";
      summary.benchmark_rho.push_back(
          {text(field(row, "condition", at), at + ".condition"), whole(row, "pairs", at), whole(row, "significant", at),
           number(field(row, "min_rho", at), at + ".min_rho"), number(field(row, "max_rho", at), at + ".max_rho")});
    }
}

SpearmanEntry spearman_entry(const Json& row, const std::string& at, const char* scope_key) {
  SpearmanEntry e;
  e.scope = text(field(row, scope_key, at), at + "." + scope_key);
  e.a = text(field(row, "a", at), at + ".a");
  e.b = text(field(row, "b", at), at + ".b");
  e.status_a = coverage_of(field(row, "status_a", at), at + ".status_a");
  e.status_b = coverage_of(field(row, "status_b", at), at + ".status_b");
  const std::optional<int> n = optional_int(field(row, "n", at), at + ".n");
  if (!n) bad_field(at + ".n", "expected a whole number");
  e.result.n = *n;
  e.result.rho = number(field(row, "rho", at), at + ".rho");
  e.result.p_t = number(field(row, "p_t", at), at + ".p_t");
  // The exact p is null when it was not computed; computed, it is a probability (never NaN).
  e.result.p_exact = number(field(row, "p_exact", at), at + ".p_exact");
  e.result.exact = !std::isnan(e.result.p_exact);
  e.judges = texts_or_null(array_of(field(row, "judges", at), at + ".judges"), at + ".judges");
  // Pearson r beside ρ; absent from results written before it.
  e.pearson_r = row.contains("pearson_r") ? number(row["pearson_r"], at + ".pearson_r") : NAN;
  e.pearson_p = row.contains("pearson_p") ? number(row["pearson_p"], at + ".pearson_p") : NAN;
  return e;
}

void read_spearman(const Json& json, ProfileSummary& summary) {
  const Json& spearman = field(json, "spearman", "");
  for (const auto& [key, scope, list] :
       {std::make_tuple("between_conditions", "benchmark", &summary.between_conditions),
        std::make_tuple("between_benchmarks", "condition", &summary.between_benchmarks)}) {
    const std::string where = std::string("spearman.") + key;
    const Json& rows = array_of(field(spearman, key, "spearman"), where);
    for (size_t i = 0; i < rows.size(); ++i)
      list->push_back(spearman_entry(rows[i], where + "[" + std::to_string(i) + "]", scope));
  }
  const Json& means = array_of(field(spearman, "mean_rho", "spearman"), "spearman.mean_rho");
  for (size_t i = 0; i < means.size(); ++i) {
    const std::string at = "spearman.mean_rho[" + std::to_string(i) + "]";
    const std::optional<int> pairs = optional_int(field(means[i], "pairs", at), at + ".pairs");
    if (!pairs) bad_field(at + ".pairs", "expected a whole number");
    summary.mean_rho.push_back({text(field(means[i], "condition", at), at + ".condition"), *pairs,
                                number(field(means[i], "mean_rho", at), at + ".mean_rho")});
  }
}

// What the writers would hide or pad: leave-out rows of a benchmark whose leave-out tables
// are not written (render.leave_out false or no flagged item there), and a render judge that no
// result row names (the tables would give it a row of "—").
void check_rows_shown(const ProfileReport& r, const ProfileNames& names,
                      const std::vector<ProfileRow> (&sections)[kSectionCount]) {
  const std::vector<ProfileRow>& leave_out = sections[3];
  for (size_t i = 0; i < leave_out.size(); ++i) {
    const int32_t b = leave_out[i].stat.benchmark;
    if (!r.options.leave_out || !r.plan.benchmarks[b].has_flagged)
      bad_field("leave_out[" + std::to_string(i) + "]",
                "benchmark '" + names.benchmarks[b] +
                    "' has no leave-out tables (render.leave_out false or render.benchmarks[].has_flagged false)");
  }
  std::vector<bool> named(names.judges.size(), false);
  for (const std::vector<ProfileRow>& section : sections)
    for (const ProfileRow& row : section)
      if (row.stat.judge >= 0) named[row.stat.judge] = true;
  for (const CorrectionParams& q : r.plan.corrections) named[q.judge] = true;
  for (size_t j = 0; j < named.size(); ++j)
    if (!named[j])
      bad_field("render.judges[" + std::to_string(j) + "]", "'" + names.judges[j] + "' names no result row");
}

// The statistics into the plan in the render state's order, each with what the JSON lacks of
// its interval; every row of every section placed once.
void place_statistics(const Json& render, std::vector<ProfileRow> (&sections)[kSectionCount], ProfileReport& r) {
  const Json& states = array_of(field(render, "intervals", "render"), "render.intervals");
  std::set<std::tuple<int, int32_t, int32_t, int32_t, std::string, std::string, int>> keys;
  for (size_t s = 0; s < states.size(); ++s) {
    const std::string at = "render.intervals[" + std::to_string(s) + "]";
    const std::string section = text(field(states[s], "row", at), at + ".row");
    const size_t k =
        static_cast<size_t>(std::find(std::begin(kSections), std::end(kSections), section) - std::begin(kSections));
    if (k == kSectionCount) bad_field(at + ".row", "expected statistics, stress, l1, leave_out or across_judges");
    const uint64_t index = count(field(states[s], "index", at), at + ".index");
    if (index >= sections[k].size() || sections[k][index].used)
      bad_field(at + ".index", "not a row of result." + section + " that no other element places");
    ProfileRow& row = sections[k][index];
    row.used = true;
    row.interval.size_cv = number(field(states[s], "size_cv", at), at + ".size_cv");
    if (k > 0) {  // what interval_json leaves out
      row.interval.clusters = signed_count_of(states[s], "clusters", at);
      row.interval.distinct = signed_count_of(states[s], "distinct", at);
      row.interval.note = text(field(states[s], "note", at), at + ".note");
    }
    // ProfilePlan::index keeps one statistic per key while to_json writes every row of
    // plan.stats: a repeated key would show a row the tables never look up.
    const ProfileStat& stat = row.stat;
    const Coverage status = stat.kind == ProfileStat::Kind::kL1 ? stat.status : Coverage::kDirect;
    if (!keys.emplace(static_cast<int>(stat.kind), stat.benchmark, stat.to, stat.judge, stat.condition, stat.group,
                      static_cast<int>(status))
             .second)
      bad_field(at + ".index", "result." + section + "[" + std::to_string(index) + "] repeats another row's statistic");
    r.plan.stats.push_back(row.stat);
    r.result.labels.push_back(row.label);
    r.result.intervals.push_back(row.interval);
    r.plan.index(static_cast<int32_t>(r.plan.stats.size()) - 1);
  }
  size_t rows = 0;
  for (const std::vector<ProfileRow>& section : sections) rows += section.size();
  if (rows != states.size())
    throw std::invalid_argument("render.intervals: expected one element per statistic of the result");
}

// Where each of the plan's statistics is listed in the JSON (section, index), as to_json lists them.
std::vector<std::pair<size_t, size_t>> json_rows(const ProfileReport& report) {
  const ProfilePlan& plan = report.plan;
  std::vector<std::pair<size_t, size_t>> where(plan.stats.size(), {kSectionCount, 0});
  size_t next[kSectionCount] = {};
  const std::vector<Kind> stress_kinds{Kind::kStress, Kind::kStressJudgeMean, Kind::kStressConditionMean,
                                       Kind::kStressSelectedMean, Kind::kStressMeanAbs};
  const std::vector<Kind> across{Kind::kSpread, Kind::kDifference, Kind::kMeanAbsDifference, Kind::kJudgeSetMean};
  auto is = [](const std::vector<Kind>& kinds, Kind kind) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  };
  for (size_t s = 0; s < plan.stats.size(); ++s) {
    const Kind kind = plan.stats[s].kind;
    if (kind == Kind::kL1)
      where[s] = {2, next[2]++};
    else if (kind == Kind::kLeaveOut)
      where[s] = {3, next[3]++};
    else if (is(across, kind))
      where[s] = {4, next[4]++};
    else if (!is(stress_kinds, kind) && kind != Kind::kL1Selected)
      where[s] = {0, next[0]++};
  }
  for (size_t s = 0; s < plan.stats.size(); ++s)  // l1.sum_over_means after l1.means
    if (plan.stats[s].kind == Kind::kL1Selected) where[s] = {2, next[2]++};
  for (const StressSpec& pair : plan.stress)
    for (Kind kind : stress_kinds)
      for (size_t s = 0; s < plan.stats.size(); ++s) {
        const ProfileStat& stat = plan.stats[s];
        if (stat.kind == kind && stat.benchmark >= 0 && stat.to >= 0 &&
            plan.benchmarks[stat.benchmark].spec.name == pair.from && plan.benchmarks[stat.to].spec.name == pair.to)
          where[s] = {1, next[1]++};
      }
  return where;
}

}  // namespace

Json render_state(const ProfileReport& report) {
  const std::vector<std::pair<size_t, size_t>> rows = json_rows(report);
  Json intervals = Json::array();
  for (size_t s = 0; s < rows.size(); ++s) {
    const Interval& i = report.result.intervals[s];
    Json state = {{"row", rows[s].first < kSectionCount ? kSections[rows[s].first] : "none"},
                  {"index", rows[s].second},
                  {"size_cv", i.size_cv}};
    if (rows[s].first != 0) state.update({{"clusters", i.clusters}, {"distinct", i.distinct}, {"note", i.note}});
    intervals.push_back(state);
  }
  Json benchmarks = Json::array();
  for (const ProfiledBenchmark& b : report.plan.benchmarks)
    benchmarks.push_back({{"items", b.items}, {"has_flagged", b.has_flagged}});
  return {{"judges", report.plan.judges},
          {"leave_out", report.options.leave_out},
          {"benchmarks", benchmarks},
          {"replicates_run", report.result.replicates_run},
          {"n_clusters", report.result.n_clusters},
          {"intervals", intervals}};
}

ProfileReport profile_report_from_json(const Json& json, const Json& render) {
  if (!render.is_object()) throw std::invalid_argument("render: expected an object");
  ProfileReport r;
  ProfileNames names;
  names.judges = texts_or_null(array_of(field(render, "judges", "render"), "render.judges"), "render.judges");
  r.plan.judges = names.judges;
  r.options.leave_out = flag(field(render, "leave_out", "render"), "render.leave_out");
  read_profile_settings(json, r);
  read_coverage(json, render, r, names);
  std::vector<ProfileRow> sections[kSectionCount];
  read_statistics(json, names, sections[0]);
  read_stress(json, names, r, sections[1]);
  read_l1(json, names, r, sections[2]);
  read_corrections(json, names, r);
  read_leave_out(json, names, r, sections[3]);
  read_across_judges(json, names, r, sections[4]);
  check_rows_shown(r, names, sections);
  place_statistics(render, sections, r);
  read_spearman(json, r.summary);
  read_ranks_and_rho_summaries(json, r.summary);
  split_notes(json, names.judges, r.validity, r.plan.notes);
  r.result.replicates_run = count(field(render, "replicates_run", "render"), "render.replicates_run");
  r.result.n_clusters = signed_count(field(render, "n_clusters", "render"), "render.n_clusters");
  const Json& timing = field(json, "timing", "");
  r.result.resample_s = number(field(timing, "resample_s", "timing"), "timing.resample_s");
  r.result.summary_s = number(field(timing, "summary_s", "timing"), "timing.summary_s");
  return r;
}

}  // namespace judgestat
