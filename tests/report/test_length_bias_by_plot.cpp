// The per-group length-bias panel (docs/statistics.md §8.3 "Plots"): with `--by` and `--length`,
// `metrics_length_bias_by` draws every group's length_acc row with its CI, and the CSV beside the
// SVG holds each of those rows as the report has it; the pooled panel keeps the pooled rows only.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "report/plot_axes.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

MetricsReport grouped_run() {
  const ItemMatrix m = load_item_matrix(kRoot + "/data/examples/length_bias.csv", LoadOptions{{"A", "B"}});
  MetricsOptions options;
  options.by = "x.source";
  options.covariates.length = "x.len_a,x.len_b";
  options.covariates.length_bins = "-inf,0,1,inf";
  options.bootstrap.replicates = 200;
  return run_metrics(m, options, cpu_target(2));
}

const PlotFile* named(const std::vector<PlotFile>& figures, const std::string& name) {
  for (const PlotFile& figure : figures)
    if (figure.name == name) return &figure;
  return nullptr;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST(LengthBiasByPlot, EveryGroupRowIsDrawnAndInTheCsv) {
  const MetricsReport report = grouped_run();
  const std::vector<PlotFile> figures = plot_files(report);
  const PlotFile* by = named(figures, "metrics_length_bias_by");
  const PlotFile* pooled = named(figures, "metrics_length_bias");
  ASSERT_TRUE(by && pooled);
  // The expected CSV, written here from the report's own rows.
  std::vector<std::string> expected = {"series,group,label,estimate,ci_lo,ci_hi,n"}, expected_pooled;
  const BootstrapResult& result = report.statistics;
  int groups_rows = 0;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    if (l.name != "length_acc") continue;
    const Interval& v = result.intervals[s];
    const std::string numbers = "," + l.judge + "," + csv_number(v.estimate) + "," + csv_number(v.lo) + "," +
                                csv_number(v.hi) + "," + std::to_string(l.n);
    const std::string series = "\"len(gold) − len(other) in " + *l.label + "\"";
    if (!l.condition) {
      expected_pooled.push_back(series + numbers);
      continue;
    }
    ++groups_rows;
    expected.push_back(series + "," + *l.condition + numbers);
    // The row's tooltip in the SVG names the group, the bin and the estimate with its CI.
    EXPECT_NE(by->svg.find(l.judge + " " + *l.condition + ": len(gold) − len(other) in " + *l.label + ": " +
                           fixed(v.estimate) + " (" + fixed(v.lo) + ", " + fixed(v.hi) + ")"),
              std::string::npos)
        << l.judge << " " << *l.condition << " " << *l.label;
  }
  // Three sources × three judges × the bins each source has items in.
  EXPECT_GE(groups_rows, 18);
  EXPECT_EQ(lines(by->csv), expected);
  const std::vector<std::string> pooled_lines = lines(pooled->csv);
  EXPECT_EQ(std::vector<std::string>(pooled_lines.begin() + 1, pooled_lines.end()), expected_pooled);
  EXPECT_NE(by->svg.find("<svg"), std::string::npos);
}

TEST(LengthBiasByPlot, NoGroupsNoPanel) {
  const ItemMatrix m = load_item_matrix(kRoot + "/data/examples/length_bias.csv", LoadOptions{{"A", "B"}});
  MetricsOptions options;
  options.covariates.length = "x.len_a,x.len_b";
  options.bootstrap.replicates = 200;
  const std::vector<PlotFile> figures = plot_files(run_metrics(m, options, cpu_target(2)));
  EXPECT_EQ(named(figures, "metrics_length_bias_by"), nullptr);
  EXPECT_NE(named(figures, "metrics_length_bias"), nullptr);
}
