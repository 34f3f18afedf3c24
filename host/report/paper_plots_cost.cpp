// JEV Fig. 3 (median and p95 latency, fee per 1,000 judgments per judge) and Fig. 12 (accuracy
// with its CI against fee and against median latency, one point per judge), from the metrics
// report's fee_per_1k rows and latency_p50 / latency_p95 point statistics (pooled scope).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "report/paper_plots.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace paper_plots {
namespace {

struct LatencyRow {
  std::string judge;
  int64_t n = 0;
  double p50 = NAN, p95 = NAN;
};

std::vector<LatencyRow> latency_rows(const Source& s) {
  std::vector<LatencyRow> rows;
  for (const auto& entry : s.report.point_statistics) {
    const StatLabel& label = entry.first;
    if ((label.name != "latency_p50" && label.name != "latency_p95") || group_of(label) || !s.drawn(label.judge))
      continue;
    auto it = std::find_if(rows.begin(), rows.end(), [&](const LatencyRow& r) { return r.judge == label.judge; });
    if (it == rows.end()) it = rows.insert(rows.end(), LatencyRow{label.judge, label.n});
    (label.name == "latency_p50" ? it->p50 : it->p95) = entry.second;
  }
  return rows;
}

// An open diamond (the p95 mark of JEV Fig. 3a).
std::string svg_diamond(double cx, double cy, double r, const std::string& colour) {
  return "<polygon points=\"" + svg_number(cx) + "," + svg_number(cy - r) + " " + svg_number(cx + r) + "," +
         svg_number(cy) + " " + svg_number(cx) + "," + svg_number(cy + r) + " " + svg_number(cx - r) + "," +
         svg_number(cy) + "\" fill=\"white\" stroke=\"" + colour + "\" stroke-width=\"1.5\"/>\n";
}

// The key above the plot area: the marks exactly as the rows draw them.
std::string latency_key(const PlotFrame& f) {
  const double y = f.top - 14, x = f.left;
  return svg_circle(x + 6, y, 4, "#444444") + svg_text(x + 16, y + 4, "median (p50)", "start", kLegendSize) +
         svg_diamond(x + 136, y, 5, "#444444") + svg_text(x + 146, y + 4, "p95", "start", kLegendSize) +
         svg_line(x + 196, y, x + 220, y, "stroke:#aaaaaa;stroke-width:2") +
         svg_text(x + 226, y + 4, "p50 to p95 (not a CI)", "start", kLegendSize);
}

std::optional<PlotFile> latency_figure(const Source& s) {
  const std::vector<LatencyRow> rows = latency_rows(s);
  double lo = INFINITY, hi = -INFINITY, label_width = 0;
  for (const LatencyRow& r : rows) {
    for (double v : {r.p50, r.p95})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    label_width = std::max(label_width, text_width(r.judge + " (n " + std::to_string(r.n) + ")", kTickSize));
  }
  if (rows.empty() || !(lo <= hi)) return std::nullopt;
  Figure fig;
  fig.frame.left = label_width + 24;
  fig.frame.width = std::max(640.0, fig.frame.left + 380);
  fig.frame.top = 64, fig.frame.right = 32;
  fig.frame.height = fig.frame.top + 22 * static_cast<double>(rows.size()) + 8 + fig.frame.bottom;
  const bool log = lo > 0 && hi / lo >= 10;
  if (log)
    set_log_x_axis(fig, lo, hi);
  else
    set_x_axis(fig, lo, hi, 6);
  auto at = [log](double v) { return log ? std::log10(v) : v; };
  fig.x_grid = true;
  fig.title = "Latency per judge: median and p95";
  fig.x_title = log ? "outcome latency (s, log scale)" : "outcome latency (s)";
  const PlotFrame& f = fig.frame;
  fig.body += latency_key(f);
  std::string csv = "judge,n,latency_p50,latency_p95\n";
  for (size_t k = 0; k < rows.size(); ++k) {
    const LatencyRow& r = rows[k];
    const double y = f.top + 22 * (static_cast<double>(k) + 0.5);
    fig.body += svg_text(f.left - 8, y + 4, r.judge + " (n " + std::to_string(r.n) + ")", "end", kTickSize);
    if (std::isfinite(r.p50) && std::isfinite(r.p95))
      fig.body += svg_line(f.px(at(r.p50)), y, f.px(at(r.p95)), y, "stroke:#aaaaaa;stroke-width:2");
    if (std::isfinite(r.p50))
      fig.body += svg_circle(f.px(at(r.p50)), y, 4, s.colour(r.judge), r.judge + ": median " + fixed(r.p50, 3) + " s");
    if (std::isfinite(r.p95)) fig.body += svg_diamond(f.px(at(r.p95)), y, 5, s.colour(r.judge));
    csv += csv_field(r.judge) + "," + std::to_string(r.n) + "," + csv_number(r.p50) + "," + csv_number(r.p95) + "\n";
  }
  const std::string caption =
      "Median (filled circle) and p95 (open diamond) outcome latency per judge over its records with a latency "
      "(n in the row label); quantiles carry no interval. Judges without latencies are not drawn (JEV Fig. 3a).";
  return PlotFile{"metrics_paper_f3_latency", with_caption(fig.render(), caption), csv};
}

// One judge's point: accuracy (y, with CI) against a cost (x, with CI where there is one).
struct CostPoint {
  std::string judge;
  const Row* accuracy = nullptr;
  double x = NAN, x_lo = NAN, x_hi = NAN;
};

struct CostAxis {
  std::string stem, statistic, title, x_title, caption;
};

std::string x_whisker(const PlotFrame& f, double y, double lo, double hi, const std::string& colour) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "";
  const std::string style = "stroke:" + colour + ";stroke-width:1.5;stroke-opacity:0.7";
  return svg_line(f.px(lo), y, f.px(hi), y, style.c_str()) + svg_line(f.px(lo), y - 4, f.px(lo), y + 4, style.c_str()) +
         svg_line(f.px(hi), y - 4, f.px(hi), y + 4, style.c_str());
}

