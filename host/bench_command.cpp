// `judgestat bench w1|w2`: the benchmark workloads timed on a backend, for users who measure
// throughput. W1 = clustered bootstrap of per-judge acc, pa, bc and acc differences against
// judge 0 (WORKLOADS.md); W2 = the label-budget simulation. Each reads a records file (the peers'
// generated input, so both run on the same data) or synthesises one of user-set size; warm-up,
// repeated timings (median and spread), `--sweep` over one size, and the fraction of a measured
// GPU limit probe (`--probe`).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "cascade_pool.hpp"
#include "cli_common.hpp"
#include "judgestat/budget.hpp"
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
      StatisticDef stat;
      stat.label.name = name;
      stat.label.judge = in.judges[j];
      stat.program = ratio_program(column, ones);
      stat.label.n = static_cast<int64_t>(N);
      plan.statistics.push_back(stat);
    }
    acc_program.push_back(ratio_program(acc, ones));
  }
  for (size_t j = 1; j < in.judges.size(); ++j) {
    StatisticDef stat;
    stat.label.name = "diff";
    stat.label.judge = in.judges[j];
    stat.program = difference_program(acc_program[j], acc_program[0]);
    stat.label.reference = in.judges[0];
    stat.label.of = "acc";
    stat.label.n = static_cast<int64_t>(N);
    plan.statistics.push_back(stat);
  }
  return plan;
}

// Synthetic W2 pool: first-stage confidence informative about its correctness, a stronger
// fallback, a cheap first stage (WORKLOADS.md's fee shape).
CascadePool w2_synthetic(int64_t items, uint64_t seed) {
  CascadePool pool;
  pool.first = "judge0";
  pool.fallback = "judge7";
  pool.strata_names = {"all"};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t i = 0; i < items; ++i) {
    const double q = 0.5 + 0.5 * uniform(rng);
    pool.item.push_back(static_cast<int32_t>(i));
    pool.q.push_back(q);
    pool.c1.push_back(uniform(rng) < q ? 1.0 : 0.0);
    pool.c2.push_back(uniform(rng) < 0.85 ? 1.0 : 0.0);
    pool.gate_ok.push_back(1);
    pool.fee_first.push_back(0.00008);
    pool.fee_fallback.push_back(0.004);
    pool.latency_first.push_back(0.1);
    pool.latency_fallback.push_back(1.0);
    pool.stratum.push_back(0);
  }
  return pool;
}

// The sizes a user sets; --sweep varies one of them.
struct BenchSizes {
  int64_t items = 20000, clusters = 5000, judges = 8;
  uint64_t replicates = 100000;
  int64_t k = 96;
  uint64_t draws = 0;  // 0: 1e6 on CUDA, 1e5 on the CPU
  int64_t grid = 0;    // W2 thresholds: 0 = SPEC's default grid (or --grid's list), else evenly spaced
};

// W2's threshold grid: `count` thresholds evenly spaced over [0.5, 1] (the confidences a
// two-label judge reports), SPEC's default grid for 0, or the user's explicit list.
ThresholdGrid bench_grid(int64_t count, const std::string& list) {
  if (count == 0) return list.empty() ? default_grid() : parse_grid(list);
  std::string text;
  for (int64_t i = 0; i < count; ++i) {
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", count == 1 ? 1.0 : 0.5 + 0.5 * double(i) / double(count - 1));
    text += (i ? "," : "") + std::string(value);
  }
  return parse_grid(text);
}

struct Measurement {
  BenchSizes sizes;
  int64_t statistics = 0, columns = 0, clusters = 0, items = 0;
  std::string backend, device;
  std::vector<double> rates;  // per timed repetition
  double median = 0, low = 0, high = 0;
  // W1: the same draws over resampling plus summaries (intervals), the time a user waits for
  // the CIs; the peers time their quantiles too.
  double median_with_summary = 0;
  // W2 on CUDA: draws over the budget kernel's own time (CUDA events); 0 = not measured.
  double median_kernel = 0;
};

// One repetition's rate, and (W1) its rate with the summaries' time included.
struct RepetitionRates {
  double rate = 0, with_summary = 0, kernel = 0;
};

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Warm-up runs, then timed repetitions; `run_once` returns one repetition's RepetitionRates.
template <typename RunOnce>
void time_repetitions(Measurement& m, int warmup, int repeats, const RunOnce& run_once) {
  for (int w = 0; w < warmup; ++w) run_once();
  std::vector<double> with_summary, kernel;
  for (int r = 0; r < repeats; ++r) {
    const RepetitionRates rates = run_once();
    m.rates.push_back(rates.rate);
    with_summary.push_back(rates.with_summary);
    kernel.push_back(rates.kernel);
  }
  m.median_with_summary = median_of(with_summary);
  m.median_kernel = median_of(kernel);
  m.median = median_of(m.rates);
  m.low = *std::min_element(m.rates.begin(), m.rates.end());
  m.high = *std::max_element(m.rates.begin(), m.rates.end());
}

