// `judgestat bench w1`: the W1 workload of the benchmarks (clustered bootstrap of per-judge acc,
// pa, bc and acc differences against judge 0), timed on a backend. Reads a records file (the
// peers' generated input, so both run on the same data) or synthesises one of the same shape.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "cli_common.hpp"
#include "commands.hpp"
#include "selection.hpp"

namespace judgestat {
namespace {

// correct[j][o][i] in {0, 1}; the W1 plan of WORKLOADS.md over items as units.
struct W1Input {
  std::vector<std::string> judges;
  std::vector<std::vector<std::vector<uint8_t>>> correct;
  std::vector<int32_t> item_cluster;
  int64_t n_clusters = 0;
};

W1Input w1_from_file(const ItemMatrix& m) {
  const Selection sel = select_records(m, SelectionOptions{});
  W1Input in;
  in.judges = m.judges;
  in.n_clusters = static_cast<int64_t>(sel.cluster_names.size());
  for (int32_t i : sel.items) in.item_cluster.push_back(sel.item_cluster[i]);
  in.correct.assign(m.n_judges(), std::vector<std::vector<uint8_t>>(m.orders));
  for (int32_t j = 0; j < m.n_judges(); ++j)
    for (int32_t o = 0; o < m.orders; ++o)
      for (int32_t i : sel.items) in.correct[j][o].push_back(m.correct(m.cell(j, i, o, 0), i));
  return in;
}

// Same shape as the peers' generator: judge skill rises with its index, item difficulty varies.
W1Input w1_synthetic(int64_t items, int64_t clusters, int judges, uint64_t seed) {
  W1Input in;
  in.n_clusters = clusters;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> difficulty(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t i = 0; i < items; ++i)
    in.item_cluster.push_back(static_cast<int32_t>(i < clusters ? i : rng() % clusters));
  in.correct.assign(judges, std::vector<std::vector<uint8_t>>(2, std::vector<uint8_t>(items)));
  for (int j = 0; j < judges; ++j) in.judges.push_back("judge" + std::to_string(j));
  for (int64_t i = 0; i < items; ++i) {
    const double d = difficulty(rng);
    for (int j = 0; j < judges; ++j)
      for (int o = 0; o < 2; ++o) {
        const double skill = 0.8 + 2.4 * j / std::max(1, judges - 1);
        in.correct[j][o][i] = uniform(rng) < 1.0 / (1.0 + std::exp(-(skill - d)));
      }
  }
  return in;
}

Plan w1_plan(const W1Input& in) {
  Plan plan;
  plan.stratum_offset = {0, in.n_clusters};
  plan.unit_cluster = in.item_cluster;
  const size_t N = in.item_cluster.size();
  const int32_t ones = plan.add_column("items");
  std::fill(plan.columns[ones].begin(), plan.columns[ones].end(), 1.0);
  std::vector<std::vector<Op>> acc_program;
  for (size_t j = 0; j < in.judges.size(); ++j) {
    const auto& c = in.correct[j];
    const int32_t acc = plan.add_column(in.judges[j] + "/acc");
    const int32_t pa = plan.add_column(in.judges[j] + "/pa");
    const int32_t bc = plan.add_column(in.judges[j] + "/bc");
    for (size_t i = 0; i < N; ++i) {
      double sum = 0, all = 1;
      for (const auto& order : c) {
        sum += order[i];
        all = std::min<double>(all, order[i]);
      }
      plan.columns[acc][i] = c[0][i];
      plan.columns[pa][i] = sum / c.size();
      plan.columns[bc][i] = all;
    }
    for (auto [name, column] : {std::pair{"acc", acc}, {"pa", pa}, {"bc", bc}}) {
      StatisticDef stat{{name, in.judges[j]}, ratio_program(column, ones)};
      stat.label.n = static_cast<int64_t>(N);
      plan.statistics.push_back(stat);
    }
    acc_program.push_back(ratio_program(acc, ones));
  }
  for (size_t j = 1; j < in.judges.size(); ++j) {
    StatisticDef stat{{"diff", in.judges[j]}, difference_program(acc_program[j], acc_program[0])};
    stat.label.reference = in.judges[0];
    stat.label.of = "acc";
    stat.label.n = static_cast<int64_t>(N);
    plan.statistics.push_back(stat);
  }
  return plan;
}

}  // namespace

int command_bench(int argc, char** argv) {
  cxxopts::Options options("judgestat bench",
                           "Time a workload of bench/ (W1: clustered bootstrap, WORKLOADS.md)");
  options.add_options()
      ("workload", "w1", cxxopts::value<std::string>())
      ("input", "records file (e.g. the peers' w1.csv); default: synthesise", cxxopts::value<std::string>()->default_value(""))
      ("items", "synthetic items", cxxopts::value<int64_t>()->default_value("20000"))
      ("clusters", "synthetic clusters", cxxopts::value<int64_t>()->default_value("5000"))
      ("judges", "synthetic judges", cxxopts::value<int>()->default_value("8"))
      ("replicates", "bootstrap replicates", cxxopts::value<uint64_t>()->default_value("100000"))
      ("seed", "random seed", cxxopts::value<uint64_t>()->default_value("7"))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
      ("repeats", "timed repetitions (the median is reported)", cxxopts::value<int>()->default_value("1"))
      ("results", "include per-statistic estimate and CI in the JSON")
      ("quiet", "no progress on stderr")
      ("h,help", "show this help");
  options.parse_positional({"workload"});
  options.positional_help("w1");
  cxxopts::ParseResult parsed;
  try {
    parsed = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (parsed.count("help")) {
    std::cout << options.help() << std::endl;
    return 0;
  }
  const std::string workload = parsed.count("workload") ? parsed["workload"].as<std::string>() : "";
  if (workload != "w1") throw UsageError("bench: expected the workload w1 (see --help)");

  const std::string input = parsed["input"].as<std::string>();
  const W1Input data = input.empty()
                           ? w1_synthetic(parsed["items"].as<int64_t>(), parsed["clusters"].as<int64_t>(),
                                          parsed["judges"].as<int>(), 1)
                           : w1_from_file(load_item_matrix(input));
  const Plan plan = w1_plan(data);
  const CompiledPlan compiled = compile(plan);
  std::vector<StatLabel> labels;
  for (const auto& s : plan.statistics) labels.push_back(s.label);

  auto backend = make_backend(parsed["backend"].as<std::string>(), parsed["threads"].as<int>());
  BootstrapOptions boot;
  boot.replicates = parsed["replicates"].as<uint64_t>();
  boot.seed = parsed["seed"].as<uint64_t>();
  Progress progress("replicates", parsed.count("quiet") > 0);
  boot.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };
  std::vector<double> seconds;
  BootstrapResult result;
  for (int rep = 0; rep < std::max(1, parsed["repeats"].as<int>()); ++rep) {
    result = run_bootstrap(compiled, labels, *backend, boot);
    progress.finish();
    seconds.push_back(result.resample_s);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];

  Json out;
  out["tool"] = "judgestat";
  out["workload"] = "w1";
  out["backend"] = backend->name();
  out["device"] = backend->device();
  out["replicates"] = boot.replicates;
  out["clusters"] = compiled.n_clusters;
  out["statistics"] = compiled.n_statistics;
  out["columns"] = compiled.n_columns;
  out["seconds"] = median;
  out["seconds_all"] = seconds;
  out["cluster_draws_per_s"] = static_cast<double>(boot.replicates) * compiled.n_clusters / median;
  if (parsed.count("results")) {
    Json results;
    for (size_t s = 0; s < labels.size(); ++s) {
      const std::string name = labels[s].judge + "/" + labels[s].name;
      const Interval& ci = result.intervals[s];
      results[name] = Json::array({ci.estimate, ci.lo, ci.hi, ci.se});
    }
    out["results"] = results;
  }
  std::cout << dump_json(out) << std::endl;
  return 0;
}

}  // namespace judgestat
