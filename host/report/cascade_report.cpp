// Writers of the cascade report: docs/statistics.md §4's JSON, tables for people and SVG plots, from the typed
// CascadeReport that run_cascade returns (docs/statistics.md §3.3, §3.4; JEV §7–§9).
#include "report/cascade_report.hpp"
#include "report/probability_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade.hpp"
#include "analyses/probability.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace judgestat {
namespace {

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
  const CascadeOptions& o = r.options;
  const std::string strata = r.grouping ? (r.grouping->domain ? "none" : r.grouping->key) : "";
  Json js = bootstrap_settings_json(o.bootstrap, r.sweep.result, strata);
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

Json sweep_latency_json(const CascadeReport& r) {
  if (!r.latency) return nullptr;
  return with_groups(r, r.sweep.scopes, [&](const CascadeScope& s) -> Json {
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
              {"seed", random ? Json(r.options.bootstrap.seed) : Json(nullptr)},
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

// One policy's rows of `result` (the statistics of `s` that were built).
Json policy_rows(const BootstrapResult& result, const PolicyStatistics& s) {
  BootstrapResult mine;
  for (int32_t index : {s.cascade_acc, s.cascade_delta, s.escalated, s.errors_escalated, s.fee_ratio, s.random_acc}) {
    if (index < 0) continue;
    mine.labels.push_back(result.labels[index]);
    mine.intervals.push_back(result.intervals[index]);
  }
  return statistics_json(mine);
}

Json rules_json(const CascadeReport& r) {
  const CascadeRules& rules = *r.rules;
  const CascadeOptions& o = r.options;
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
    return {{"first_alone_acc", s.first_alone},
            {"statistics", policy_rows(f.result, s.policies[0])},
            {"fallback_alone", statistics_json(fallback)},
            {"latency", r.latency ? latency_json(s.latencies[0]) : Json(nullptr)},
            {"fallback_alone_latency", r.latency ? latency_json(s.fallback_latency) : Json(nullptr)}};
  });
  Json out = {{"tau", tau_json(f.tau)},
              {"applied", applied},
              {"scored_on", f.heldout ? "heldout" : "all"},
              {"items", f.scopes.front().items},
              {"clusters", f.scopes.front().clusters}};
  out.update(scopes);
  return out;
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
  return timing;
}

// ---- tables ----

std::string heading(const std::string& format, const std::string& title) {
  return format == "md" ? "\n**" + title + "**\n\n" : format == "csv" ? "\n" : "\n" + title + "\n";
}

std::string level_text(const CascadeReport& r) { return fixed(100 * r.options.bootstrap.level, 0) + "% CI"; }

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
  const CascadeOptions& o = r.options;
  const auto& iv = r.sweep.result.intervals;
  const std::string level = level_text(r);
  Table table;
  table.header = {"τ",
                  "escalated (%)",
                  "cascade acc (%)",
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
    table.rows.push_back(
        {o.grid.label(static_cast<int32_t>(p)), percent_ci(iv[s.escalated]), percent_ci(iv[s.cascade_acc]),
         pp_ci(delta), s.errors_escalated >= 0 ? percent_ci(iv[s.errors_escalated]) : "—",
         r.fees ? ratio_ci(iv[s.fee_ratio]) : kNotGiven, r.fees ? percent_ci(iv[s.random_acc]) : kNotGiven,
         latency_cell(scope.latencies[p], r.latency), std::to_string(delta.clusters),
         interval_flag(r.sweep.result.labels[s.cascade_delta], delta, r.sweep.result.ci)});
  }
  table.rows.push_back({"first alone", "0.0", percent(scope.first_alone),
                        signed_pp(scope.first_alone - scope.fallback_alone), "0.0",
                        r.fees ? fixed(scope.first_fee_ratio, 3) : kNotGiven, "—",
                        latency_cell(scope.first_latency, r.latency), "—", ""});
  table.rows.push_back({"fallback alone", "100.0", percent(scope.fallback_alone), "0.00", "100.0",
                        r.fees ? std::string("1.000") : kNotGiven, "—", latency_cell(scope.fallback_latency, r.latency),
                        "—", ""});
  table.rows.push_back(
      {"oracle", "—", percent_ci(iv[scope.oracle_acc]), signed_pp(iv[scope.oracle_acc].estimate - scope.fallback_alone),
       "—", "—", "—", "—", std::to_string(iv[scope.oracle_acc].clusters),
       interval_flag(r.sweep.result.labels[scope.oracle_acc], iv[scope.oracle_acc], r.sweep.result.ci)});
  if (scope.group) return table;  // the notes are the pooled table's
  table.notes.push_back("cascade " + o.first + " → " + o.fallback + " on " + std::to_string(r.items) + " items (" +
                        std::to_string(r.clusters) + " clusters); " + gate_note(r));
  table.notes.push_back("cells: estimate [" + level + "]; first alone: " + o.first +
                        (r.first_orders == 1 ? " in order 0" : " with order-averaged probabilities") +
                        "; fallback alone: " + o.fallback +
                        " in order 0; oracle: the better of the two per item; "
                        "random: escalate each item at random for the same expected fee");
  if (r.grouping)
    table.notes.push_back(r.grouping->domain ? "per " + r.grouping->key + " by domain estimation (see the notes)"
                                             : "replicates stratified by " + r.grouping->key);
  for (const auto& note : r.notes) table.notes.push_back("note: " + note);
  table.notes.push_back(
      "clusters and flag: of the Δ column's interval (every column of a row resamples the same clusters)");
  for (const auto& note : interval_notes(r.sweep.result)) table.notes.push_back(note);
  return table;
}

Table trials_table(const CascadeReport& r) {
  const CascadeOptions& o = r.options;
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
    where = fixed(100 * source.fraction, 0) + "% of clusters per benchmark, seed " +
            std::to_string(r.options.bootstrap.seed);
  }
  return "Selection part (" + std::to_string(rules.selection_items) + " items, " + where +
         "): threshold trials (JEV Table 33)";
}