Measurement measure_w1(const BenchSizes& sizes, const std::string& input, const std::string& backend_name,
                       int threads, int warmup, int repeats, Json* results) {
  const W1Input data = input.empty() ? w1_synthetic(sizes.items, sizes.clusters, static_cast<int>(sizes.judges), 1)
                                     : w1_from_file(load_item_matrix(input));
  const Plan plan = w1_plan(data);
  const CompiledPlan compiled = compile(plan);
  std::vector<StatLabel> labels;
  for (const auto& s : plan.statistics) labels.push_back(s.label);
  auto backend = make_backend(backend_name, threads);
  Measurement m;
  m.sizes = sizes;
  m.statistics = compiled.n_statistics;
  m.columns = compiled.n_columns;
  m.clusters = compiled.n_clusters;
  m.items = static_cast<int64_t>(data.item_cluster.size());
  m.backend = backend->name();
  m.device = backend->device();
  BootstrapOptions boot;
  boot.replicates = sizes.replicates;
  boot.seed = 7;
  BootstrapResult result;
  time_repetitions(m, warmup, repeats, [&] {
    result = run_bootstrap(compiled, labels, *backend, boot);
    const double draws = static_cast<double>(sizes.replicates) * compiled.n_clusters;
    return RepetitionRates{draws / result.resample_s, draws / (result.resample_s + result.summary_s)};
  });
  if (results) {
    for (size_t s = 0; s < labels.size(); ++s) {
      const std::string name = labels[s].judge + "/" + labels[s].name;
      const Interval& ci = result.intervals[s];
      (*results)[name] = Json::array({ci.estimate, ci.lo, ci.hi, ci.se});
    }
  }
  return m;
}

Measurement measure_w2(const BenchSizes& sizes, const std::string& grid_list, const std::string& input,
                       const std::string& backend_name, int threads, int warmup, int repeats) {
  const CascadePool pool = input.empty() ? w2_synthetic(sizes.items, 1)
                                         : build_cascade_pool(load_item_matrix(input), "judge0", "judge7");
  const ThresholdGrid grid = bench_grid(sizes.grid, grid_list);
  const BudgetProblem problem = make_budget_problem(pool, grid, false);
  BudgetRun run;
  run.k = static_cast<uint32_t>(sizes.k);
  run.rule.rule = ThresholdRule::kLower;
  check_budget_k(problem, run.k, run.rule.rule);
  const bool cuda = backend_name == "cuda" || (backend_name == "auto" && cuda_available());
  // Under mpirun each rank takes its own GPU (round-robin), as make_backend does.
  auto engine = cuda ? make_cuda_budget_engine_on(problem, {}) : make_cpu_budget_engine(problem, threads);
  Measurement m;
  m.sizes = sizes;
  m.sizes.draws = sizes.draws ? sizes.draws : cuda ? 1000000 : 100000;
  m.items = problem.n_items;
  m.sizes.grid = grid.size();
  m.backend = engine->name();
  m.device = engine->device();
  time_repetitions(m, warmup, repeats, [&] {
    const double kernel_before = engine->kernel_seconds();
    const BudgetSummary summary = simulate_budget(*engine, problem, run, m.sizes.draws);
    const double kernel_s = engine->kernel_seconds() - kernel_before;
    const double draws = static_cast<double>(m.sizes.draws);
    return RepetitionRates{draws / summary.resample_s, 0, kernel_s > 0 ? draws / kernel_s : 0};
  });
  return m;
}

}  // namespace

