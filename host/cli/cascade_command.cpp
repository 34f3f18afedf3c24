// `judgestat cascade FILE --first F --fallback S`: the confidence cascade (SPEC §3.3, §3.4;
// JEV §7–§9): the threshold sweep with clustered CIs, the dollar-matched random baseline and the
// oracle; the point and lower-bound rules chosen on a seeded selection part and scored on the
// held-out part; temperature scaling of the first stage; SVG plots.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "analyses/cascade.hpp"
#include "analyses/cascade_pool.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "judgestat/budget.hpp"
#include "analyses/probability.hpp"
#include "report/report.hpp"
#include "records/selection.hpp"
#include "report/svg.hpp"

namespace judgestat {
namespace {

constexpr const char* kNotGiven = "not given";

// Where one judge's fees (or latencies) come from: the per-call option, the file, or nowhere;
// `missing` counts the calls the cascade reads that have no value in the file.
struct ValueSource {
  std::string from = kNotGiven;  // "--fee", "file", "not given"
  int64_t missing = 0;
};

ValueSource value_source(const ItemMatrix& m, const CascadePool& pool, const std::vector<double>& column,
                         const std::map<std::string, double>& overrides, const std::string& judge, int orders,
                         const char* option) {
  ValueSource source;
  if (overrides.count(judge)) {
    source.from = std::string("--") + option;
    return source;
  }
  const int32_t j = m.judge_index(judge);
  int64_t given = 0;
  for (int32_t i = 0; i < pool.size(); ++i)
    for (int o = 0; o < orders; ++o) {
      const size_t cell = m.cell(j, pool.item[i], o, pool.variant);
      if (!m.present(cell)) continue;
      const bool has = cell < column.size() && !std::isnan(column[cell]);
      given += has;
      source.missing += !has;
    }
  if (given > 0) source.from = "file";
  return source;
}

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
std::string ratio_ci(const Interval& v) { return fixed(v.estimate, 3) + " [" + fixed(v.lo, 3) + ", " + fixed(v.hi, 3) + "]"; }

std::string latency_cell(const LatencySummary& latency, bool given) {
  return given ? fixed(latency.p50, 2) + " / " + fixed(latency.p95, 2) : kNotGiven;
}

Json latency_json(const LatencySummary& latency) {
  return {{"p50", latency.p50}, {"p95", latency.p95}, {"mean", latency.mean}};
}

Json threshold_json(const ThresholdGrid& grid, int32_t index) {
  return index < grid.size() ? Json(grid.values[index]) : Json("all");
}

double mean_of(const std::vector<double>& values, const std::vector<uint8_t>& in_set) {
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (in_set.empty() || in_set[i]) sum += values[i], ++n;
  return n ? sum / static_cast<double>(n) : NAN;
}

double sum_of(const std::vector<double>& values, const std::vector<uint8_t>& in_set) {
  double sum = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (in_set.empty() || in_set[i]) sum += values[i];
  return sum;
}

// ---- plots ----

// Cascade accuracy against fee ratio per threshold, with the random baseline and the fallback.
std::string accuracy_fee_plot(const CascadePool& pool, const ThresholdGrid& grid, const CascadePlan& plan,
                              const BootstrapResult& result, bool fees) {
  std::vector<double> x, acc, random;
  for (size_t p = 0; p < plan.policies.size(); ++p) {
    const PolicyStatistics& s = plan.policies[p];
    x.push_back(fees ? result.intervals[s.fee_ratio].estimate : result.intervals[s.escalated].estimate);
    acc.push_back(result.intervals[s.cascade_acc].estimate);
    if (fees) random.push_back(result.intervals[s.random_acc].estimate);
  }
  const double fallback_acc = acc.back();  // `all`: every item escalated
  double y_lo = *std::min_element(acc.begin(), acc.end()), y_hi = *std::max_element(acc.begin(), acc.end());
  for (double r : random) y_lo = std::min(y_lo, r), y_hi = std::max(y_hi, r);
  y_lo = std::max(0.0, std::floor((y_lo - 0.02) * 20) / 20);
  y_hi = std::min(1.0, std::ceil((y_hi + 0.02) * 20) / 20);
  PlotFrame f;
  f.width = 680;
  f.x0 = 0;
  f.x1 = std::max(1.05, *std::max_element(x.begin(), x.end()) * 1.05);
  f.y0 = y_lo;
  f.y1 = y_hi;
  std::string out = svg_open(f, "cascade " + pool.first + " → " + pool.fallback);
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
  out += svg_circle(f.px(1.0), f.py(fallback_acc), 5, "#d62728", pool.fallback + " alone");
  const double ly = f.py(f.y0) - 50;
  out += svg_legend_entry(f.width - f.right - 200, ly, "#4c78a8", "cascade, per threshold");
  if (fees) out += svg_legend_entry(f.width - f.right - 200, ly + 16, "#999999", "random escalation, same fee", "6,4");
  out += svg_legend_entry(f.width - f.right - 200, ly + 32, "#d62728", pool.fallback + " alone", "3,3");
  return out + "</svg>\n";
}

// Reliability diagram of F's gate confidence: accuracy per bin against the diagonal.
std::string reliability_plot(const std::string& judge, const ReliabilityTable& table) {
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
  out += svg_circle(f.left + 20, f.top + 26, 3, "#f58518") + svg_text(f.left + 36, f.top + 30, "the bin's mean q", "start", 11);
  return out + "</svg>\n";
}

}  // namespace

int command_cascade(int argc, char** argv) {
  cxxopts::Options options("judgestat cascade",
                           "Confidence cascade (SPEC §3.3, §3.4): threshold sweep with clustered CIs, random "
                           "baseline and oracle; threshold rules chosen on a selection part and scored on the rest");
  add_common_options(options);
  options.add_options()
      ("first", "first-stage judge (needs probabilities)", cxxopts::value<std::string>())
      ("fallback", "fallback judge (order 0 on every item the first stage covers)", cxxopts::value<std::string>())
      ("grid", "ascending thresholds in [0, 1]; `all` (escalate everything) is implied",
       cxxopts::value<std::string>()->default_value("0.5,0.6,0.7,0.8,0.85,0.9,0.95,0.99,1"))
      ("gate-orders", "first-stage orders: 1 (order 0) or 2 (all orders, probabilities averaged)",
       cxxopts::value<int>()->default_value("2"))
      ("fee", "per-call fee JUDGE=USD (repeatable); replaces the file's fee_usd for that judge",
       cxxopts::value<std::vector<std::string>>())
      ("latency", "per-call latency JUDGE=SECONDS (repeatable); replaces the file's latency_s",
       cxxopts::value<std::vector<std::string>>())
      ("select", "share of clusters (per benchmark, seeded) that choose the threshold; 0 = sweep only",
       cxxopts::value<double>()->default_value("0.4"))
      ("tol", "tolerated accuracy loss of the rules", cxxopts::value<double>()->default_value("0.02"))
      ("z", "z of the lower-bound rule", cxxopts::value<double>()->default_value("1.645"))
      ("per-stratum", "each stratum (--strata) chooses its own threshold")
      ("strata", "strata for --per-stratum: benchmark or condition", cxxopts::value<std::string>()->default_value("benchmark"))
      ("plots", "write SVG plots into DIR", cxxopts::value<std::string>()->default_value(""));
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!parse_common(options, argc, argv, parsed, common)) return 0;
  std::string first, fallback, strata, plots_dir;
  ThresholdGrid grid;
  RuleSettings settings;
  int gate_orders = 2;
  double select = 0.4;
  bool per_stratum = false;
  std::vector<std::string> fee_entries, latency_entries;
  try {
    if (!parsed.count("first")) throw UsageError("missing --first: the first-stage judge (see --help)");
    if (!parsed.count("fallback")) throw UsageError("missing --fallback: the fallback judge (see --help)");
    first = parsed["first"].as<std::string>();
    fallback = parsed["fallback"].as<std::string>();
    grid = parse_grid(parsed["grid"].as<std::string>());
    gate_orders = parsed["gate-orders"].as<int>();
    select = parsed["select"].as<double>();
    settings.tol = parsed["tol"].as<double>();
    settings.z = parsed["z"].as<double>();
    per_stratum = parsed.count("per-stratum") > 0;
    strata = parsed["strata"].as<std::string>();
    plots_dir = parsed["plots"].as<std::string>();
    if (parsed.count("fee")) fee_entries = parsed["fee"].as<std::vector<std::string>>();
    if (parsed.count("latency")) latency_entries = parsed["latency"].as<std::vector<std::string>>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (grid.size() == 0) throw UsageError("--grid: give at least one threshold");
  if (first == fallback) throw UsageError("--first and --fallback name the same judge '" + first + "'");
  if (!(std::isfinite(settings.tol) && settings.tol >= 0)) throw UsageError("--tol: expected a number >= 0");
  if (!(std::isfinite(settings.z) && settings.z >= 0)) throw UsageError("--z: expected a number >= 0");
  if (!(select >= 0.0 && select < 1.0))
    throw UsageError("--select: expected a fraction in [0, 1) of the clusters (0 = sweep only, no rules)");
  if (strata != "benchmark" && strata != "condition")
    throw UsageError("--strata: expected benchmark or condition, got '" + strata + "'");
  const std::map<std::string, double> fee_per_call = parse_per_call(fee_entries, "fee", first, fallback);
  const std::map<std::string, double> latency_per_call = parse_per_call(latency_entries, "latency", first, fallback);

  // ---- data ----
  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(common.file, common.load);
  matrix.judge_index(first);
  matrix.judge_index(fallback);
  const CascadePool pool =
      build_cascade_pool(matrix, first, fallback, gate_orders, strata, fee_per_call, latency_per_call);
  const int first_orders = pool.first_orders;
  const ValueSource fee_first_source = value_source(matrix, pool, matrix.fee, fee_per_call, first, first_orders, "fee");
  const ValueSource fee_fallback_source = value_source(matrix, pool, matrix.fee, fee_per_call, fallback, 1, "fee");
  const ValueSource latency_first_source =
      value_source(matrix, pool, matrix.latency, latency_per_call, first, first_orders, "latency");
  const ValueSource latency_fallback_source =
      value_source(matrix, pool, matrix.latency, latency_per_call, fallback, 1, "latency");
  for (int32_t i = 0; i < pool.size(); ++i)
    if (!(pool.fee_first[i] >= 0 && pool.fee_fallback[i] >= 0 && std::isfinite(pool.fee_first[i] + pool.fee_fallback[i])))
      throw UsageError("fees must be finite and non-negative; item '" + matrix.items[pool.item[i]] + "' has another");
  const bool fees = fee_first_source.from != kNotGiven && fee_fallback_source.from != kNotGiven &&
                    sum_of(pool.fee_fallback, {}) > 0;
  const bool latency = latency_first_source.from != kNotGiven && latency_fallback_source.from != kNotGiven;
  std::vector<std::string> notes;
  if (!fees) {
    if (fee_first_source.from == kNotGiven || fee_fallback_source.from == kNotGiven)
      notes.push_back("fees not given for " +
                      std::string(fee_first_source.from == kNotGiven ? first : "") +
                      (fee_first_source.from == kNotGiven && fee_fallback_source.from == kNotGiven ? " and " : "") +
                      (fee_fallback_source.from == kNotGiven ? fallback : "") +
                      ": fee_ratio and random_acc are left out; give --fee JUDGE=USD per call (0 for a local model)");
    else
      notes.push_back("the fallback's fees sum to 0: fee_ratio and random_acc are left out");
  }
  if (!latency)
    notes.push_back("latencies not given: give --latency JUDGE=SECONDS per call for latency quantiles");
  for (const auto& [source, judge, what] :
       {std::make_tuple(fee_first_source, first, "fee"), std::make_tuple(fee_fallback_source, fallback, "fee"),
        std::make_tuple(latency_first_source, first, "latency"), std::make_tuple(latency_fallback_source, fallback, "latency")})
    if (source.from == "file" && source.missing > 0)
      notes.push_back(std::to_string(source.missing) + " calls of " + judge + " have no " + what + " in the file and count 0");

  const PoolClusters clusters = number_pool_clusters(matrix, pool);
  const std::vector<CascadePolicy> policies = sweep_policies(pool, grid);
  const CascadePlan sweep = build_cascade_plan(pool, clusters, policies, {fees, true});

  // Selection / held-out split, rules on the selection part, their policies on the held-out part.
  const bool rules_wanted = select > 0;
  std::vector<uint8_t> selection, heldout;
  std::vector<RuleChoice> choices;
  std::vector<CascadePolicy> rule_policies;
  PoolClusters heldout_clusters;
  CascadePlan heldout_plan;
  TemperatureResult temperature;
  int64_t selection_items = 0, heldout_items = 0;
  if (rules_wanted) {
    selection = split_selection(clusters, pool, select, common.seed);
    heldout.resize(pool.size());
    for (int32_t i = 0; i < pool.size(); ++i) {
      heldout[i] = !selection[i];
      selection_items += selection[i];
      heldout_items += heldout[i];
    }
    if (selection_items == 0)
      throw UsageError("--select " + fixed(select, 3) + " puts no cluster into the selection part (" +
                       std::to_string(clusters.size()) + " clusters); raise it, or give --select 0 for the sweep only");
    if (heldout_items == 0)
      throw UsageError("--select " + fixed(select, 3) + " leaves no held-out clusters; lower it");
    for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
      RuleSettings rule_settings = settings;
      rule_settings.rule = rule;
      choices.push_back(choose_rule(pool, grid, selection, rule_settings, per_stratum));
      rule_policies.push_back(rule_policy(pool, grid, choices.back()));
    }
    heldout_clusters = number_pool_clusters(matrix, pool, heldout);
    heldout_plan = build_cascade_plan(pool, heldout_clusters, rule_policies, {fees, false});
    temperature = temperature_scaling(matrix, pool, selection);
  }
  const double load_s = seconds_since(load_start);

