// The shared layer of JEV's figures (report/paper_plots.hpp): captions, the judges drawn and
// their colours, row selection, the statistic forest, the heatmap and the log axis.
#include "report/paper_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace judgestat {
namespace paper_plots {
std::string xml_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '&')
      out += "&amp;";
    else
      out += ch;
  }
  return out;
}

namespace {

// Words packed into lines no wider than `width` pixels at the note size.
std::vector<std::string> wrap(const std::string& text, double width) {
  std::vector<std::string> lines;
  std::string line, word;
  auto flush_word = [&]() {
    if (word.empty()) return;
    if (!line.empty() && text_width(line + " " + word, kNoteSize) > width) lines.push_back(line), line.clear();
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ')
      flush_word();
    else
      word += ch;
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The number in `name="…"` of the opening tag (0 when absent).
double attribute(const std::string& tag, const std::string& name) {
  const size_t at = tag.find(" " + name + "=\"");
  return at == std::string::npos ? 0 : std::strtod(tag.c_str() + at + name.size() + 3, nullptr);
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
}

}  // namespace

std::string with_caption(const std::string& svg, const std::string& caption) {
  const size_t open_end = svg.find('>');
  const size_t close = svg.rfind("</svg>");
  if (caption.empty() || svg.rfind("<svg", 0) != 0 || open_end == std::string::npos || close == std::string::npos)
    return svg;
  std::string tag = svg.substr(0, open_end);
  const double width = attribute(tag, "width"), height = attribute(tag, "height");
  const std::vector<std::string> lines = wrap(caption, std::max(200.0, width - 24));
  constexpr double kLine = 15;
  const double grown = height + 10 + kLine * static_cast<double>(lines.size());
  replace_once(tag, " height=\"" + svg_number(height) + "\"", " height=\"" + svg_number(grown) + "\"");
  replace_once(tag, " " + svg_number(height) + "\"", " " + svg_number(grown) + "\"");  // the viewBox
  std::string out =
      tag + ">\n<title>" + xml_escape(caption) + "</title>" + svg.substr(open_end + 1, close - open_end - 1);
  for (size_t n = 0; n < lines.size(); ++n)
    out += svg_text(12, height + 4 + kLine * static_cast<double>(n + 1), lines[n], "start", kNoteSize,
                    " fill=\"#333333\"");
  return out + "</svg>\n";
}

bool Source::drawn(const std::string& judge) const {
  return options.judges.empty() ||
         std::find(options.judges.begin(), options.judges.end(), judge) != options.judges.end();
}

bool Source::is_base_accuracy(const StatLabel& label) const {
  return label.name == accuracy_name && label.order == accuracy_order && !label.reference && !label.label;
}

std::string Source::accuracy_title() const {
  return accuracy_name + (accuracy_order ? " [order " + std::to_string(*accuracy_order) + "]" : "");
}

const char* Source::colour(const std::string& judge) const {
  return palette_colour(static_cast<size_t>(std::find(judges.begin(), judges.end(), judge) - judges.begin()));
}

std::string Source::level() const { return fixed(100 * report.statistics.level, 0) + "% CI"; }

Source make_source(const MetricsReport& report, const PaperPlotOptions& options) {
  Source s{report, options, {}};
  auto add = [&s](const std::string& judge) {
    if (s.drawn(judge) && std::find(s.judges.begin(), s.judges.end(), judge) == s.judges.end())
      s.judges.push_back(judge);
  };
  for (const JudgeValidity& v : report.validity) add(v.judge);
  for (const StatLabel& label : report.statistics.labels) add(label.judge);
  for (const ProbabilitySummary& summary : report.probability.summaries) add(summary.judge);
  bool order0 = false, pa = false;
  for (const StatLabel& label : report.statistics.labels) {
    order0 = order0 || (label.name == "acc" && label.order == 0);
    pa = pa || label.name == "pa";
  }
  if (order0) s.accuracy_order = 0;
  if (!order0 && pa) s.accuracy_name = "pa";
  return s;
}

std::optional<std::string> group_of(const StatLabel& label) {
  return label.benchmark ? label.benchmark : label.condition;
}

std::string statistic_title(const StatLabel& label) {
  std::string title = label.name;
  if (label.label) title += " " + *label.label;
  if (label.order) title += " [order " + std::to_string(*label.order) + "]";
  return title;
}

std::vector<Row> rows_named(const Source& s, const std::vector<std::string>& names, bool pooled_only) {
  std::vector<Row> rows;
  const BootstrapResult& result = s.report.statistics;
  for (size_t i = 0; i < result.labels.size(); ++i) {
    const StatLabel& label = result.labels[i];
    if (std::find(names.begin(), names.end(), label.name) == names.end() || !s.drawn(label.judge)) continue;
    if (label.reference || (pooled_only && group_of(label))) continue;
    rows.push_back({&label, &result.intervals[i]});
  }
  return rows;
}

std::string presentation_text(const std::optional<int>& order) {
  return order ? "order " + std::to_string(*order) : "order-averaged probabilities";
}

std::vector<const ProbabilitySummary*> base_summaries(const Source& s, bool grouped) {
  const auto& all = s.report.probability.summaries;
  const bool order0 = std::any_of(all.begin(), all.end(), [](const ProbabilitySummary& p) { return p.order == 0; });
  const std::optional<int> base = order0 ? std::optional<int>(0) : std::nullopt;
  std::vector<const ProbabilitySummary*> out;
  for (const ProbabilitySummary& p : all)
    if (s.drawn(p.judge) && p.order == base && p.group.has_value() == grouped) out.push_back(&p);
  return out;
}

std::string csv_text(const std::optional<std::string>& value) { return value ? csv_field(*value) : ""; }
std::string csv_order(const std::optional<int>& order) { return order ? std::to_string(*order) : ""; }

std::optional<PlotFile> statistic_forest(const std::vector<Row>& rows, const std::string& level,
                                         const std::string& name, const std::string& title, const std::string& x_title,
                                         const std::string& caption) {
  std::vector<ForestSection> forest;
  std::string csv = "statistic,judge,group,variant,order,n,estimate,ci_lo,ci_hi\n";
  for (const Row& row : rows) {
    const StatLabel& l = *row.label;
    const Interval& v = *row.ci;
    const std::string section =
        statistic_title(l) + (group_of(l) ? ", " + *group_of(l) : "") + (l.variant ? ", variant " + *l.variant : "");
    auto it = std::find_if(forest.begin(), forest.end(), [&](const ForestSection& f) { return f.title == section; });
    if (it == forest.end()) it = forest.insert(forest.end(), ForestSection{section, {}});
    it->rows.push_back({l.judge, v.estimate, v.lo, v.hi,
                        l.judge + " " + section + ": " + estimate_cell(v) + ", n " + std::to_string(l.n)});
    csv += csv_field(statistic_title(l)) + "," + csv_field(l.judge) + "," + csv_text(group_of(l)) + "," +
           csv_text(l.variant) + "," + csv_order(l.order) + "," + std::to_string(l.n) + "," + csv_number(v.estimate) +
           "," + csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
  }
  if (forest.empty()) return std::nullopt;
  return PlotFile{
      name, with_caption(forest_svg(title, x_title, forest, "estimate with its clustered bootstrap " + level), caption),
      csv};
}

namespace {

// The largest 1, 2 or 5 × 10^k at most v, and the smallest at least v (v > 0).
double step_below(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * decade <= v * (1 + 1e-12)) return m * decade;
  return decade / 2;
}
double step_above(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * decade >= v * (1 - 1e-12)) return m * decade;
  return 10 * decade;
}

}  // namespace

