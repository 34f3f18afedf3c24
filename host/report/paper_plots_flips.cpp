// JEV Fig. 7a–b from the metrics report's flip_by_confidence tables (pooled scope): the share of
// items whose verdict changes between orders per base-order confidence bin, and per judge the
// share of its flips made at q >= 0.9. The tables are counts without a bootstrap interval; each
// share's whisker is the 95 % Wilson interval of its counts (items taken as independent).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/paper_plots.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace paper_plots {
namespace {

constexpr double kBinWidth = 1.0 / kConfidenceBins;
// Bin b's lower edge, the double nearest b / 10 (0.9, never 0.9000000000000001).
double edge(int b) { return b / static_cast<double>(kConfidenceBins); }

std::vector<const FlipSummary*> pooled_flips(const Source& s) {
  std::vector<const FlipSummary*> out;
  for (const FlipSummary& f : s.report.probability.flips)
    if (!f.group && s.drawn(f.judge) && f.table.total_items > 0) out.push_back(&f);
  return out;
}

// The x range of the occupied bins of every table.
std::pair<double, double> occupied_range(const std::vector<const FlipSummary*>& flips) {
  int first = kConfidenceBins, last = -1;
  for (const FlipSummary* f : flips)
    for (int b = 0; b < static_cast<int>(f->table.items.size()); ++b)
      if (f->table.items[b] > 0) first = std::min(first, b), last = std::max(last, b);
  return {edge(first), edge(last + 1)};
}

std::string flip_bin_row(const FlipSummary& f, int b, double lo, double hi) {
  const FlipTable& t = f.table;
  return csv_field(f.judge) + "," + csv_number(edge(b)) + "," + csv_number(edge(b + 1)) + "," +
         std::to_string(t.items[b]) + "," + std::to_string(t.flips[b]) + "," +
         csv_number(static_cast<double>(t.flips[b]) / static_cast<double>(t.items[b])) + "," + csv_number(lo) + "," +
         csv_number(hi) + "\n";
}

// A bin of one judge as drawn: x (the bin's middle, offset per judge), the share and its interval.
struct FlipPoint {
  const FlipSummary* summary = nullptr;
  int bin = 0;
  double x = 0, share = 0, lo = 0, hi = 0;
};

std::vector<FlipPoint> flip_points(const std::vector<const FlipSummary*>& flips) {
  std::vector<FlipPoint> points;
  for (size_t j = 0; j < flips.size(); ++j) {
    const FlipTable& t = flips[j]->table;
    const double dodge = (static_cast<double>(j) - (static_cast<double>(flips.size()) - 1) / 2) * 0.006;
    for (int b = 0; b < static_cast<int>(t.items.size()); ++b) {
      if (t.items[b] == 0) continue;
      const auto ci = wilson_interval(static_cast<uint64_t>(t.flips[b]), static_cast<uint64_t>(t.items[b]));
      const double share = static_cast<double>(t.flips[b]) / static_cast<double>(t.items[b]);
      points.push_back({flips[j], b, (b + 0.5) * kBinWidth + dodge, share, ci.first, ci.second});
    }
  }
  return points;
}

// Each judge's points joined by a line, with whiskers; a legend entry per judge.
void draw_flip_points(const Source& s, const std::vector<FlipPoint>& points, Figure& fig) {
  const PlotFrame& f = fig.frame;
  std::vector<std::pair<double, double>> line;
  for (size_t k = 0; k < points.size(); ++k) {
    const FlipPoint& p = points[k];
    const FlipTable& t = p.summary->table;
    const std::string colour = s.colour(p.summary->judge);
    if (line.empty()) fig.legend.push_back({p.summary->judge, colour, LegendMark::kPointWithBar});
    line.push_back({f.px(p.x), f.py(p.share)});
    fig.body += svg_error_bar_y(f, p.x, p.share, p.lo, p.hi, colour,
                                p.summary->judge + ": " + std::to_string(t.flips[p.bin]) + " of " +
                                    std::to_string(t.items[p.bin]) + " items flip");
    if (k + 1 == points.size() || points[k + 1].summary != p.summary) {
      if (line.size() > 1) fig.body += svg_polyline(line, colour, 1.5);
      line.clear();
    }
  }
}

std::optional<PlotFile> flip_share_figure(const Source& s, const std::vector<const FlipSummary*>& flips) {
  const std::vector<FlipPoint> points = flip_points(flips);
  if (points.empty()) return std::nullopt;
  double ylo = INFINITY, yhi = -INFINITY;
  std::string csv = "judge,bin_lo,bin_hi,items,flips,share,ci_lo,ci_hi\n";
  for (const FlipPoint& p : points) {
    ylo = std::min(ylo, p.lo), yhi = std::max(yhi, p.hi);
    csv += flip_bin_row(*p.summary, p.bin, p.lo, p.hi);
  }
  Figure fig;
  const auto range = occupied_range(flips);
  set_x_axis(fig, range.first, range.second);
  set_y_axis(fig, ylo, yhi);
  if (kHighConfidence >= fig.frame.x0 && kHighConfidence <= fig.frame.x1)
    fig.body += svg_vline(fig.frame, kHighConfidence, "#444444");
  draw_flip_points(s, points, fig);
  fig.legend.push_back({"q = 0.9", "#444444", LegendMark::kDashed});
  fig.x_grid = true;
  fig.title = "Verdict flips between orders by base-order confidence";
  fig.x_title = "q of the base order (bins of 0.1; judges offset within a bin)";
  fig.y_title = "share of items that flip";
  const std::string caption =
      "Share of items whose verdict changes when the presentation order changes, by the base order's q (items with "
      "every order present and a valid base order with probabilities; an invalid verdict matches nothing). Whiskers: "
      "95% Wilson interval of the bin's counts, items taken as independent; the CSV gives the counts (JEV Fig. 7a).";
  return PlotFile{"metrics_paper_f7a_flip_share", with_caption(fig.render(), caption), csv};
}

std::optional<PlotFile> confident_flips_figure(const std::vector<const FlipSummary*>& flips) {
  ForestSection section{"flips at q ≥ 0.9 among all flips", {}};
  std::string csv = "judge,flips,flips_at_q_at_least_0.9,share,ci_lo,ci_hi\n";
  for (const FlipSummary* f : flips) {
    const FlipTable& t = f->table;
    if (t.total_flips == 0) continue;
    const auto ci = wilson_interval(static_cast<uint64_t>(t.flips_high), static_cast<uint64_t>(t.total_flips));
    const double share = static_cast<double>(t.flips_high) / static_cast<double>(t.total_flips);
    const std::string counts = std::to_string(t.flips_high) + " of " + std::to_string(t.total_flips);
    section.rows.push_back({f->judge + " (" + counts + ")", share, ci.first, ci.second, f->judge + ": " + counts});
    csv += csv_field(f->judge) + "," + std::to_string(t.total_flips) + "," + std::to_string(t.flips_high) + "," +
           csv_number(share) + "," + csv_number(ci.first) + "," + csv_number(ci.second) + "\n";
  }
  if (section.rows.empty()) return std::nullopt;
  const std::string caption =
      "Per judge, the share of its order flips made at base-order q ≥ 0.9 (the counts in the row label), with the "
      "95% Wilson interval of those counts; judges without flips are not drawn (JEV Fig. 7b).";
  return PlotFile{"metrics_paper_f7b_confident_flips",
                  with_caption(forest_svg("Flips made at high confidence", "share of the judge's flips", {section},
                                          "share with its 95% Wilson interval"),
                               caption),
                  csv};
}

}  // namespace

void add_flip_figures(const Source& s, std::vector<PlotFile>& out) {
  const std::vector<const FlipSummary*> flips = pooled_flips(s);
  if (flips.empty()) return;
  if (auto figure = flip_share_figure(s, flips)) out.push_back(std::move(*figure));
  if (auto figure = confident_flips_figure(flips)) out.push_back(std::move(*figure));
}

}  // namespace paper_plots
}  // namespace judgestat