  // ---- resampling ----
  auto backend = make_backend(common.backend, common.threads, common.max_chunk);
  BootstrapOptions boot = bootstrap_options(common);
  Progress progress("replicates", common.quiet);
  const uint64_t total = common.replicates * (rules_wanted ? 2 : 1);
  boot.progress = [&](uint64_t done, uint64_t) { progress(done, total); };
  const BootstrapResult result = run_bootstrap(sweep.plan, *backend, boot);
  save_replicates(common, result);  // the sweep's statistics (the JSON's `statistics`)
  BootstrapResult heldout_result;
  if (rules_wanted) {
    boot.keep_replicates = false;
    boot.progress = [&](uint64_t done, uint64_t) { progress(common.replicates + done, total); };
    heldout_result = run_bootstrap(heldout_plan.plan, *backend, boot);
  }
  progress.finish();

  // ---- point summaries ----
  std::vector<LatencySummary> latencies;
  for (const auto& policy : policies) latencies.push_back(cascade_latency(pool, policy.accepted));
  const std::vector<uint8_t> none_accepted(pool.size(), 1);  // "accepted everywhere": F's latency alone
  const LatencySummary first_latency = cascade_latency(pool, none_accepted);
  const LatencySummary fallback_only = fallback_latency(pool);
  const double first_alone = mean_of(pool.c1, {}), fallback_alone = mean_of(pool.c2, {});
  const double first_fee_ratio = fees ? sum_of(pool.fee_first, {}) / sum_of(pool.fee_fallback, {}) : NAN;
  std::vector<double> gate_q, gate_correct;
  for (int32_t i = 0; i < pool.size(); ++i)
    if (pool.q[i] > 0) gate_q.push_back(pool.q[i]), gate_correct.push_back(pool.c1[i]);
  ProbabilityQuality gate_quality;
  gate_quality.summaries.push_back({first, std::nullopt, first_orders == 1 ? std::optional<int>(0) : std::nullopt,
                                    reliability_table(gate_q, gate_correct), risk_coverage(gate_q, gate_correct)});
  int64_t gate_ok = 0;
  for (uint8_t ok : pool.gate_ok) gate_ok += ok;

