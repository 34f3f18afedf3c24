// JEV's figures drawn from what a metrics report already carries (issue 30 part 3): latency and
// fee per judge (JEV Fig. 3), accuracy against fee and latency (Fig. 12), Brier/NLL/ECE across
// judges (Fig. 20), selective error against coverage (Fig. 21), the error-correction matrix
// (Fig. 22), correct-vs-wrong confidence histograms and reliability curves (Fig. 6), flip share by
// confidence (Fig. 7a–b), accuracy by condition with mean confidence, the two-factor heatmap and
// confidence distributions by condition (Figs. 13–16). Every figure is a PlotFile named
// "metrics_paper_…" whose SVG carries a caption (a <title> and the text under the plot) and
// whose CSV holds the plotted numbers; a figure without data is not drawn.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/metrics.hpp"
#include "report/plot_axes.hpp"

namespace judgestat {

struct PaperPlotOptions {
  /// Reliability curves (Fig. 6) leave out bins with fewer records than this (JEV: 5).
  int64_t min_bin_count = 5;
  /// The judges drawn (names as in the data); empty: every judge of the report.
  std::vector<std::string> judges;
};

std::vector<PlotFile> paper_plot_files(const MetricsReport& report, const PaperPlotOptions& options);
inline std::vector<PlotFile> paper_plot_files(const MetricsReport& report) {
  return paper_plot_files(report, PaperPlotOptions{});
}

namespace paper_plots {

/// Text for an SVG element's content: <, > and & escaped.
std::string xml_escape(const std::string& text);

/// The SVG with `caption` as its <title> and as wrapped text under the figure (the canvas grows).
std::string with_caption(const std::string& svg, const std::string& caption);

/// What every figure reads: the report, the options, and the judges in the report's order (their
/// colour is their index, the same in every figure).
struct Source {
  const MetricsReport& report;
  const PaperPlotOptions& options;
  std::vector<std::string> judges;
  /// The accuracy the figures plot: acc in order 0 when the report has it, else pa, else acc.
  std::string accuracy_name = "acc";
  std::optional<int> accuracy_order;
  bool drawn(const std::string& judge) const;
  bool is_base_accuracy(const StatLabel& label) const;
  std::string accuracy_title() const;  // "acc [order 0]"
  const char* colour(const std::string& judge) const;
  std::string level() const;  // "95% CI"
};
Source make_source(const MetricsReport& report, const PaperPlotOptions& options);

/// The group a label belongs to (its benchmark or condition), nullopt for the pooled rows.
std::optional<std::string> group_of(const StatLabel& label);
std::string statistic_title(const StatLabel& label);  // "acc [order 0]"

/// The statistic (with its interval) named `name` of a judge on a scope, nullptr when absent.
struct Row {
  const StatLabel* label = nullptr;
  const Interval* ci = nullptr;
};
std::vector<Row> rows_named(const Source& s, const std::vector<std::string>& names, bool pooled_only = true);

/// The probability summaries of the drawn judges in the base presentation (order 0 when there
/// is one, else order-averaged), pooled (`group` nullopt) or per group.
std::vector<const ProbabilitySummary*> base_summaries(const Source& s, bool grouped);
std::string presentation_text(const std::optional<int>& order);

/// A forest (dot and CI whisker) of the rows with one section per statistic title (and group or
/// variant); `level` is the interval's ("95% CI"). nullopt without rows.
std::optional<PlotFile> statistic_forest(const std::vector<Row>& rows, const std::string& level,
                                         const std::string& name, const std::string& title, const std::string& x_title,
                                         const std::string& caption);

/// A heatmap: a cell per (row, column) with its value coloured on [lo, hi] and two text lines.
struct HeatCell {
  double value = NAN;  // NaN: no cell
  std::string line1, line2, tip;
};
struct Heatmap {
  std::string title, row_title, column_title, key_title;
  std::vector<std::string> rows, columns;
  std::vector<std::vector<HeatCell>> cells;  // [row][column]
  double lo = 0, hi = 1;
};
std::string heatmap_svg(const Heatmap& map);

/// A log10 x axis over [lo, hi] (> 0) with ticks at 1, 2 and 5 × 10^k; data then plot at log10(x).
void set_log_x_axis(Figure& figure, double lo, double hi);

std::string csv_text(const std::optional<std::string>& value);
std::string csv_order(const std::optional<int>& order);

// The figures, each in its file (paper_plots_*.cpp).
void add_cost_figures(const Source& s, std::vector<PlotFile>& out);          // Figs. 3, 12
void add_probability_figures(const Source& s, std::vector<PlotFile>& out);   // Figs. 20, 21, 6, 7
void add_flip_figures(const Source& s, std::vector<PlotFile>& out);          // Fig. 7a–b
void add_group_figures(const Source& s, std::vector<PlotFile>& out);         // Figs. 13–16, 22
void add_distribution_figures(const Source& s, std::vector<PlotFile>& out);  // Fig. 16 bottom
void add_error_correction(const Source& s, std::vector<PlotFile>& out);      // Fig. 22

}  // namespace paper_plots
}  // namespace judgestat
