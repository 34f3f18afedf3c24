#include "report/plot_score_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/plot_axes.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

struct CalibrationPoint {
  std::string label;
  double gold = NAN;  // x: the level's score, or the bin's mean gold
  const Interval* mean = nullptr;
  int64_t n = 0;
};

struct CalibrationSeries {
  std::string judge;
  std::vector<CalibrationPoint> points;
};

bool pooled(const StatLabel& label) { return !label.benchmark && !label.condition && label.label.has_value(); }

// The gold score of a point: its bin's mean_gold row when there is one, else the level read from
// its label (labels are the scores in shortest form, §8.2).
double gold_score(const BootstrapResult& result, const StatLabel& mean) {
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    if (l.name == "mean_gold" && pooled(l) && l.judge == mean.judge && l.label == mean.label)
      return result.intervals[s].estimate;
  }
  char* end = nullptr;
  const double value = std::strtod(mean.label->c_str(), &end);
  return end && *end == '\0' ? value : NAN;
}

std::vector<CalibrationSeries> calibration_series(const BootstrapResult& result) {
  std::vector<CalibrationSeries> series;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& l = result.labels[s];
    if (l.name != "mean_score" || !pooled(l)) continue;
    auto it =
        std::find_if(series.begin(), series.end(), [&](const CalibrationSeries& c) { return c.judge == l.judge; });
    if (it == series.end()) it = series.insert(series.end(), CalibrationSeries{l.judge, {}});
    it->points.push_back({*l.label, gold_score(result, l), &result.intervals[s], l.n});
  }
  return series;
}

// Half the horizontal spread of the judges' points at one gold score: a third of the closest gap.
double dodge_width(const std::vector<CalibrationSeries>& series) {
  std::vector<double> xs;
  for (const CalibrationSeries& c : series)
    for (const CalibrationPoint& p : c.points)
      if (std::isfinite(p.gold)) xs.push_back(p.gold);
  std::sort(xs.begin(), xs.end());
  double gap = INFINITY;
  for (size_t k = 1; k < xs.size(); ++k)
    if (xs[k] > xs[k - 1]) gap = std::min(gap, xs[k] - xs[k - 1]);
  return series.size() < 2 || !std::isfinite(gap) ? 0.0 : gap / 6;
}

// The one range both axes show: every point's x (dodged) and its CI, so nothing is clipped.
std::pair<double, double> shared_range(const std::vector<CalibrationSeries>& series, double dodge) {
  double lo = INFINITY, hi = -INFINITY;
  for (const CalibrationSeries& c : series)
    for (const CalibrationPoint& p : c.points)
      for (double v : {p.gold - dodge, p.gold + dodge, p.mean->estimate, p.mean->lo, p.mean->hi})
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

}  // namespace

std::optional<PlotFile> score_calibration_panel(const BootstrapResult& result) {
  const std::vector<CalibrationSeries> series = calibration_series(result);
  if (series.empty()) return std::nullopt;
  const double dodge = dodge_width(series);
  const auto [lo, hi] = shared_range(series, dodge);
  if (!(lo <= hi)) return std::nullopt;
  Figure fig;
  fig.frame.width = 560;
  fig.frame.height = fig.frame.width - fig.frame.left - fig.frame.right + fig.frame.top + fig.frame.bottom;  // square
  set_x_axis(fig, lo, hi);
  set_y_axis(fig, lo, hi);
  fig.x_grid = true;
  fig.title = "score judges against the human score (mean per gold level)";
  fig.x_title = "human (gold) score";
  fig.y_title = "judge's mean score";
  const PlotFrame& f = fig.frame;
  const double a = std::max(f.x0, f.y0), b = std::min(f.x1, f.y1);
  fig.body += svg_line(f.px(a), f.py(a), f.px(b), f.py(b), "stroke:#444444;stroke-width:1.2;stroke-dasharray:5,4");
  std::string csv = "judge,label,gold_score,estimate,ci_lo,ci_hi,n\n";
  for (size_t j = 0; j < series.size(); ++j) {
    const std::string colour = palette_colour(j);
    const double offset = series.size() < 2 ? 0.0 : dodge * (2.0 * j / (series.size() - 1) - 1);
    std::vector<std::pair<double, double>> line;
    for (const CalibrationPoint& p : series[j].points) {
      const Interval& v = *p.mean;
      csv += csv_field(series[j].judge) + "," + csv_field(p.label) + "," + csv_number(p.gold) + "," +
             csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "," + std::to_string(p.n) +
             "\n";
      if (!std::isfinite(p.gold) || !std::isfinite(v.estimate)) continue;
      line.push_back({f.px(p.gold + offset), f.py(v.estimate)});
      fig.body += svg_error_bar_y(f, p.gold + offset, v.estimate, v.lo, v.hi, colour,
                                  series[j].judge + " at gold " + p.label + ": " + fixed(v.estimate) + " (" +
                                      fixed(v.lo) + ", " + fixed(v.hi) + "), n " + std::to_string(p.n));
    }
    fig.body += svg_polyline(line, colour, 1.0);
    fig.legend.push_back({series[j].judge, colour, LegendMark::kPointWithBar});
  }
  fig.legend.push_back({"identity (judge = human)", "#444444", LegendMark::kDashed});
  fig.legend.push_back({"mean with its clustered bootstrap " + fixed(100 * result.level, 0) + "% CI", "#888888",
                        LegendMark::kPointWithBar});
  return PlotFile{"metrics_score_calibration", fig.render(), csv};
}

}  // namespace judgestat