// A rule's τ in a scope: the pooled choice, or the scope's own when the rule's strata are the groups.
std::string rule_tau_text(const CascadeReport& r, size_t k, const CascadeScope& scope) {
  const CascadeOptions& o = r.options;
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
  for (const std::string& h :
       {std::string("policy"), std::string("first alone (%)"), "cascade (%) [" + level + "]",
        std::string("fallback (%)"), "Δ (pp) [" + level + "]", std::string("escalated (%)"),
        std::string("first-stage errors caught (%)"), std::string("fee ratio"), std::string("latency p50 / p95 (s)")})
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
            latency_cell(scope.latencies[k], r.latency)})
        row.push_back(cell);
      held.rows.push_back(row);
    }
    std::vector<std::string> row;
    if (r.grouping) row.push_back("");
    for (const std::string& cell :
         {std::string("fallback alone"), std::string(), percent(scope.fallback_alone), percent(scope.fallback_alone),
          std::string("—"), std::string("100.0"), std::string("—"),
          r.fees ? std::string("1.000") : std::string(kNotGiven), latency_cell(scope.fallback_latency, r.latency)})
      row.push_back(cell);
    held.rows.push_back(row);
  }
  held.notes.push_back("held-out part: " + std::to_string(rules.heldout_items) + " items, " +
                       std::to_string(rules.heldout_clusters) + " clusters; CIs from its own clustered bootstrap");
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

