// The label-budget analysis's writers (include/judgestat/label_budget.hpp): docs/statistics.md §4's JSON, the
// budget table and the SVG plots of the held-out Δ and the loss share.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "judgestat/label_budget.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace judgestat {
namespace {

std::string percent(double share, int digits = 1) {
  return std::isnan(share) ? "–" : fixed(100.0 * share, digits) + " %";
}

// Choice index drawn most often and its share of all choices.
std::string most_chosen(const BudgetSummary& summary, const ThresholdGrid& grid) {
  uint64_t total = 0;
  size_t best = 0;
  for (size_t c = 0; c < summary.tau_hist.size(); ++c) {
    total += summary.tau_hist[c];
    if (summary.tau_hist[c] > summary.tau_hist[best]) best = c;
  }
  if (total == 0) return "–";
  return grid.label(static_cast<int32_t>(best)) + " (" +
         percent(static_cast<double>(summary.tau_hist[best]) / static_cast<double>(total), 0) + ")";
}

Json summary_json(const BudgetSummary& summary, const ThresholdGrid& grid) {
  Json tau_hist = Json::object();
  for (size_t c = 0; c < summary.tau_hist.size(); ++c)
    tau_hist[grid.label(static_cast<int32_t>(c))] = summary.tau_hist[c];
  Json row;
  row["k"] = summary.k;
  row["rule"] = rule_name(summary.rule);
  row["per_stratum"] = summary.per_stratum;
  row["draws"] = summary.draws;
  row["loss_share"] = summary.loss_share;
  row["delta_mean"] = summary.delta_mean;
  row["delta_q"] = {summary.delta_q[0], summary.delta_q[1], summary.delta_q[2]};
  row["delta_p10"] = summary.delta_p10;
  row["fee_ratio_median"] = summary.fee_ratio_median;
  row["fee_ratio_q"] = {summary.fee_ratio_q[0], summary.fee_ratio_q[1], summary.fee_ratio_q[2]};
  row["tau_hist"] = tau_hist;
  row["escalate_all_share"] = summary.escalate_all_share;
  row["escalated_median"] = summary.escalated_median;
  return row;
}

// Held-out Δ distribution of one (k, rule) with the −tol line.
std::string delta_plot(const BudgetSummary& s, double tol) {
  const int64_t offset = -2 * s.heldout_items;
  const double scale = 2.0 * static_cast<double>(s.heldout_items);
  size_t first = s.delta_hist.size(), last = 0;
  for (size_t x = 0; x < s.delta_hist.size(); ++x)
    if (s.delta_hist[x]) first = std::min(first, x), last = x;
  if (first > last) first = last = static_cast<size_t>(-offset);
  double lo = (static_cast<double>(first) + offset) / scale, hi = (static_cast<double>(last) + offset) / scale;
  lo = std::min(lo, -tol) - 0.01;
  hi = std::max(hi, 0.0) + 0.01;
  constexpr int kBars = 60;
  std::vector<double> bars(kBars, 0.0);
  for (size_t x = first; x <= last; ++x) {
    const double delta = (static_cast<double>(x) + offset) / scale;
    const int bar = std::min(kBars - 1, static_cast<int>((delta - lo) / (hi - lo) * kBars));
    bars[bar] += static_cast<double>(s.delta_hist[x]) / static_cast<double>(std::max<uint64_t>(s.draws, 1));
  }
  PlotFrame f;
  f.x0 = lo;
  f.x1 = hi;
  f.y0 = 0;
  f.y1 = std::max(1e-9, *std::max_element(bars.begin(), bars.end())) * 1.1;
  std::string out = svg_open(f, "held-out Δ, k = " + std::to_string(s.k) + ", " + rule_name(s.rule) +
                                    " rule: " + percent(s.loss_share) + " of draws lose more than " +
                                    fixed(100 * tol, 1) + " points");
  out += svg_axes(
      f, even_ticks(lo, hi, 6), even_ticks(0, f.y1, 4), "held-out Δ = cascade − fallback accuracy", "share of draws",
      [](double v) { return fixed(v, 3); }, [](double v) { return fixed(v, 3); });
  const double width = (f.px(hi) - f.px(lo)) / kBars;
  for (int b = 0; b < kBars; ++b) {
    if (bars[b] <= 0) continue;
    const double x = f.px(lo + (hi - lo) * b / kBars), y = f.py(bars[b]);
    const bool losing = lo + (hi - lo) * (b + 1) / kBars <= -tol;
    out += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(width - 1) +
           "\" height=\"" + svg_number(f.py(0) - y) + "\" fill=\"" + (losing ? "#d62728" : "#4c78a8") + "\"/>\n";
  }
  out += svg_line(f.px(-tol), f.top, f.px(-tol), f.py(0), "stroke:#d62728;stroke-width:1.5;stroke-dasharray:5,4");
  out += svg_text(f.px(-tol) - 4, f.top + 12, "−tol", "end", 11);
  return out + "</svg>\n";
}

// Loss share against k (log scale), one line per rule.
std::string loss_curve_plot(const std::vector<BudgetSummary>& summaries, double tol) {
  std::vector<uint32_t> ks;
  double top = 0.01;
  for (const auto& s : summaries) {
    if (std::find(ks.begin(), ks.end(), s.k) == ks.end()) ks.push_back(s.k);
    top = std::max(top, s.loss_share);
  }
  std::sort(ks.begin(), ks.end());
  // Round tick steps (in shares) with at most five steps up to the top.
  double step = 1.0;
  for (double candidate : {0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25}) {
    if (std::ceil(top * 1.05 / candidate) <= 5) {
      step = candidate;
      break;
    }
  }
  PlotFrame f;
  f.x0 = std::log2(static_cast<double>(ks.front())) - 0.25;
  f.x1 = std::log2(static_cast<double>(ks.back())) + 0.25;
  f.y0 = 0;
  f.y1 = std::ceil(top * 1.05 / step) * step;
  std::vector<double> x_ticks, y_ticks;
  for (uint32_t k : ks) x_ticks.push_back(std::log2(static_cast<double>(k)));
  for (double y = 0; y <= f.y1 + step / 2; y += step) y_ticks.push_back(y);
  const bool per_stratum = !summaries.empty() && summaries.front().per_stratum;
  std::string out = svg_open(f, "share of draws losing more than " + fixed(100 * tol, 1) + " points" +
                                    (per_stratum ? " (thresholds per stratum)" : ""));
  out += svg_axes(
      f, x_ticks, y_ticks, "labelled items k", "loss share",
      [](double v) { return std::to_string(static_cast<long long>(std::llround(std::exp2(v)))); },
      [](double v) { return fixed(100 * v, 1) + " %"; });
  const char* colours[] = {"#4c78a8", "#f58518"};
  int legend = 0;
  for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
    std::vector<const BudgetSummary*> line;
    for (const auto& s : summaries)
      if (s.rule == rule) line.push_back(&s);
    if (line.empty()) continue;
    std::sort(line.begin(), line.end(), [](const BudgetSummary* a, const BudgetSummary* b) { return a->k < b->k; });
    const std::string colour = colours[legend % 2];
    std::vector<std::pair<double, double>> points;
    for (const BudgetSummary* s : line)
      points.emplace_back(f.px(std::log2(static_cast<double>(s->k))), f.py(s->loss_share));
    out += svg_polyline(points, colour);
    for (size_t n = 0; n < line.size(); ++n)
      out += svg_circle(points[n].first, points[n].second, 3.5, colour,
                        "k " + std::to_string(line[n]->k) + ": " + percent(line[n]->loss_share, 2));
    out += svg_legend_entry(f.width - f.right - 110, f.top + 8 + 16 * legend, colour,
                            std::string(rule_name(rule)) + " rule");
    ++legend;
  }
  return out + "</svg>\n";
}

