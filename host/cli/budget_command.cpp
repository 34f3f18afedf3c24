// `judgestat budget FILE`: label-budget simulation of threshold rules (SPEC §3.5): for each
// labelling budget k and rule, how often a threshold chosen on k labelled items loses more than
// tol accuracy against the fallback on the held-out items, and what it saves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "analyses/cascade_pool.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/budget.hpp"
#include "report/report.hpp"
#include "records/selection.hpp"
#include "report/svg.hpp"

namespace judgestat {
namespace {

constexpr uint64_t kDefaultDrawsCuda = 1000000, kDefaultDrawsCpu = 100000;

std::string percent(double share, int digits = 1) {
  return std::isnan(share) ? "–" : fixed(100.0 * share, digits) + " %";
}

// Choice index drawn most often and its share of all choices.
std::string most_chosen(const BudgetSummary& summary, const ThresholdGrid& grid) {
  uint64_t total = 0;
  size_t best = 0;
  for (size_t c = 0; c < summary.tau_hist.size(); ++c) {
    total += summary.tau_hist[c];
    if (summary.tau_hist[c] > summary.tau_hist[best]) best = c;
  }
  if (total == 0) return "–";
  return grid.label(static_cast<int32_t>(best)) + " (" +
         percent(static_cast<double>(summary.tau_hist[best]) / static_cast<double>(total), 0) + ")";
}

Json summary_json(const BudgetSummary& summary, const ThresholdGrid& grid) {
  Json tau_hist = Json::object();
  for (size_t c = 0; c < summary.tau_hist.size(); ++c)
    tau_hist[grid.label(static_cast<int32_t>(c))] = summary.tau_hist[c];
  Json row;
  row["k"] = summary.k;
  row["rule"] = rule_name(summary.rule);
  row["per_stratum"] = summary.per_stratum;
  row["draws"] = summary.draws;
  row["loss_share"] = summary.loss_share;
  row["delta_mean"] = summary.delta_mean;
  row["delta_q"] = {summary.delta_q[0], summary.delta_q[1], summary.delta_q[2]};
  row["fee_ratio_median"] = summary.fee_ratio_median;
  row["fee_ratio_q"] = {summary.fee_ratio_q[0], summary.fee_ratio_q[1], summary.fee_ratio_q[2]};
  row["tau_hist"] = tau_hist;
  row["escalate_all_share"] = summary.escalate_all_share;
  return row;
}

// Held-out Δ distribution of one (k, rule) with the −tol line.
std::string delta_plot(const BudgetSummary& s, double tol) {
  const int64_t offset = -2 * s.heldout_items;
  const double scale = 2.0 * static_cast<double>(s.heldout_items);
  size_t first = s.delta_hist.size(), last = 0;
  for (size_t x = 0; x < s.delta_hist.size(); ++x)
    if (s.delta_hist[x]) first = std::min(first, x), last = x;
  if (first > last) first = last = static_cast<size_t>(-offset);
  double lo = (static_cast<double>(first) + offset) / scale, hi = (static_cast<double>(last) + offset) / scale;
  lo = std::min(lo, -tol) - 0.01;
  hi = std::max(hi, 0.0) + 0.01;
  constexpr int kBars = 60;
  std::vector<double> bars(kBars, 0.0);
  for (size_t x = first; x <= last; ++x) {
    const double delta = (static_cast<double>(x) + offset) / scale;
    const int bar = std::min(kBars - 1, static_cast<int>((delta - lo) / (hi - lo) * kBars));
    bars[bar] += static_cast<double>(s.delta_hist[x]) / static_cast<double>(std::max<uint64_t>(s.draws, 1));
  }
  PlotFrame f;
  f.x0 = lo;
  f.x1 = hi;
  f.y0 = 0;
  f.y1 = std::max(1e-9, *std::max_element(bars.begin(), bars.end())) * 1.1;
  std::string out = svg_open(f, "held-out Δ, k = " + std::to_string(s.k) + ", " + rule_name(s.rule) +
                                    " rule: " + percent(s.loss_share) + " of draws lose more than " +
                                    fixed(100 * tol, 1) + " points");
  out += svg_axes(
      f, even_ticks(lo, hi, 6), even_ticks(0, f.y1, 4), "held-out Δ = cascade − fallback accuracy",
      "share of draws", [](double v) { return fixed(v, 3); }, [](double v) { return fixed(v, 3); });
  const double width = (f.px(hi) - f.px(lo)) / kBars;
  for (int b = 0; b < kBars; ++b) {
    if (bars[b] <= 0) continue;
    const double x = f.px(lo + (hi - lo) * b / kBars), y = f.py(bars[b]);
    const bool losing = lo + (hi - lo) * (b + 1) / kBars <= -tol;
    out += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(width - 1) +
           "\" height=\"" + svg_number(f.py(0) - y) + "\" fill=\"" + (losing ? "#d62728" : "#4c78a8") + "\"/>\n";
  }
  out += svg_line(f.px(-tol), f.top, f.px(-tol), f.py(0), "stroke:#d62728;stroke-width:1.5;stroke-dasharray:5,4");
  out += svg_text(f.px(-tol) - 4, f.top + 12, "−tol", "end", 11);
  return out + "</svg>\n";
}

// Loss share against k (log scale), one line per rule.
std::string loss_curve_plot(const std::vector<BudgetSummary>& summaries, double tol) {
  std::vector<uint32_t> ks;
  double top = 0.01;
  for (const auto& s : summaries) {
    if (std::find(ks.begin(), ks.end(), s.k) == ks.end()) ks.push_back(s.k);
    top = std::max(top, s.loss_share);
  }
  std::sort(ks.begin(), ks.end());
  // Round tick steps (in shares) with at most five steps up to the top.
  double step = 1.0;
  for (double candidate : {0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25}) {
    if (std::ceil(top * 1.05 / candidate) <= 5) {
      step = candidate;
      break;
    }
  }
  PlotFrame f;
  f.x0 = std::log2(static_cast<double>(ks.front())) - 0.25;
  f.x1 = std::log2(static_cast<double>(ks.back())) + 0.25;
  f.y0 = 0;
  f.y1 = std::ceil(top * 1.05 / step) * step;
  std::vector<double> x_ticks, y_ticks;
  for (uint32_t k : ks) x_ticks.push_back(std::log2(static_cast<double>(k)));
  for (double y = 0; y <= f.y1 + step / 2; y += step) y_ticks.push_back(y);
  const bool per_stratum = !summaries.empty() && summaries.front().per_stratum;
  std::string out = svg_open(f, "share of draws losing more than " + fixed(100 * tol, 1) + " points" +
                                    (per_stratum ? " (thresholds per stratum)" : ""));
  out += svg_axes(
      f, x_ticks, y_ticks, "labelled items k", "loss share",
      [](double v) { return std::to_string(static_cast<long long>(std::llround(std::exp2(v)))); },
      [](double v) { return fixed(100 * v, 1) + " %"; });
  const char* colours[] = {"#4c78a8", "#f58518"};
  int legend = 0;
  for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
    std::vector<const BudgetSummary*> line;
    for (const auto& s : summaries)
      if (s.rule == rule) line.push_back(&s);
    if (line.empty()) continue;
    std::sort(line.begin(), line.end(), [](const BudgetSummary* a, const BudgetSummary* b) { return a->k < b->k; });
    const std::string colour = colours[legend % 2];
    std::vector<std::pair<double, double>> points;
    for (const BudgetSummary* s : line)
      points.emplace_back(f.px(std::log2(static_cast<double>(s->k))), f.py(s->loss_share));
    out += svg_polyline(points, colour);
    for (size_t n = 0; n < line.size(); ++n)
      out += svg_circle(points[n].first, points[n].second, 3.5, colour,
                        "k " + std::to_string(line[n]->k) + ": " + percent(line[n]->loss_share, 2));
    out += svg_legend_entry(f.width - f.right - 110, f.top + 8 + 16 * legend, colour,
                            std::string(rule_name(rule)) + " rule");
    ++legend;
  }
  return out + "</svg>\n";
}

void write_plots(const std::string& dir, const std::vector<BudgetSummary>& summaries, double tol) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw std::runtime_error("--plots: cannot create directory " + dir + ": " + error.message());
  for (const auto& s : summaries)
    write_file(dir + "/budget_delta_k" + std::to_string(s.k) + "_" + rule_name(s.rule) + ".svg", delta_plot(s, tol));
  write_file(dir + "/budget_loss_share.svg", loss_curve_plot(summaries, tol));
}

}  // namespace

