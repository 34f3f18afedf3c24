#include "report/covariate_plots.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "report/plot_axes.hpp"
#include "report/report.hpp"

namespace judgestat {

std::optional<PlotFile> length_bias_panel(const BootstrapResult& result) {
  std::vector<ForestSection> forest;
  std::string csv = "series,label,estimate,ci_lo,ci_hi,n\n";
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    if (label.name != "length_acc" || label.benchmark || label.condition || !label.label) continue;
    const std::string title = "len(gold) − len(other) in " + *label.label;
    auto section = std::find_if(forest.begin(), forest.end(), [&](const ForestSection& f) { return f.title == title; });
    if (section == forest.end()) section = forest.insert(forest.end(), ForestSection{title, {}});
    const Interval& v = result.intervals[s];
    section->rows.push_back({label.judge, v.estimate, v.lo, v.hi,
                             label.judge + " " + title + ": " + fixed(v.estimate) + " (" + fixed(v.lo) + ", " +
                                 fixed(v.hi) + "), n " + std::to_string(label.n)});
    csv += csv_field(title) + "," + csv_field(label.judge) + "," + csv_number(v.estimate) + "," + csv_number(v.lo) +
           "," + csv_number(v.hi) + "," + std::to_string(label.n) + "\n";
  }
  if (forest.empty()) return std::nullopt;
  const std::string level = fixed(100 * result.level, 0) + "% CI";
  return PlotFile{"metrics_length_bias",
                  forest_svg("accuracy by length difference (order 0)", "accuracy", forest,
                             "estimate with its clustered bootstrap " + level),
                  csv};
}

}  // namespace judgestat