  // ---- JSON ----
  Json json = json_envelope("cascade", argc, argv, matrix);
  Json& js = json["settings"] = bootstrap_settings(common, *backend, "");
  js["first"] = first;
  js["fallback"] = fallback;
  Json grid_values = Json::array();
  for (double value : grid.values) grid_values.push_back(value);
  js["grid"] = grid_values;
  js["gate_orders"] = gate_orders;
  js["select"] = select;
  js["tol"] = settings.tol;
  js["z"] = settings.z;
  js["per_stratum"] = per_stratum;
  js["rule_strata"] = per_stratum ? Json(strata) : Json(nullptr);
  js["fee"] = fee_per_call;
  js["latency"] = latency_per_call;
  json["pool"] = {{"items", pool.size()},
                  {"gate_ok", gate_ok},
                  {"clusters", clusters.size()},
                  {"first_orders", first_orders},
                  {"fee_source", {{first, fee_first_source.from}, {fallback, fee_fallback_source.from}}},
                  {"latency_source", {{first, latency_first_source.from}, {fallback, latency_fallback_source.from}}},
                  {"fee_unit_usd", fees ? Json(sweep.fees.unit) : Json(nullptr)},
                  {"fee_exact", fees ? Json(sweep.fees.exact) : Json(nullptr)}};
  json["statistics"] = statistics_json(result);
  json["baselines"] = {
      {"first_alone", {{"judge", first}, {"acc", first_alone}, {"fee_ratio", first_fee_ratio},
                       {"latency", latency ? latency_json(first_latency) : Json(nullptr)}}},
      {"fallback_alone", {{"judge", fallback}, {"acc", fallback_alone}, {"fee_ratio", fees ? Json(1.0) : Json(nullptr)},
                          {"latency", latency ? latency_json(fallback_only) : Json(nullptr)}}}};
  if (latency) {
    Json rows = Json::array();
    for (size_t p = 0; p < policies.size(); ++p) {
      Json row = latency_json(latencies[p]);
      row["threshold"] = threshold_json(grid, static_cast<int32_t>(p));
      rows.push_back(row);
    }
    json["latency"] = {{"thresholds", rows}, {"first_alone", latency_json(first_latency)},
                       {"fallback_alone", latency_json(fallback_only)}};
  } else {
    json["latency"] = nullptr;
  }

