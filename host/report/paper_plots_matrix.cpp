// The heatmap of the paper figures (report/paper_plots.hpp), the error-correction matrix from
// the metrics report's complementarity counts (JEV Fig. 22) and the confidence distribution per
// group from its per-group reliability bins (JEV Fig. 16, bottom).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "report/paper_plots.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace paper_plots {
namespace {

// White-blue scale: t in [0, 1] from #f7fbff to #08519c.
std::string heat_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(std::lround(247 + t * (8 - 247))),
                static_cast<int>(std::lround(251 + t * (81 - 251))),
                static_cast<int>(std::lround(255 + t * (156 - 255))));
  return text;
}

double scale_of(const Heatmap& m, double value) { return m.hi > m.lo ? (value - m.lo) / (m.hi - m.lo) : 0.5; }

std::string heat_cell(const Heatmap& m, const HeatCell& cell, double x, double y, double w, double h) {
  const bool empty = !std::isfinite(cell.value);
  const double t = empty ? 0 : scale_of(m, cell.value);
  std::string out = "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(w) +
                    "\" height=\"" + svg_number(h) + "\" fill=\"" + (empty ? std::string("#e8e8e8") : heat_colour(t)) +
                    "\" stroke=\"white\" stroke-width=\"2\">" +
                    (cell.tip.empty() ? "" : "<title>" + xml_escape(cell.tip) + "</title>") + "</rect>\n";
  const char* ink = t > 0.6 ? " fill=\"white\"" : " fill=\"#111111\"";
  if (empty) return out + svg_text(x + w / 2, y + h / 2 + 4, "—", "middle", kTickSize, " fill=\"#777777\"");
  return out + svg_text(x + w / 2, y + h / 2 - 1, cell.line1, "middle", kTickSize, ink) +
         svg_text(x + w / 2, y + h / 2 + 13, cell.line2, "middle", kNoteSize, ink);
}

// Five swatches from lo to hi with their values, then the key's title.
std::string heat_key(const Heatmap& m, double y) {
  std::string out;
  for (int k = 0; k <= 4; ++k) {
    const double x = 12 + 64 * k;
    out += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"60\" height=\"12\" fill=\"" +
           heat_colour(k / 4.0) + "\"/>\n";
    out += svg_text(x + 30, y + 26, fixed(m.lo + (m.hi - m.lo) * k / 4.0, 3), "middle", kNoteSize);
  }
  return out + svg_text(12 + 64 * 5 + 4, y + 10, m.key_title, "start", kLegendSize);
}

}  // namespace

std::string heatmap_svg(const Heatmap& m) {
  double cell_w = 72, row_label = 0, column_label = 0;
  for (const auto& row : m.cells)
    for (const HeatCell& c : row) cell_w = std::max(cell_w, text_width(c.line2, kNoteSize) + 10);
  for (const std::string& r : m.rows) row_label = std::max(row_label, text_width(r, kTickSize));
  for (const std::string& c : m.columns) column_label = std::max(column_label, text_width(c, kTickSize));
  constexpr double kCellH = 40;
  const double left = row_label + 44, top = 68 + column_label;
  const double grid_w = cell_w * static_cast<double>(m.columns.size());
  const double grid_h = kCellH * static_cast<double>(m.rows.size());
  const double width = std::max({left + grid_w + 20, text_width(m.title, kTitleSize) + 20,
                                 12 + 64 * 5 + 8 + text_width(m.key_title, kLegendSize) + 12});
  const double height = top + grid_h + 56;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(width) + "\" height=\"" +
                    svg_number(height) + "\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
                    "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
                    svg_text(width / 2, 22, m.title, "middle", kTitleSize) +
                    svg_text(left + grid_w / 2, 44, m.column_title, "middle", kAxisTitleSize);
  const std::string row_mid = svg_number(top + grid_h / 2);
  out += svg_text(16, top + grid_h / 2, m.row_title, "middle", kAxisTitleSize,
                  (" transform=\"rotate(-90 16 " + row_mid + ")\"").c_str());
  for (size_t c = 0; c < m.columns.size(); ++c) {
    const double x = left + cell_w * (static_cast<double>(c) + 0.5) + 4, y = top - 6;
    out += svg_text(x, y, m.columns[c], "start", kTickSize,
                    (" transform=\"rotate(-90 " + svg_number(x) + " " + svg_number(y) + ")\"").c_str());
  }
  for (size_t r = 0; r < m.rows.size(); ++r) {
    const double y = top + kCellH * static_cast<double>(r);
    out += svg_text(left - 8, y + kCellH / 2 + 4, m.rows[r], "end", kTickSize);
    for (size_t c = 0; c < m.columns.size(); ++c)
      out += heat_cell(m, m.cells[r][c], left + cell_w * static_cast<double>(c), y, cell_w, kCellH);
  }
  return out + heat_key(m, top + grid_h + 14) + "</svg>\n";
}

namespace {

// Errors of `whose` that `by` gets right, and `whose` errors, on the units both rated.
struct Correction {
  int64_t corrected = 0, errors = 0;
};

std::map<std::pair<std::string, std::string>, Correction> corrections(const Source& s,
                                                                      std::vector<std::string>& judges) {
  std::map<std::pair<std::string, std::string>, Correction> out;  // (whose errors, corrected by)
  for (const Complementarity& c : s.report.complementarity) {
    if (c.benchmark || c.condition || !s.drawn(c.judge) || !s.drawn(c.reference)) continue;
    out[{c.reference, c.judge}] = {c.judge_only, c.judge_only + c.both_wrong};
    out[{c.judge, c.reference}] = {c.reference_only, c.reference_only + c.both_wrong};
  }
  for (const std::string& judge : s.judges)
    for (const auto& entry : out)
      if (entry.first.first == judge || entry.first.second == judge) {
        judges.push_back(judge);
        break;
      }
  return out;
}

}  // namespace

