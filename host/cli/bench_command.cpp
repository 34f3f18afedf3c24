// `judgestat bench w1|w2`: the benchmark workloads timed on a backend, for users who measure
// throughput: parses the flags into BenchOptions, runs run_bench (include/judgestat/bench.hpp)
// and prints its table or JSON.
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "judgestat/bench.hpp"
#include "judgestat/budget_engine.hpp"
#include "records/selection.hpp"
#include "report/atomic_file.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

void add_bench_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("workload", "w1 or w2", cxxopts::value<std::string>())
      ("input", "records file (e.g. the peers' w1.csv / w2.csv); default: synthesise", cxxopts::value<std::string>()->default_value(""))
      ("items", "synthetic items (W2: pool size; default 1850 for W2)", cxxopts::value<int64_t>())
      ("clusters", "synthetic clusters (W1)", cxxopts::value<int64_t>()->default_value("5000"))
      ("judges", "synthetic judges (W1: 4·judges − 1 statistics)", cxxopts::value<int64_t>()->default_value("8"))
      ("replicates", "bootstrap replicates (W1)", cxxopts::value<uint64_t>()->default_value("100000"))
      ("k", "labelling budget (W2)", cxxopts::value<int64_t>()->default_value("96"))
      ("draws", "draws (W2; default 1e6 on CUDA, 1e5 on the CPU)", cxxopts::value<uint64_t>()->default_value("0"))
      ("grid", "W2 thresholds: a count N (N evenly spaced in [0.5, 1]) or a list such as 0.6,0.8,0.9 "
               "(default: the 9-value grid of docs/statistics.md §3.3)", cxxopts::value<std::string>()->default_value(""))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
      ("warmup", "untimed runs first", cxxopts::value<int>()->default_value("1"))
      ("repeats", "timed repetitions (median and range reported)", cxxopts::value<int>()->default_value("3"))
      ("sweep", "vary one size: replicates, clusters, judges, items, k, draws or grid", cxxopts::value<std::string>()->default_value(""))
      ("values", "the swept size's values, comma-separated (default: 4 doublings)", cxxopts::value<std::string>()->default_value(""))
      ("probe", "the GPU limit probe's figure on this device (cluster draws/s, from philox_limit): "
                "report the achieved fraction", cxxopts::value<double>()->default_value("0"))
      ("format", "text or json", cxxopts::value<std::string>()->default_value("text"))
      ("results", "W1: include per-statistic estimate and CI in the JSON")
      ("quiet", "accepted for symmetry with the other commands (bench prints no progress)")
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"workload"});
  options.positional_help("w1|w2");
}

// --grid: a count sets base.grid; anything else is a list, parsed (and checked) up front.
void parse_bench_grid(const std::string& text, BenchOptions& options) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    options.base.grid = text.size() <= 4 ? std::stoll(text) : kMaxGrid + 1;
    if (options.base.grid < 1 || options.base.grid > kMaxGrid)
      throw UsageError("--grid: a count must be 1 to " + std::to_string(kMaxGrid));
  } else if (!text.empty()) {
    options.grid_values = parse_grid(text).labels;  // bad lists fail before anything runs
  }
}

BenchOptions parse_bench_flags(const cxxopts::ParseResult& parsed) {
  BenchOptions options;
  options.workload = parsed.count("workload") ? parsed["workload"].as<std::string>() : "";
  if (options.workload != "w1" && options.workload != "w2")
    throw UsageError("bench: expected the workload w1 or w2 (see --help)");
  const std::string format = parsed["format"].as<std::string>();
  if (format != "text" && format != "json") throw UsageError("--format: expected text or json");
  options.warmup = parsed["warmup"].as<int>();
  options.repeats = parsed["repeats"].as<int>();
  if (options.warmup < 0 || options.repeats < 1) throw UsageError("--warmup >= 0 and --repeats >= 1");
  BenchSizes& base = options.base;
  if (parsed.count("items"))
    base.items = parsed["items"].as<int64_t>();
  else if (options.workload == "w2")
    base.items = 1850;
  base.clusters = parsed["clusters"].as<int64_t>();
  base.judges = parsed["judges"].as<int64_t>();
  base.replicates = parsed["replicates"].as<uint64_t>();
  base.k = parsed["k"].as<int64_t>();
  base.draws = parsed["draws"].as<uint64_t>();
  parse_bench_grid(parsed["grid"].as<std::string>(), options);
  if (base.items < 2 || base.clusters < 1 || base.judges < 1 || base.replicates < 2 || base.k < 1)
    throw UsageError("bench: need items >= 2, clusters >= 1, judges >= 1, replicates >= 2, k >= 1");
  options.sweep = parsed["sweep"].as<std::string>();
  if (!options.sweep.empty())
    for (const std::string& text : split_list(parsed["values"].as<std::string>())) {
      try {
        options.values.push_back(std::stoll(text));
      } catch (const std::exception&) {
        throw UsageError("--values: '" + text + "' is not a whole number");
      }
    }
  options.input = parsed["input"].as<std::string>();
  options.probe = parsed["probe"].as<double>();
  options.results = parsed.count("results") > 0;
  return options;
}

// The analysis's fields and their flags. The target's `kind` only fails a run when CUDA is
// asked for and missing, which the command has always reported as "--backend cuda: why".
const FlagNames& bench_flags() {
  static const FlagNames flags{{"sweep", "--sweep"},       {"sweep grid", "--sweep grid"}, {"values", "--values"},
                               {"clusters", "--clusters"}, {"kind", "--backend cuda"},     {"k", "--k"},
                               {"draws", "--draws"}};
  return flags;
}

}  // namespace

int command_bench(int argc, char** argv) {
  cxxopts::Options cli("judgestat bench",
                       "Time a workload: w1 (clustered bootstrap, cluster draws/s) or w2 (label budget, draws/s)");
  add_bench_options(cli);
  cxxopts::ParseResult parsed;
  if (!parse_or_help(cli, argc, argv, parsed)) return 0;
  const BenchOptions options = parse_bench_flags(parsed);
  const ExecTarget target = parse_exec_target(parsed);
  const BenchReport report = with_flag_names(bench_flags(), [&] { return run_bench(options, target); });
  if (parsed["format"].as<std::string>() == "json")
    std::cout << dump_json(to_json(report, ReportHead{})) << "\n";
  else
    std::cout << tables(report, "text");
  flush_stdout();
  return 0;
}

}  // namespace judgestat
