// `judgestat cascade FILE --first F --fallback S`: the confidence cascade (docs/statistics.md §3.3, §3.4;
// JEV §7–§9). Parses the flags into CascadeOptions, runs run_cascade and prints its report.
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/text_lists.hpp"
#include "judgestat/cascade.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

void add_cascade_options(cxxopts::Options& options) {
  // clang-format off
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
  // clang-format on
}

// The options' own fields and their flags (the shared ones are in common_flags()).
FlagNames cascade_flags() {
  FlagNames flags;
  for (const char* field : {"fallback", "tol", "z"}) flags[field] = std::string("--") + field;
  return flags;
}

CascadeOptions parse_cascade_options(const cxxopts::ParseResult& parsed, const CommonOptions& common) {
  CascadeOptions o;
  std::vector<std::string> fee_entries, latency_entries;
  try {
    if (!parsed.count("first")) throw UsageError("missing --first: the first-stage judge (see --help)");
    if (!parsed.count("fallback")) throw UsageError("missing --fallback: the fallback judge (see --help)");
    o.first = parsed["first"].as<std::string>();
    o.fallback = parsed["fallback"].as<std::string>();
    o.grid = parse_grid(parsed["grid"].as<std::string>());
    o.gate_orders = parsed["gate-orders"].as<int>();
    o.select = parsed["select"].as<double>();
    o.tol = parsed["tol"].as<double>();
    o.z = parsed["z"].as<double>();
    o.per_stratum = parsed.count("per-stratum") > 0;
    o.strata = parsed["strata"].as<std::string>();
    if (parsed.count("fee")) fee_entries = parsed["fee"].as<std::vector<std::string>>();
    if (parsed.count("latency")) latency_entries = parsed["latency"].as<std::vector<std::string>>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  with_flag_names(cascade_flags(), [&] { check_cascade_options(o); });
  o.fee = parse_per_call(fee_entries, "fee", o.first, o.fallback);
  o.latency = parse_per_call(latency_entries, "latency", o.first, o.fallback);
  o.bootstrap = bootstrap_options(common);
  return o;
}

}  // namespace

int command_cascade(int argc, char** argv) {
  cxxopts::Options options(
      "judgestat cascade",
      "Confidence cascade (docs/statistics.md §3.3, §3.4): threshold sweep with clustered CIs, random "
      "baseline and oracle; threshold rules chosen on a selection part and scored on the rest");
  add_common_options(options);
  add_cascade_options(options);
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!parse_common(options, argc, argv, parsed, common)) return 0;
  CascadeOptions cascade = parse_cascade_options(parsed, common);
  const std::string plots_dir = parsed["plots"].as<std::string>();

  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(common.file, common.load);
  const double load_s = seconds_since(load_start);
  Progress progress("replicates", common.quiet);
  cascade.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };
  const CascadeReport report =
      with_flag_names(cascade_flags(), [&] { return run_cascade(matrix, cascade, common.target); });
  progress.finish();
  save_replicates(common, report.sweep.result);  // the sweep's statistics (the JSON's `statistics`)

  const Json json = to_json(report, {json_envelope("cascade", argc, argv, matrix), load_s});
  const std::string text = tables(report, common.format);
  write_plots(report, plots_dir);
  emit(common, json, text);
  return 0;
}

}  // namespace judgestat