  const std::vector<std::string> stratum_names = per_stratum ? pool.strata_names : std::vector<std::string>{"all"};
  if (rules_wanted) {
    int64_t selection_clusters = 0;
    {
      std::vector<uint8_t> seen(clusters.size(), 0);
      for (int32_t i = 0; i < pool.size(); ++i)
        if (selection[i] && !seen[clusters.item_cluster[i]]) seen[clusters.item_cluster[i]] = 1, ++selection_clusters;
    }
    json["split"] = {{"select", select},
                     {"seed", common.seed},
                     {"stream", kSplitStream},
                     {"stratified_by", "benchmark"},
                     {"selection", {{"items", selection_items}, {"clusters", selection_clusters}}},
                     {"heldout", {{"items", heldout_items}, {"clusters", heldout_clusters.size()}}}};
    Json trials_json = Json::array();
    for (size_t h = 0; h < choices.front().trials.size(); ++h) {
      Json rows = Json::array();
      for (int32_t g = 0; g < grid.size(); ++g) {
        const SelectionTrial& t = choices.front().trials[h][g];
        rows.push_back({{"threshold", grid.values[g]},
                        {"n", t.n},
                        {"accepted", t.accepted},
                        {"accepted_share", t.n ? static_cast<double>(t.accepted) / static_cast<double>(t.n) : NAN},
                        {"mean_delta", t.mean_delta},
                        {"lower_bound", t.lower_bound},
                        {"point_passes", t.point_passes},
                        {"lower_passes", t.lower_passes}});
      }
      trials_json.push_back({{"stratum", per_stratum ? Json(stratum_names[h]) : Json(nullptr)},
                             {"labelled", choices.front().labelled[h]},
                             {"rows", rows}});
    }
    json["selection_trials"] = trials_json;
    Json rules = Json::array();
    for (size_t r = 0; r < choices.size(); ++r) {
      const RuleChoice& choice = choices[r];
      Json tau;
      if (per_stratum) {
        tau = Json::object();
        for (size_t h = 0; h < choice.chosen.size(); ++h) tau[stratum_names[h]] = threshold_json(grid, choice.chosen[h]);
      } else {
        tau = threshold_json(grid, choice.chosen.front());
      }
      // This rule's rows of the held-out plan.
      BootstrapResult mine;
      const PolicyStatistics& s = heldout_plan.policies[r];
      for (int32_t index : {s.cascade_acc, s.cascade_delta, s.escalated, s.errors_escalated, s.fee_ratio, s.random_acc}) {
        if (index < 0) continue;
        mine.labels.push_back(heldout_result.labels[index]);
        mine.intervals.push_back(heldout_result.intervals[index]);
      }
      Json heldout_json = {{"items", heldout_items},
                           {"clusters", heldout_clusters.size()},
                           {"first_alone_acc", mean_of(pool.c1, heldout)},
                           {"fallback_alone_acc", mean_of(pool.c2, heldout)},
                           {"statistics", statistics_json(mine)},
                           {"latency", latency ? latency_json(cascade_latency(pool, rule_policies[r].accepted, heldout))
                                               : Json(nullptr)},
                           {"fallback_alone_latency", latency ? latency_json(fallback_latency(pool, heldout)) : Json(nullptr)}};
      rules.push_back({{"rule", rule_name(choice.rule)},
                       {"per_stratum", per_stratum},
                       {"tau", tau},
                       {"tol", settings.tol},
                       {"z", choice.rule == ThresholdRule::kLower ? Json(settings.z) : Json(nullptr)},
                       {"heldout", heldout_json}});
    }
    json["rules"] = rules;
    json["temperature"] = {{"judge", first},
                           {"temperature", temperature.temperature},
                           {"selection", {{"items", temperature.selection_items},
                                          {"nll_before", temperature.selection_nll_before},
                                          {"nll_after", temperature.selection_nll_after}}},
                           {"heldout", {{"items", temperature.heldout_items},
                                        {"nll_before", temperature.heldout_nll_before},
                                        {"nll_after", temperature.heldout_nll_after}}}};
  } else {
    json["rules"] = nullptr;
    json["temperature"] = nullptr;
  }
  Json reliability = reliability_json(gate_quality.summaries.front().reliability);
  reliability["judge"] = first;
  reliability["order"] = first_orders == 1 ? Json(0) : Json(nullptr);
  json["reliability"] = reliability;
  json["risk_coverage"] = risk_coverage_json(gate_quality.summaries.front().risk_coverage);
  json["notes"] = notes;
  json["timing"] = bootstrap_timing(load_s, result);
  if (rules_wanted) json["timing"]["heldout_resample_s"] = heldout_result.resample_s;

