// run_bench (include/judgestat/bench.hpp) as a library function: W1's intervals are those of the
// command (`bench w1 … --results`), W2 measures the sizes it was given, sweeps expand as the
// command's did, and errors name the options' fields.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/bench.hpp"

namespace judgestat {
namespace {

ExecTarget two_cpu_threads() {
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 2;
  return target;
}

std::string invalid_argument_of(const BenchOptions& options) {
  try {
    run_bench(options, two_cpu_threads());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a std::invalid_argument";
  return "";
}

// `judgestat bench w1 --items 400 --clusters 100 --judges 3 --replicates 500 --backend cpu
// --warmup 0 --repeats 1 --format json --results` printed these intervals (seed 7).
TEST(RunBench, W1IntervalsMatchTheCommand) {
  BenchOptions options;
  options.workload = "w1";
  options.base.items = 400;
  options.base.clusters = 100;
  options.base.judges = 3;
  options.base.replicates = 500;
  options.warmup = 0;
  options.repeats = 1;
  options.results = true;
  const BenchReport report = run_bench(options, two_cpu_threads());
  ASSERT_EQ(report.measured.size(), 1u);
  const BenchMeasurement& m = report.measured.front();
  EXPECT_EQ(m.statistics, 11);
  EXPECT_EQ(m.columns, 10);
  EXPECT_EQ(m.clusters, 100);
  EXPECT_EQ(m.items, 400);
  EXPECT_EQ(m.device, "2 threads");
  EXPECT_GT(m.median, 0);
  ASSERT_EQ(report.results.size(), 11u);
  EXPECT_EQ(report.results[0].name, "judge0/acc");
  EXPECT_DOUBLE_EQ(report.results[0].interval.estimate, 0.66);
  EXPECT_DOUBLE_EQ(report.results[0].interval.lo, 0.6176796242972713);
  EXPECT_DOUBLE_EQ(report.results[0].interval.hi, 0.70476814316788605);
  EXPECT_EQ(report.results[10].name, "judge2/diff");
  EXPECT_DOUBLE_EQ(report.results[10].interval.se, 0.021475728743845426);
  const Json json = to_json(report, ReportHead{});
  EXPECT_EQ(json["statistics"], 11);
  EXPECT_EQ(json["results"]["judge1/pa"][0].get<double>(), 0.82250000000000001);
  EXPECT_NE(tables(report, "text").find("cluster draws/s"), std::string::npos);
}

TEST(RunBench, W2SweepMeasuresEachValue) {
  BenchOptions options;
  options.workload = "w2";
  options.base.items = 200;
  options.base.draws = 2000;
  options.warmup = 0;
  options.repeats = 2;
  options.sweep = "k";
  options.values = {8, 16};
  const BenchReport report = run_bench(options, two_cpu_threads());
  ASSERT_EQ(report.measured.size(), 2u);
  EXPECT_EQ(report.measured[1].sizes.k, 16);
  EXPECT_EQ(report.measured[1].sizes.grid, 9);  // the contract's (docs/statistics.md) default grid
  EXPECT_EQ(report.measured[1].sizes.draws, 2000u);
  EXPECT_EQ(report.measured[1].rates.size(), 2u);
  const Json json = to_json(report, ReportHead{});
  EXPECT_EQ(json["sweep"], "k");
  EXPECT_FALSE(json.contains("draws_per_s"));  // flat keys only for one measurement
}

TEST(RunBench, SweepsExpandAsTheCommandDid) {
  BenchOptions options;
  options.workload = "w1";
  options.base.items = 100;
  options.base.clusters = 50;
  options.sweep = "clusters";
  const std::vector<BenchSizes> runs = bench_runs(options);  // 4 doublings from a quarter
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].clusters, 12);
  EXPECT_EQ(runs[3].clusters, 96);
  EXPECT_EQ(runs[3].items, 100);
  options.values = {200};
  EXPECT_EQ(bench_runs(options)[0].items, 200);  // W1 items follow the clusters up
}

TEST(RunBench, ErrorsNameTheFields) {
  BenchOptions options;
  options.workload = "w1";
  options.sweep = "nonsense";
  EXPECT_EQ(invalid_argument_of(options).rfind("sweep: ", 0), 0u);
  options.sweep = "grid";
  EXPECT_EQ(invalid_argument_of(options).rfind("sweep grid: ", 0), 0u);
  options.sweep.clear();
  options.base.clusters = 500;
  options.base.items = 100;
  EXPECT_EQ(invalid_argument_of(options).rfind("clusters: ", 0), 0u);
  options.workload = "w3";
  EXPECT_EQ(invalid_argument_of(options).rfind("workload: ", 0), 0u);
}

}  // namespace
}  // namespace judgestat
