// The paper-grade plotting layer over svg.hpp: round tick values, tick labels with the fewest
// digits that tell them apart, a figure whose legend sits below the plot area (the canvas grows
// to hold it, so it is never clipped and never covers data), CI whiskers with caps, CI bands and
// dashed reference lines. Text widths are estimated at 0.6 × font size per character.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/svg.hpp"

namespace judgestat {

/// Tick values on multiples of a round step (1, 2, 2.5 or 5 × 10^k) inside [lo, hi], about
/// `target` steps apart; each value is the double nearest k · step (0.85, never 0.8500000001).
struct NiceTicks {
  std::vector<double> values;
  double step = 1;
};
NiceTicks nice_ticks(double lo, double hi, int target = 5);

/// [lo, hi] widened to the enclosing multiples of nice_ticks' step, so the axis ends on a tick.
/// A degenerate range (lo = hi) is widened around its value first.
std::pair<double, double> nice_range(double lo, double hi, int target = 5);

/// Labels with the fewest decimals (0–10) that write every tick exactly ("0.80" "0.85" "0.90";
/// "1" "2" "3"; "0.25" "0.5" → "0.25" "0.50").
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

/// Estimated width in pixels of `text` at font size `size`: 0.6 · size per character (UTF-8
/// code points).
double text_width(const std::string& text, int size);

/// Font sizes of every figure (none below 11 px at the 640 px default width).
inline constexpr int kTitleSize = 14, kAxisTitleSize = 13, kTickSize = 12, kLegendSize = 12, kNoteSize = 11;

/// How a legend entry is drawn.
enum class LegendMark { kLine, kDashed, kPointWithBar, kBand, kBar, kPoint, kCross };

struct LegendEntry {
  std::string label, colour;
  LegendMark mark = LegendMark::kLine;
};

/// A figure in the making: the frame's plot area and data range, the axes and what the caller
/// drew (`body`, in the frame's pixels). render() lays the legend out below the x-axis title,
/// several entries to a row when they fit, and grows the canvas (never the plot area) to hold
/// it, the title and the longest entry.
struct Figure {
  PlotFrame frame;
  std::string title, x_title, y_title;
  std::vector<double> x_ticks, y_ticks;
  std::vector<std::string> x_labels, y_labels;  // empty: tick_labels() of the ticks
  bool x_grid = false;                          // vertical grid lines too
  std::string body;
  std::vector<LegendEntry> legend;
  std::string render() const;
};

/// A frame's x (or y) range set to nice_range of [lo, hi] with its ticks.
void set_x_axis(Figure& figure, double lo, double hi, int target = 5);
void set_y_axis(Figure& figure, double lo, double hi, int target = 5);

/// A vertical CI whisker from lo to hi at x with caps (data coordinates), and its point.
std::string svg_error_bar_y(const PlotFrame& f, double x, double estimate, double lo, double hi,
                            const std::string& colour, const std::string& title = "", double cap = 4);
/// A horizontal CI whisker at pixel row y (a forest plot's row) with caps, and its point.
std::string svg_error_bar_x(const PlotFrame& f, double y_px, double estimate, double lo, double hi,
                            const std::string& colour, const std::string& title = "", double cap = 4);
/// A filled translucent polygon between the lower and upper curves (data coordinates; the
/// points share their x values, in order).
std::string svg_band(const PlotFrame& f, const std::vector<double>& x, const std::vector<double>& lo,
                     const std::vector<double>& hi, const std::string& colour, double opacity = 0.2);
/// Dashed reference lines across the plot area at data y, or from top to bottom at data x.
std::string svg_hline(const PlotFrame& f, double y, const std::string& colour, const std::string& dash = "5,4");
std::string svg_vline(const PlotFrame& f, double x, const std::string& colour, const std::string& dash = "5,4");

/// The Wilson score interval of a binomial share (successes of n), z = 1.96 by default: the
/// Monte Carlo error of a share of draws; {0, 1} when n = 0.
std::pair<double, double> wilson_interval(uint64_t successes, uint64_t n, double z = 1.959963984540054);

/// An x axis over label counts k on a log2 scale, ticks at the given k (ascending, >= 1).
void set_log_k_axis(Figure& figure, const std::vector<uint32_t>& ks);

/// The held-out Δ histogram of a label-budget run on bins aligned to the Δ grid (defined in
/// budget_report.cpp): bin b covers [left_steps, left_steps + width_steps) grid steps, step =
/// 1/(2(N − k)); every edge is a multiple of the step and Δ = 0 is an edge.
struct DeltaBin {
  int64_t left_steps = 0;
  uint64_t draws = 0;
};
struct DeltaBins {
  double step = 0;
  int64_t width_steps = 1;
  std::vector<DeltaBin> bins;  // consecutive, from the lowest Δ hit to the highest
};
struct BudgetSummary;
DeltaBins delta_bins(const BudgetSummary& summary, int max_bins = 60);

/// A dot-and-whisker ("forest") plot: sections (a statistic, a condition) of rows (judges), each
/// an estimate with its CI on a shared x axis; row labels on the left, the margin as wide as the
/// longest label. Values are in the axis unit (multiply before). Colours by row label.
struct ForestRow {
  std::string label;
  double estimate = NAN, lo = NAN, hi = NAN;
  std::string tip;  // hover text
};
struct ForestSection {
  std::string title;
  std::vector<ForestRow> rows;
};
std::string forest_svg(const std::string& title, const std::string& x_title, const std::vector<ForestSection>& sections,
                       const std::string& legend_note = "");

/// Colours for series by index (ten, then repeating).
const char* palette_colour(size_t index);

/// A number for a CSV cell: shortest round-trip text ("0.85", "nan").
std::string csv_number(double value);
/// A file-name part from a group or benchmark name: letters, digits, '-' and '_' kept, others '_'.
std::string safe_plot_name(const std::string& name);

/// A CSV field, quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& text);

}  // namespace judgestat