Table frozen_table(const CascadeReport& r) {
  const CascadeFrozen& f = *r.frozen;
  const auto& iv = f.result.intervals;
  const std::string level = level_text(r);
  Table table;
  if (r.grouping) table.header.push_back(r.grouping->key);
  for (const std::string& h :
       {std::string("τ"), std::string("items"), "cascade (%) [" + level + "]", "fallback alone (%) [" + level + "]",
        "Δ (pp) [" + level + "]", "escalated (%) [" + level + "]", "fee ratio [" + level + "]",
        std::string("first alone (%)"), std::string("latency p50 / p95 (s)")})
    table.header.push_back(h);
  for (const CascadeScope& scope : f.scopes) {
    const PolicyStatistics& s = scope.policies[0];
    std::vector<std::string> row;
    if (r.grouping) row.push_back(scope.group.value_or("all"));
    for (const std::string& cell :
         {frozen_tau_text(r, scope), std::to_string(scope.items), percent_ci(iv[s.cascade_acc]),
          percent_ci(iv[scope.policies[1].cascade_acc]), pp_ci(iv[s.cascade_delta]), percent_ci(iv[s.escalated]),
          r.fees ? ratio_ci(iv[s.fee_ratio]) : std::string(kNotGiven), percent(scope.first_alone),
          latency_cell(scope.latencies[0], r.latency)})
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

// The first stage's AURC and selective accuracy at fixed coverages, with CIs.
Table selective_table(const CascadeReport& r) {
  const CascadeSelective& sel = r.sweep.selective;
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
Table confidence_bin_table(const CascadeReport& r) {
  const CascadeSelective& sel = r.sweep.selective;
  const auto& iv = r.sweep.result.intervals;
  Table table;
  table.header = {r.options.first + " confidence", "items", "mean q", r.options.first + " acc (%)",
                  r.options.fallback + " acc (%)"};
  for (const ConfidenceBinAccuracy& b : sel.bins)
    table.rows.push_back({r.sweep.result.labels[b.first].threshold.value_or(""), std::to_string(b.n),
                          fixed(b.mean_q, 3), percent_ci(iv[b.first]), percent_ci(iv[b.fallback])});
  return table;
}

std::string summary_line(const CascadeReport& r) {
  const BootstrapOptions& boot = r.options.bootstrap;
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, backend %s (%s), %.2fs",
                static_cast<unsigned long long>(boot.replicates), to_string(boot.ci).c_str(),
                static_cast<unsigned long long>(boot.seed), r.sweep.result.backend.c_str(),
                r.sweep.result.device.c_str(),
                r.sweep.result.resample_s + (r.rules && r.rules->scored() ? r.rules->heldout.resample_s : 0.0) +
                    (r.frozen ? r.frozen->result.resample_s : 0.0));
  return summary;
}

}  // namespace

Json to_json(const CascadeReport& r, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(r);
  json["pool"] = pool_json(r);
  json["statistics"] = sweep_statistics_json(r.sweep.result);
  json["baselines"] = with_groups(r, r.sweep.scopes, [&](const CascadeScope& s) { return baselines_json(r, s); });
  json["latency"] = sweep_latency_json(r);
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
  const ProbabilityQuality gate = gate_quality(r);
  Json reliability = reliability_json(gate.summaries.front().reliability);
  reliability["judge"] = r.options.first;
  reliability["order"] = r.first_orders == 1 ? Json(0) : Json(nullptr);
  json["reliability"] = reliability;
  json["risk_coverage"] = risk_coverage_json(gate.summaries.front().risk_coverage);
  json["notes"] = r.notes;
  json["timing"] = timing_json(r, head.load_s);
  return json;
}

std::string tables(const CascadeReport& r, const std::string& format) {
  std::string text = (format == "text" ? "Threshold sweep (docs/statistics.md §3.3):\n"
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
  if (r.rules) {
    text += heading(format, selection_heading(r)) + trials_table(r).render(format);
    if (r.rules->scored())
      text += heading(format, "Held-out part: the rules' policies (JEV Table 5)") + heldout_table(r).render(format);
    if (format != "csv") text += temperature_line(r);
    text += heading(format, "Temperature scaling of the first stage (docs/statistics.md §3.2)") +
            temperature_table(r).render(format);
  }
  if (r.sweep.selective.aurc >= 0) {
    text += heading(format, "First-stage risk–coverage (docs/statistics.md §3.2)") + selective_table(r).render(format);
    text += heading(format, "Accuracy per first-stage confidence bin (JEV Fig. 5)") +
            confidence_bin_table(r).render(format);
  }
  if (r.frozen)
    text += heading(format, "Frozen threshold: the pre-specified policy (JEV §9, Table 5)") +
            frozen_table(r).render(format);
  text += probability_tables_text(gate_quality(r), format);
  if (format != "csv") text += "\n" + summary_line(r) + "\n";
  return text;
}

// ---- plots ----

// Cascade accuracy against fee ratio per threshold, with the random baseline and the fallback.
std::string cascade_accuracy_fee_svg(const CascadeReport& r) {
  const CascadeSweep& sweep = r.sweep;
  const CascadeScope& pooled = sweep.pooled();
  const ThresholdGrid& grid = r.options.grid;
  const std::string& fallback = r.options.fallback;
  const bool fees = r.fees;
  std::vector<double> x, acc, random;
  for (const PolicyStatistics& s : pooled.policies) {
    x.push_back(fees ? sweep.result.intervals[s.fee_ratio].estimate : sweep.result.intervals[s.escalated].estimate);
    acc.push_back(sweep.result.intervals[s.cascade_acc].estimate);
    if (fees) random.push_back(sweep.result.intervals[s.random_acc].estimate);
  }
  const double fallback_acc = acc.back();  // `all`: every item escalated
  double y_lo = *std::min_element(acc.begin(), acc.end()), y_hi = *std::max_element(acc.begin(), acc.end());
  for (double v : random) y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v);
  y_lo = std::max(0.0, std::floor((y_lo - 0.02) * 20) / 20);
  y_hi = std::min(1.0, std::ceil((y_hi + 0.02) * 20) / 20);
  PlotFrame f;
  f.width = 680;
  f.x0 = 0;
  f.x1 = std::max(1.05, *std::max_element(x.begin(), x.end()) * 1.05);
  f.y0 = y_lo;
  f.y1 = y_hi;
  std::string out = svg_open(f, "cascade " + r.options.first + " → " + fallback);
  out += svg_axes(
      f, even_ticks(0, f.x1 > 1.1 ? f.x1 : 1.0, 5), even_ticks(f.y0, f.y1, 5),
      fees ? "fee relative to the fallback alone" : "escalated share (fees not given)", "accuracy",
      [](double v) { return fixed(v, 2); }, [](double v) { return fixed(100 * v, 1) + " %"; });
  if (fees) {
    std::vector<std::pair<double, double>> line;
    for (size_t p = 0; p < random.size(); ++p) line.push_back({f.px(x[p]), f.py(random[p])});
    std::sort(line.begin(), line.end());
    out += svg_polyline(line, "#999999", 1.5, "6,4");
  }
  std::vector<std::pair<double, double>> curve;
  for (size_t p = 0; p < x.size(); ++p) curve.push_back({f.px(x[p]), f.py(acc[p])});
  std::sort(curve.begin(), curve.end());
  out += svg_polyline(curve, "#4c78a8", 2.0);
  for (size_t p = 0; p + 1 < x.size(); ++p) {
    out += svg_circle(f.px(x[p]), f.py(acc[p]), 3.5, "#4c78a8", "τ = " + grid.label(static_cast<int32_t>(p)));
    out += svg_text(f.px(x[p]) + 6, f.py(acc[p]) - 6, grid.label(static_cast<int32_t>(p)), "start", 10);
  }
  // The fallback alone: fee ratio 1, its accuracy; dashed line at its accuracy.
  out += svg_line(f.left, f.py(fallback_acc), f.width - f.right, f.py(fallback_acc),
                  "stroke:#d62728;stroke-width:1;stroke-dasharray:3,3");
  out += svg_circle(f.px(1.0), f.py(fallback_acc), 5, "#d62728", fallback + " alone");
  const double ly = f.py(f.y0) - 50;
  out += svg_legend_entry(f.width - f.right - 200, ly, "#4c78a8", "cascade, per threshold");
  if (fees) out += svg_legend_entry(f.width - f.right - 200, ly + 16, "#999999", "random escalation, same fee", "6,4");
  out += svg_legend_entry(f.width - f.right - 200, ly + 32, "#d62728", fallback + " alone", "3,3");
  return out + "</svg>\n";
}

// Reliability diagram of F's gate confidence: accuracy per bin against the diagonal.
std::string cascade_reliability_svg(const CascadeReport& r) {
  const std::string& judge = r.options.first;
  const ReliabilityTable table = reliability_table(r.gate_q, r.gate_correct);
  PlotFrame f;
  f.width = 520;
  f.height = 460;
  int lowest = kConfidenceBins - 1;
  for (int b = 0; b < kConfidenceBins; ++b)
    if (table.bins[b].n > 0) lowest = std::min(lowest, b);
  f.x0 = static_cast<double>(lowest) / kConfidenceBins;
  f.x1 = 1.0;
  f.y0 = 0;
  f.y1 = 1;
  std::string out = svg_open(f, "reliability of " + judge + " (ECE " + fixed(table.ece, 3) + ")");
  out += svg_axes(
      f, even_ticks(f.x0, 1.0, kConfidenceBins - lowest), even_ticks(0, 1, 5), "confidence q", "accuracy",
      [](double v) { return fixed(v, 1); }, [](double v) { return fixed(v, 1); });
  for (int b = lowest; b < kConfidenceBins; ++b) {
    const ReliabilityBin& bin = table.bins[b];
    if (bin.n == 0) continue;
    const double lo = static_cast<double>(b) / kConfidenceBins, hi = static_cast<double>(b + 1) / kConfidenceBins;
    out += "<rect x=\"" + svg_number(f.px(lo) + 1) + "\" y=\"" + svg_number(f.py(bin.accuracy)) + "\" width=\"" +
           svg_number(f.px(hi) - f.px(lo) - 2) + "\" height=\"" + svg_number(f.py(0) - f.py(bin.accuracy)) +
           "\" fill=\"#4c78a8\" fill-opacity=\"0.75\"><title>" + confidence_bin_name(b) + ": accuracy " +
           fixed(bin.accuracy, 3) + ", mean q " + fixed(bin.mean_q, 3) + ", n " + std::to_string(bin.n) +
           "</title></rect>\n";
    out += svg_text((f.px(lo) + f.px(hi)) / 2, f.py(bin.accuracy) - 4, "n=" + std::to_string(bin.n), "middle", 10);
    out += svg_circle(f.px(bin.mean_q), f.py(bin.accuracy), 3, "#f58518");
  }
  out += svg_line(f.px(f.x0), f.py(f.x0), f.px(1.0), f.py(1.0), "stroke:#d62728;stroke-width:1.5;stroke-dasharray:5,4");
  out += svg_legend_entry(f.left + 10, f.top + 10, "#d62728", "perfect calibration", "5,4");
  out += svg_circle(f.left + 20, f.top + 26, 3, "#f58518") +
         svg_text(f.left + 36, f.top + 30, "the bin's mean q", "start", 11);
  return out + "</svg>\n";
}

std::vector<PlotFile> plot_files(const CascadeReport& r) {
  return {{"cascade_accuracy_fee", cascade_accuracy_fee_svg(r), ""},
          {"cascade_reliability", cascade_reliability_svg(r), ""}};
}

void plots(const CascadeReport& r, const std::string& dir) { write_plots(plot_files(r), dir); }

}  // namespace judgestat