void add_error_correction(const Source& s, std::vector<PlotFile>& out) {
  Heatmap map;
  const auto cells = corrections(s, map.rows);
  if (cells.empty()) return;
  map.columns = map.rows;
  map.title = "Share of each judge's errors another judge gets right";
  map.row_title = "errors of", map.column_title = "corrected by", map.key_title = "share of the row judge's errors";
  map.cells.assign(map.rows.size(), std::vector<HeatCell>(map.columns.size()));
  std::string csv = "errors_of,corrected_by,errors,corrected,share\n";
  for (size_t r = 0; r < map.rows.size(); ++r)
    for (size_t c = 0; c < map.columns.size(); ++c) {
      const auto it = cells.find({map.rows[r], map.columns[c]});
      if (it == cells.end() || it->second.errors == 0) continue;
      const Correction& k = it->second;
      const double share = static_cast<double>(k.corrected) / static_cast<double>(k.errors);
      map.cells[r][c] = {share, fixed(share, 3), std::to_string(k.corrected) + " of " + std::to_string(k.errors),
                         map.columns[c] + " gets right " + std::to_string(k.corrected) + " of " + map.rows[r] + "'s " +
                             std::to_string(k.errors) + " errors"};
      csv += csv_field(map.rows[r]) + "," + csv_field(map.columns[c]) + "," + std::to_string(k.errors) + "," +
             std::to_string(k.corrected) + "," + csv_number(share) + "\n";
    }
  const std::string caption =
      "Of the row judge's order-0 errors on items both judges rated, the share the column judge gets right (the "
      "counts under the share); grey: a pair the run did not compare (metrics --pairs all compares every pair) "
      "(JEV Fig. 22).";
  out.push_back({"metrics_paper_f22_error_correction", with_caption(heatmap_svg(map), caption), csv});
}

namespace {

// The share of a table's outputs in each bin.
double bin_share(const ReliabilityTable& t, size_t b) {
  return t.n > 0 ? static_cast<double>(t.bins[b].n) / static_cast<double>(t.n) : 0;
}

PlotFile distribution_figure(const std::string& judge, const std::vector<const ProbabilitySummary*>& groups) {
  int first = kConfidenceBins, last = -1;
  double top = 0;
  for (const ProbabilitySummary* p : groups)
    for (size_t b = 0; b < p->reliability.bins.size(); ++b)
      if (p->reliability.bins[b].n > 0)
        first = std::min(first, static_cast<int>(b)), last = static_cast<int>(b),
        top = std::max(top, bin_share(p->reliability, b));
  Figure fig;
  set_x_axis(fig, first / static_cast<double>(kConfidenceBins), (last + 1) / static_cast<double>(kConfidenceBins));
  set_y_axis(fig, 0, top);
  fig.x_grid = true;
  fig.title = judge + ": confidence distribution by group";
  fig.x_title = "q (largest label probability), middle of each 0.1 bin";
  fig.y_title = "share of the group's outputs";
  std::string csv = "judge,group,order,bin_lo,bin_hi,n,share\n";
  for (size_t g = 0; g < groups.size(); ++g) {
    const ReliabilityTable& t = groups[g]->reliability;
    std::vector<std::pair<double, double>> line;
    for (int b = first; b <= last; ++b) {
      const double x = (b + 0.5) / kConfidenceBins, share = bin_share(t, static_cast<size_t>(b));
      line.push_back({fig.frame.px(x), fig.frame.py(share)});
      csv += csv_field(judge) + "," + csv_text(groups[g]->group) + "," + csv_order(groups[g]->order) + "," +
             csv_number(b / static_cast<double>(kConfidenceBins)) + "," +
             csv_number((b + 1) / static_cast<double>(kConfidenceBins)) + "," + std::to_string(t.bins[b].n) + "," +
             csv_number(share) + "\n";
    }
    fig.body += svg_polyline(line, palette_colour(g), 2);
    fig.legend.push_back({*groups[g]->group + " (n " + std::to_string(t.n) + ")", palette_colour(g)});
  }
  const std::string caption = "Share of " + judge + "'s valid outputs with probabilities (" +
                              presentation_text(groups.front()->order) +
                              ") in each q bin, one line per group; shares of counts, no interval (JEV Fig. 16, "
                              "bottom).";
  return {"metrics_paper_f16_confidence_" + safe_plot_name(judge), with_caption(fig.render(), caption), csv};
}

}  // namespace

void add_distribution_figures(const Source& s, std::vector<PlotFile>& out) {
  const std::vector<const ProbabilitySummary*> summaries = base_summaries(s, true);
  for (const std::string& judge : s.judges) {
    std::vector<const ProbabilitySummary*> groups;
    for (const ProbabilitySummary* p : summaries)
      if (p->judge == judge && p->reliability.n > 0) groups.push_back(p);
    if (!groups.empty()) out.push_back(distribution_figure(judge, groups));
  }
}

}  // namespace paper_plots
}  // namespace judgestat