double draws_per_s(const BudgetReport& report) {
  return report.resample_s > 0 ? static_cast<double>(report.total_draws) / report.resample_s : 0.0;
}

Json settings_json(const BudgetReport& report) {
  Json grid_values = Json::array();
  for (double value : report.grid.values) grid_values.push_back(value);
  Json js;
  js["seed"] = report.seed;
  js["draws"] = report.draws;
  js["backend"] = report.backend;
  js["device"] = report.device;
  js["first"] = report.first;
  js["fallback"] = report.fallback;
  js["grid"] = grid_values;
  js["tol"] = report.tol;
  js["z"] = report.z;
  js["strata"] = report.per_stratum ? Json(report.strata) : Json(nullptr);
  js["gate_orders"] = report.gate_orders;
  return js;
}

std::vector<std::string> table_notes(const BudgetReport& report) {
  std::vector<std::string> notes;
  notes.push_back("pool: " + std::to_string(report.pool_items) + " items covered by " + report.first + " (" +
                  std::to_string(report.gate_ok) + " with every order valid), fallback " + report.fallback);
  notes.push_back("Δ = cascade − fallback accuracy on the N − k held-out items; loss share = draws with Δ < −" +
                  fixed(report.tol, 3) + "; Δ p10 = its 10th percentile; median escalated = median share of the " +
                  "held-out items sent to the fallback" +
                  (report.per_stratum ? "; thresholds chosen per " + report.strata : ""));
  char summary_line[256];
  std::snprintf(summary_line, sizeof summary_line, "seed %llu, backend %s (%s), %.2fs, %.3g draws/s",
                static_cast<unsigned long long>(report.seed), report.backend.c_str(), report.device.c_str(),
                report.resample_s, draws_per_s(report));
  notes.push_back(summary_line);
  for (const auto& s : report.summaries)
    if (s.fee_ratio_undefined > 0)
      notes.push_back("k " + std::to_string(s.k) + ", " + rule_name(s.rule) + " rule: fee ratio undefined in " +
                      std::to_string(s.fee_ratio_undefined) +
                      " draws (no fallback fee on the held-out items; give --fee JUDGE=USD per call)");
  return notes;
}

}  // namespace

