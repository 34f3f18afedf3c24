// Writers of the cascade report: docs/statistics.md §4's JSON, tables for people and SVG plots, from the typed
// CascadeReport that run_cascade returns (docs/statistics.md §3.3, §3.4; JEV §7–§9).
#include "report/cascade_report.hpp"
#include "report/probability_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "report/plot_axes.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace judgestat {
namespace {

// Under each table with clusters and flag columns: which interval they describe.
constexpr const char* kDeltaColumnNote =
    "clusters and flag: of the Δ column's interval (every column of a row resamples the same clusters)";

constexpr const char* kNotGiven = "not given";

std::string percent(double share, int digits = 1) { return std::isfinite(share) ? fixed(100.0 * share, digits) : "—"; }

std::string signed_pp(double delta) {
  if (!std::isfinite(delta)) return "—";
  const double pp = 100.0 * delta;
  return (pp > 0.0 && fixed(pp, 2) != "0.00" ? "+" : "") + fixed(pp, 2);
}

// "93.4 [92.1, 94.6]" in percent, or "+0.93 [0.24, 1.66]" in points, or "0.414 [0.40, 0.43]".
std::string percent_ci(const Interval& v) {
  return percent(v.estimate) + " [" + percent(v.lo) + ", " + percent(v.hi) + "]";
}
std::string pp_ci(const Interval& v) {
  return signed_pp(v.estimate) + " [" + fixed(100.0 * v.lo, 2) + ", " + fixed(100.0 * v.hi, 2) + "]";
}
std::string ratio_ci(const Interval& v) {
  return fixed(v.estimate, 3) + " [" + fixed(v.lo, 3) + ", " + fixed(v.hi, 3) + "]";
}

// JEV Table 28's "retained": the policy's accuracy as a share of the fallback's alone, in percent.
std::string retained(double accuracy, double fallback) {
  return fallback > 0 && std::isfinite(accuracy) ? fixed(100.0 * accuracy / fallback, 1) : "—";
}

std::string latency_cell(const LatencySummary& latency, bool given) {
  return given ? fixed(latency.p50, 2) + " / " + fixed(latency.p95, 2) : kNotGiven;
}

Json latency_json(const LatencySummary& latency) {
  return {{"p50", latency.p50}, {"p95", latency.p95}, {"mean", latency.mean}};
}

Json threshold_json(const ThresholdGrid& grid, int32_t index) {
  return index < grid.size() ? Json(grid.values[index]) : Json("all");
}

// The first stage's reliability and risk–coverage, from its gate confidences.
ProbabilityQuality gate_quality(const CascadeReport& r) {
  ProbabilityQuality quality;
  quality.summaries.push_back({r.options.first, std::nullopt,
                               r.first_orders == 1 ? std::optional<int>(0) : std::nullopt,
                               reliability_table(r.gate_q, r.gate_correct), risk_coverage(r.gate_q, r.gate_correct)});
  return quality;
}

std::vector<std::string> rule_stratum_names(const CascadeReport& r) {
  return r.options.per_stratum ? r.strata_names : std::vector<std::string>{"all"};
}

// ---- JSON ----

// The grouping key a scope's JSON names its group under, "benchmark" without groups.
std::string group_key(const CascadeReport& r) { return r.grouping ? r.grouping->key : "benchmark"; }

Json threshold_label_json(const FrozenThreshold& t) { return std::isnan(t.value) ? Json("all") : Json(t.value); }

Json tau_json(const FrozenTau& tau) {
  Json per = Json::object();
  for (const auto& [benchmark, t] : tau.per_benchmark) per[benchmark] = threshold_label_json(t);
  return {{"every", tau.every ? threshold_label_json(*tau.every) : Json(nullptr)}, {"per_benchmark", per}};
}

Json settings_json(const CascadeReport& r) {
  const CascadeSettings& o = r.options;
  const std::string strata = r.grouping ? (r.grouping->domain ? "none" : r.grouping->key) : "";
  Json js = bootstrap_settings_json(r.sweep.result, strata);  // the run's settings, as the sweep ran them
  js["first"] = o.first;
  js["fallback"] = o.fallback;
  Json grid_values = Json::array();
  for (double value : o.grid.values) grid_values.push_back(value);
  js["grid"] = grid_values;
  js["gate_orders"] = o.gate_orders == 0 ? Json("present") : Json(o.gate_orders);
  const bool own_set = !o.select_column.empty() || !o.select_items.empty();
  js["select"] = own_set ? Json(nullptr) : Json(o.select);
  js["select_column"] = o.select_column.empty() ? Json(nullptr) : Json(o.select_column);
  js["select_items"] = o.select_items.empty() ? Json(nullptr) : Json(o.select_items);
  js["tol"] = o.tol;
  js["z"] = o.z;
  js["per_stratum"] = o.per_stratum;
  js["rule_strata"] = o.per_stratum ? Json(o.strata) : Json(nullptr);
  js["fee"] = o.fee;
  js["latency"] = o.latency;
  js["tau"] = o.tau ? tau_json(*o.tau) : Json(nullptr);
  js["by"] = o.by.empty() ? Json(nullptr) : Json(o.by);
  js["benchmarks"] = o.benchmarks.empty() ? Json(nullptr) : Json(o.benchmarks);
  // New keys only when asked, so that the JSON of a run without them keeps its bytes.
  if (!o.bin_edges.empty()) js["bins"] = o.bin_edges;
  if (!o.compare_gate.empty()) js["compare_gate"] = o.compare_gate;
  if (o.other_gate_orders != 0) js["other_gate_orders"] = o.other_gate_orders;
  return js;
}

Json pool_json(const CascadeReport& r) {
  const std::string& first = r.options.first;
  const std::string& fallback = r.options.fallback;
  return {{"items", r.items},
          {"gate_ok", r.gate_ok},
          {"clusters", r.clusters},
          {"first_orders", r.first_orders},
          {"fewer_orders", r.fewer_orders},
          {"escalated_for_missing_orders", r.escalated_for_missing_orders},
          {"fee_source", {{first, r.fee_first.from}, {fallback, r.fee_fallback.from}}},
          {"latency_source", {{first, r.latency_first.from}, {fallback, r.latency_fallback.from}}},
          {"fee_unit_usd", r.fees ? Json(r.fee_scale.unit) : Json(nullptr)},
          {"fee_exact", r.fees ? Json(r.fee_scale.exact) : Json(nullptr)}};
}

Json baselines_json(const CascadeReport& r, const CascadeScope& s) {
  return {{"first_alone",
           {{"judge", r.options.first},
            {"acc", s.first_alone},
            {"fee_ratio", s.first_fee_ratio},
            {"latency", r.latency ? latency_json(s.first_latency) : Json(nullptr)}}},
          {"fallback_alone",
           {{"judge", r.options.fallback},
            {"acc", s.fallback_alone},
            {"fee_ratio", r.fees ? Json(1.0) : Json(nullptr)},
            {"latency", r.latency ? latency_json(s.fallback_latency) : Json(nullptr)}}}};
}

// The pooled scope's object, with a `groups` list (each naming its group) under --by.
template <typename ScopeJson>
Json with_groups(const CascadeReport& r, const std::vector<CascadeScope>& scopes, ScopeJson scope_json) {
  Json out = scope_json(scopes.front());
  if (!r.grouping) return out;
  Json groups = Json::array();
  for (size_t k = 1; k < scopes.size(); ++k) {
    Json group = {{group_key(r), *scopes[k].group}, {"items", scopes[k].items}, {"clusters", scopes[k].clusters}};
    group.update(scope_json(scopes[k]));
    groups.push_back(group);
  }
  out["groups"] = groups;
  return out;
}

// The sweep's latency per threshold in each of `scopes` (the run's sweep, or the other gate's).
Json sweep_latency_json(const CascadeReport& r, const std::vector<CascadeScope>& scopes) {
  if (!r.latency) return nullptr;
  return with_groups(r, scopes, [&](const CascadeScope& s) -> Json {
    Json rows = Json::array();
    for (size_t p = 0; p < s.latencies.size(); ++p) {
      Json row = latency_json(s.latencies[p]);
      row["threshold"] = threshold_json(r.options.grid, static_cast<int32_t>(p));
      rows.push_back(row);
    }
    return {{"thresholds", rows},
            {"first_alone", latency_json(s.first_latency)},
            {"fallback_alone", latency_json(s.fallback_latency)}};
  });
}

Json split_json(const CascadeReport& r) {
  const CascadeRules& rules = *r.rules;
  const SelectionSource& source = rules.source;
  const bool random = source.kind == "random";
  Json out = {{"source", source.kind},
              {"select", random ? Json(source.fraction) : Json(nullptr)},
              {"seed", random ? Json(r.sweep.result.seed) : Json(nullptr)},
              {"stream", random ? Json(kSplitStream) : Json(nullptr)},
              {"stratified_by", random ? Json("benchmark") : Json(nullptr)},
              {"column", source.kind == "column" ? Json(source.column) : Json(nullptr)},
              {"file", source.kind == "items" ? Json(source.file) : Json(nullptr)},
              {"selection", {{"items", rules.selection_items}, {"clusters", rules.selection_clusters}}},
              {"heldout", {{"items", rules.heldout_items}, {"clusters", rules.heldout_clusters}}}};
  if (source.kind == "items") {
    out["listed"] = source.listed;
    out["listed_not_analysed"] = source.listed_outside;
  }
  if (!random) out["straddling_clusters"] = source.straddling_clusters;
  return out;
}

Json trials_json(const CascadeReport& r) {
  const RuleChoice& choice = r.rules->choices.front();
  const std::vector<std::string> stratum_names = rule_stratum_names(r);
  Json out = Json::array();
  for (size_t h = 0; h < choice.trials.size(); ++h) {
    Json rows = Json::array();
    for (int32_t g = 0; g < r.options.grid.size(); ++g) {
      const SelectionTrial& t = choice.trials[h][g];
      rows.push_back({{"threshold", r.options.grid.values[g]},
                      {"n", t.n},
                      {"accepted", t.accepted},
                      {"accepted_share", t.n ? static_cast<double>(t.accepted) / static_cast<double>(t.n) : NAN},
                      {"mean_delta", t.mean_delta},
                      {"lower_bound", t.lower_bound},
                      {"point_passes", t.point_passes},
                      {"lower_passes", t.lower_passes}});
    }
    out.push_back({{"stratum", r.options.per_stratum ? Json(stratum_names[h]) : Json(nullptr)},
                   {"labelled", choice.labelled[h]},
                   {"rows", rows}});
  }
  return out;
}

// The rows of `result` at the given indices, those built (>= 0): one policy's, or its split's.
Json rows_at(const BootstrapResult& result, std::initializer_list<int32_t> indices) {
  BootstrapResult mine;
  for (int32_t index : indices) {
    if (index < 0) continue;
    mine.labels.push_back(result.labels[index]);
    mine.intervals.push_back(result.intervals[index]);
  }
  return statistics_json(mine);
}

Json policy_rows(const BootstrapResult& result, const PolicyStatistics& s) {
  return rows_at(result, {s.cascade_acc, s.cascade_delta, s.escalated, s.errors_escalated, s.fee_ratio, s.random_acc});
}

// The frozen policy's accuracies and agreement on its accepted and escalated items, then its gate
// agreement with a compared run (those built).
Json split_rows(const BootstrapResult& result, const PolicyStatistics& s) {
  return rows_at(result, {s.accepted_first_acc, s.accepted_fallback_acc, s.accepted_agree, s.escalated_first_acc,
                          s.escalated_fallback_acc, s.escalated_agree, s.gate_agreement});
}

Json rules_json(const CascadeReport& r) {
  const CascadeRules& rules = *r.rules;
  const CascadeSettings& o = r.options;
  const std::vector<std::string> stratum_names = rule_stratum_names(r);
  Json out = Json::array();
  for (size_t k = 0; k < rules.choices.size(); ++k) {
    const RuleChoice& choice = rules.choices[k];
    Json tau;
    if (o.per_stratum) {
      tau = Json::object();
      for (size_t h = 0; h < choice.chosen.size(); ++h)
        tau[stratum_names[h]] = threshold_json(o.grid, choice.chosen[h]);
    } else {
      tau = threshold_json(o.grid, choice.chosen.front());
    }
    Json heldout = nullptr;
    if (rules.scored()) {
      bool pooled = true;
      heldout = with_groups(r, rules.heldout_scopes, [&](const CascadeScope& s) -> Json {
        Json scope = {{"first_alone_acc", s.first_alone},
                      {"fallback_alone_acc", s.fallback_alone},
                      {"statistics", policy_rows(rules.heldout, s.policies[k])},
                      {"latency", r.latency ? latency_json(s.latencies[k]) : Json(nullptr)},
                      {"fallback_alone_latency", r.latency ? latency_json(s.fallback_latency) : Json(nullptr)}};
        if (pooled) {  // the pooled scope leads with its size, as before groups existed
          Json head = {{"items", rules.heldout_items}, {"clusters", rules.heldout_clusters}};
          head.update(scope);
          scope = head;
          pooled = false;
        }
        return scope;
      });
    }
    out.push_back({{"rule", rule_name(choice.rule)},
                   {"per_stratum", o.per_stratum},
                   {"tau", tau},
                   {"tol", o.tol},
                   {"z", choice.rule == ThresholdRule::kLower ? Json(o.z) : Json(nullptr)},
                   {"heldout", heldout}});
  }
  return out;
}

bool numeric_threshold(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// statistics_json's rows, with a threshold that names rather than a number (the selective
// rows' "coverage=0.5", a bin's "[0.9, 1.0]") written as that string.
Json sweep_statistics_json(const BootstrapResult& result) {
  BootstrapResult rows;
  rows.labels = result.labels;
  rows.intervals = result.intervals;
  std::vector<std::pair<size_t, std::string>> named;
  for (size_t s = 0; s < rows.labels.size(); ++s) {
    const std::optional<std::string>& threshold = rows.labels[s].threshold;
    if (!threshold || *threshold == "all" || numeric_threshold(*threshold)) continue;
    named.push_back({s, *threshold});
    rows.labels[s].threshold.reset();
  }
  Json out = statistics_json(rows);
  for (const auto& [s, threshold] : named) out[s]["threshold"] = threshold;
  return out;
}

Json calibration_json(const CalibrationSummary& before, const CalibrationSummary& after) {
  return {{"items", before.n},          {"nll_before", before.nll},
          {"nll_after", after.nll},     {"brier_before", before.brier},
          {"brier_after", after.brier}, {"ece_before", before.ece},
          {"ece_after", after.ece}};
}

// `temperature` is the pooled T; the *_after keys and `groups` score the chosen scaling (per
// benchmark: each row at its benchmark's T). Pooled, the NLLs are the pooled fit's own.
Json temperature_json(const CascadeReport& r) {
  const TemperatureResult& t = r.rules->temperature;
  Json selection = calibration_json(t.all.selection_before, t.all.selection_after);
  Json heldout = calibration_json(t.all.heldout_before, t.all.heldout_after);
  selection["nll_before"] = t.selection_nll_before, heldout["nll_before"] = t.heldout_nll_before;
  if (!t.per_benchmark) selection["nll_after"] = t.selection_nll_after, heldout["nll_after"] = t.heldout_nll_after;
  Json groups = Json::array();
  for (const TemperatureGroupResult& g : t.groups)
    groups.push_back({{"benchmark", g.name},
                      {"temperature", g.temperature},
                      {"pooled_fallback", g.pooled_fallback},
                      {"selection", calibration_json(g.selection_before, g.selection_after)},
                      {"heldout", calibration_json(g.heldout_before, g.heldout_after)}});
  return {{"judge", r.options.first},
          {"temperature", t.temperature},
          {"scaling", t.per_benchmark ? "per-benchmark" : "pooled"},
          {"selection", selection},
          {"heldout", heldout},
          {"groups", groups}};
}

Json frozen_json(const CascadeReport& r) {
  const CascadeFrozen& f = *r.frozen;
  Json applied = Json::object();
  for (const auto& [benchmark, t] : f.applied) applied[benchmark] = threshold_label_json(t);
  const Json scopes = with_groups(r, f.scopes, [&](const CascadeScope& s) -> Json {
    const PolicyStatistics& all = s.policies[1];
    BootstrapResult fallback;
    fallback.labels.push_back(f.result.labels[all.cascade_acc]);
    fallback.intervals.push_back(f.result.intervals[all.cascade_acc]);
    Json scope = {{"first_alone_acc", s.first_alone},
                  {"statistics", policy_rows(f.result, s.policies[0])},
                  {"fallback_alone", statistics_json(fallback)},
                  {"latency", r.latency ? latency_json(s.latencies[0]) : Json(nullptr)},
                  {"fallback_alone_latency", r.latency ? latency_json(s.fallback_latency) : Json(nullptr)},
                  {"split_statistics", split_rows(f.result, s.policies[0])}};
    if (r.latency && !s.accepted_latencies.empty()) {
      scope["latency_accepted"] = latency_json(s.accepted_latencies[0]);
      scope["latency_escalated"] = latency_json(s.escalated_latencies[0]);
    }
    return scope;
  });
  Json out = {{"tau", tau_json(f.tau)},
              {"applied", applied},
              {"scored_on", f.heldout ? "heldout" : "all"},
              {"items", f.scopes.front().items},
              {"clusters", f.scopes.front().clusters}};
  out.update(scopes);
  if (f.gate_comparison) {
    const GateComparison& g = *f.gate_comparison;
    out["gate_comparison"] = {{"file", g.file},
                              {"common", g.common},
                              {"both_accept", g.both_accept},
                              {"both_escalate", g.both_escalate},
                              {"accepted_here_only", g.accepted_here_only},
                              {"accepted_there_only", g.accepted_there_only},
                              {"only_here", g.only_here}};
  }
  return out;
}

// --bins: each bin's range and counts (its statistics are rows of `statistics`).
// Pooled, then each group's (naming it).
Json edge_bins_json(const CascadeReport& r) {
  Json rows = Json::array();
  std::vector<const CascadeSelective*> scopes{&r.sweep.selective};
  for (const CascadeSelective& group : r.sweep.group_selective) scopes.push_back(&group);
  for (const CascadeSelective* sel : scopes)
    for (const ConfidenceBinAccuracy& b : sel->bins) {
      Json row = {{"bin", edge_bin_name(r.options.bin_edges, b.bin)},
                  {"lo", b.lo},
                  {"hi", b.hi},
                  {"n", b.n},
                  {"mean_q", b.mean_q},
                  {"first_errors", b.first_errors},
                  {"disagree", b.disagree}};
      if (sel->group) row[group_key(r)] = *sel->group;
      rows.push_back(row);
    }
  return rows;
}

// --other-gate-orders (JEV Fig. 9): the other gate's sweep in the shape of the run's own (its pool,
// statistics, baselines and latency per threshold).
Json other_gate_json(const CascadeReport& r) {
  const OtherGateSweep& g = *r.other_gate;
  return {{"gate_orders", g.gate_orders},
          {"pool",
           {{"items", g.items},
            {"gate_ok", g.gate_ok},
            {"clusters", g.clusters},
            {"first_orders", g.first_orders},
            {"fewer_orders", g.fewer_orders}}},
          {"statistics", sweep_statistics_json(g.result)},
          {"baselines", with_groups(r, g.scopes, [&](const CascadeScope& s) { return baselines_json(r, s); })},
          {"latency", sweep_latency_json(r, g.scopes)}};
}

Json groups_json(const CascadeReport& r) {
  if (!r.grouping) return nullptr;
  return {{"key", r.grouping->key},
          {"names", r.grouping->names},
          {"stratified", !r.grouping->domain},
          {"note", r.grouping->domain ? Json(r.grouping->note) : Json(nullptr)}};
}

Json timing_json(const CascadeReport& r, double load_s) {
  Json timing = bootstrap_timing_json(load_s, r.sweep.result);
  if (r.rules && r.rules->scored()) timing["heldout_resample_s"] = r.rules->heldout.resample_s;
  if (r.frozen) timing["frozen_resample_s"] = r.frozen->result.resample_s;
  if (r.other_gate) timing["other_gate_resample_s"] = r.other_gate->result.resample_s;
  return timing;
}

// ---- tables ----

std::string heading(const std::string& format, const std::string& title) {
  return format == "md" ? "\n**" + title + "**\n\n" : format == "csv" ? "\n" : "\n" + title + "\n";
}

std::string level_text(const CascadeReport& r) { return fixed(100 * r.sweep.result.level, 0) + "% CI"; }

// The gate in words, for the sweep's note (docs/statistics.md §3.3).
std::string gate_note(const CascadeReport& r) {
  const std::string invalid = std::to_string(r.items - r.gate_ok);
  if (r.options.gate_orders == 1)
    return "gate: order 0, accept iff the order-0 output is valid and q ≥ τ (" + invalid +
           " items with an invalid or missing first-stage order always escalate)";
  const std::string orders = std::to_string(r.first_orders);
  if (r.options.gate_orders == 2)
    return "gate: " + orders + " orders averaged, accept iff every order is present and valid and q ≥ τ (" + invalid +
           " items always escalate, " + std::to_string(r.escalated_for_missing_orders) +
           " of them only because an order is missing; --gate-orders present gates them on the orders they have)";
  std::string text = "gate: the orders each item has, averaged; accept iff every present order is valid and q ≥ τ (" +
                     invalid + " items with an invalid first-stage output always escalate";
  if (r.fewer_orders > 0)
    text += "; " + std::to_string(r.fewer_orders) + " items have fewer than " + orders +
            " orders and are gated on those they have (--gate-orders 2 escalates them)";
  return text + ")";
}

Table sweep_table(const CascadeReport& r, const CascadeScope& scope) {
  const CascadeSettings& o = r.options;
  const auto& iv = r.sweep.result.intervals;
  const std::string level = level_text(r);
  Table table;
  table.header = {"τ",
                  "escalated (%)",
                  "cascade acc (%)",
                  "retained (%)",
                  "Δ vs fallback (pp) [" + level + "]",
                  "first-stage errors caught (%)",
                  "fee ratio",
                  "random, same fee (%)",
                  "latency p50 / p95 (s)",
                  "clusters",
                  "flag"};
  for (size_t p = 0; p < scope.policies.size(); ++p) {
    const PolicyStatistics& s = scope.policies[p];
    const Interval& delta = iv[s.cascade_delta];
    table.rows.push_back({o.grid.label(static_cast<int32_t>(p)), percent_ci(iv[s.escalated]),
                          percent_ci(iv[s.cascade_acc]), retained(iv[s.cascade_acc].estimate, scope.fallback_alone),
                          pp_ci(delta), s.errors_escalated >= 0 ? percent_ci(iv[s.errors_escalated]) : "—",
                          r.fees ? ratio_ci(iv[s.fee_ratio]) : kNotGiven,
                          r.fees ? percent_ci(iv[s.random_acc]) : kNotGiven,
                          latency_cell(scope.latencies[p], r.latency), std::to_string(delta.clusters),
                          interval_flag(r.sweep.result.labels[s.cascade_delta], delta, r.sweep.result.ci)});
  }
  table.rows.push_back(
      {"first alone", "0.0", percent(scope.first_alone), retained(scope.first_alone, scope.fallback_alone),
       signed_pp(scope.first_alone - scope.fallback_alone), "0.0", r.fees ? fixed(scope.first_fee_ratio, 3) : kNotGiven,
       "—", latency_cell(scope.first_latency, r.latency), "—", ""});
  table.rows.push_back({"fallback alone", "100.0", percent(scope.fallback_alone),
                        retained(scope.fallback_alone, scope.fallback_alone), "0.00", "100.0",
                        r.fees ? std::string("1.000") : kNotGiven, "—", latency_cell(scope.fallback_latency, r.latency),
                        "—", ""});
  table.rows.push_back(
      {"oracle", "—", percent_ci(iv[scope.oracle_acc]), retained(iv[scope.oracle_acc].estimate, scope.fallback_alone),
       signed_pp(iv[scope.oracle_acc].estimate - scope.fallback_alone), "—", "—", "—", "—",
       std::to_string(iv[scope.oracle_acc].clusters),
       interval_flag(r.sweep.result.labels[scope.oracle_acc], iv[scope.oracle_acc], r.sweep.result.ci)});
  if (scope.group) return table;  // the notes are the pooled table's
  table.notes.push_back("cascade " + o.first + " → " + o.fallback + " on " + std::to_string(r.items) + " items (" +
                        std::to_string(r.clusters) + " clusters); " + gate_note(r));
  table.notes.push_back("cells: estimate [" + level + "]; first alone: " + o.first +
                        (r.first_orders == 1 ? " in order 0" : " with order-averaged probabilities") +
                        "; fallback alone: " + o.fallback +
                        " in order 0; oracle: the better of the two per item; "
                        "random: escalate each item at random for the same expected fee; retained: cascade ÷ "
                        "fallback accuracy (JEV Table 28)");
  if (r.grouping)
    table.notes.push_back(r.grouping->domain ? "per " + r.grouping->key + " by domain estimation (see the notes)"
                                             : "replicates stratified by " + r.grouping->key);
  for (const auto& note : r.notes) table.notes.push_back("note: " + note);
  table.notes.push_back(kDeltaColumnNote);
  for (const auto& note : interval_notes(interval_warnings(r.sweep.result))) table.notes.push_back(note);
  return table;
}

Table trials_table(const CascadeReport& r) {
  const CascadeSettings& o = r.options;
  const std::vector<RuleChoice>& choices = r.rules->choices;
  const std::vector<std::string> stratum_names = rule_stratum_names(r);
  const std::string bound_title =
      std::fabs(o.z - 1.645) < 1e-12 ? "95% lower bound (pp)" : "lower bound, z = " + fixed(o.z, 3) + " (pp)";
  Table trials;
  if (o.per_stratum) trials.header.push_back(o.strata);
  for (const std::string& h : {std::string("τ"), std::string("accepted (%)"), std::string("mean Δ (pp)"), bound_title,
                               std::string("point rule"), std::string("lower-bound rule")})
    trials.header.push_back(h);
  for (size_t h = 0; h < choices.front().trials.size(); ++h) {
    for (int32_t g = 0; g < o.grid.size(); ++g) {
      const SelectionTrial& t = choices.front().trials[h][g];
      std::vector<std::string> row;
      if (o.per_stratum) row.push_back(g == 0 ? stratum_names[h] + " (" + std::to_string(t.n) + ")" : "");
      row.push_back(o.grid.labels[g]);
      row.push_back(t.n ? percent(static_cast<double>(t.accepted) / static_cast<double>(t.n), 0) : "—");
      row.push_back(signed_pp(t.mean_delta));
      row.push_back(signed_pp(t.lower_bound));
      row.push_back(std::string(t.point_passes ? "yes" : "no") + (choices[0].chosen[h] == g ? " ∗" : ""));
      row.push_back(std::string(t.lower_passes ? "yes" : "no") + (choices[1].chosen[h] == g ? " ∗" : ""));
      trials.rows.push_back(row);
    }
  }
  trials.notes.push_back(
      "∗: the chosen threshold (most accepted items among those passing; ties go to the stricter; "
      "`all` when none passes); tol = " +
      fixed(100 * o.tol, 2) + " points");
  for (size_t k = 0; k < choices.size(); ++k) {
    std::string chosen;
    for (size_t h = 0; h < choices[k].chosen.size(); ++h)
      chosen += (h ? ", " : "") + (o.per_stratum ? stratum_names[h] + " " : std::string()) +
                "τ = " + o.grid.label(choices[k].chosen[h]);
    trials.notes.push_back(std::string(k == 0 ? "point" : "lower-bound") + " rule chooses " + chosen);
  }
  return trials;
}

// Where the selection part's labels came from, for its heading.
std::string selection_heading(const CascadeReport& r) {
  const CascadeRules& rules = *r.rules;
  const SelectionSource& source = rules.source;
  std::string where;
  if (source.kind == "column") {
    where = "items marked select in column '" + source.column + "'";
  } else if (source.kind == "items") {
    where = "items listed in " + source.file;
  } else {
    where =
        fixed(100 * source.fraction, 0) + "% of clusters per benchmark, seed " + std::to_string(r.sweep.result.seed);
  }
  return "Selection part (" + std::to_string(rules.selection_items) + " items, " + where +
         "): threshold trials (JEV Table 33)";
}

// A rule's τ in a scope: the pooled choice, or the scope's own when the rule's strata are the groups.
std::string rule_tau_text(const CascadeReport& r, size_t k, const CascadeScope& scope) {
  const CascadeSettings& o = r.options;
  const RuleChoice& choice = r.rules->choices[k];
  if (!o.per_stratum) return "τ = " + o.grid.label(choice.chosen.front());
  if (scope.group && r.grouping && r.grouping->key == o.strata) {
    const auto it = std::find(r.strata_names.begin(), r.strata_names.end(), *scope.group);
    if (it != r.strata_names.end()) return "τ = " + o.grid.label(choice.chosen[it - r.strata_names.begin()]);
  }
  return "τ per " + o.strata;
}

Table heldout_table(const CascadeReport& r) {
  const CascadeRules& rules = *r.rules;
  const auto& iv = rules.heldout.intervals;
  const std::string level = level_text(r);
  Table held;
  if (r.grouping) held.header.push_back(r.grouping->key);
  for (const std::string& h : {std::string("policy"), std::string("first alone (%)"), "cascade (%) [" + level + "]",
                               std::string("fallback (%)"), "Δ (pp) [" + level + "]", std::string("escalated (%)"),
                               std::string("first-stage errors caught (%)"), std::string("fee ratio"),
                               std::string("latency p50 / p95 (s)"), std::string("clusters"), std::string("flag")})
    held.header.push_back(h);
  for (const CascadeScope& scope : rules.heldout_scopes) {
    const std::string group = scope.group.value_or("all") + " (" + std::to_string(scope.items) + ")";
    for (size_t k = 0; k < rules.choices.size(); ++k) {
      const PolicyStatistics& s = scope.policies[k];
      std::vector<std::string> row;
      if (r.grouping) row.push_back(k == 0 ? group : "");
      row.push_back(std::string(k == 0 ? "point rule" : "lower-bound rule") + ", " + rule_tau_text(r, k, scope));
      for (const std::string& cell :
           {percent(scope.first_alone), percent_ci(iv[s.cascade_acc]), percent(scope.fallback_alone),
            pp_ci(iv[s.cascade_delta]), percent(iv[s.escalated].estimate),
            s.errors_escalated >= 0 ? percent(iv[s.errors_escalated].estimate) : std::string("—"),
            r.fees ? fixed(iv[s.fee_ratio].estimate, 3) : std::string(kNotGiven),
            latency_cell(scope.latencies[k], r.latency), std::to_string(iv[s.cascade_delta].clusters),
            interval_flag(rules.heldout.labels[s.cascade_delta], iv[s.cascade_delta], rules.heldout.ci)})
        row.push_back(cell);
      held.rows.push_back(row);
    }
    std::vector<std::string> row;
    if (r.grouping) row.push_back("");
    for (const std::string& cell : {std::string("fallback alone"), std::string(), percent(scope.fallback_alone),
                                    percent(scope.fallback_alone), std::string("—"), std::string("100.0"),
                                    std::string("—"), r.fees ? std::string("1.000") : std::string(kNotGiven),
                                    latency_cell(scope.fallback_latency, r.latency), std::string(), std::string()})
      row.push_back(cell);
    held.rows.push_back(row);
  }
  held.notes.push_back("held-out part: " + std::to_string(rules.heldout_items) + " items, " +
                       std::to_string(rules.heldout_clusters) + " clusters; CIs from its own clustered bootstrap");
  held.notes.push_back(kDeltaColumnNote);
  for (const auto& note : interval_notes(interval_warnings(rules.heldout))) held.notes.push_back(note);
  return held;
}

// The frozen τ of a scope: the bare value, or the group's benchmark's τ, else "per benchmark".
std::string frozen_tau_text(const CascadeReport& r, const CascadeScope& scope) {
  const CascadeFrozen& f = *r.frozen;
  if (f.tau.per_benchmark.empty()) return f.tau.every->label;
  if (scope.group && r.grouping && r.grouping->key == "benchmark")
    for (const auto& [benchmark, t] : f.applied)
      if (benchmark == *scope.group) return t.label;
  return "per benchmark";
}

// The chosen pooled threshold index of each rule (−1 when the rules chose per stratum or there are none).
std::vector<int32_t> chosen_indices(const CascadeReport& r) {
  std::vector<int32_t> out;
  if (!r.rules || r.options.per_stratum) return out;
  for (const RuleChoice& choice : r.rules->choices) out.push_back(choice.chosen.front());
  return out;
}

// The frozen τ of a scope as a grid index, or −1 (not on the grid, per benchmark across the scope, `all`).
int32_t frozen_grid_index(const CascadeReport& r, const CascadeScope& scope) {
  if (!r.frozen) return -1;
  const std::string label = frozen_tau_text(r, scope);
  char* end = nullptr;
  const double value = std::strtod(label.c_str(), &end);
  if (label.empty() || *end != '\0') return -1;  // `all` or "per benchmark"
  const ThresholdGrid& grid = r.options.grid;
  for (int32_t g = 0; g < grid.size(); ++g)
    if (std::fabs(grid.values[g] - value) < 1e-12) return g;
  return -1;
}

// A table of the frozen policy's scopes: the grouping key's column (with --by), then `header`.
Table frozen_scopes_table(const CascadeReport& r, const std::vector<std::string>& header) {
  Table table;
  if (r.grouping) table.header.push_back(r.grouping->key);
  table.header.insert(table.header.end(), header.begin(), header.end());
  return table;
}

Table frozen_table(const CascadeReport& r) {
  const CascadeFrozen& f = *r.frozen;
  const auto& iv = f.result.intervals;
  const std::string level = level_text(r);
  Table table = frozen_scopes_table(
      r, {"τ", "items", "cascade (%) [" + level + "]", "fallback alone (%) [" + level + "]", "retained (%)",
          "Δ (pp) [" + level + "]", "escalated (%) [" + level + "]", "first-stage errors caught (%) [" + level + "]",
          "fee ratio [" + level + "]", "first alone (%)", "latency p50 / p95 (s)", "clusters", "flag"});
  for (const CascadeScope& scope : f.scopes) {
    const PolicyStatistics& s = scope.policies[0];
    std::vector<std::string> row;
    if (r.grouping) row.push_back(scope.group.value_or("all"));
    for (const std::string& cell :
         {frozen_tau_text(r, scope), std::to_string(scope.items), percent_ci(iv[s.cascade_acc]),
          percent_ci(iv[scope.policies[1].cascade_acc]),
          retained(iv[s.cascade_acc].estimate, iv[scope.policies[1].cascade_acc].estimate), pp_ci(iv[s.cascade_delta]),
          percent_ci(iv[s.escalated]), s.errors_escalated >= 0 ? percent_ci(iv[s.errors_escalated]) : "—",
          r.fees ? ratio_ci(iv[s.fee_ratio]) : std::string(kNotGiven), percent(scope.first_alone),
          latency_cell(scope.latencies[0], r.latency), std::to_string(iv[s.cascade_delta].clusters),
          interval_flag(f.result.labels[s.cascade_delta], iv[s.cascade_delta], f.result.ci)})
      row.push_back(cell);
    table.rows.push_back(row);
  }
  std::string applied;
  for (const auto& [benchmark, t] : f.applied) applied += (applied.empty() ? "" : ", ") + benchmark + " " + t.label;
  table.notes.push_back(std::string("scored on ") + (f.heldout ? "the held-out part (" : "every analysed item (") +
                        std::to_string(f.scopes.front().items) + " items, " +
                        std::to_string(f.scopes.front().clusters) +
                        " clusters) by its own clustered bootstrap; τ per benchmark: " + applied +
                        "; fallback alone on the same replicates");
  table.notes.push_back(kDeltaColumnNote);
  for (const auto& note : interval_notes(interval_warnings(f.result))) table.notes.push_back(note);
  return table;
}

std::string ci_or_dash(const std::vector<Interval>& iv, int32_t index) {
  return index >= 0 ? percent_ci(iv[index]) : "—";
}

std::string latency_mean_cell(const LatencySummary& latency, bool given) {
  return given && std::isfinite(latency.p50) ? latency_cell(latency, true) + " / " + fixed(latency.mean, 2)
         : given                             ? "—"
                                             : kNotGiven;
}

// JEV §7.1 (and Table 36's latency split): at the frozen τ, both judges' accuracy and their agreement on
// the accepted and on the escalated items, with CIs, and each part's latency.
Table frozen_split_table(const CascadeReport& r) {
  const CascadeFrozen& f = *r.frozen;
  const auto& iv = f.result.intervals;
  const std::string level = level_text(r);
  Table table = frozen_scopes_table(
      r, {"part", "n", r.options.first + " acc (%) [" + level + "]", r.options.fallback + " acc (%) [" + level + "]",
          "right or wrong together (%) [" + level + "]", "latency p50 / p95 / mean (s)"});
  for (const CascadeScope& scope : f.scopes) {
    const PolicyStatistics& s = scope.policies[0];
    for (const bool accepted : {true, false}) {
      const int32_t first = accepted ? s.accepted_first_acc : s.escalated_first_acc;
      const int64_t n = first >= 0 ? f.result.labels[first].n : 0;
      std::vector<std::string> row;
      if (r.grouping) row.push_back(accepted ? scope.group.value_or("all") : "");
      const std::vector<LatencySummary>& latencies = accepted ? scope.accepted_latencies : scope.escalated_latencies;
      for (const std::string& cell :
           {std::string(accepted ? "accepted" : "escalated"), std::to_string(n), ci_or_dash(iv, first),
            ci_or_dash(iv, accepted ? s.accepted_fallback_acc : s.escalated_fallback_acc),
            ci_or_dash(iv, accepted ? s.accepted_agree : s.escalated_agree),
            latencies.empty() ? std::string("—") : latency_mean_cell(latencies[0], r.latency)})
        row.push_back(cell);
      table.rows.push_back(row);
    }
  }
  table.notes.push_back(
      "at the frozen τ, on the items it is scored on; right or wrong together: the share of items on "
      "which both judges are right or both wrong (1 − |c1 − c2| averaged); latency: " +
      r.options.first + "'s on accepted items, " + r.options.first + "'s + " + r.options.fallback +
      "'s on escalated ones (JEV §7.1, Table 36)");
  return table;
}

// JEV Table 36: the frozen gate in this run against a second run of the same items.
Table gate_comparison_table(const CascadeReport& r) {
  const CascadeFrozen& f = *r.frozen;
  const GateComparison& g = *f.gate_comparison;
  const int32_t agreement = f.scopes.front().policies[0].gate_agreement;
  Table table;
  table.header = {"items in both runs", "gated alike (%) [" + level_text(r) + "]",
                  "both accept",        "both escalate",
                  "accepted here only", "accepted there only",
                  "items only here"};
  table.rows.push_back({std::to_string(g.common), ci_or_dash(f.result.intervals, agreement),
                        std::to_string(g.both_accept), std::to_string(g.both_escalate),
                        std::to_string(g.accepted_here_only), std::to_string(g.accepted_there_only),
                        std::to_string(g.only_here)});
  table.notes.push_back("the other run: " + g.file + ", gated by the same rule at the same τ; items matched by id");
  return table;
}

// A gate in words (JEV Fig. 9: the deployed two-order gate, the one that reads the base order alone).
std::string gate_words(int gate_orders, int first_orders, int64_t fewer_orders) {
  if (gate_orders == 1 || first_orders == 1) return "gate: order 0 only";
  const std::string every = first_orders == 2 ? "both orders" : "all " + std::to_string(first_orders) + " orders";
  if (gate_orders == 2) return "gate: " + every;
  return fewer_orders == 0 ? "gate: " + every : "gate: orders each item has";
}

// Where the two gates' pools differ (gate 1 leaves out items without order 0), each gate's words
// carry its item count, so that no headline or legend reads as a comparison on the same items.
std::string items_when_pools_differ(const CascadeReport& r, int64_t items) {
  if (!r.other_gate || r.other_gate->items == r.items) return "";
  return " (" + std::to_string(items) + " items)";
}

std::string run_gate_words(const CascadeReport& r) {
  return gate_words(r.options.gate_orders, r.first_orders, r.fewer_orders) + items_when_pools_differ(r, r.items);
}

std::string other_gate_words(const CascadeReport& r) {
  const OtherGateSweep& g = *r.other_gate;
  return gate_words(g.gate_orders, g.first_orders, g.fewer_orders) + items_when_pools_differ(r, g.items);
}

// The other gate's scope of `scope`'s group (nullptr where that gate has no items in it).
const CascadeScope* other_gate_scope(const CascadeReport& r, const CascadeScope& scope) {
  if (!r.other_gate) return nullptr;
  for (const CascadeScope& s : r.other_gate->scopes)
    if (s.group == scope.group) return &s;
  return nullptr;
}

// The threshold the comparison leads with: the frozen τ, else the lower-bound rule's (−1: none on the grid).
int32_t compared_index(const CascadeReport& r, const CascadeScope& scope, std::string& why) {
  const int32_t frozen = frozen_grid_index(r, scope);
  why = "frozen";
  if (frozen >= 0) return frozen;
  const std::vector<int32_t> chosen = chosen_indices(r);
  why = "lower-bound rule";
  return chosen.empty() ? -1 : chosen.back();
}

std::string mean_latency_text(const LatencySummary& latency, bool given) {
  return given ? fixed(latency.mean, 2) + " s" : std::string(kNotGiven);
}

// The section's first line: both gates at the compared τ (accuracy with CI, fee ratio, mean latency).
std::string other_gate_headline(const CascadeReport& r, const CascadeScope& scope, const CascadeScope& other) {
  const std::string gates = other_gate_words(r) + " against " + run_gate_words(r);
  std::string why;
  const int32_t p = compared_index(r, scope, why);
  if (p < 0) return gates + ", at every τ below (no frozen τ or pooled rule τ on the grid to lead with)";
  const auto& mine = r.sweep.result.intervals;
  const auto& theirs = r.other_gate->result.intervals;
  const PolicyStatistics &s = other.policies[p], &t = scope.policies[p];
  std::string line = gates + " at τ = " + r.options.grid.label(p) + " (" + why + "): accuracy (%) " +
                     percent_ci(theirs[s.cascade_acc]) + " against " + percent_ci(mine[t.cascade_acc]);
  if (r.fees)
    line +=
        ", fee ratio " + fixed(theirs[s.fee_ratio].estimate, 3) + " against " + fixed(mine[t.fee_ratio].estimate, 3);
  if (r.latency)
    line += ", mean latency " + mean_latency_text(other.latencies[p], true) + " against " +
            mean_latency_text(scope.latencies[p], true);
  return line;
}

// JEV Fig. 9's second gate per threshold: its accuracy with CI, escalated share, fee ratio with CI and
// mean latency, beside the run's gate at the same τ.
Table other_gate_table(const CascadeReport& r, const CascadeScope& scope, const CascadeScope& other) {
  const OtherGateSweep& g = *r.other_gate;
  const auto& mine = r.sweep.result.intervals;
  const auto& iv = g.result.intervals;
  const std::string level = level_text(r);
  Table table;
  table.header = {"τ",
                  "cascade acc (%) [" + level + "]",
                  "escalated (%)",
                  "fee ratio [" + level + "]",
                  "mean latency (s)",
                  "run's gate: acc (%)",
                  "run's gate: fee ratio",
                  "run's gate: mean latency (s)"};
  for (size_t p = 0; p < other.policies.size() && p < scope.policies.size(); ++p) {
    const PolicyStatistics &s = other.policies[p], &t = scope.policies[p];
    table.rows.push_back({r.options.grid.label(static_cast<int32_t>(p)), percent_ci(iv[s.cascade_acc]),
                          percent(iv[s.escalated].estimate), r.fees ? ratio_ci(iv[s.fee_ratio]) : kNotGiven,
                          r.latency ? fixed(other.latencies[p].mean, 2) : kNotGiven,
                          percent(mine[t.cascade_acc].estimate),
                          r.fees ? fixed(mine[t.fee_ratio].estimate, 3) : kNotGiven,
                          r.latency ? fixed(scope.latencies[p].mean, 2) : kNotGiven});
  }
  if (scope.group) return table;
  table.notes.push_back(other_gate_words(r) + " (--other-gate-orders " + std::to_string(g.gate_orders) + ") on " +
                        std::to_string(g.items) + " items (" + std::to_string(g.clusters) +
                        " clusters), resampled with the run's seed and replicates; the run's: " + run_gate_words(r));
  for (const auto& note : interval_notes(interval_warnings(g.result))) table.notes.push_back(note);
  return table;
}

std::string temperature_line(const CascadeReport& r) {
  const TemperatureResult& t = r.rules->temperature;
  char line[512];
  if (t.per_benchmark) {
    const bool heldout = t.heldout_items > 0;
    const CalibrationSummary& before = heldout ? t.all.heldout_before : t.all.selection_before;
    const CalibrationSummary& after = heldout ? t.all.heldout_after : t.all.selection_after;
    std::snprintf(line, sizeof line,
                  "Temperature scaling of %s (%s probabilities): T per benchmark fitted on %lld selection items "
                  "(pooled T = %.3f); %s NLL %.4f → %.4f (%lld items)\n",
                  r.options.first.c_str(), r.first_orders == 1 ? "order-0" : "order-averaged",
                  static_cast<long long>(t.selection_items), t.temperature, heldout ? "held-out" : "selection",
                  before.nll, after.nll, static_cast<long long>(before.n));
    return "\n" + std::string(line);
  }
  if (t.heldout_items == 0) {
    std::snprintf(line, sizeof line,
                  "Temperature scaling of %s (%s probabilities): T = %.3f fitted on %lld selection items "
                  "(NLL %.4f → %.4f); nothing held out\n",
                  r.options.first.c_str(), r.first_orders == 1 ? "order-0" : "order-averaged", t.temperature,
                  static_cast<long long>(t.selection_items), t.selection_nll_before, t.selection_nll_after);
    return "\n" + std::string(line);
  }
  std::snprintf(line, sizeof line,
                "Temperature scaling of %s (%s probabilities): T = %.3f fitted on %lld selection items; "
                "held-out NLL %.4f → %.4f (%lld items)\n",
                r.options.first.c_str(), r.first_orders == 1 ? "order-0" : "order-averaged", t.temperature,
                static_cast<long long>(t.selection_items), t.heldout_nll_before, t.heldout_nll_after,
                static_cast<long long>(t.heldout_items));
  return "\n" + std::string(line);
}

std::string before_after(double before, double after) { return fixed(before, 4) + " → " + fixed(after, 4); }

// Per benchmark and pooled: T and the scores before → after on the held-out part (or on the
// selection part when nothing is held out).
Table temperature_table(const CascadeReport& r) {
  const TemperatureResult& t = r.rules->temperature;
  const bool heldout = t.heldout_items > 0;
  const std::string part = heldout ? "held-out" : "selection";
  Table table;
  table.header = {"benchmark", "T", "selection items", "held-out items", part + " NLL", part + " Brier", part + " ECE"};
  auto add = [&](const TemperatureGroupResult& g, const std::string& name, double temperature) {
    const CalibrationSummary& before = heldout ? g.heldout_before : g.selection_before;
    const CalibrationSummary& after = heldout ? g.heldout_after : g.selection_after;
    table.rows.push_back({name, std::isfinite(temperature) ? fixed(temperature, 3) : "per benchmark",
                          std::to_string(g.selection_before.n), std::to_string(g.heldout_before.n),
                          before_after(before.nll, after.nll), before_after(before.brier, after.brier),
                          before_after(before.ece, after.ece)});
  };
  for (const TemperatureGroupResult& g : t.groups)
    add(g, g.name + (g.pooled_fallback ? " (pooled T)" : ""), g.temperature);
  add(t.all, "pooled", t.per_benchmark ? NAN : t.temperature);
  table.notes.push_back(std::string("T fitted on the selection items, ") +
                        (t.per_benchmark ? "per benchmark (one without selection items uses the pooled T, " +
                                               fixed(t.temperature, 3) + ")"
                                         : "pooled") +
                        "; before = the probabilities as given, after = scaled; ECE over 10 bins");
  return table;
}

// The first stage's AURC and selective accuracy at fixed coverages, with CIs (pooled or one group's).
Table selective_table(const CascadeReport& r, const CascadeSelective& sel) {
  const auto& iv = r.sweep.result.intervals;
  Table table;
  table.header = {"statistic", "threshold q", "items covered", "value [" + level_text(r) + "]",
                  "coverage on replicates (%)"};
  table.rows.push_back({"AURC", "—", std::to_string(sel.n), ratio_ci(iv[sel.aurc]), "—"});
  for (const SelectiveAccuracyRows& a : sel.at)
    table.rows.push_back({"selective acc at " + percent(a.target, 0) + "% coverage (%)", fixed(a.threshold, 4),
                          std::to_string(a.covered), percent_ci(iv[a.accuracy]), percent_ci(iv[a.coverage])});
  table.notes.push_back(r.options.first + " on the " + std::to_string(sel.n) +
                        " items with a valid output; thresholds chosen on the data and held fixed on the "
                        "replicates; AURC over those thresholds (tie-averaged AURC " +
                        fixed(sel.aurc_tie_averaged, 4) + ", no CI)");
  return table;
}

// Both judges' accuracy per first-stage confidence bin (JEV Fig. 5), with CIs.
Table confidence_bin_table(const CascadeReport& r, const CascadeSelective& sel) {
  const auto& iv = r.sweep.result.intervals;
  Table table;
  const bool edges = !r.options.bin_edges.empty();
  table.header = {r.options.first + " confidence", "items", "mean q", r.options.first + " acc (%)",
                  r.options.fallback + " acc (%)"};
  if (edges)
    for (const std::string& h :
         {r.options.first + " errors", std::string("judges differ"), std::string("right or wrong together (%)")})
      table.header.push_back(h);
  for (const ConfidenceBinAccuracy& b : sel.bins) {
    table.rows.push_back({r.sweep.result.labels[b.first].threshold.value_or(""), std::to_string(b.n),
                          fixed(b.mean_q, 3), percent_ci(iv[b.first]), percent_ci(iv[b.fallback])});
    if (edges)
      for (const std::string& cell :
           {std::to_string(b.first_errors), std::to_string(b.disagree), ci_or_dash(iv, b.agree)})
        table.rows.back().push_back(cell);
  }
  if (edges && !sel.group)
    table.notes.push_back(
        "bins of --bins (q = 1: exactly 1); errors: items " + r.options.first +
        " gets wrong; judges differ: items one judge gets right and the other wrong (JEV §7.1, §7.4)");
  return table;
}

std::string summary_line(const CascadeReport& r) {
  const BootstrapResult& sweep = r.sweep.result;  // the run's settings, as the sweep ran them
  char summary[256];
  std::snprintf(
      summary, sizeof summary, "%llu replicates, %s CI, seed %llu, backend %s (%s), %.2fs",
      static_cast<unsigned long long>(sweep.replicates_run), to_string(sweep.ci).c_str(),
      static_cast<unsigned long long>(sweep.seed), r.sweep.result.backend.c_str(), r.sweep.result.device.c_str(),
      r.sweep.result.resample_s + (r.rules && r.rules->scored() ? r.rules->heldout.resample_s : 0.0) +
          (r.frozen ? r.frozen->result.resample_s : 0.0) + (r.other_gate ? r.other_gate->result.resample_s : 0.0));
  return summary;
}

}  // namespace

Json to_json(const CascadeReport& r, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(r);
  json["pool"] = pool_json(r);
  json["statistics"] = sweep_statistics_json(r.sweep.result);
  json["baselines"] = with_groups(r, r.sweep.scopes, [&](const CascadeScope& s) { return baselines_json(r, s); });
  json["latency"] = sweep_latency_json(r, r.sweep.scopes);
  if (r.rules) {
    json["split"] = split_json(r);
    json["selection_trials"] = trials_json(r);
    json["rules"] = rules_json(r);
    json["temperature"] = temperature_json(r);
  } else {
    json["rules"] = nullptr;
    json["temperature"] = nullptr;
  }
  json["frozen"] = r.frozen ? frozen_json(r) : Json(nullptr);
  json["groups"] = groups_json(r);
  if (r.other_gate) json["other_gate"] = other_gate_json(r);
  if (!r.options.bin_edges.empty()) json["confidence_bins"] = edge_bins_json(r);
  const ProbabilityQuality gate = gate_quality(r);
  Json reliability = reliability_json(gate.summaries.front().reliability);
  reliability["judge"] = r.options.first;
  reliability["order"] = r.first_orders == 1 ? Json(0) : Json(nullptr);
  json["reliability"] = reliability;
  json["risk_coverage"] = risk_coverage_json(gate.summaries.front().risk_coverage);
  std::vector<std::string> notes = r.notes;
  const std::vector<std::string> all_invalid = all_invalid_notes(r.validity);
  const size_t after = r.grouping && r.grouping->domain ? 1 : 0;  // docs/statistics.md §2's note stays first
  notes.insert(notes.begin() + static_cast<std::ptrdiff_t>(std::min(after, notes.size())), all_invalid.begin(),
               all_invalid.end());
  json["notes"] = notes;
  json["timing"] = timing_json(r, head.load_s);
  return json;
}

namespace {

// A table with a leading column naming its group (or "all"), for the long CSV.
Table with_group_column(Table table, const std::string& key, const std::string& group) {
  table.header.insert(table.header.begin(), key);
  for (auto& row : table.rows) row.insert(row.begin(), group);
  return table;
}

// Every table of the report as the long CSV's named tables (issue 31): one header per output.
std::string tables_csv(const CascadeReport& r) {
  std::vector<std::pair<std::string, Table>> out;
  for (const CascadeScope& scope : r.sweep.scopes) {
    Table sweep = sweep_table(r, scope);
    if (r.grouping) sweep = with_group_column(sweep, r.grouping->key, scope.group.value_or("all"));
    out.emplace_back("sweep", sweep);
  }
  for (const CascadeScope& scope : r.sweep.scopes)
    if (const CascadeScope* other = other_gate_scope(r, scope)) {
      Table table = other_gate_table(r, scope, *other);
      if (r.grouping) table = with_group_column(table, r.grouping->key, scope.group.value_or("all"));
      out.emplace_back("other_gate", table);
    }
  if (r.rules) {
    out.emplace_back("selection_trials", trials_table(r));
    if (r.rules->scored()) out.emplace_back("heldout", heldout_table(r));
    out.emplace_back("temperature", temperature_table(r));
  }
  if (r.sweep.selective.aurc >= 0) {
    Table selective = selective_table(r, r.sweep.selective);
    if (r.grouping) selective = with_group_column(selective, r.grouping->key, "all");
    out.emplace_back("risk_coverage", selective);
    for (const CascadeSelective& group : r.sweep.group_selective)
      out.emplace_back("risk_coverage", with_group_column(selective_table(r, group), r.grouping->key, *group.group));
    Table bins = confidence_bin_table(r, r.sweep.selective);
    if (r.grouping) bins = with_group_column(bins, r.grouping->key, "all");
    out.emplace_back("confidence_bins", bins);
    for (const CascadeSelective& group : r.sweep.group_selective)
      if (!r.options.bin_edges.empty())
        out.emplace_back("confidence_bins",
                         with_group_column(confidence_bin_table(r, group), r.grouping->key, *group.group));
  }
  if (r.frozen) {
    out.emplace_back("frozen", frozen_table(r));
    out.emplace_back("frozen_split", frozen_split_table(r));
    if (r.frozen->gate_comparison) out.emplace_back("gate_comparison", gate_comparison_table(r));
  }
  return numeric_long_csv(out);
}

// --other-gate-orders: per scope the answer first (both gates at the compared τ), then the other
// gate's sweep.
std::string other_gate_text(const CascadeReport& r, const std::string& format) {
  std::string text;
  for (const CascadeScope& scope : r.sweep.scopes) {
    const CascadeScope* other = other_gate_scope(r, scope);
    if (!other) continue;
    const std::string where = scope.group ? ", " + r.grouping->key + " " + *scope.group : "";
    text += heading(format, "Threshold sweep under the other gate (--other-gate-orders " +
                                std::to_string(r.other_gate->gate_orders) + ", JEV Fig. 9)" + where) +
            other_gate_headline(r, scope, *other) + (format == "md" ? "\n\n" : "\n") +
            other_gate_table(r, scope, *other).render(format);
  }
  return text;
}

}  // namespace

std::string tables(const CascadeReport& r, const std::string& format) {
  if (format == "csv") return tables_csv(r);
  std::string text = all_invalid_warnings(r.validity, format) +
                     (format == "text" ? "Threshold sweep (docs/statistics.md §3.3):\n"
                      : format == "md" ? "**Threshold sweep (docs/statistics.md §3.3)**\n\n"
                                       : "") +
                     sweep_table(r, r.sweep.pooled()).render(format);
  for (size_t k = 1; k < r.sweep.scopes.size(); ++k) {
    const CascadeScope& scope = r.sweep.scopes[k];
    text +=
        heading(format, "Threshold sweep, " + r.grouping->key + " " + *scope.group + " (" +
                            std::to_string(scope.items) + " items, " + std::to_string(scope.clusters) + " clusters)") +
        sweep_table(r, scope).render(format);
  }
  if (r.other_gate) text += other_gate_text(r, format);
  if (r.rules) {
    text += heading(format, selection_heading(r)) + trials_table(r).render(format);
    if (r.rules->scored())
      text += heading(format, "Held-out part: the rules' policies (JEV Table 5)") + heldout_table(r).render(format);
    if (format != "csv") text += temperature_line(r);
    text += heading(format, "Temperature scaling of the first stage (docs/statistics.md §3.2)") +
            temperature_table(r).render(format);
  }
  if (r.sweep.selective.aurc >= 0) {
    text += heading(format, "First-stage risk–coverage (docs/statistics.md §3.2)") +
            selective_table(r, r.sweep.selective).render(format);
    for (const CascadeSelective& group : r.sweep.group_selective)
      text += heading(format, "First-stage risk–coverage, " + r.grouping->key + " " + *group.group + " (" +
                                  std::to_string(group.n) + " items)") +
              selective_table(r, group).render(format);
    text += heading(format, "Accuracy per first-stage confidence bin (JEV Fig. 5)") +
            confidence_bin_table(r, r.sweep.selective).render(format);
    for (const CascadeSelective& group : r.sweep.group_selective)  // --bins: each group's bins too (JEV §7.4)
      if (!r.options.bin_edges.empty())
        text += heading(format, "Accuracy per first-stage confidence bin, " + r.grouping->key + " " + *group.group) +
                confidence_bin_table(r, group).render(format);
  }
  if (r.frozen) {
    text += heading(format, "Frozen threshold: the pre-specified policy (JEV §9, Table 5)") +
            frozen_table(r).render(format);
    text += heading(format, "Frozen threshold: accepted and escalated items (JEV §7.1)") +
            frozen_split_table(r).render(format);
    if (r.frozen->gate_comparison)
      text += heading(format, "Frozen threshold: the gate against a second run (JEV Table 36)") +
              gate_comparison_table(r).render(format);
  }
  text += probability_tables_text(gate_quality(r), format);
  if (format != "csv") text += "\n" + summary_line(r) + "\n";
  return text;
}

// ---- plots ----
//
// Every CSV row is one plotted point: series, its label, x, then estimate, ci_lo, ci_hi of the
// statistic as the JSON gives it (shares, not percent; the axes show percent as the tables do).

namespace {

constexpr const char* kCascadeColour = "#4c78a8";
constexpr const char* kRandomColour = "#888888";
constexpr const char* kFallbackColour = "#d62728";
constexpr const char* kOracleColour = "#2ca02c";
constexpr const char* kRuleColours[] = {"#f58518", "#9467bd"};

constexpr const char* kCsvHeader = "series,label,x,x_lo,x_hi,estimate,ci_lo,ci_hi\n";
constexpr const char* kOtherGateColour = "#8c564b";  // --other-gate-orders: the second gate's curve

std::string csv_row(const std::string& series, const std::string& label, double x, double x_lo, double x_hi,
                    const Interval& v) {
  return csv_field(series) + "," + csv_field(label) + "," + csv_number(x) + "," + csv_number(x_lo) + "," +
         csv_number(x_hi) + "," + csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
}

std::string ci_text(const Interval& v, int digits) {
  return fixed(100 * v.estimate, digits) + " [" + fixed(100 * v.lo, digits) + ", " + fixed(100 * v.hi, digits) + "]";
}

// A horizontal reference at a statistic: its CI as a light band across the plot, the estimate dashed.
std::string reference_with_band(const PlotFrame& f, const Interval& v, const std::string& colour) {
  std::string out;
  if (std::isfinite(v.lo) && std::isfinite(v.hi))
    out += svg_band(f, {f.x0, f.x1}, {100 * v.lo, 100 * v.lo}, {100 * v.hi, 100 * v.hi}, colour, 0.12);
  return out + svg_hline(f, 100 * v.estimate, colour);
}

// A sweep point to ring: a rule's chosen τ or the frozen τ (JEV Fig. 9), with its colour and name.
struct RingedPolicy {
  int32_t index = 0;
  std::string series, name, colour;
  double radius = 7;
};

std::vector<RingedPolicy> ringed_policies(const CascadeReport& r, const CascadeScope& scope) {
  std::vector<RingedPolicy> out;
  const std::vector<int32_t> chosen = chosen_indices(r);
  for (size_t k = 0; k < chosen.size(); ++k)
    out.push_back({chosen[k], k == 0 ? "point_rule" : "lower_rule",
                   std::string(k == 0 ? "point" : "lower-bound") + " rule τ = " + r.options.grid.label(chosen[k]),
                   kRuleColours[k], 7.0 + 3.0 * static_cast<double>(k)});
  const int32_t frozen = frozen_grid_index(r, scope);
  if (frozen >= 0)
    out.push_back({frozen, "frozen", "frozen τ = " + r.options.grid.label(frozen), "#000000",
                   7.0 + 3.0 * static_cast<double>(out.size())});
  return out;
}

// The ring and its name, on the side with room: right of the point in the plot's left half, else left.
std::string ring_mark(const PlotFrame& f, double px, double py, const RingedPolicy& ring) {
  const bool left_half = px < (f.left + f.width - f.right) / 2;
  const double dy = ring.series == "point_rule" ? -12 : ring.series == "lower_rule" ? 22 : 36;
  return "<circle cx=\"" + svg_number(px) + "\" cy=\"" + svg_number(py) + "\" r=\"" + svg_number(ring.radius) +
         "\" fill=\"none\" stroke=\"" + ring.colour + "\" stroke-width=\"2\"/>\n" +
         svg_text(px + (left_half ? 10 : -10), py + dy, ring.name, left_half ? "start" : "end", kNoteSize);
}

// A τ's label beside its sweep point (with --other-gate-orders, where two curves share the plot): the
// run's gate above the point, the other gate's below.
std::string tau_label(const PlotFrame& f, double x, double accuracy, const std::string& label, bool below) {
  return svg_text(f.px(x) + 5, f.py(100 * accuracy) + (below ? 15 : -7), label, "start", kNoteSize);
}

// One point of the other gate's curve: x on the plot's axis, x with its CI as the CSV gives it, the
// accuracy with its CI and the τ.
struct GatePoint {
  double x = 0, x_csv = 0, x_lo = NAN, x_hi = NAN;
  Interval accuracy;
  std::string label;
};

// --other-gate-orders (JEV Fig. 9): the other gate's curve: its line, each point's CI bar and τ label,
// its legend entry, and its CSV rows in a series naming the gate ("cascade_gate_orders_1").
void draw_other_gate(const CascadeReport& r, const std::vector<GatePoint>& points, Figure& fig, std::string& csv) {
  const PlotFrame& f = fig.frame;
  const std::string words = other_gate_words(r);
  const std::string series = "cascade_gate_orders_" + std::to_string(r.other_gate->gate_orders);
  std::vector<std::pair<double, double>> line;
  std::string marks;
  for (const GatePoint& p : points) {
    const Interval& v = p.accuracy;
    line.push_back({f.px(p.x), f.py(100 * v.estimate)});
    marks += svg_error_bar_y(f, p.x, 100 * v.estimate, 100 * v.lo, 100 * v.hi, kOtherGateColour,
                             words + ", τ = " + p.label + ": " + ci_text(v, 1));
    marks += tau_label(f, p.x, v.estimate, p.label, true);
    csv += csv_row(series, p.label, p.x_csv, p.x_lo, p.x_hi, v);
  }
  std::sort(line.begin(), line.end());
  fig.body += svg_polyline(line, kOtherGateColour, 1.5, "6,3") + marks;
  fig.legend.push_back(
      {"cascade per τ (" + words + "), " + level_text(r) + " bars", kOtherGateColour, LegendMark::kPointWithBar});
}

// The legend's name of the run's own curve: with a second gate, which gate it is.
std::string cascade_legend(const CascadeReport& r) {
  return "cascade per τ" + (r.other_gate ? " (" + run_gate_words(r) + ")" : std::string()) + ", " + level_text(r) +
         " bars";
}

// The other gate's points of a scope: against the mean latency per item, or against fee ratio (the
// escalated share, in percent, without fees).
std::vector<GatePoint> other_gate_points(const CascadeReport& r, const CascadeScope& scope, bool latency) {
  std::vector<GatePoint> points;
  const CascadeScope* other = other_gate_scope(r, scope);
  if (!other) return points;
  const auto& iv = r.other_gate->result.intervals;
  for (size_t p = 0; p < other->policies.size(); ++p) {
    const PolicyStatistics& s = other->policies[p];
    GatePoint point{0, 0, NAN, NAN, iv[s.cascade_acc], r.options.grid.label(static_cast<int32_t>(p))};
    if (latency) {
      point.x = point.x_csv = other->latencies[p].mean;
    } else {
      const Interval& x = iv[r.fees ? s.fee_ratio : s.escalated];
      point.x = (r.fees ? 1.0 : 100.0) * x.estimate;
      point.x_csv = x.estimate, point.x_lo = x.lo, point.x_hi = x.hi;
    }
    points.push_back(point);
  }
  return points;
}

// Accuracy against fee ratio (or escalated share) over the sweep of one scope, with CI bars, the
// random baseline, the fallback alone and the oracle with their CIs, and the rules' τ marked.
// The random-escalation baseline at each sweep point's fee (x, in the axis unit): its CI band and a
// dashed line through its estimates, in fee order (a sweep's fees need not ascend with τ).
std::string random_escalation_band(const PlotFrame& f, const std::vector<double>& x,
                                   const std::vector<const Interval*>& random) {
  std::vector<size_t> order(x.size());
  for (size_t n = 0; n < order.size(); ++n) order[n] = n;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> sx, lo, hi;
  std::vector<std::pair<double, double>> line;
  for (size_t n : order) {
    sx.push_back(x[n]), lo.push_back(100 * random[n]->lo), hi.push_back(100 * random[n]->hi);
    line.push_back({f.px(x[n]), f.py(100 * random[n]->estimate)});
  }
  return svg_band(f, sx, lo, hi, kRandomColour, 0.15) + svg_polyline(line, kRandomColour, 1.5, "5,4");
}

PlotFile accuracy_fee_figure(const CascadeReport& r, const CascadeScope& scope) {
  const auto& iv = r.sweep.result.intervals;
  const ThresholdGrid& grid = r.options.grid;
  const bool fees = r.fees;
  auto x_of = [&](const PolicyStatistics& s) -> const Interval& { return iv[fees ? s.fee_ratio : s.escalated]; };
  const double x_scale = fees ? 1.0 : 100.0;  // the escalated share in percent, as the table prints it
  double y_lo = 1, y_hi = 0, x_hi = 1.0;
  auto widen = [&](const Interval& v) {
    for (double y : {v.estimate, v.lo, v.hi})
      if (std::isfinite(y)) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  };
  for (const PolicyStatistics& s : scope.policies) {
    widen(iv[s.cascade_acc]);
    if (fees) widen(iv[s.random_acc]);
    x_hi = std::max(x_hi, x_of(s).estimate);
  }
  widen(iv[scope.oracle_acc]);
  const std::vector<GatePoint> other = other_gate_points(r, scope, false);
  for (const GatePoint& p : other) widen(p.accuracy), x_hi = std::max(x_hi, p.x_csv);
  Figure fig;
  fig.frame.bottom = 60;
  // The escalated share ends at 100 %, where the fallback's point sits; fees get room beside it.
  set_x_axis(fig, 0, fees ? x_hi * 1.04 : 100);
  set_y_axis(fig, 100 * y_lo, 100 * y_hi);
  fig.x_grid = true;
  fig.title = "cascade " + r.options.first + " → " + r.options.fallback + (scope.group ? ", " + *scope.group : "");
  fig.x_title = fees ? "fee relative to " + r.options.fallback + " alone (ratio)" : "escalated (%), fees not given";
  fig.y_title = "accuracy (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = kCsvHeader;
  const Interval& fallback = iv[scope.policies.back().cascade_acc];  // `all`: every item escalated
  const Interval& oracle = iv[scope.oracle_acc];
  fig.body += reference_with_band(f, oracle, kOracleColour);
  fig.body += reference_with_band(f, fallback, kFallbackColour);
  csv += csv_row("oracle", "oracle", NAN, NAN, NAN, oracle);
  std::vector<double> xs;
  std::vector<const Interval*> random;
  for (const PolicyStatistics& s : scope.policies) {
    xs.push_back(x_scale * x_of(s).estimate);
    if (fees) random.push_back(&iv[s.random_acc]);
  }
  if (fees) fig.body += random_escalation_band(f, xs, random);
  std::vector<std::pair<double, double>> line;
  for (size_t p = 0; p < scope.policies.size(); ++p)
    line.push_back({f.px(xs[p]), f.py(100 * iv[scope.policies[p].cascade_acc].estimate)});
  std::sort(line.begin(), line.end());
  fig.body += svg_polyline(line, kCascadeColour, 1.5);
  for (size_t p = 0; p < scope.policies.size(); ++p) {
    const PolicyStatistics& s = scope.policies[p];
    const Interval& v = iv[s.cascade_acc];
    const Interval& x = x_of(s);
    const std::string label = grid.label(static_cast<int32_t>(p));
    const bool all = p + 1 == scope.policies.size();
    fig.body +=
        svg_error_bar_y(f, xs[p], 100 * v.estimate, 100 * v.lo, 100 * v.hi, all ? kFallbackColour : kCascadeColour,
                        (all ? r.options.fallback + " alone" : "τ = " + label) + ": " + ci_text(v, 1));
    if (r.other_gate && !all) fig.body += tau_label(f, xs[p], v.estimate, label, false);
    csv += csv_row(all ? "fallback_alone" : "cascade", label, x.estimate, x.lo, x.hi, v);
    if (fees) csv += csv_row("random", label, x.estimate, x.lo, x.hi, iv[s.random_acc]);
  }
  // The rules' chosen τ and the frozen τ: a ring around the sweep point, named beside it (the ring is
  // named where it is drawn, so the legend holds no mark unlike it).
  for (const RingedPolicy& ring : ringed_policies(r, scope)) {
    const PolicyStatistics& s = scope.policies[ring.index];
    const Interval& v = iv[s.cascade_acc];
    fig.body += ring_mark(f, f.px(x_scale * x_of(s).estimate), f.py(100 * v.estimate), ring);
    csv += csv_row(ring.series, grid.label(ring.index), x_of(s).estimate, x_of(s).lo, x_of(s).hi, v);
  }
  fig.legend.push_back({cascade_legend(r), kCascadeColour, LegendMark::kPointWithBar});
  if (!other.empty()) draw_other_gate(r, other, fig, csv);
  if (fees) fig.legend.push_back({"random escalation, same fee (band: CI)", kRandomColour, LegendMark::kDashed});
  fig.legend.push_back({r.options.fallback + " alone " + ci_text(fallback, 1), kFallbackColour, LegendMark::kDashed});
  fig.legend.push_back({"oracle " + ci_text(oracle, 1), kOracleColour, LegendMark::kDashed});
  std::string name = "cascade_accuracy_fee";
  if (scope.group) name += "_" + safe_plot_name(*scope.group);
  return {name, fig.render(), csv};
}

// JEV Fig. 9's second panel: accuracy against the mean latency per item over the sweep of one scope,
// with CI bars, each judge alone, and the rules' and the frozen τ ringed (latency is a point summary).
PlotFile accuracy_latency_figure(const CascadeReport& r, const CascadeScope& scope) {
  const auto& iv = r.sweep.result.intervals;
  const ThresholdGrid& grid = r.options.grid;
  const Interval& fallback = iv[scope.policies.back().cascade_acc];
  double y_lo = scope.first_alone, y_hi = scope.first_alone, x_hi = 0;
  auto widen = [&](const Interval& v) {
    for (double y : {v.estimate, v.lo, v.hi})
      if (std::isfinite(y)) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  };
  for (size_t p = 0; p < scope.policies.size(); ++p) {
    widen(iv[scope.policies[p].cascade_acc]);
    x_hi = std::max(x_hi, scope.latencies[p].mean);
  }
  const std::vector<GatePoint> other = other_gate_points(r, scope, true);
  for (const GatePoint& p : other) widen(p.accuracy), x_hi = std::max(x_hi, p.x);
  x_hi = std::max({x_hi, scope.fallback_latency.mean, scope.first_latency.mean});
  Figure fig;
  fig.frame.bottom = 60;
  set_x_axis(fig, 0, std::max(x_hi * 1.04, 1e-6));
  set_y_axis(fig, 100 * y_lo, 100 * y_hi);
  fig.x_grid = true;
  fig.title = "cascade " + r.options.first + " → " + r.options.fallback + (scope.group ? ", " + *scope.group : "") +
              ": accuracy and latency";
  fig.x_title = "mean latency per item (s): " + r.options.first + ", plus " + r.options.fallback + " when escalated";
  fig.y_title = "accuracy (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = kCsvHeader;
  std::vector<std::pair<double, double>> line;
  for (size_t p = 0; p < scope.policies.size(); ++p) {
    const Interval& v = iv[scope.policies[p].cascade_acc];
    const double x = scope.latencies[p].mean;
    line.push_back({f.px(x), f.py(100 * v.estimate)});
    const std::string label = grid.label(static_cast<int32_t>(p));
    fig.body += svg_error_bar_y(f, x, 100 * v.estimate, 100 * v.lo, 100 * v.hi, kCascadeColour,
                                "τ = " + label + ": " + ci_text(v, 1) + ", " + fixed(x, 3) + " s");
    if (r.other_gate) fig.body += tau_label(f, x, v.estimate, label, false);
    csv += csv_row("cascade", label, x, NAN, NAN, v);
  }
  std::sort(line.begin(), line.end());
  fig.body = svg_polyline(line, kCascadeColour, 1.5) + fig.body;
  fig.body +=
      svg_error_bar_y(f, scope.fallback_latency.mean, 100 * fallback.estimate, 100 * fallback.lo, 100 * fallback.hi,
                      kFallbackColour, r.options.fallback + " alone: " + ci_text(fallback, 1));
  csv += csv_row("fallback_alone", "fallback alone", scope.fallback_latency.mean, NAN, NAN, fallback);
  const Interval first{scope.first_alone, NAN, NAN};
  fig.body += svg_error_bar_y(f, scope.first_latency.mean, 100 * scope.first_alone, 100 * scope.first_alone,
                              100 * scope.first_alone, kOracleColour,
                              r.options.first + " alone: " + fixed(100 * scope.first_alone, 1));
  csv += csv_row("first_alone", "first alone", scope.first_latency.mean, NAN, NAN, first);
  for (const RingedPolicy& ring : ringed_policies(r, scope)) {
    const Interval& v = iv[scope.policies[ring.index].cascade_acc];
    fig.body += ring_mark(f, f.px(scope.latencies[ring.index].mean), f.py(100 * v.estimate), ring);
    csv += csv_row(ring.series, grid.label(ring.index), scope.latencies[ring.index].mean, NAN, NAN, v);
  }
  fig.legend.push_back({cascade_legend(r), kCascadeColour, LegendMark::kPointWithBar});
  if (!other.empty()) draw_other_gate(r, other, fig, csv);
  fig.legend.push_back(
      {r.options.fallback + " alone " + ci_text(fallback, 1), kFallbackColour, LegendMark::kPointWithBar});
  fig.legend.push_back({r.options.first + " alone (no CI)", kOracleColour, LegendMark::kPointWithBar});
  std::string name = "cascade_accuracy_latency";
  if (scope.group) name += "_" + safe_plot_name(*scope.group);
  return {name, fig.render(), csv};
}

// Reliability of F's gate (bin accuracy at the bin's mean q, with CIs, against the diagonal) and
// the fallback's accuracy in the same bins (JEV Fig. 5).
PlotFile reliability_figure(const CascadeReport& r) {
  const CascadeSelective& sel = r.sweep.selective;
  const auto& iv = r.sweep.result.intervals;
  const ReliabilityTable table = reliability_table(r.gate_q, r.gate_correct);
  Figure fig;
  fig.frame.height = 440;
  // A bin's q range: its edges under --bins, else the tenth it is.
  const bool edges = !r.options.bin_edges.empty();
  auto range_of = [&](const ConfidenceBinAccuracy& b) {
    return edges ? std::make_pair(b.lo, b.hi)
                 : std::make_pair(static_cast<double>(b.bin) / kConfidenceBins,
                                  static_cast<double>(b.bin + 1) / kConfidenceBins);
  };
  double lowest_q = 1.0;
  for (const ConfidenceBinAccuracy& b : sel.bins) lowest_q = std::min(lowest_q, range_of(b).first);
  if (edges && !sel.bins.empty() && sel.bins.front().lo == 0.0)  // a pooled low bin: start at its items' mean q
    lowest_q = std::max(0.0, std::floor(10 * sel.bins.front().mean_q - 1) / 10);
  int lowest = static_cast<int>(std::floor(lowest_q * kConfidenceBins + 1e-9));
  double y_lo = 100.0 * lowest_q;
  for (const ConfidenceBinAccuracy& b : sel.bins)
    for (int32_t s : {b.first, b.fallback})
      if (s >= 0 && std::isfinite(iv[s].lo)) y_lo = std::min(y_lo, 100 * iv[s].lo);
  fig.frame.x0 = edges ? lowest_q : static_cast<double>(lowest) / kConfidenceBins;
  fig.frame.x1 = 1.0;
  fig.x_ticks = nice_ticks(fig.frame.x0, 1.0, 5).values;
  set_y_axis(fig, std::max(0.0, y_lo), 100);
  fig.frame.y1 = std::max(fig.frame.y1, 100.0);
  fig.title = "reliability of " + r.options.first + " (ECE " + fixed(table.ece, 3) + ")";
  fig.x_title = r.options.first + " confidence q";
  fig.y_title = "accuracy (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = "series,label,bin,n,x,x_lo,x_hi,estimate,ci_lo,ci_hi\n";
  std::vector<double> boundaries;
  if (edges) {
    for (double e : r.options.bin_edges)
      if (e > f.x0 && e < 1.0) boundaries.push_back(e);
  } else {
    for (int b = lowest + 1; b < kConfidenceBins; ++b) boundaries.push_back(static_cast<double>(b) / kConfidenceBins);
  }
  for (double x : boundaries)
    fig.body += svg_line(f.px(x), f.top, f.px(x), f.py(f.y0), "stroke:#cccccc;stroke-width:1");
  fig.body += svg_line(f.px(f.x0), f.py(std::max(f.y0, 100 * f.x0)), f.px(1.0), f.py(100.0),
                       "stroke:#444444;stroke-width:1.2;stroke-dasharray:5,4");
  const double offset = 0.012;  // the fallback's point beside F's in each bin
  for (const ConfidenceBinAccuracy& b : sel.bins) {
    const auto [lo, hi] = range_of(b);
    const std::string name = r.sweep.result.labels[b.first].threshold.value_or(confidence_bin_name(b.bin));
    const Interval& v = iv[b.first];
    fig.body += svg_error_bar_y(f, b.mean_q, 100 * v.estimate, 100 * v.lo, 100 * v.hi, kCascadeColour,
                                name + " " + r.options.first + ": " + ci_text(v, 1) + ", n " + std::to_string(b.n));
    csv += csv_field("first") + "," + csv_field(name) + "," + std::to_string(b.bin) + "," + std::to_string(b.n) + "," +
           csv_number(b.mean_q) + "," + csv_number(lo) + "," + csv_number(hi) + "," + csv_number(v.estimate) + "," +
           csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
    if (b.fallback >= 0) {
      const Interval& w = iv[b.fallback];
      fig.body += svg_error_bar_y(f, std::min(hi, b.mean_q + offset), 100 * w.estimate, 100 * w.lo, 100 * w.hi,
                                  kFallbackColour, name + " " + r.options.fallback + ": " + ci_text(w, 1));
      csv += csv_field("fallback") + "," + csv_field(name) + "," + std::to_string(b.bin) + "," + std::to_string(b.n) +
             "," + csv_number(b.mean_q) + "," + csv_number(lo) + "," + csv_number(hi) + "," + csv_number(w.estimate) +
             "," + csv_number(w.lo) + "," + csv_number(w.hi) + "\n";
    }
    // Counts under their bins; narrow bins (q = 1, [0.99, 1)) stagger so that no two overlap.
    const double text_x = f.px(std::max(f.x0, lo == hi ? hi : (lo + hi) / 2));
    const double text_y = f.py(f.y0) - 6 - (edges && (b.bin % 2) ? 13 : 0);
    fig.body += svg_text(text_x, text_y, "n=" + std::to_string(b.n), lo == hi ? "end" : "middle", kNoteSize);
  }
  fig.legend.push_back({r.options.first + " accuracy per bin (at its mean q), " + level_text(r), kCascadeColour,
                        LegendMark::kPointWithBar});
  fig.legend.push_back(
      {r.options.fallback + " accuracy on the same items", kFallbackColour, LegendMark::kPointWithBar});
  fig.legend.push_back({"perfect calibration", "#444444", LegendMark::kDashed});
  return {"cascade_reliability", fig.render(), csv};
}

// The first stage's risk–coverage curve with its CI band, AURC with CI in the legend, and the
// selective accuracy at the fixed coverages marked (plotted as risk = 1 − accuracy).
PlotFile risk_coverage_figure(const CascadeReport& r) {
  const CascadeSelective& sel = r.sweep.selective;
  const auto& iv = r.sweep.result.intervals;
  std::vector<double> x, est, lo, hi;
  double top = 0;
  std::string csv = "series,label,x,estimate,ci_lo,ci_hi\n";
  for (size_t j = 0; j < sel.curve.size(); ++j) {
    const Interval& v = iv[sel.curve[j]];
    x.push_back(100 * sel.curve_coverage[j]);
    est.push_back(100 * v.estimate), lo.push_back(100 * v.lo), hi.push_back(100 * v.hi);
    top = std::max({top, 100 * v.estimate, std::isfinite(v.hi) ? 100 * v.hi : 0.0});
    // The label is the statistic's threshold as the JSON gives it (t_j to 6 significant digits).
    csv += "selective_risk," + r.sweep.result.labels[sel.curve[j]].threshold.value_or("") + "," +
           csv_number(sel.curve_coverage[j]) + "," + csv_number(v.estimate) + "," + csv_number(v.lo) + "," +
           csv_number(v.hi) + "\n";
  }
  for (const SelectiveAccuracyRows& a : sel.at)
    if (std::isfinite(iv[a.accuracy].hi)) top = std::max(top, 100 * (1 - iv[a.accuracy].lo));
  Figure fig;
  fig.frame.x0 = 0;
  fig.frame.x1 = 100;
  fig.x_ticks = nice_ticks(0, 100, 5).values;
  fig.x_grid = true;
  set_y_axis(fig, 0, std::max(top, 1.0));
  fig.title = "risk–coverage of " + r.options.first + " (" + std::to_string(sel.n) + " items)";
  fig.x_title = "coverage (%): items with q ≥ threshold";
  fig.y_title = "selective risk (%)";
  const PlotFrame& f = fig.frame;
  fig.body += svg_band(f, x, lo, hi, kCascadeColour, 0.2);
  std::vector<std::pair<double, double>> line;
  for (size_t j = 0; j < x.size(); ++j) line.push_back({f.px(x[j]), f.py(est[j])});
  fig.body += svg_polyline(line, kCascadeColour, 2.0);
  for (const SelectiveAccuracyRows& a : sel.at) {
    const Interval& v = iv[a.accuracy];
    const double c = 100 * static_cast<double>(a.covered) / static_cast<double>(std::max<int64_t>(sel.n, 1));
    fig.body += svg_vline(f, 100 * a.target, "#bbbbbb", "3,3");
    fig.body += svg_error_bar_y(f, c, 100 * (1 - v.estimate), 100 * (1 - v.hi), 100 * (1 - v.lo), kRuleColours[0],
                                "selective acc at " + fixed(100 * a.target, 0) + "% coverage: " + ci_text(v, 1));
    fig.body += svg_text(f.px(c) - 6, f.py(100 * (1 - v.lo)) - 8, "acc " + ci_text(v, 1), "end", kNoteSize);
    csv += "selective_acc," + r.sweep.result.labels[a.accuracy].threshold.value_or("") + "," + csv_number(c / 100) +
           "," + csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
  }
  const Interval& aurc = iv[sel.aurc];
  csv += "aurc,,nan," + csv_number(aurc.estimate) + "," + csv_number(aurc.lo) + "," + csv_number(aurc.hi) + "\n";
  fig.legend.push_back({"selective risk, band: " + level_text(r), kCascadeColour, LegendMark::kBand});
  fig.legend.push_back({"AURC " + ratio_ci(aurc), kCascadeColour, LegendMark::kLine});
  fig.legend.push_back({"selective accuracy at 50/80/90% coverage (as risk), " + level_text(r), kRuleColours[0],
                        LegendMark::kPointWithBar});
  return {"cascade_risk_coverage", fig.render(), csv};
}

}  // namespace

std::vector<PlotFile> plot_files(const CascadeReport& r) {
  std::vector<PlotFile> figures;
  for (const CascadeScope& scope : r.sweep.scopes) {
    figures.push_back(accuracy_fee_figure(r, scope));
    if (r.latency) figures.push_back(accuracy_latency_figure(r, scope));  // JEV Fig. 9, beside it
  }
  if (r.sweep.selective.aurc >= 0) {
    figures.push_back(reliability_figure(r));
    figures.push_back(risk_coverage_figure(r));
  }
  return figures;
}

void plots(const CascadeReport& r, const std::string& dir) { write_plots(plot_files(r), dir); }

}  // namespace judgestat
