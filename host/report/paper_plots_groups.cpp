// JEV's figures by group and by pair from the metrics report: accuracy per condition (or
// benchmark) with its CI and the mean confidence beside it (Figs. 13, 15, 16 top), the
// two-factor heatmap when every condition is "A/B" or "A×B" (Fig. 14), the confidence
// distribution per condition (Fig. 16 bottom) and the error-correction matrix (Fig. 22).
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

// Mean q of a reliability table: Σ n_b · mean_q_b / n.
double mean_confidence(const ReliabilityTable& t) {
  double sum = 0;
  int64_t n = 0;
  for (const ReliabilityBin& bin : t.bins)
    if (bin.n > 0) sum += static_cast<double>(bin.n) * bin.mean_q, n += bin.n;
  return n > 0 ? sum / static_cast<double>(n) : NAN;
}

struct GroupBar {
  std::string group;
  const Row* accuracy = nullptr;
  double mean_q = NAN;
};

std::vector<GroupBar> group_bars(const Source& s, const std::vector<Row>& rows) {
  std::map<std::pair<std::string, std::string>, double> mean_q;  // (judge, group)
  for (const ProbabilitySummary* p : base_summaries(s, true))
    mean_q[{p->judge, *p->group}] = mean_confidence(p->reliability);
  std::vector<GroupBar> bars;
  for (const Row& row : rows) {
    if (!s.is_base_accuracy(*row.label) || !group_of(*row.label)) continue;
    const auto q = mean_q.find({row.label->judge, *group_of(*row.label)});
    bars.push_back({*group_of(*row.label), &row, q == mean_q.end() ? NAN : q->second});
  }
  std::vector<std::string> order;  // groups in first appearance; the bars of a group together
  for (const GroupBar& bar : bars)
    if (std::find(order.begin(), order.end(), bar.group) == order.end()) order.push_back(bar.group);
  auto rank = [&order](const GroupBar& bar) {
    return std::find(order.begin(), order.end(), bar.group) - order.begin();
  };
  std::stable_sort(bars.begin(), bars.end(),
                   [&rank](const GroupBar& a, const GroupBar& b) { return rank(a) < rank(b); });
  return bars;
}

std::string svg_diamond_mark(double cx, double cy, double r) {
  return "<polygon points=\"" + svg_number(cx) + "," + svg_number(cy - r) + " " + svg_number(cx + r) + "," +
         svg_number(cy) + " " + svg_number(cx) + "," + svg_number(cy + r) + " " + svg_number(cx - r) + "," +
         svg_number(cy) + "\" fill=\"#111111\"/>\n";
}

void draw_group_bar(const Source& s, const GroupBar& bar, double y, Figure& fig) {
  const PlotFrame& f = fig.frame;
  const Interval& v = *bar.accuracy->ci;
  const std::string& judge = bar.accuracy->label->judge;
  fig.body +=
      svg_text(f.left - 8, y + 4, judge + " (n " + std::to_string(bar.accuracy->label->n) + ")", "end", kTickSize);
  if (!std::isfinite(v.estimate)) return;
  const double x0 = f.px(std::max(f.x0, 0.0));
  fig.body += "<rect x=\"" + svg_number(std::min(x0, f.px(v.estimate))) + "\" y=\"" + svg_number(y - 6) +
              "\" width=\"" + svg_number(std::fabs(f.px(v.estimate) - x0)) + "\" height=\"12\" fill=\"" +
              s.colour(judge) + "\" fill-opacity=\"0.75\"><title>" +
              xml_escape(judge + ", " + bar.group + ": " + estimate_cell(v)) + "</title></rect>\n";
  if (std::isfinite(v.lo) && std::isfinite(v.hi))
    fig.body += svg_line(f.px(v.lo), y, f.px(v.hi), y, "stroke:#222222;stroke-width:1.5") +
                svg_line(f.px(v.lo), y - 4, f.px(v.lo), y + 4, "stroke:#222222;stroke-width:1.5") +
                svg_line(f.px(v.hi), y - 4, f.px(v.hi), y + 4, "stroke:#222222;stroke-width:1.5");
  if (std::isfinite(bar.mean_q)) fig.body += svg_diamond_mark(f.px(bar.mean_q), y, 5);
}

