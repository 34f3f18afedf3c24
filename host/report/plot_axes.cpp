#include "report/plot_axes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "report/report.hpp"

namespace judgestat {

namespace {

// A step mantissa × 10^exponent, with the mantissa in tenths (10, 20, 25, 50) so that every
// tick k · step is computed as one correctly rounded product or quotient of integers.
struct Step {
  int64_t tenths = 10;
  int exponent = 0;
  double value() const { return scaled(1); }
  double scaled(int64_t k) const {
    const double whole = static_cast<double>(k * tenths);
    const int e = exponent - 1;
    return e >= 0 ? whole * std::pow(10.0, e) : whole / std::pow(10.0, -e);
  }
};

Step round_step(double span, int target) {
  target = std::max(1, target);
  const double raw = span / target;
  int exponent = static_cast<int>(std::floor(std::log10(raw)));
  for (;; ++exponent)
    for (int64_t tenths : {10, 20, 25, 50}) {
      const Step step{tenths, exponent};
      if (step.value() >= raw * (1 - 1e-9)) return step;
    }
}

// Multiples of the step covering [lo, hi] (inward: floor of hi, ceil of lo).
std::pair<int64_t, int64_t> multiples(double lo, double hi, double step) {
  const double eps = 1e-9;
  return {static_cast<int64_t>(std::ceil(lo / step - eps)), static_cast<int64_t>(std::floor(hi / step + eps))};
}

std::pair<double, double> widened(double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi))) return {0, 1};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1e-12) {
    const double pad = std::max(std::fabs(lo) * 0.05, 1e-3);
    return {lo - pad, hi + pad};
  }
  return {lo, hi};
}

std::string format_decimals(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string out = text;
  if (out == "-0" || out.rfind("-0.", 0) == 0) {  // "-0.00" for a value rounding to zero
    if (std::strtod(out.c_str(), nullptr) == 0) out.erase(0, 1);
  }
  if (!out.empty() && out[0] == '-') out.replace(0, 1, "−");
  return out;
}

std::string legend_sample(const LegendEntry& e, double x, double y) {
  const std::string& c = e.colour;
  switch (e.mark) {
    case LegendMark::kDashed:
      return svg_line(x, y, x + 24, y, ("stroke:" + c + ";stroke-width:2;stroke-dasharray:5,4").c_str());
    case LegendMark::kPointWithBar:
      return svg_line(x + 12, y - 6, x + 12, y + 6, ("stroke:" + c + ";stroke-width:1.5").c_str()) +
             svg_line(x + 8, y - 6, x + 16, y - 6, ("stroke:" + c + ";stroke-width:1.5").c_str()) +
             svg_line(x + 8, y + 6, x + 16, y + 6, ("stroke:" + c + ";stroke-width:1.5").c_str()) +
             svg_circle(x + 12, y, 3.5, c);
    case LegendMark::kBand:
      return "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y - 6) + "\" width=\"24\" height=\"12\" fill=\"" +
             c + "\" fill-opacity=\"0.25\"/>\n" +
             svg_line(x, y, x + 24, y, ("stroke:" + c + ";stroke-width:2").c_str());
    case LegendMark::kBar:
      return "<rect x=\"" + svg_number(x + 4) + "\" y=\"" + svg_number(y - 6) +
             "\" width=\"16\" height=\"12\" fill=\"" + c + "\"/>\n";
    case LegendMark::kPoint:
      return svg_circle(x + 12, y, 3.5, c);
    case LegendMark::kCross:
      return svg_cross(x + 12, y, 4, c);
    case LegendMark::kLine:
    default:
      return svg_line(x, y, x + 24, y, ("stroke:" + c + ";stroke-width:2").c_str());
  }
}

constexpr double kSampleWidth = 24, kSampleGap = 6, kEntryGap = 18, kLegendRow = 20;

double entry_width(const LegendEntry& e) { return kSampleWidth + kSampleGap + text_width(e.label, kLegendSize); }

}  // namespace