  // ---- tables for people ----
  const std::string level = fixed(100 * common.level, 0) + "% CI";
  auto heading = [&](const std::string& title) {
    return common.format == "md" ? "\n**" + title + "**\n\n" : common.format == "csv" ? "\n" : "\n" + title + "\n";
  };
  Table sweep_table;
  sweep_table.header = {"τ", "escalated (%)", "cascade acc (%)", "Δ vs fallback (pp) [" + level + "]",
                        "first-stage errors caught (%)", "fee ratio", "random, same fee (%)", "latency p50 / p95 (s)"};
  for (size_t p = 0; p < policies.size(); ++p) {
    const PolicyStatistics& s = sweep.policies[p];
    const auto& iv = result.intervals;
    sweep_table.rows.push_back({p + 1 == policies.size() ? "all" : grid.labels[p], percent_ci(iv[s.escalated]),
                                percent_ci(iv[s.cascade_acc]), pp_ci(iv[s.cascade_delta]),
                                s.errors_escalated >= 0 ? percent_ci(iv[s.errors_escalated]) : "—",
                                fees ? ratio_ci(iv[s.fee_ratio]) : kNotGiven,
                                fees ? percent_ci(iv[s.random_acc]) : kNotGiven, latency_cell(latencies[p], latency)});
  }
  sweep_table.rows.push_back({"first alone", "0.0", percent(first_alone), signed_pp(first_alone - fallback_alone), "0.0",
                              fees ? fixed(first_fee_ratio, 3) : kNotGiven, "—", latency_cell(first_latency, latency)});
  sweep_table.rows.push_back({"fallback alone", "100.0", percent(fallback_alone), "0.00", "100.0",
                              fees ? std::string("1.000") : kNotGiven, "—", latency_cell(fallback_only, latency)});
  sweep_table.rows.push_back({"oracle", "—", percent_ci(result.intervals[sweep.oracle_acc]),
                              signed_pp(result.intervals[sweep.oracle_acc].estimate - fallback_alone), "—", "—", "—", "—"});
  sweep_table.notes.push_back("cascade " + first + " → " + fallback + " on " + std::to_string(pool.size()) + " items (" +
                              std::to_string(clusters.size()) + " clusters); gate: " +
                              (first_orders == 1 ? "order 0" : std::to_string(first_orders) + " orders averaged") +
                              (first_orders == 1 ? ", accept iff the order-0 output is valid and q ≥ τ ("
                                                 : ", accept iff every order is valid and q ≥ τ (") +
                              std::to_string(pool.size() - gate_ok) +
                              " items with an invalid or missing first-stage order always escalate)");
  sweep_table.notes.push_back("cells: estimate [" + level + "]; first alone: " + first +
                              (first_orders == 1 ? " in order 0" : " with order-averaged probabilities") +
                              "; fallback alone: " + fallback + " in order 0; oracle: the better of the two per item; "
                              "random: escalate each item at random for the same expected fee");
  for (const auto& note : notes) sweep_table.notes.push_back("note: " + note);
  char summary[256];
  std::snprintf(summary, sizeof summary, "%llu replicates, %s CI, seed %llu, backend %s (%s), %.2fs",
                static_cast<unsigned long long>(common.replicates), to_string(common.ci).c_str(),
                static_cast<unsigned long long>(common.seed), backend->name().c_str(), backend->device().c_str(),
                result.resample_s + heldout_result.resample_s);
  std::string text = (common.format == "text" ? "Threshold sweep (SPEC §3.3):\n" : common.format == "md" ? "**Threshold sweep (SPEC §3.3)**\n\n" : "") +
                     sweep_table.render(common.format);