// The axes over every estimate and CI end; x on a log scale when the costs span ten times or more.
bool fit_cost_axes(Figure& fig, const std::vector<CostPoint>& points) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const CostPoint& p : points) {
    for (double v : {p.x, p.x_lo, p.x_hi})
      if (std::isfinite(v)) xlo = std::min(xlo, v), xhi = std::max(xhi, v);
    for (double v : {p.accuracy->ci->estimate, p.accuracy->ci->lo, p.accuracy->ci->hi})
      if (std::isfinite(v)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  }
  const bool log = xlo > 0 && xhi / xlo >= 10;
  if (log)
    set_log_x_axis(fig, xlo, xhi);
  else
    set_x_axis(fig, xlo, xhi);
  set_y_axis(fig, ylo, yhi);
  return log;
}

PlotFile cost_scatter(const Source& s, const std::vector<CostPoint>& points, const CostAxis& axis) {
  Figure fig;
  fig.frame.right = 32;
  const bool log = fit_cost_axes(fig, points);
  auto at = [log](double v) { return log && v > 0 ? std::log10(v) : v; };
  fig.x_grid = true;
  fig.title = axis.title;
  fig.x_title = axis.x_title + (log ? " (log scale)" : "");
  fig.y_title = s.accuracy_title();
  std::string csv = "judge,n,accuracy_statistic,accuracy,accuracy_ci_lo,accuracy_ci_hi,x_statistic,x,x_ci_lo,x_ci_hi\n";
  for (const CostPoint& p : points) {
    const Interval& a = *p.accuracy->ci;
    const std::string colour = s.colour(p.judge);
    fig.body += x_whisker(fig.frame, fig.frame.py(a.estimate), at(p.x_lo), at(p.x_hi), colour);
    fig.body += svg_error_bar_y(fig.frame, at(p.x), a.estimate, a.lo, a.hi, colour,
                                p.judge + ": " + estimate_cell(a) + " at " + fixed(p.x, 4));
    fig.legend.push_back({p.judge, colour, LegendMark::kPointWithBar});
    csv += csv_field(p.judge) + "," + std::to_string(p.accuracy->label->n) + "," + csv_field(s.accuracy_title()) + "," +
           csv_number(a.estimate) + "," + csv_number(a.lo) + "," + csv_number(a.hi) + "," + axis.statistic + "," +
           csv_number(p.x) + "," + csv_number(p.x_lo) + "," + csv_number(p.x_hi) + "\n";
  }
  return PlotFile{axis.stem, with_caption(fig.render(), axis.caption), csv};
}

void add_accuracy_against_cost(const Source& s, std::vector<PlotFile>& out) {
  std::map<std::string, CostPoint> fee, latency;
  for (const Row& row : rows_named(s, {"fee_per_1k"}))
    fee[row.label->judge] = {row.label->judge, nullptr, row.ci->estimate, row.ci->lo, row.ci->hi};
  for (const LatencyRow& r : latency_rows(s)) latency[r.judge] = {r.judge, nullptr, r.p50, NAN, NAN};
  const std::vector<Row> accuracy = rows_named(s, {s.accuracy_name});
  const std::string level = s.level();
  const CostAxis axes[] = {
      {"metrics_paper_f12_accuracy_fee", "fee_per_1k", "Accuracy against fee per 1,000 judgments",
       "fee per 1,000 judgments (USD)",
       "Each judge's " + s.accuracy_title() + " (vertical: clustered bootstrap " + level +
           ") against its fee per 1,000 judgments (horizontal: " + level +
           "); judges without fees are not drawn "
           "(JEV Fig. 12)."},
      {"metrics_paper_f12_accuracy_latency", "latency_p50", "Accuracy against median latency", "median latency (s)",
       "Each judge's " + s.accuracy_title() + " (vertical: clustered bootstrap " + level +
           ") against its median latency (a quantile, no interval); judges without latencies are not drawn "
           "(JEV Fig. 12)."}};
  for (const CostAxis& axis : axes) {
    const std::map<std::string, CostPoint>& costs = axis.statistic == "fee_per_1k" ? fee : latency;
    std::vector<CostPoint> points;
    for (const Row& row : accuracy) {
      const auto cost = costs.find(row.label->judge);
      if (!s.is_base_accuracy(*row.label) || cost == costs.end() || !std::isfinite(cost->second.x)) continue;
      points.push_back(cost->second);
      points.back().accuracy = &row;
    }
    if (!points.empty()) out.push_back(cost_scatter(s, points, axis));
  }
}

}  // namespace

void add_cost_figures(const Source& s, std::vector<PlotFile>& out) {
  if (auto latency = latency_figure(s)) out.push_back(std::move(*latency));
  const std::string caption =
      "Fee per 1,000 judgments per judge with its clustered bootstrap " + s.level() +
      " (mean fee_usd × 1,000 over the records that carry one); judges without fees are not drawn (JEV Fig. 3b).";
  if (auto fee = statistic_forest(rows_named(s, {"fee_per_1k"}), s.level(), "metrics_paper_f3_fee",
                                  "Fee per 1,000 judgments per judge", "USD per 1,000 judgments", caption))
    out.push_back(std::move(*fee));
  add_accuracy_against_cost(s, out);
}

}  // namespace paper_plots
}  // namespace judgestat
