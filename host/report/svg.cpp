#include "report/svg.hpp"

#include <algorithm>
#include <cstdio>

namespace judgestat {

std::string svg_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string svg_text(double x, double y, const std::string& text, const char* anchor, int size, const char* extra) {
  std::string escaped;
  for (char ch : text) {
    if (ch == '<')
      escaped += "&lt;";
    else if (ch == '>')
      escaped += "&gt;";
    else if (ch == '&')
      escaped += "&amp;";
    else if (ch == '"')
      escaped += "&quot;";
    else
      escaped += ch;
  }
  return "<text x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" text-anchor=\"" + anchor + "\" font-size=\"" +
         std::to_string(std::max(size, 11)) + "\"" + extra + ">" + escaped + "</text>\n";
}

std::string svg_line(double x1, double y1, double x2, double y2, const char* style) {
  return "<line x1=\"" + svg_number(x1) + "\" y1=\"" + svg_number(y1) + "\" x2=\"" + svg_number(x2) + "\" y2=\"" +
         svg_number(y2) + "\" style=\"" + style + "\"/>\n";
}

std::string svg_open(const PlotFrame& f, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(f.width) + "\" height=\"" +
         svg_number(f.height) + "\" viewBox=\"0 0 " + svg_number(f.width) + " " + svg_number(f.height) +
         "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         svg_text(f.width / 2, 22, title, "middle", 14);
}

std::string svg_axes(const PlotFrame& f, const std::vector<double>& x_ticks, const std::vector<double>& y_ticks,
                     const std::string& x_title, const std::string& y_title, const TickLabel& label_x,
                     const TickLabel& label_y) {
  const char* axis = "stroke:#444;stroke-width:1";
  std::string out = svg_line(f.left, f.py(f.y0), f.width - f.right, f.py(f.y0), axis) +
                    svg_line(f.left, f.top, f.left, f.py(f.y0), axis);
  for (double x : x_ticks) {
    out += svg_line(f.px(x), f.py(f.y0), f.px(x), f.py(f.y0) + 5, axis);
    out += svg_text(f.px(x), f.py(f.y0) + 18, label_x(x));
  }
  for (double y : y_ticks) {
    out += svg_line(f.left - 5, f.py(y), f.left, f.py(y), axis);
    out += svg_line(f.left, f.py(y), f.width - f.right, f.py(y), "stroke:#ddd;stroke-width:1");
    out += svg_text(f.left - 8, f.py(y) + 4, label_y(y), "end");
  }
  out += svg_text((f.left + f.width - f.right) / 2, f.height - 12, x_title);
  out += svg_text(16, (f.top + f.py(f.y0)) / 2, y_title, "middle", 12,
                  (" transform=\"rotate(-90 16 " + svg_number((f.top + f.py(f.y0)) / 2) + ")\"").c_str());
  return out;
}

std::vector<double> even_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  for (int n = 0; n <= count; ++n) ticks.push_back(lo + (hi - lo) * n / count);
  return ticks;
}

namespace {

// A hover tooltip element (<title>), its text escaped.
std::string title_element(const std::string& title) {
  std::string escaped;
  for (char ch : title)
    escaped += ch == '<' ? std::string("&lt;") : ch == '&' ? std::string("&amp;") : std::string(1, ch);
  return "<title>" + escaped + "</title>";
}

}  // namespace

std::string svg_circle(double cx, double cy, double r, const std::string& fill, const std::string& title) {
  std::string out = "<circle cx=\"" + svg_number(cx) + "\" cy=\"" + svg_number(cy) + "\" r=\"" + svg_number(r) +
                    "\" fill=\"" + fill + "\"";
  if (title.empty()) return out + "/>\n";
  return out + ">" + title_element(title) + "</circle>\n";
}

std::string svg_cross(double cx, double cy, double r, const std::string& colour, const std::string& title) {
  const std::string style = "stroke:" + colour + ";stroke-width:1.6";
  std::string out = "<g>" + svg_line(cx - r, cy - r, cx + r, cy + r, style.c_str()) +
                    svg_line(cx - r, cy + r, cx + r, cy - r, style.c_str());
  if (!title.empty()) out += title_element(title);
  return out + "</g>\n";
}

std::string svg_polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double width,
                         const std::string& dash) {
  std::string coordinates;
  for (const auto& [x, y] : points) coordinates += svg_number(x) + "," + svg_number(y) + " ";
  return "<polyline points=\"" + coordinates + "\" fill=\"none\" stroke=\"" + stroke + "\" stroke-width=\"" +
         svg_number(width) + "\"" + (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>\n";
}

std::string svg_legend_entry(double x, double y, const std::string& colour, const std::string& label,
                             const std::string& dash) {
  const std::string style = "stroke:" + colour + ";stroke-width:2" + (dash.empty() ? "" : ";stroke-dasharray:" + dash);
  return svg_line(x, y, x + 20, y, style.c_str()) + svg_text(x + 26, y + 4, label, "start", 11);
}

}  // namespace judgestat