NiceTicks nice_ticks(double lo, double hi, int target) {
  std::tie(lo, hi) = widened(lo, hi);
  const Step step = round_step(hi - lo, target);
  NiceTicks out;
  out.step = step.value();
  const auto [first, last] = multiples(lo, hi, out.step);
  for (int64_t k = first; k <= last; ++k) out.values.push_back(step.scaled(k));
  return out;
}

std::pair<double, double> nice_range(double lo, double hi, int target) {
  std::tie(lo, hi) = widened(lo, hi);
  const Step step = round_step(hi - lo, target);
  const double s = step.value(), eps = 1e-9;
  return {step.scaled(static_cast<int64_t>(std::floor(lo / s + eps))),
          step.scaled(static_cast<int64_t>(std::ceil(hi / s - eps)))};
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
  double spread = 0;
  for (double t : ticks) spread = std::max(spread, std::fabs(t));
  for (int decimals = 0; decimals <= 10; ++decimals) {
    bool exact = true;
    for (double t : ticks) {
      char text[64];
      std::snprintf(text, sizeof text, "%.*f", decimals, t);
      if (std::fabs(std::strtod(text, nullptr) - t) > 1e-9 * std::max(1.0, spread)) exact = false;
    }
    if (!exact) continue;
    std::vector<std::string> out;
    for (double t : ticks) out.push_back(format_decimals(t, decimals));
    return out;
  }
  std::vector<std::string> out;
  for (double t : ticks) out.push_back(format_decimals(t, 10));
  return out;
}

double text_width(const std::string& text, int size) {
  size_t points = 0;
  for (unsigned char ch : text) points += (ch & 0xC0) != 0x80;  // count UTF-8 lead bytes
  return 0.6 * size * static_cast<double>(points);
}

void set_x_axis(Figure& figure, double lo, double hi, int target) {
  std::tie(figure.frame.x0, figure.frame.x1) = nice_range(lo, hi, target);
  figure.x_ticks = nice_ticks(figure.frame.x0, figure.frame.x1, target).values;
}

void set_y_axis(Figure& figure, double lo, double hi, int target) {
  std::tie(figure.frame.y0, figure.frame.y1) = nice_range(lo, hi, target);
  figure.y_ticks = nice_ticks(figure.frame.y0, figure.frame.y1, target).values;
}

std::string Figure::render() const {
  const PlotFrame& f = frame;
  // Legend rows below the x-axis title, packed left to right within the canvas width.
  double width = std::max(f.width, text_width(title, kTitleSize) + 20);
  for (const LegendEntry& e : legend) width = std::max(width, entry_width(e) + 2 * 12);
  std::vector<std::vector<size_t>> rows;
  double used = 0;
  for (size_t n = 0; n < legend.size(); ++n) {
    const double w = entry_width(legend[n]);
    if (rows.empty() || used + kEntryGap + w > width - 2 * 12) {
      rows.push_back({});
      used = -kEntryGap;
    }
    rows.back().push_back(n);
    used += kEntryGap + w;
  }
  const double legend_top = f.height + 4;
  const double height = f.height + (rows.empty() ? 0 : 8 + kLegendRow * static_cast<double>(rows.size()));

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(width) + "\" height=\"" +
                    svg_number(height) + "\" viewBox=\"0 0 " + svg_number(width) + " " + svg_number(height) +
                    "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
                    svg_text(width / 2, 22, title, "middle", kTitleSize);
  const char* axis = "stroke:#444;stroke-width:1";
  const double bottom = f.py(f.y0), right = f.width - f.right;
  const std::vector<std::string> xl = x_labels.empty() ? tick_labels(x_ticks) : x_labels;
  const std::vector<std::string> yl = y_labels.empty() ? tick_labels(y_ticks) : y_labels;
  for (size_t n = 0; n < x_ticks.size(); ++n) {
    const double x = f.px(x_ticks[n]);
    if (x_grid) out += svg_line(x, f.top, x, bottom, "stroke:#e4e4e4;stroke-width:1");
    out += svg_line(x, bottom, x, bottom + 5, axis);
    out += svg_text(x, bottom + 18, n < xl.size() ? xl[n] : "", "middle", kTickSize);
  }
  for (size_t n = 0; n < y_ticks.size(); ++n) {
    const double y = f.py(y_ticks[n]);
    out += svg_line(f.left, y, right, y, "stroke:#e4e4e4;stroke-width:1");
    out += svg_line(f.left - 5, y, f.left, y, axis);
    out += svg_text(f.left - 8, y + 4, n < yl.size() ? yl[n] : "", "end", kTickSize);
  }
  out += body;
  out += svg_line(f.left, bottom, right, bottom, axis) + svg_line(f.left, f.top, f.left, bottom, axis);
  out += svg_text((f.left + right) / 2, f.height - 12, x_title, "middle", kAxisTitleSize);
  const double mid = (f.top + bottom) / 2;
  if (!y_title.empty())
    out += svg_text(18, mid, y_title, "middle", kAxisTitleSize,
                    (" transform=\"rotate(-90 18 " + svg_number(mid) + ")\"").c_str());
  for (size_t r = 0; r < rows.size(); ++r) {
    double x = 12;
    const double y = legend_top + kLegendRow * (static_cast<double>(r) + 0.5) + 4;
    for (size_t n : rows[r]) {
      out += legend_sample(legend[n], x, y);
      out += svg_text(x + kSampleWidth + kSampleGap, y + 4, legend[n].label, "start", kLegendSize);
      x += entry_width(legend[n]) + kEntryGap;
    }
  }
  return out + "</svg>\n";
}