int command_bench(int argc, char** argv) {
  cxxopts::Options options("judgestat bench",
                           "Time a workload: w1 (clustered bootstrap, cluster draws/s) or w2 (label budget, draws/s)");
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
               "(default: SPEC's 9-value grid)", cxxopts::value<std::string>()->default_value(""))
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
  options.parse_positional({"workload"});
  options.positional_help("w1|w2");
  cxxopts::ParseResult parsed;
  if (!parse_or_help(options, argc, argv, parsed)) return 0;
  const std::string workload = parsed.count("workload") ? parsed["workload"].as<std::string>() : "";
  if (workload != "w1" && workload != "w2") throw UsageError("bench: expected the workload w1 or w2 (see --help)");
  const std::string format = parsed["format"].as<std::string>();
  if (format != "text" && format != "json") throw UsageError("--format: expected text or json");
  const int warmup = parsed["warmup"].as<int>(), repeats = parsed["repeats"].as<int>();
  if (warmup < 0 || repeats < 1) throw UsageError("--warmup >= 0 and --repeats >= 1");

  BenchSizes base;
  if (parsed.count("items")) base.items = parsed["items"].as<int64_t>();
  else if (workload == "w2") base.items = 1850;
  base.clusters = parsed["clusters"].as<int64_t>();
  base.judges = parsed["judges"].as<int64_t>();
  base.replicates = parsed["replicates"].as<uint64_t>();
  base.k = parsed["k"].as<int64_t>();
  base.draws = parsed["draws"].as<uint64_t>();
  // --grid: a count sets base.grid; anything else is a list, parsed (and checked) by bench_grid.
  std::string grid_list = parsed["grid"].as<std::string>();
  if (!grid_list.empty() && grid_list.find_first_not_of("0123456789") == std::string::npos) {
    base.grid = grid_list.size() <= 4 ? std::stoll(grid_list) : kMaxGrid + 1;
    if (base.grid < 1 || base.grid > kMaxGrid)
      throw UsageError("--grid: a count must be 1 to " + std::to_string(kMaxGrid));
    grid_list.clear();
  } else if (!grid_list.empty()) {
    (void)parse_grid(grid_list);  // bad lists fail before anything runs
  }
  if (base.items < 2 || base.clusters < 1 || base.judges < 1 || base.replicates < 2 || base.k < 1)
    throw UsageError("bench: need items >= 2, clusters >= 1, judges >= 1, replicates >= 2, k >= 1");

  // One measurement, or one per value of the swept size.
  const std::string sweep = parsed["sweep"].as<std::string>();
  std::vector<BenchSizes> runs{base};
  if (!sweep.empty()) {
    auto field = [&](BenchSizes& s) -> int64_t* {
      if (sweep == "clusters") return &s.clusters;
      if (sweep == "judges") return &s.judges;
      if (sweep == "items") return &s.items;
      if (sweep == "k") return &s.k;
      if (sweep == "grid") return &s.grid;
      return nullptr;
    };
    const bool unsigned_field = sweep == "replicates" || sweep == "draws";
    if (!field(base) && !unsigned_field)
      throw UsageError("--sweep: expected replicates, clusters, judges, items, k, draws or grid, got '" + sweep + "'");
    if (sweep == "grid" && workload != "w2") throw UsageError("--sweep grid: a W2 size (use bench w2)");
    std::vector<int64_t> values;
    for (const std::string& text : split_list(parsed["values"].as<std::string>())) {
      try {
        values.push_back(std::stoll(text));
      } catch (const std::exception&) {
        throw UsageError("--values: '" + text + "' is not a whole number");
      }
      if (values.back() < 1) throw UsageError("--values: sizes must be positive");
    }
    if (values.empty()) {
      const int64_t start = sweep == "replicates" ? static_cast<int64_t>(base.replicates)
                            : sweep == "draws"    ? static_cast<int64_t>(base.draws ? base.draws : 100000)
                            : sweep == "grid"     ? (base.grid ? base.grid : 8)
                                                  : *field(base);
      for (int64_t v = std::max<int64_t>(1, start / 4), n = 0; n < 4; v *= 2, ++n) values.push_back(v);
    }
    runs.clear();
    for (int64_t v : values) {
      BenchSizes s = base;
      if (sweep == "replicates") s.replicates = static_cast<uint64_t>(v);
      else if (sweep == "draws") s.draws = static_cast<uint64_t>(v);
      else *field(s) = v;
      if (sweep == "grid" && v > kMaxGrid) throw UsageError("--values: a grid has at most " + std::to_string(kMaxGrid) + " thresholds");
      if (workload == "w1" && s.clusters > s.items) s.items = s.clusters;
      runs.push_back(s);
    }
  }
  for (const BenchSizes& s : runs)
    if (workload == "w1" && s.clusters > s.items)
      throw UsageError("bench w1: --clusters (" + std::to_string(s.clusters) + ") must not exceed --items (" +
                       std::to_string(s.items) + ")");

  const std::string input = parsed["input"].as<std::string>();
  const std::string backend = parsed["backend"].as<std::string>();
  const int threads = parsed["threads"].as<int>();
  const double probe = parsed["probe"].as<double>();
  Json results;
  std::vector<Measurement> measured;
  for (const BenchSizes& sizes : runs)
    measured.push_back(workload == "w1"
                           ? measure_w1(sizes, input, backend, threads, warmup, repeats,
                                        parsed.count("results") && runs.size() == 1 ? &results : nullptr)
                           : measure_w2(sizes, grid_list, input, backend, threads, warmup, repeats));

  const std::string unit = workload == "w1" ? "cluster_draws_per_s" : "draws_per_s";
  Json out;
  out["tool"] = "judgestat";
  out["workload"] = workload;
  out["backend"] = measured.front().backend;
  out["device"] = measured.front().device;
  out["unit"] = unit;
  out["sweep"] = sweep.empty() ? Json(nullptr) : Json(sweep);
  Json rows = Json::array();
  for (const Measurement& m : measured) {
    Json row;
    if (workload == "w1") {
      row["replicates"] = m.sizes.replicates;
      row["clusters"] = m.clusters;
      row["items"] = m.items;
      row["statistics"] = m.statistics;
      row["columns"] = m.columns;
    } else {
      row["items"] = m.items;
      row["k"] = m.sizes.k;
      row["grid"] = m.sizes.grid;
      row["draws"] = m.sizes.draws;
    }
    row[unit] = m.median;
    row["range"] = Json::array({m.low, m.high});
    row["repetitions"] = m.rates;
    if (workload == "w1") row["with_summary_" + unit] = m.median_with_summary;
    if (workload == "w2") row["kernel_" + unit] = m.median_kernel > 0 ? Json(m.median_kernel) : Json(nullptr);
    if (probe > 0 && workload == "w1") row["probe_fraction"] = m.median / probe;
    rows.push_back(row);
  }
  out["measurements"] = rows;
  // The single-measurement form keeps the flat keys the compare scripts read.
  if (measured.size() == 1) {
    out[unit] = measured.front().median;
    if (workload == "w1") {
      out["with_summary_" + unit] = measured.front().median_with_summary;
      out["replicates"] = measured.front().sizes.replicates;
      out["clusters"] = measured.front().clusters;
      out["statistics"] = measured.front().statistics;
    }
    if (workload == "w2")
      out["kernel_" + unit] = measured.front().median_kernel > 0 ? Json(measured.front().median_kernel) : Json(nullptr);
    if (!results.is_null()) out["results"] = results;
  }
  if (format == "json") {
    std::cout << dump_json(out) << std::endl;
    return 0;
  }
  Table table;
  table.header = workload == "w1" ? std::vector<std::string>{"replicates", "clusters", "statistics", "columns",
                                                              "cluster draws/s (median)", "range",
                                                              "with summaries"}
                                  : std::vector<std::string>{"items", "k", "grid", "draws", "draws/s (median)", "range"};
  if (probe > 0 && workload == "w1") table.header.push_back("of probe");
  const bool kernel_timed = workload == "w2" && measured.front().median_kernel > 0;
  if (kernel_timed) table.header.push_back("kernel only");
  auto sci = [](double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", v);
    return std::string(buffer);
  };
  for (const Measurement& m : measured) {
    std::vector<std::string> row;
    if (workload == "w1")
      row = {std::to_string(m.sizes.replicates), std::to_string(m.clusters), std::to_string(m.statistics),
             std::to_string(m.columns)};
    else
      row = {std::to_string(m.items), std::to_string(m.sizes.k), std::to_string(m.sizes.grid),
             std::to_string(m.sizes.draws)};
    row.push_back(sci(m.median));
    row.push_back(sci(m.low) + " – " + sci(m.high));
    if (workload == "w1") row.push_back(sci(m.median_with_summary));
    if (probe > 0 && workload == "w1") row.push_back(fixed(100 * m.median / probe, 1) + " %");
    if (kernel_timed) row.push_back(sci(m.median_kernel));
    table.rows.push_back(row);
  }
  table.notes.push_back(workload + " on " + measured.front().backend + " (" + measured.front().device + "), " +
                        std::to_string(warmup) + " warm-up and " + std::to_string(repeats) +
                        " timed repetitions per size" + (input.empty() ? ", synthetic input" : ", input " + input));
  if (workload == "w1")
    table.notes.push_back("cluster draws/s over resampling; 'with summaries' adds the intervals (quantiles, SE)");
  if (kernel_timed)
    table.notes.push_back("draws/s end to end (copies, summaries on the host); 'kernel only' over the kernel's CUDA-event time");
  std::cout << table.render("text");
  return 0;
}

}  // namespace judgestat