// Horizontal bars: a section per group, a bar per judge (0 to the estimate) with its CI and,
// where the judge has probabilities, its mean q as a black diamond.
std::optional<PlotFile> group_bars_figure(const Source& s, const std::vector<GroupBar>& bars) {
  constexpr double kRow = 20, kHeading = 22;
  double hi = 0, label_width = 0;
  size_t groups = 0;
  for (size_t k = 0; k < bars.size(); ++k) {
    for (double v : {bars[k].accuracy->ci->estimate, bars[k].accuracy->ci->hi, bars[k].mean_q})
      if (std::isfinite(v)) hi = std::max(hi, v);
    const StatLabel& label = *bars[k].accuracy->label;
    label_width = std::max(label_width, text_width(label.judge + " (n " + std::to_string(label.n) + ")", kTickSize));
    groups += k == 0 || bars[k].group != bars[k - 1].group;
  }
  Figure fig;
  fig.frame.left = label_width + 24, fig.frame.top = 64, fig.frame.right = 32;
  fig.frame.width = std::max(640.0, fig.frame.left + 380);
  fig.frame.height = fig.frame.top + kHeading * static_cast<double>(groups) + kRow * static_cast<double>(bars.size()) +
                     8 + fig.frame.bottom;
  set_x_axis(fig, 0, hi, 6);
  fig.x_grid = true;
  const std::string group_name = s.report.strata.empty() ? "group" : s.report.strata;
  fig.title = s.accuracy_title() + " by " + group_name;
  fig.x_title = s.accuracy_title() + " (bar), mean q (diamond)";
  const PlotFrame& f = fig.frame;
  fig.body += svg_diamond_mark(f.left + 6, f.top - 14, 5) +
              svg_text(f.left + 16, f.top - 10, "mean q (largest label probability)", "start", kLegendSize);
  double y = f.top;
  std::string csv = "group,judge,n,statistic,estimate,ci_lo,ci_hi,mean_q\n";
  for (size_t k = 0; k < bars.size(); ++k) {
    if (k == 0 || bars[k].group != bars[k - 1].group)
      fig.body += svg_text(8, y + 16, bars[k].group, "start", kTickSize, " font-weight=\"bold\""), y += kHeading;
    draw_group_bar(s, bars[k], y + kRow / 2, fig);
    y += kRow;
    const Interval& v = *bars[k].accuracy->ci;
    csv += csv_field(bars[k].group) + "," + csv_field(bars[k].accuracy->label->judge) + "," +
           std::to_string(bars[k].accuracy->label->n) + "," + csv_field(s.accuracy_title()) + "," +
           csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "," + csv_number(bars[k].mean_q) +
           "\n";
  }
  for (const std::string& judge : s.judges)
    if (std::any_of(bars.begin(), bars.end(),
                    [&judge](const GroupBar& b) { return b.accuracy->label->judge == judge; }))
      fig.legend.push_back({judge, s.colour(judge), LegendMark::kBar});
  const std::string caption = "Per " + group_name + ", each judge's " + s.accuracy_title() +
                              " (bar) with its clustered bootstrap " + s.level() +
                              " (whisker) and, for judges with probabilities, its mean q over valid outputs (diamond; "
                              "no interval) (JEV Figs. 13, 15 and 16 top).";
  return PlotFile{"metrics_paper_f13_by_group", with_caption(fig.render(), caption), csv};
}

// "A/B" or "A×B" split once; nullopt when the name has neither or an empty side.
std::optional<std::pair<std::string, std::string>> two_factors(const std::string& name) {
  for (const std::string& mark : {std::string("/"), std::string("×")}) {
    const size_t at = name.find(mark);
    if (at != std::string::npos && at > 0 && at + mark.size() < name.size())
      return std::make_pair(name.substr(0, at), name.substr(at + mark.size()));
  }
  return std::nullopt;
}

void add_index(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}
size_t index_of(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

// One heatmap per judge when every group is two factors (JEV Fig. 14), on one colour scale.
void add_factor_heatmaps(const Source& s, const std::vector<GroupBar>& bars, std::vector<PlotFile>& out) {
  Heatmap base;
  base.lo = INFINITY, base.hi = -INFINITY;
  for (const GroupBar& bar : bars) {
    const auto factors = two_factors(bar.group);
    if (!factors) return;
    add_index(base.rows, factors->first), add_index(base.columns, factors->second);
    if (std::isfinite(bar.accuracy->ci->estimate))
      base.lo = std::min(base.lo, bar.accuracy->ci->estimate), base.hi = std::max(base.hi, bar.accuracy->ci->estimate);
  }
  if (bars.empty() || !(base.lo <= base.hi)) return;
  base.row_title = "first factor", base.column_title = "second factor", base.key_title = s.accuracy_title();
  for (const std::string& judge : s.judges) {
    Heatmap map = base;
    map.title = judge + ": " + s.accuracy_title() + " by factor pair";
    map.cells.assign(map.rows.size(), std::vector<HeatCell>(map.columns.size()));
    std::string csv = "judge,group,first,second,n,estimate,ci_lo,ci_hi\n";
    for (const GroupBar& bar : bars) {
      if (bar.accuracy->label->judge != judge) continue;
      const auto factors = *two_factors(bar.group);
      const Interval& v = *bar.accuracy->ci;
      map.cells[index_of(map.rows, factors.first)][index_of(map.columns, factors.second)] = {
          v.estimate, fixed(v.estimate, 3), "(" + fixed(v.lo, 3) + ", " + fixed(v.hi, 3) + ")", bar.group};
      csv += csv_field(judge) + "," + csv_field(bar.group) + "," + csv_field(factors.first) + "," +
             csv_field(factors.second) + "," + std::to_string(bar.accuracy->label->n) + "," + csv_number(v.estimate) +
             "," + csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
    }
    const std::string caption = "Each cell: " + judge + "'s " + s.accuracy_title() +
                                " on the group named first/second" + " with its clustered bootstrap " + s.level() +
                                "; colours on one scale over every judge (" + fixed(map.lo, 3) + " to " +
                                fixed(map.hi, 3) + "); grey: no such group (JEV Fig. 14).";
    out.push_back({"metrics_paper_f14_heatmap_" + safe_plot_name(judge), with_caption(heatmap_svg(map), caption), csv});
  }
}

}  // namespace

void add_group_figures(const Source& s, std::vector<PlotFile>& out) {
  const std::vector<Row> rows = rows_named(s, {s.accuracy_name}, false);
  const std::vector<GroupBar> bars = group_bars(s, rows);
  if (!bars.empty()) {
    if (auto figure = group_bars_figure(s, bars)) out.push_back(std::move(*figure));
    add_factor_heatmaps(s, bars, out);
  }
  add_distribution_figures(s, out);
  add_error_correction(s, out);
}

}  // namespace paper_plots
}  // namespace judgestat