std::string svg_error_bar_y(const PlotFrame& f, double x, double estimate, double lo, double hi,
                            const std::string& colour, const std::string& title, double cap) {
  const std::string style = "stroke:" + colour + ";stroke-width:1.5";
  const double px = f.px(x);
  std::string out;
  if (std::isfinite(lo) && std::isfinite(hi)) {
    out += svg_line(px, f.py(lo), px, f.py(hi), style.c_str());
    out += svg_line(px - cap, f.py(lo), px + cap, f.py(lo), style.c_str());
    out += svg_line(px - cap, f.py(hi), px + cap, f.py(hi), style.c_str());
  }
  return out + svg_circle(px, f.py(estimate), 3.5, colour, title);
}

std::string svg_error_bar_x(const PlotFrame& f, double y_px, double estimate, double lo, double hi,
                            const std::string& colour, const std::string& title, double cap) {
  const std::string style = "stroke:" + colour + ";stroke-width:1.5";
  std::string out;
  if (std::isfinite(lo) && std::isfinite(hi)) {
    out += svg_line(f.px(lo), y_px, f.px(hi), y_px, style.c_str());
    out += svg_line(f.px(lo), y_px - cap, f.px(lo), y_px + cap, style.c_str());
    out += svg_line(f.px(hi), y_px - cap, f.px(hi), y_px + cap, style.c_str());
  }
  return out + svg_circle(f.px(estimate), y_px, 3.5, colour, title);
}

std::string svg_band(const PlotFrame& f, const std::vector<double>& x, const std::vector<double>& lo,
                     const std::vector<double>& hi, const std::string& colour, double opacity) {
  std::string points;
  for (size_t n = 0; n < x.size(); ++n) points += svg_number(f.px(x[n])) + "," + svg_number(f.py(hi[n])) + " ";
  for (size_t n = x.size(); n-- > 0;) points += svg_number(f.px(x[n])) + "," + svg_number(f.py(lo[n])) + " ";
  return "<polygon points=\"" + points + "\" fill=\"" + colour + "\" fill-opacity=\"" + svg_number(opacity) +
         "\" stroke=\"none\"/>\n";
}

std::string svg_hline(const PlotFrame& f, double y, const std::string& colour, const std::string& dash) {
  return svg_line(f.left, f.py(y), f.width - f.right, f.py(y),
                  ("stroke:" + colour + ";stroke-width:1.5;stroke-dasharray:" + dash).c_str());
}

std::string svg_vline(const PlotFrame& f, double x, const std::string& colour, const std::string& dash) {
  return svg_line(f.px(x), f.top, f.px(x), f.py(f.y0),
                  ("stroke:" + colour + ";stroke-width:1.5;stroke-dasharray:" + dash).c_str());
}