Json to_json(const BudgetReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = settings_json(report);
  json["pool"] = {{"items", report.pool_items}, {"gate_ok", report.gate_ok}, {"strata", report.pool_strata}};
  Json rows = Json::array();
  for (const auto& s : report.summaries) rows.push_back(summary_json(s, report.grid));
  json["budget"] = rows;
  json["timing"] = {{"load_s", head.load_s + report.setup_s},
                    {"resample_s", report.resample_s},
                    {"draws_per_s", draws_per_s(report)}};
  return json;
}

std::string tables(const BudgetReport& report, const std::string& format) {
  Table table;
  table.header = {"k",
                  "rule",
                  "draws",
                  "loss share",
                  "mean Δ (2.5 %, 97.5 %)",
                  "Δ p10",
                  "median fee ratio",
                  "median escalated",
                  "most chosen τ",
                  "escalate all"};
  for (const auto& s : report.summaries) {
    table.rows.push_back({std::to_string(s.k), rule_name(s.rule), std::to_string(s.draws), percent(s.loss_share, 2),
                          fixed(s.delta_mean) + " (" + fixed(s.delta_q[0]) + ", " + fixed(s.delta_q[2]) + ")",
                          fixed(s.delta_p10), fixed(s.fee_ratio_median), percent(s.escalated_median),
                          most_chosen(s, report.grid), percent(s.escalate_all_share, 2)});
  }
  table.notes = table_notes(report);
  return table.render(format);
}

std::vector<PlotFile> plot_files(const BudgetReport& report) {
  std::vector<PlotFile> figures;
  for (const auto& s : report.summaries)
    figures.push_back(
        {"budget_delta_k" + std::to_string(s.k) + "_" + rule_name(s.rule), delta_plot(s, report.tol), ""});
  figures.push_back({"budget_loss_share", loss_curve_plot(report.summaries, report.tol), ""});
  return figures;
}

void plots(const BudgetReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
