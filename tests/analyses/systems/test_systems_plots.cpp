// The systems figures (report/systems_plots.hpp, docs/statistics.md §8.4): the CSV beside each SVG
// holds every plotted row with the report's own numbers, and the SVG draws one mark per row, each
// point and whisker inside the axes (which span the CI ends).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/systems.hpp"
#include "systems_test_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using systems_testing::row;
using testing_support::kRoot;

SystemsReport win_rates_report(const std::string& baseline) {
  SystemsOptions options;
  options.systems = {"x.model_a", "x.model_b"};
  options.baseline = baseline;
  options.bootstrap.replicates = 200;
  return run_systems(load_item_matrix(kRoot + "/data/examples/win_rates.csv"), options, testing_support::cpu_target(2));
}

PlotFile figure(const std::vector<PlotFile>& plots, const std::string& name) {
  const auto found = std::find_if(plots.begin(), plots.end(), [&](const PlotFile& p) { return p.name == name; });
  if (found == plots.end()) throw std::runtime_error("no figure " + name);
  return *found;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    rows.emplace_back();
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) rows.back().push_back(cell);
  }
  return rows;
}

// The plot area from the axes (the longest horizontal and vertical #444 lines): left, right, top, bottom.
struct Area {
  double left = 0, right = 0, top = 0, bottom = 0;
  bool holds(double x, double y) const {
    return x >= left - 0.01 && x <= right + 0.01 && y >= top - 0.01 && y <= bottom + 0.01;
  }
};
struct Line {
  double x1, y1, x2, y2;
  std::string style;
};
std::vector<Line> lines_of(const std::string& svg) {
  static const std::regex line(
      R"re(<line x1="([-0-9.]+)" y1="([-0-9.]+)" x2="([-0-9.]+)" y2="([-0-9.]+)" style="([^"]*)")re");
  std::vector<Line> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator(); ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4]), (*it)[5]});
  return out;
}
Area axes_of(const std::vector<Line>& lines) {
  Area area;
  double widest = 0, tallest = 0;
  for (const Line& l : lines) {
    if (l.style != "stroke:#444;stroke-width:1") continue;
    if (l.y1 == l.y2 && l.x2 - l.x1 > widest)
      widest = l.x2 - l.x1, area.left = l.x1, area.right = l.x2, area.bottom = l.y1;
    if (l.x1 == l.x2 && l.y2 - l.y1 > tallest) tallest = l.y2 - l.y1, area.top = l.y1;
  }
  return area;
}

// Every data mark (a circle with a hover title) and every whisker (1.5 px lines) inside the axes;
// the number of marks.
size_t marks_inside_axes(const std::string& svg) {
  const std::vector<Line> lines = lines_of(svg);
  const Area area = axes_of(lines);
  EXPECT_GT(area.right, area.left);
  EXPECT_GT(area.bottom, area.top);
  static const std::regex mark(R"re(<circle cx="([-0-9.]+)" cy="([-0-9.]+)" r="[0-9.]+" fill="[^"]*"><title>)re");
  size_t marks = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), mark); it != std::sregex_iterator(); ++it, ++marks)
    EXPECT_TRUE(area.holds(std::stod((*it)[1]), std::stod((*it)[2]))) << it->str();
  for (const Line& l : lines) {
    const bool whisker = l.style.find("stroke-width:1.5") != std::string::npos &&
                         l.style.find("#888888") == std::string::npos &&
                         l.y1 < area.bottom + 1;  // not a legend sample (the legend lies below the axes)
    if (whisker) {
      EXPECT_TRUE(area.holds(l.x1, l.y1) && area.holds(l.x2, l.y2))
          << l.x1 << "," << l.y1 << " " << l.x2 << "," << l.y2;
    }
  }
  return marks;
}

TEST(SystemsPlots, WinRatesPanelHoldsEveryRowAgainstAllWithTheReportsNumbers) {
  for (const std::string baseline : {"", "mistral-7b"}) {
    SCOPED_TRACE(baseline);
    const SystemsReport report = win_rates_report(baseline);
    const std::string against = baseline.empty() ? "all" : baseline;
    size_t expected = 0;  // the report's win_rate rows against `against`, counted here
    for (size_t s = 0; s < report.keys.size(); ++s)
      expected += report.statistics.labels[s].name == "win_rate" && report.keys[s].opponent == against;
    EXPECT_EQ(expected, baseline.empty() ? 8u : 6u);  // 2 judges × 4 systems (3 besides the baseline)
    const PlotFile panel = figure(plot_files(report), "systems_win_rates");
    const auto rows = csv_rows(panel.csv);
    ASSERT_EQ(rows.size(), expected + 1);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"judge", "system", "against", "n", "estimate", "ci_lo", "ci_hi"}));
    for (size_t r = 1; r < rows.size(); ++r) {
      const auto found = row(report, "win_rate", rows[r][0], rows[r][1], rows[r][2]);
      ASSERT_TRUE(found) << panel.csv;
      EXPECT_EQ(rows[r][2], against);
      EXPECT_EQ(std::stoll(rows[r][3]), found->n);
      EXPECT_EQ(std::stod(rows[r][4]), found->interval.estimate);
      EXPECT_EQ(std::stod(rows[r][5]), found->interval.lo);
      EXPECT_EQ(std::stod(rows[r][6]), found->interval.hi);
    }
    EXPECT_EQ(marks_inside_axes(panel.svg), expected);
  }
}

TEST(SystemsPlots, SystemLevelPanelPairsTheJudgesAndGoldsScores) {
  const SystemsReport report = win_rates_report("");
  const PlotFile panel = figure(plot_files(report), "systems_system_level");
  const auto rows = csv_rows(panel.csv);
  ASSERT_EQ(rows.size(), 1u + 2 * 4);  // 2 judges × 4 systems
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto judge = row(report, "system_score", rows[r][0], rows[r][1], std::nullopt, "judge");
    const auto gold = row(report, "system_score", rows[r][0], rows[r][1], std::nullopt, "gold");
    ASSERT_TRUE(judge && gold) << panel.csv;
    EXPECT_EQ(std::stoll(rows[r][2]), judge->n);
    EXPECT_EQ(std::stod(rows[r][3]), judge->interval.estimate);
    EXPECT_EQ(std::stod(rows[r][4]), judge->interval.lo);
    EXPECT_EQ(std::stod(rows[r][5]), judge->interval.hi);
    EXPECT_EQ(std::stod(rows[r][6]), gold->interval.estimate);
    EXPECT_EQ(std::stod(rows[r][7]), gold->interval.lo);
    EXPECT_EQ(std::stod(rows[r][8]), gold->interval.hi);
  }
  EXPECT_EQ(marks_inside_axes(panel.svg), 8u);
}

TEST(SystemsPlots, NoFiguresWithoutWinRatesOrSystemLevel) {
  SystemsOptions options;
  options.self = {"x.model_a", "x.model_b"};
  options.family = {{"gpt-judge", "openai"}, {"claude-judge", "anthropic"}, {"gpt-4o", "openai"}};
  options.bootstrap.replicates = 100;
  const SystemsReport report =
      run_systems(load_item_matrix(kRoot + "/data/examples/win_rates.csv"), options, testing_support::cpu_target(2));
  EXPECT_TRUE(plot_files(report).empty());
}

}  // namespace
}  // namespace judgestat