// The axis ends on the ticks enclosing [lo, hi], as nice_range does on a linear axis.
void set_log_x_axis(Figure& figure, double lo, double hi) {
  const double a = std::log10(step_below(lo)), b = std::log10(step_above(hi));
  figure.frame.x0 = a, figure.frame.x1 = b;
  figure.x_ticks.clear(), figure.x_labels.clear();
  const bool crowded = b - a > 3;  // more than three decades: ticks at the powers of ten only
  for (int k = static_cast<int>(std::floor(a)) - 1; k <= static_cast<int>(std::ceil(b)); ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      const double at = std::log10(m * std::pow(10.0, k));
      if (at < a - 1e-9 || at > b + 1e-9 || (crowded && m != 1.0)) continue;
      figure.x_ticks.push_back(at);
      figure.x_labels.push_back(tick_labels({m * std::pow(10.0, k)}).front());
    }
}

}  // namespace paper_plots

std::vector<PlotFile> paper_plot_files(const MetricsReport& report, const PaperPlotOptions& options) {
  const paper_plots::Source source = paper_plots::make_source(report, options);
  std::vector<PlotFile> out;
  paper_plots::add_cost_figures(source, out);
  paper_plots::add_probability_figures(source, out);
  paper_plots::add_group_figures(source, out);
  return out;
}

}  // namespace judgestat