int command_budget(int argc, char** argv) {
  cxxopts::Options options("judgestat budget",
                           "Label-budget simulation of threshold rules (SPEC §3.5): choose the cascade threshold on k "
                           "labelled items, score it on the rest");
  options.add_options()
      ("file", "judgment records (.csv, .jsonl, .json; - = CSV on stdin)", cxxopts::value<std::string>())
      ("first", "first-stage judge (needs probabilities)", cxxopts::value<std::string>())
      ("fallback", "fallback judge (order 0 on every item the first stage covers)", cxxopts::value<std::string>())
      ("k", "labelling budgets, comma-separated (--k or -k)", cxxopts::value<std::string>()->default_value("48,96,192,384"))
      ("draws", "draws per k and rule (default 1000000 on CUDA, 100000 on CPU)", cxxopts::value<uint64_t>())
      ("rule", "point, lower or both", cxxopts::value<std::string>()->default_value("both"))
      ("per-stratum", "each stratum chooses its own threshold from its labels")
      ("strata", "strata for --per-stratum: benchmark (default) or condition; implies --per-stratum",
       cxxopts::value<std::string>()->default_value(""))
      ("grid", "ascending thresholds in [0, 1]; `all` (escalate everything) is implied",
       cxxopts::value<std::string>()->default_value("0.5,0.6,0.7,0.8,0.85,0.9,0.95,0.99,1"))
      ("tol", "tolerated accuracy loss", cxxopts::value<double>()->default_value("0.02"))
      ("z", "z of the lower-bound rule (--z or -z)", cxxopts::value<double>()->default_value("1.645"))
      ("gate-orders", "first-stage orders: 1 (order 0) or 2 (all orders)", cxxopts::value<int>()->default_value("2"))
      ("seed", "random seed (SPEC §2 Philox key)", cxxopts::value<uint64_t>()->default_value("1"))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("devices", "CUDA devices to split the draws between, e.g. 0,1 (default: one device per process; "
       "under mpirun, round-robin by rank)", cxxopts::value<std::string>()->default_value(""))
      ("threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
      ("fee", "per-call fee JUDGE=USD (repeatable); replaces the file's fee_usd for that judge",
       cxxopts::value<std::vector<std::string>>())
      ("labels", "label set, comma-separated (default: from the file)", cxxopts::value<std::string>()->default_value(""))
      ("format", "text, md, csv or json", cxxopts::value<std::string>()->default_value("text"))
      ("json", "also write the JSON result to FILE", cxxopts::value<std::string>()->default_value(""))
      ("plots", "write SVG plots into DIR", cxxopts::value<std::string>()->default_value(""))
      ("quiet", "no progress on stderr")
      ("h,help", "show this help");
  options.parse_positional({"file"});
  options.positional_help("FILE");

  // cxxopts parses one-letter names as short options only; accept --k and --z (and --k=96) too.
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t a = 1; a < arguments.size(); ++a) {
    std::string& argument = arguments[a];
    if (argument == "--") break;
    for (const char* name : {"k", "z"}) {
      const std::string long_form = std::string("--") + name;
      if (argument == long_form)
        argument = std::string("-") + name;
      else if (argument.rfind(long_form + "=", 0) == 0)
        argument = std::string("-") + name + argument.substr(long_form.size() + 1);
    }
  }
  std::vector<char*> parse_argv;
  for (std::string& argument : arguments) parse_argv.push_back(argument.data());

  cxxopts::ParseResult parsed;
  CommonOptions common;  // the output options emit() needs
  std::string first, fallback, rule_text, strata, plots_dir;
  ThresholdGrid grid;
  std::vector<uint32_t> ks;
  std::vector<int> devices;
  RuleSettings settings;
  int gate_orders = 2;
  bool per_stratum = false;
  try {
    parsed = options.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
    if (parsed.count("help")) {
      std::cout << options.help() << std::endl;
      return 0;
    }
    if (!parsed.count("file")) throw UsageError("missing FILE: give a judgment records file (see --help)");
    if (!parsed.count("first")) throw UsageError("missing --first: the first-stage judge (see --help)");
    if (!parsed.count("fallback")) throw UsageError("missing --fallback: the fallback judge (see --help)");
    common.file = parsed["file"].as<std::string>();
    common.seed = parsed["seed"].as<uint64_t>();
    common.backend = parsed["backend"].as<std::string>();
    common.threads = parsed["threads"].as<int>();
    common.load.labels = split_list(parsed["labels"].as<std::string>());
    common.format = parsed["format"].as<std::string>();
    common.json_path = parsed["json"].as<std::string>();
    common.quiet = parsed.count("quiet") > 0;
    first = parsed["first"].as<std::string>();
    fallback = parsed["fallback"].as<std::string>();
    rule_text = parsed["rule"].as<std::string>();
    strata = parsed["strata"].as<std::string>();
    plots_dir = parsed["plots"].as<std::string>();
    grid = parse_grid(parsed["grid"].as<std::string>());
    ks = parse_k_list(parsed["k"].as<std::string>());
    settings.tol = parsed["tol"].as<double>();
    settings.z = parsed["z"].as<double>();
    gate_orders = parsed["gate-orders"].as<int>();
    per_stratum = parsed.count("per-stratum") > 0 || !strata.empty();
    if (!parsed["devices"].as<std::string>().empty()) devices = parse_device_list(parsed["devices"].as<std::string>());
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (common.format != "text" && common.format != "md" && common.format != "csv" && common.format != "json")
    throw UsageError("--format: expected text, md, csv or json, got '" + common.format + "'");
  if (common.threads < 0) throw UsageError("--threads: expected 0 (all) or a positive count");
  if (!(std::isfinite(settings.tol) && settings.tol >= 0)) throw UsageError("--tol: expected a number >= 0");
  if (!(std::isfinite(settings.z) && settings.z >= 0)) throw UsageError("--z: expected a number >= 0");
  std::vector<ThresholdRule> rules;
  if (rule_text == "both")
    rules = {ThresholdRule::kPoint, ThresholdRule::kLower};
  else if (rule_text == "point" || rule_text == "lower")
    rules = {parse_rule(rule_text)};
  else
    throw UsageError("--rule: expected point, lower or both, got '" + rule_text + "'");
  if (per_stratum && strata.empty()) strata = "benchmark";
  if (common.backend != "auto" && common.backend != "cpu" && common.backend != "cuda")
    throw UsageError("--backend: expected auto, cpu or cuda, got '" + common.backend + "'");
  if (!devices.empty() && common.backend == "cpu")
    throw UsageError("--devices: selects CUDA devices, so it goes with --backend cuda or auto, not 'cpu'");

  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(common.file, common.load);
  const std::map<std::string, double> fee_per_call =
      parse_per_call(parsed.count("fee") ? parsed["fee"].as<std::vector<std::string>>() : std::vector<std::string>{},
                     "fee", first, fallback);
  const CascadePool pool =
      build_cascade_pool(matrix, first, fallback, gate_orders, per_stratum ? strata : "", fee_per_call);
  const BudgetProblem problem = make_budget_problem(pool, grid, per_stratum);
  const double load_s = seconds_since(load_start);
  for (uint32_t k : ks)
    for (ThresholdRule rule : rules) check_budget_k(problem, k, rule);

  std::string why;
  const bool want_cuda = common.backend == "cuda" || !devices.empty();
  const bool use_cuda = want_cuda || (common.backend == "auto" && cuda_available());
  if (want_cuda && !cuda_available(&why))
    throw UsageError((devices.empty() ? "--backend cuda: " : "--devices: ") + why);
  std::unique_ptr<BudgetEngine> engine =
      use_cuda ? make_cuda_budget_engine_on(problem, devices) : make_cpu_budget_engine(problem, common.threads);
  const uint64_t draws =
      parsed.count("draws") ? parsed["draws"].as<uint64_t>() : use_cuda ? kDefaultDrawsCuda : kDefaultDrawsCpu;
  if (draws == 0 || draws > (uint64_t{1} << 32))
    throw UsageError("--draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");

  Progress progress("draws", common.quiet);
  const uint64_t total_draws = draws * ks.size() * rules.size();
  uint64_t finished = 0;
  std::vector<BudgetSummary> summaries;
  double resample_s = 0;
  for (uint32_t k : ks) {
    for (ThresholdRule rule : rules) {
      BudgetRun run;
      run.k = k;
      run.rule = settings;
      run.rule.rule = rule;
      run.seed = common.seed;
      summaries.push_back(simulate_budget(*engine, problem, run, draws,
                                          [&](uint64_t done) { progress(finished + done, total_draws); }));
      finished += draws;
      resample_s += summaries.back().resample_s;
    }
  }
  progress.finish();

  Json json = json_envelope("budget", argc, argv, matrix);
  Json grid_values = Json::array();
  for (double value : grid.values) grid_values.push_back(value);
  Json& js = json["settings"];
  js["seed"] = common.seed;
  js["draws"] = draws;
  js["backend"] = engine->name();
  js["device"] = engine->device();
  js["first"] = first;
  js["fallback"] = fallback;
  js["grid"] = grid_values;
  js["tol"] = settings.tol;
  js["z"] = settings.z;
  js["strata"] = per_stratum ? Json(strata) : Json(nullptr);
  js["gate_orders"] = gate_orders;
  int64_t gate_ok = 0;
  for (uint8_t ok : pool.gate_ok) gate_ok += ok;
  json["pool"] = {{"items", pool.size()}, {"gate_ok", gate_ok}, {"strata", problem.strata_names}};
  Json rows = Json::array();
  for (const auto& s : summaries) rows.push_back(summary_json(s, grid));
  json["budget"] = rows;
  json["timing"] = {{"load_s", load_s},
                    {"resample_s", resample_s},
                    {"draws_per_s", resample_s > 0 ? static_cast<double>(total_draws) / resample_s : 0.0}};

  Table table;
  table.header = {"k",        "rule", "draws", "loss share", "mean Δ (2.5 %, 97.5 %)", "median fee ratio",
                  "most chosen τ", "escalate all"};
  for (const auto& s : summaries) {
    table.rows.push_back({std::to_string(s.k), rule_name(s.rule), std::to_string(s.draws), percent(s.loss_share, 2),
                          fixed(s.delta_mean) + " (" + fixed(s.delta_q[0]) + ", " + fixed(s.delta_q[2]) + ")",
                          fixed(s.fee_ratio_median), most_chosen(s, grid), percent(s.escalate_all_share, 2)});
  }
  table.notes.push_back("pool: " + std::to_string(pool.size()) + " items covered by " + first + " (" +
                        std::to_string(gate_ok) + " with every order valid), fallback " + fallback);
  table.notes.push_back("Δ = cascade − fallback accuracy on the N − k held-out items; loss share = draws with Δ < −" +
                        fixed(settings.tol, 3) + (per_stratum ? "; thresholds chosen per " + strata : ""));
  char summary_line[256];
  std::snprintf(summary_line, sizeof summary_line, "seed %llu, backend %s (%s), %.2fs, %.3g draws/s",
                static_cast<unsigned long long>(common.seed), engine->name().c_str(), engine->device().c_str(),
                resample_s, resample_s > 0 ? static_cast<double>(total_draws) / resample_s : 0.0);
  table.notes.push_back(summary_line);
  for (const auto& s : summaries)
    if (s.fee_ratio_undefined > 0)
      table.notes.push_back("k " + std::to_string(s.k) + ", " + rule_name(s.rule) + " rule: fee ratio undefined in " +
                            std::to_string(s.fee_ratio_undefined) + " draws (no fallback fee on the held-out items; give --fee JUDGE=USD per call)");
  if (!plots_dir.empty()) write_plots(plots_dir, summaries, settings.tol);
  emit(common, json, table.render(common.format));
  return 0;
}

}  // namespace judgestat
