// The benchmark workloads as a library function (WORKLOADS.md): W1 = clustered bootstrap of
// per-judge acc, pa, bc and acc differences against judge 0; W2 = the label-budget simulation.
// Each reads a records file or synthesises one of the set size; warm-up, repeated timings
// (median and range), a sweep over one size, and the fraction of a measured GPU limit probe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// The sizes a user sets; a sweep varies one of them.
struct BenchSizes {
  int64_t items = 20000, clusters = 5000, judges = 8;
  uint64_t replicates = 100000;
  int64_t k = 96;
  uint64_t draws = 0;  // 0: 1e6 on CUDA, 1e5 on the CPU
  int64_t grid =
      0;  // W2 thresholds: 0 = the default grid (docs/statistics.md §3.3) (or grid_values), else evenly spaced
};

struct BenchOptions {
  std::string workload;  // "w1" or "w2"
  std::string input;     // records file; empty = synthesise
  BenchSizes base;
  std::vector<std::string> grid_values;  // W2's explicit thresholds ({"0.6", "0.8"}) when base.grid is 0
  int warmup = 1, repeats = 3;
  std::string sweep;            // "", replicates, clusters, judges, items, k, draws or grid
  std::vector<int64_t> values;  // the swept size's values; empty = 4 doublings
  double probe = 0;             // the GPU limit probe's cluster draws/s (W1), 0 = none
  bool results = false;         // W1, one measurement: keep each statistic's interval
};

struct BenchMeasurement {
  BenchSizes sizes;  // as run (W2: draws and grid resolved)
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

/// W1 with options.results: one statistic's interval, named "judge/statistic".
struct BenchResult {
  std::string name;
  Interval interval;
};

struct BenchReport {
  std::string workload, input, sweep;
  int warmup = 1, repeats = 3;
  double probe = 0;
  std::vector<BenchMeasurement> measured;  // one per size (per swept value)
  std::vector<BenchResult> results;        // W1 with options.results and one measurement
};

/// The sizes a run measures: the base, or one per swept value. std::invalid_argument naming the
/// field ("sweep", "sweep grid", "values", "clusters") when a sweep or size cannot be run.
std::vector<BenchSizes> bench_runs(const BenchOptions& options);

/// Runs every measurement on `target`. std::invalid_argument naming the field ("workload",
/// "warmup", "repeats", those of bench_runs and of the target).
BenchReport run_bench(const BenchOptions& options, const ExecTarget& target);

/// The JSON the compare scripts read: head.envelope (bench has none: empty), then tool,
/// workload, backend, device, unit, sweep, measurements and, for one measurement, its flat keys.
Json to_json(const BenchReport& report, const ReportHead& head);
/// The measurements' table with its notes (bench prints text).
std::string tables(const BenchReport& report, const std::string& format);

}  // namespace judgestat
