#include "report/systems_plots.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "report/plot_axes.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string ci_text(const Interval& v) { return fixed(v.estimate) + " (" + fixed(v.lo) + ", " + fixed(v.hi) + ")"; }

std::string interval_csv(const Interval& v) {
  return csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi);
}

// One system of one judge on the system-level panel: its score by the judge and by gold.
struct LevelPoint {
  std::string judge, system;
  int64_t n = 0;
  const Interval* by_judge = nullptr;
  const Interval* by_gold = nullptr;
};

// The system_score rows paired by judge and system (the judge's row, then gold's, as planned).
std::vector<LevelPoint> level_points(const SystemsReport& report) {
  const BootstrapResult& result = report.statistics;
  std::vector<LevelPoint> points;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const SystemsRowKey& key = report.keys[s];
    if (key.section != "system_level" || result.labels[s].name != "system_score" || !key.system || !key.part) continue;
    const std::string& judge = result.labels[s].judge;
    auto it = std::find_if(points.begin(), points.end(),
                           [&](const LevelPoint& p) { return p.judge == judge && p.system == *key.system; });
    if (it == points.end()) it = points.insert(points.end(), LevelPoint{judge, *key.system, result.labels[s].n});
    (*key.part == "gold" ? it->by_gold : it->by_judge) = &result.intervals[s];
  }
  points.erase(
      std::remove_if(points.begin(), points.end(), [](const LevelPoint& p) { return !p.by_judge || !p.by_gold; }),
      points.end());
  return points;
}

// The one range both axes show: every estimate and CI end of either score, so nothing is clipped.
std::pair<double, double> level_range(const std::vector<LevelPoint>& points) {
  double lo = INFINITY, hi = -INFINITY;
  for (const LevelPoint& p : points)
    for (const Interval* v : {p.by_judge, p.by_gold})
      for (double x : {v->estimate, v->lo, v->hi})
        if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  return {lo, hi};
}

// The gold CI as a horizontal whisker with caps at the judge's estimate (the point is drawn once,
// by the vertical whisker).
std::string gold_whisker(const PlotFrame& f, const LevelPoint& p, const std::string& colour) {
  const Interval& g = *p.by_gold;
  if (!std::isfinite(g.lo) || !std::isfinite(g.hi) || !std::isfinite(p.by_judge->estimate)) return "";
  const std::string style = "stroke:" + colour + ";stroke-width:1.5;stroke-opacity:0.7";
  const double y = f.py(p.by_judge->estimate);
  return svg_line(f.px(g.lo), y, f.px(g.hi), y, style.c_str()) +
         svg_line(f.px(g.lo), y - 4, f.px(g.lo), y + 4, style.c_str()) +
         svg_line(f.px(g.hi), y - 4, f.px(g.hi), y + 4, style.c_str());
}

}  // namespace

std::optional<PlotFile> win_rates_panel(const SystemsReport& report) {
  const BootstrapResult& result = report.statistics;
  const std::string against = report.baseline.empty() ? "all" : report.baseline;
  std::vector<ForestSection> forest;
  std::string csv = "judge,system,against,n,estimate,ci_lo,ci_hi\n";
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const SystemsRowKey& key = report.keys[s];
    if (key.section != "win_rates" || label.name != "win_rate" || !key.system || key.opponent != against) continue;
    const std::string title = "judge " + label.judge;
    if (forest.empty() || forest.back().title != title) forest.push_back({title, {}});
    const Interval& v = result.intervals[s];
    forest.back().rows.push_back({*key.system, v.estimate, v.lo, v.hi,
                                  label.judge + ": " + *key.system + " against " + against + ": " + ci_text(v) +
                                      ", n " + std::to_string(label.n)});
    csv += csv_field(label.judge) + "," + csv_field(*key.system) + "," + csv_field(against) + "," +
           std::to_string(label.n) + "," + interval_csv(v) + "\n";
  }
  if (forest.empty()) return std::nullopt;
  const std::string title = report.baseline.empty() ? "win rate against all opponents (ties count half)"
                                                    : "win rate against " + report.baseline + " (ties count half)";
  return PlotFile{"systems_win_rates",
                  forest_svg(title, "win rate", forest,
                             "win rate with its clustered bootstrap " + fixed(100 * result.level, 0) + "% CI"),
                  csv};
}

std::optional<PlotFile> system_level_panel(const SystemsReport& report) {
  const std::vector<LevelPoint> points = level_points(report);
  const auto [lo, hi] = level_range(points);
  if (points.empty() || !(lo <= hi)) return std::nullopt;
  Figure fig;
  fig.frame.width = 560;
  fig.frame.height = fig.frame.width - fig.frame.left - fig.frame.right + fig.frame.top + fig.frame.bottom;  // square
  set_x_axis(fig, lo, hi);
  set_y_axis(fig, lo, hi);
  fig.x_grid = true;
  fig.title = report.scored ? "each system's mean score: by the judge against by gold"
                            : "each system's win rate: by the judge against by gold";
  fig.x_title = "by gold";
  fig.y_title = "by the judge";
  const PlotFrame& f = fig.frame;
  const double a = std::max(f.x0, f.y0), b = std::min(f.x1, f.y1);
  fig.body += svg_line(f.px(a), f.py(a), f.px(b), f.py(b), "stroke:#444444;stroke-width:1.2;stroke-dasharray:5,4");
  std::string csv = "judge,system,n,by_judge,by_judge_ci_lo,by_judge_ci_hi,by_gold,by_gold_ci_lo,by_gold_ci_hi\n";
  std::vector<std::string> judges;
  for (const LevelPoint& p : points) {
    auto j = std::find(judges.begin(), judges.end(), p.judge);
    if (j == judges.end()) {
      j = judges.insert(judges.end(), p.judge);
      fig.legend.push_back({p.judge, palette_colour(judges.size() - 1), LegendMark::kPointWithBar});
    }
    const std::string colour = palette_colour(static_cast<size_t>(j - judges.begin()));
    csv += csv_field(p.judge) + "," + csv_field(p.system) + "," + std::to_string(p.n) + "," +
           interval_csv(*p.by_judge) + "," + interval_csv(*p.by_gold) + "\n";
    if (!std::isfinite(p.by_judge->estimate) || !std::isfinite(p.by_gold->estimate)) continue;
    fig.body += gold_whisker(f, p, colour);
    fig.body += svg_error_bar_y(f, p.by_gold->estimate, p.by_judge->estimate, p.by_judge->lo, p.by_judge->hi, colour,
                                p.judge + ", " + p.system + ": judge " + ci_text(*p.by_judge) + ", gold " +
                                    ci_text(*p.by_gold) + ", n " + std::to_string(p.n));
  }
  fig.legend.push_back({"identity (judge = gold)", "#444444", LegendMark::kDashed});
  fig.legend.push_back({"score with its clustered bootstrap " + fixed(100 * report.statistics.level, 0) +
                            "% CI (vertical: judge, horizontal: gold)",
                        "#888888", LegendMark::kPointWithBar});
  return PlotFile{"systems_system_level", fig.render(), csv};
}

std::vector<PlotFile> plot_files(const SystemsReport& report) {
  std::vector<PlotFile> figures;
  if (auto panel = win_rates_panel(report)) figures.push_back(std::move(*panel));
  if (auto panel = system_level_panel(report)) figures.push_back(std::move(*panel));
  return figures;
}

}  // namespace judgestat
