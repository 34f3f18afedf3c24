// run_bench (include/judgestat/bench.hpp): the W1 and W2 workloads (WORKLOADS.md) on an
// execution target, from a records file or synthesised, timed over repetitions and sweeps.
#include "judgestat/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"

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
  plan.columns[ones] = std::vector<double>(N, 1.0);
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
      plan.columns[acc].set(i, c[0][i]);
      plan.columns[pa].set(i, sum / c.size());
      plan.columns[bc].set(i, all);
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

// W2's threshold grid: `count` thresholds evenly spaced over [0.5, 1] (the confidences a
// two-label judge reports), the default grid (docs/statistics.md §3.3) for 0, or the user's explicit list.
ThresholdGrid bench_grid(int64_t count, const std::vector<std::string>& values) {
  if (count == 0) return values.empty() ? default_grid() : threshold_grid(values);
  std::vector<std::string> spaced;
  for (int64_t i = 0; i < count; ++i) {
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", count == 1 ? 1.0 : 0.5 + 0.5 * double(i) / double(count - 1));
    spaced.push_back(value);
  }
  return threshold_grid(spaced);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// One repetition's rate, and (W1) its rate with the summaries' time included.
struct RepetitionRates {
  double rate = 0, with_summary = 0, kernel = 0;
};

// Warm-up runs, then timed repetitions; `run_once` returns one repetition's RepetitionRates.
template <typename RunOnce>
void time_repetitions(BenchMeasurement& m, int warmup, int repeats, const RunOnce& run_once) {
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

// W1 on `target`; results (when given) gets each statistic's interval of the last repetition.
BenchMeasurement measure_w1(const BenchSizes& sizes, const ItemMatrix* input, const ExecTarget& target, int warmup,
                            int repeats, std::vector<BenchResult>* results) {
  const W1Input data =
      input ? w1_from_file(*input) : w1_synthetic(sizes.items, sizes.clusters, static_cast<int>(sizes.judges), 1);
  const Plan plan = w1_plan(data);
  const CompiledPlan compiled = compile(plan);
  std::vector<StatLabel> labels;
  for (const auto& s : plan.statistics) labels.push_back(s.label);
  auto backend = make_backend(target);
  BenchMeasurement m;
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
  if (results)
    for (size_t s = 0; s < labels.size(); ++s)
      results->push_back(BenchResult{labels[s].judge + "/" + labels[s].name, result.intervals[s]});
  return m;
}

BenchMeasurement measure_w2(const BenchSizes& sizes, const std::vector<std::string>& grid_values,
                            const ItemMatrix* input, const ExecTarget& target, int warmup, int repeats) {
  const CascadePool pool = input ? build_cascade_pool(*input, "judge0", "judge7") : w2_synthetic(sizes.items, 1);
  const ThresholdGrid grid = bench_grid(sizes.grid, grid_values);
  const BudgetProblem problem = make_budget_problem(pool, grid, false);
  BudgetRun run;
  run.k = static_cast<uint32_t>(sizes.k);
  run.rule.rule = ThresholdRule::kLower;
  check_budget_k(problem, run.k, run.rule.rule);
  // Under mpirun each rank takes its own GPU (round-robin), as make_backend does.
  auto engine = make_budget_engine(problem, target);
  const bool cuda = engine->name() == "cuda";
  BenchMeasurement m;
  m.sizes = sizes;
  m.sizes.draws = sizes.draws ? sizes.draws : cuda ? kDefaultBudgetDrawsCuda : kDefaultBudgetDrawsCpu;
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

// The swept field of BenchSizes (the signed ones), or nullptr.
int64_t* swept_field(const std::string& sweep, BenchSizes& s) {
  if (sweep == "clusters") return &s.clusters;
  if (sweep == "judges") return &s.judges;
  if (sweep == "items") return &s.items;
  if (sweep == "k") return &s.k;
  if (sweep == "grid") return &s.grid;
  return nullptr;
}

// --values' default: 4 doublings from a quarter of the base size.
std::vector<int64_t> default_sweep_values(const std::string& sweep, BenchSizes base) {
  const int64_t start = sweep == "replicates" ? static_cast<int64_t>(base.replicates)
                        : sweep == "draws"    ? static_cast<int64_t>(base.draws ? base.draws : kDefaultBudgetDrawsCpu)
                        : sweep == "grid"     ? (base.grid ? base.grid : 8)
                                              : *swept_field(sweep, base);
  std::vector<int64_t> values;
  for (int64_t v = std::max<int64_t>(1, start / 4), n = 0; n < 4; v *= 2, ++n) values.push_back(v);
  return values;
}

}  // namespace

std::vector<BenchSizes> bench_runs(const BenchOptions& options) {
  const std::string& sweep = options.sweep;
  BenchSizes base = options.base;
  std::vector<BenchSizes> runs{base};
  const bool w1 = options.workload == "w1";
  if (!sweep.empty()) {
    const bool unsigned_field = sweep == "replicates" || sweep == "draws";
    if (!swept_field(sweep, base) && !unsigned_field)
      throw std::invalid_argument("sweep: expected replicates, clusters, judges, items, k, draws or grid, got '" +
                                  sweep + "'");
    if (sweep == "grid" && options.workload != "w2")
      throw std::invalid_argument("sweep grid: a W2 size (use bench w2)");
    for (int64_t v : options.values)
      if (v < 1) throw std::invalid_argument("values: sizes must be positive");
    const std::vector<int64_t> values = options.values.empty() ? default_sweep_values(sweep, base) : options.values;
    runs.clear();
    for (int64_t v : values) {
      BenchSizes s = base;
      if (sweep == "replicates")
        s.replicates = static_cast<uint64_t>(v);
      else if (sweep == "draws")
        s.draws = static_cast<uint64_t>(v);
      else
        *swept_field(sweep, s) = v;
      if (sweep == "grid" && v > kMaxGrid)
        throw std::invalid_argument("values: a grid has at most " + std::to_string(kMaxGrid) + " thresholds");
      if (w1 && s.clusters > s.items) s.items = s.clusters;
      runs.push_back(s);
    }
  }
  for (const BenchSizes& s : runs)
    if (w1 && s.clusters > s.items)
      throw std::invalid_argument("clusters: bench w1's clusters (" + std::to_string(s.clusters) +
                                  ") must not exceed its items (" + std::to_string(s.items) + ")");
  return runs;
}

BenchReport run_bench(const BenchOptions& options, const ExecTarget& target) {
  if (options.workload != "w1" && options.workload != "w2")
    throw std::invalid_argument("workload: expected w1 or w2, got '" + options.workload + "'");
  if (options.warmup < 0) throw std::invalid_argument("warmup: expected 0 or more untimed runs");
  if (options.repeats < 1) throw std::invalid_argument("repeats: expected 1 or more timed repetitions");
  const std::vector<BenchSizes> runs = bench_runs(options);
  BenchReport report;
  report.workload = options.workload;
  report.input = options.input;
  report.sweep = options.sweep;
  report.warmup = options.warmup;
  report.repeats = options.repeats;
  report.probe = options.probe;
  std::unique_ptr<ItemMatrix> input;
  if (!options.input.empty()) input = std::make_unique<ItemMatrix>(load_item_matrix(options.input));
  const bool keep_results = options.results && runs.size() == 1;
  for (const BenchSizes& sizes : runs)
    report.measured.push_back(
        options.workload == "w1"
            ? measure_w1(sizes, input.get(), target, options.warmup, options.repeats,
                         keep_results ? &report.results : nullptr)
            : measure_w2(sizes, options.grid_values, input.get(), target, options.warmup, options.repeats));
  return report;
}

}  // namespace judgestat