  if (rules_wanted) {
    const std::string bound_title =
        std::fabs(settings.z - 1.645) < 1e-12 ? "95% lower bound (pp)" : "lower bound, z = " + fixed(settings.z, 3) + " (pp)";
    Table trials;
    trials.header = {};
    if (per_stratum) trials.header.push_back(strata);
    for (const std::string& h : {std::string("τ"), std::string("accepted (%)"), std::string("mean Δ (pp)"), bound_title,
                                 std::string("point rule"), std::string("lower-bound rule")})
      trials.header.push_back(h);
    for (size_t h = 0; h < choices.front().trials.size(); ++h) {
      for (int32_t g = 0; g < grid.size(); ++g) {
        const SelectionTrial& t = choices.front().trials[h][g];
        std::vector<std::string> row;
        if (per_stratum) row.push_back(g == 0 ? stratum_names[h] + " (" + std::to_string(t.n) + ")" : "");
        row.push_back(grid.labels[g]);
        row.push_back(t.n ? percent(static_cast<double>(t.accepted) / static_cast<double>(t.n), 0) : "—");
        row.push_back(signed_pp(t.mean_delta));
        row.push_back(signed_pp(t.lower_bound));
        row.push_back(std::string(t.point_passes ? "yes" : "no") + (choices[0].chosen[h] == g ? " ∗" : ""));
        row.push_back(std::string(t.lower_passes ? "yes" : "no") + (choices[1].chosen[h] == g ? " ∗" : ""));
        trials.rows.push_back(row);
      }
    }
    trials.notes.push_back("∗: the chosen threshold (most accepted items among those passing; ties go to the stricter; "
                           "`all` when none passes); tol = " + fixed(100 * settings.tol, 2) + " points");
    for (size_t r = 0; r < choices.size(); ++r) {
      std::string chosen;
      for (size_t h = 0; h < choices[r].chosen.size(); ++h)
        chosen += (h ? ", " : "") + (per_stratum ? stratum_names[h] + " " : std::string()) + "τ = " +
                  grid.label(choices[r].chosen[h]);
      trials.notes.push_back(std::string(r == 0 ? "point" : "lower-bound") + " rule chooses " + chosen);
    }
    text += heading("Selection part (" + std::to_string(selection_items) + " items, " +
                    fixed(100 * select, 0) + "% of clusters per benchmark): threshold trials (JEV Table 33)") +
            trials.render(common.format);

    Table held;
    held.header = {"policy", "first alone (%)", "cascade (%) [" + level + "]", "fallback (%)",
                   "Δ (pp) [" + level + "]", "escalated (%)", "first-stage errors caught (%)", "fee ratio", "latency p50 / p95 (s)"};
    const double first_heldout = mean_of(pool.c1, heldout), fallback_heldout = mean_of(pool.c2, heldout);
    for (size_t r = 0; r < choices.size(); ++r) {
      const PolicyStatistics& s = heldout_plan.policies[r];
      const auto& iv = heldout_result.intervals;
      std::string name = std::string(r == 0 ? "point rule" : "lower-bound rule") + ", ";
      if (per_stratum) {
        name += "τ per " + strata;
      } else {
        name += "τ = " + grid.label(choices[r].chosen.front());
      }
      held.rows.push_back({name, percent(first_heldout), percent_ci(iv[s.cascade_acc]), percent(fallback_heldout),
                           pp_ci(iv[s.cascade_delta]), percent(iv[s.escalated].estimate),
                           s.errors_escalated >= 0 ? percent(iv[s.errors_escalated].estimate) : "—",
                           fees ? fixed(iv[s.fee_ratio].estimate, 3) : kNotGiven,
                           latency_cell(cascade_latency(pool, rule_policies[r].accepted, heldout), latency)});
    }
    held.rows.push_back({"fallback alone", "", percent(fallback_heldout), percent(fallback_heldout), "—", "100.0", "—",
                         fees ? std::string("1.000") : kNotGiven, latency_cell(fallback_latency(pool, heldout), latency)});
    held.notes.push_back("held-out part: " + std::to_string(heldout_items) + " items, " +
                         std::to_string(heldout_clusters.size()) + " clusters; CIs from its own clustered bootstrap");
    text += heading("Held-out part: the rules' policies (JEV Table 5)") + held.render(common.format);
    if (common.format != "csv") {
      char line[512];
      std::snprintf(line, sizeof line,
                    "Temperature scaling of %s (%s probabilities): T = %.3f fitted on %lld selection items; "
                    "held-out NLL %.4f → %.4f (%lld items)\n",
                    first.c_str(), first_orders == 1 ? "order-0" : "order-averaged", temperature.temperature,
                    static_cast<long long>(temperature.selection_items), temperature.heldout_nll_before,
                    temperature.heldout_nll_after, static_cast<long long>(temperature.heldout_items));
      text += "\n" + std::string(line);
    }
  }
  text += probability_tables_text(gate_quality, common.format);
  text += (common.format == "csv" ? "" : "\n") + std::string(common.format == "csv" ? "" : summary) +
          (common.format == "csv" ? "" : "\n");

  if (!plots_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(plots_dir, error);
    if (error) throw std::runtime_error("--plots: cannot create directory " + plots_dir + ": " + error.message());
    write_file(plots_dir + "/cascade_accuracy_fee.svg", accuracy_fee_plot(pool, grid, sweep, result, fees));
    write_file(plots_dir + "/cascade_reliability.svg",
               reliability_plot(first, gate_quality.summaries.front().reliability));
  }
  emit(common, json, text);
  return 0;
}

}  // namespace judgestat
