// Small hand-written SVG helpers shared by the plotting commands (`budget`, `cascade`): white
// background, grey axes, data drawn by the caller. No dependencies; numbers with two decimals.
// plot_axes.hpp builds the figures (round ticks, legends, CI whiskers and bands) on these.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace judgestat {

/// "12.34": coordinates with two decimals.
std::string svg_number(double value);

/// A <text> element; `text` is escaped; sizes below 11 px are drawn at 11 (the smallest text a
/// figure has at its 640 px default width). `extra` is inserted verbatim into the tag
/// (e.g. a transform attribute).
std::string svg_text(double x, double y, const std::string& text, const char* anchor = "middle", int size = 12,
                     const char* extra = "");

std::string svg_line(double x1, double y1, double x2, double y2, const char* style);

/// Plot area in pixels and the data range it shows; px/py map data to pixels.
struct PlotFrame {
  double width = 640, height = 400, left = 70, right = 20, top = 40, bottom = 55;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // data range
  double px(double x) const { return left + (x - x0) / (x1 - x0) * (width - left - right); }
  double py(double y) const { return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom); }
};

/// The <svg> opening tag, a white background and the title.
std::string svg_open(const PlotFrame& frame, const std::string& title);

using TickLabel = std::function<std::string(double)>;

/// Axes with ticks at the given data values, light grid lines, and axis titles.
std::string svg_axes(const PlotFrame& frame, const std::vector<double>& x_ticks, const std::vector<double>& y_ticks,
                     const std::string& x_title, const std::string& y_title, const TickLabel& label_x,
                     const TickLabel& label_y);

/// count + 1 evenly spaced ticks from lo to hi.
std::vector<double> even_ticks(double lo, double hi, int count);

/// A filled circle; `title` (when not empty) becomes a hover tooltip.
std::string svg_circle(double cx, double cy, double r, const std::string& fill, const std::string& title = "");

/// A cross (×) of half-width r at (cx, cy): a scatter's second mark beside svg_circle.
std::string svg_cross(double cx, double cy, double r, const std::string& colour, const std::string& title = "");

/// A polyline through the points (pixel coordinates).
std::string svg_polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                         double width = 2.0, const std::string& dash = "");

/// One legend entry: a short line sample (dashed when `dash` is given) and its label.
std::string svg_legend_entry(double x, double y, const std::string& colour, const std::string& label,
                             const std::string& dash = "");

}  // namespace judgestat
