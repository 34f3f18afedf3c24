// What the tests of JEV's figures (report/paper_plots.hpp, repeats_paper_plot_files) read out
// of an SVG and its CSV by string search: the points drawn with a hover title, the numeric tick
// labels of an axis (whose ends bound the data range the axis shows), the canvas size, and the
// CSV's cells; plus the Wilson interval written out independently of plot_axes.cpp.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/report.hpp"

namespace judgestat::paper_plot_checks {

inline size_t count_of(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

/// Points drawn as estimates: circles with a hover title (legend samples have none).
inline size_t points_drawn(const std::string& svg) { return count_of(svg, "<circle [^>]*><title>"); }

/// Whisker caps: the short lines of svg_error_bar_x/_y come in pairs per interval.
struct Range {
  double lo = INFINITY, hi = -INFINITY;
  bool holds(double v) const { return v >= lo - 1e-12 && v <= hi + 1e-12; }
};

/// The numeric tick labels of the x axis (anchor middle, size 12, one shared y) or the y axis
/// (anchor end, size 12, one shared x): the smallest and largest.
inline Range axis_range(const std::string& svg, bool x_axis) {
  const std::regex re(
      "<text x=\"([0-9.]+)\" y=\"([0-9.]+)\" text-anchor=\"(middle|end)\" font-size=\"12\"[^>]*>([^<]*)</text>");
  std::map<std::string, std::vector<double>> by_line;  // shared coordinate → values
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    if (((*it)[3] == "middle") != x_axis) continue;
    std::string label = (*it)[4];
    const std::string minus = "−";
    if (label.rfind(minus, 0) == 0) label = "-" + label.substr(minus.size());
    char* end = nullptr;
    const double value = std::strtod(label.c_str(), &end);
    if (label.empty() || *end != '\0') continue;
    by_line[x_axis ? (*it)[2].str() : (*it)[1].str()].push_back(value);
  }
  Range range;
  size_t most = 0;
  for (const auto& entry : by_line)
    if (entry.second.size() > most) {
      most = entry.second.size();
      range = {*std::min_element(entry.second.begin(), entry.second.end()),
               *std::max_element(entry.second.begin(), entry.second.end())};
    }
  return range;
}

inline double attribute(const std::string& svg, const std::string& name) {
  const size_t at = svg.find(" " + name + "=\"");
  return at == std::string::npos ? NAN : std::strtod(svg.c_str() + at + name.size() + 3, nullptr);
}

/// Every <text> lies inside the canvas (its anchor point).
inline void expect_text_inside(const std::string& svg) {
  const double width = attribute(svg, "width"), height = attribute(svg, "height");
  const std::regex re("<text x=\"(-?[0-9.]+)\" y=\"(-?[0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    EXPECT_TRUE(x >= 0 && x <= width && y >= 0 && y <= height) << "text at " << x << "," << y;
  }
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t column(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << "no column " << name;
    return static_cast<size_t>(it - header.begin());
  }
  double number(size_t row, const std::string& name) const {
    return std::strtod(rows.at(row).at(column(name)).c_str(), nullptr);
  }
  std::string cell(size_t row, const std::string& name) const { return rows.at(row).at(column(name)); }
  /// The first row whose `name` cell reads as the number `value`; rows.size() when none.
  size_t find_number(const std::string& name, double value) const {
    for (size_t r = 0; r < rows.size(); ++r)
      if (number(r, name) == value) return r;
    return rows.size();
  }
  /// The first row whose `name` cell is `value`; rows.size() when none.
  size_t find(const std::string& name, const std::string& value) const {
    for (size_t r = 0; r < rows.size(); ++r)
      if (cell(r, name) == value) return r;
    return rows.size();
  }
};

inline Csv parse_csv(const std::string& text) {  // no quoted fields in these tests' data
  Csv csv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells(1);
    for (char ch : line) {
      if (ch == ',')
        cells.emplace_back();
      else
        cells.back().push_back(ch);
    }
    (csv.header.empty() ? csv.header : csv.rows.emplace_back()) = cells;
  }
  return csv;
}

/// The 95 % Wilson score interval of k successes in n (Wilson 1927), as a reference.
inline std::pair<double, double> wilson(double k, double n) {
  const double z = 1.959963984540054, p = k / n, z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

inline const PlotFile* find_plot(const std::vector<PlotFile>& plots, const std::string& name) {
  for (const PlotFile& p : plots)
    if (p.name == name) return &p;
  ADD_FAILURE() << "no figure " << name;
  return nullptr;
}

}  // namespace judgestat::paper_plot_checks