std::pair<double, double> wilson_interval(uint64_t successes, uint64_t n, double z) {
  if (n == 0) return {0.0, 1.0};
  const double nd = static_cast<double>(n), p = static_cast<double>(successes) / nd, z2 = z * z;
  const double centre = (p + z2 / (2 * nd)) / (1 + z2 / nd);
  const double half = z * std::sqrt(p * (1 - p) / nd + z2 / (4 * nd * nd)) / (1 + z2 / nd);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

void set_log_k_axis(Figure& figure, const std::vector<uint32_t>& ks) {
  figure.x_ticks.clear();
  figure.x_labels.clear();
  for (uint32_t k : ks) {
    figure.x_ticks.push_back(std::log2(static_cast<double>(k)));
    figure.x_labels.push_back(std::to_string(k));
  }
  const double pad = ks.size() > 1 ? 0.25 : 1.0;
  figure.frame.x0 = figure.x_ticks.front() - pad;
  figure.frame.x1 = figure.x_ticks.back() + pad;
}

const char* palette_colour(size_t index) {
  static const char* const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colours[index % 10];
}

std::string forest_svg(const std::string& title, const std::string& x_title, const std::vector<ForestSection>& sections,
                       const std::string& legend_note) {
  constexpr double kRow = 20, kHeading = 24;
  double label_width = 0, lo = INFINITY, hi = -INFINITY;
  std::vector<std::string> labels;  // colour per distinct row label, first appearance
  size_t rows = 0;
  for (const ForestSection& section : sections) {
    label_width = std::max(label_width, text_width(section.title, kTickSize) - 4);
    for (const ForestRow& row : section.rows) {
      ++rows;
      label_width = std::max(label_width, text_width(row.label, kTickSize));
      for (double v : {row.estimate, row.lo, row.hi})
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      if (std::find(labels.begin(), labels.end(), row.label) == labels.end()) labels.push_back(row.label);
    }
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  Figure fig;
  fig.frame.left = label_width + 24;
  fig.frame.width = std::max(640.0, fig.frame.left + 380);
  fig.frame.top = 44;
  fig.frame.right = 32;  // room for a whisker cap at the axis end
  fig.frame.bottom = 55;
  fig.frame.height = fig.frame.top + kHeading * static_cast<double>(sections.size()) +
                     kRow * static_cast<double>(rows) + 8 + fig.frame.bottom;
  set_x_axis(fig, lo, hi, 6);
  fig.x_grid = true;
  fig.frame.y0 = 0;
  fig.frame.y1 = 1;
  fig.title = title;
  fig.x_title = x_title;
  if (!legend_note.empty()) fig.legend.push_back({legend_note, "#444444", LegendMark::kPointWithBar});
  const PlotFrame& f = fig.frame;
  double y = f.top;
  for (size_t n = 0; n < sections.size(); ++n) {
    const ForestSection& section = sections[n];
    const double height = kHeading + kRow * static_cast<double>(section.rows.size());
    if (n % 2 == 0)
      fig.body += "<rect x=\"" + svg_number(4) + "\" y=\"" + svg_number(y) + "\" width=\"" +
                  svg_number(f.width - f.right - 4) + "\" height=\"" + svg_number(height) +
                  "\" fill=\"#f0f0f0\" fill-opacity=\"0.6\"/>\n";
    fig.body += svg_text(8, y + 16, section.title, "start", kTickSize, " font-weight=\"bold\"");
    y += kHeading;
    for (const ForestRow& row : section.rows) {
      const double mid = y + kRow / 2;
      const size_t colour = std::find(labels.begin(), labels.end(), row.label) - labels.begin();
      fig.body += svg_text(f.left - 8, mid + 4, row.label, "end", kTickSize);
      if (std::isfinite(row.estimate))
        fig.body += svg_error_bar_x(f, mid, row.estimate, row.lo, row.hi, palette_colour(colour), row.tip);
      y += kRow;
    }
  }
  return fig.render();
}

std::string csv_number(double value) {
  if (std::isnan(value)) return "nan";
  std::string out;
  append_17g(out, value);
  return out;
}

std::string safe_plot_name(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace judgestat
