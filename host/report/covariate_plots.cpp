#include "report/covariate_plots.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "report/plot_axes.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::optional<std::string> group_of(const StatLabel& label) {
  return label.benchmark ? label.benchmark : label.condition;
}

/// The `length_acc` rows of the pooled scope (by_group false) or of every group (true) as a
/// forest: a section per (group,) bin, a row per judge; the CSV one row per estimate.
std::optional<PlotFile> length_forest(const BootstrapResult& result, bool by_group) {
  std::vector<ForestSection> forest;
  std::string csv = by_group ? "series,group,label,estimate,ci_lo,ci_hi,n\n" : "series,label,estimate,ci_lo,ci_hi,n\n";
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const std::optional<std::string> group = group_of(label);
    if (label.name != "length_acc" || group.has_value() != by_group || !label.label) continue;
    const std::string series = "len(gold) − len(other) in " + *label.label;
    const std::string title = by_group ? *group + ": " + series : series;
    auto section = std::find_if(forest.begin(), forest.end(), [&](const ForestSection& f) { return f.title == title; });
    if (section == forest.end()) section = forest.insert(forest.end(), ForestSection{title, {}});
    const Interval& v = result.intervals[s];
    section->rows.push_back({label.judge, v.estimate, v.lo, v.hi,
                             label.judge + " " + title + ": " + fixed(v.estimate) + " (" + fixed(v.lo) + ", " +
                                 fixed(v.hi) + "), n " + std::to_string(label.n)});
    csv += csv_field(series) + "," + (by_group ? csv_field(*group) + "," : "") + csv_field(label.judge) + "," +
           csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "," + std::to_string(label.n) +
           "\n";
  }
  if (forest.empty()) return std::nullopt;
  const std::string level = fixed(100 * result.level, 0) + "% CI";
  return PlotFile{by_group ? "metrics_length_bias_by" : "metrics_length_bias",
                  forest_svg(by_group ? "accuracy by length difference per group (order 0)"
                                      : "accuracy by length difference (order 0)",
                             "accuracy", forest, "estimate with its clustered bootstrap " + level),
                  csv};
}

}  // namespace

std::optional<PlotFile> length_bias_panel(const BootstrapResult& result) { return length_forest(result, false); }

std::optional<PlotFile> length_bias_by_panel(const BootstrapResult& result) { return length_forest(result, true); }

}  // namespace judgestat
