// The label-budget analysis's writers (include/judgestat/label_budget.hpp): docs/statistics.md §4's JSON, the
// budget table and the SVG plots of the held-out Δ and the loss share.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "judgestat/label_budget.hpp"
#include "report/cascade_report.hpp"
#include "report/plot_axes.hpp"
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

}  // namespace

// Grid indices hit by some draw (Σ 2d = x − 2(N − k)) are all multiples of `unit` away from Δ = 0
// (single-order items: Σ 2d is even). The bins are `unit · merge` whole grid steps wide, their
// edges multiples of the grid step 1/(2(N − k)) with one edge at Δ = 0.
DeltaBins delta_bins(const BudgetSummary& s, int max_bins) {
  DeltaBins out;
  const int64_t zero = 2 * s.heldout_items;
  out.step = 1.0 / (2.0 * static_cast<double>(std::max<int64_t>(s.heldout_items, 1)));
  int64_t first = -1, last = -1, unit = 0;
  for (size_t x = 0; x < s.delta_hist.size(); ++x) {
    if (!s.delta_hist[x]) continue;
    const int64_t offset = static_cast<int64_t>(x) - zero;
    if (first < 0) first = static_cast<int64_t>(x);
    last = static_cast<int64_t>(x);
    unit = std::gcd(unit, offset < 0 ? -offset : offset);
  }
  if (first < 0) return out;
  if (unit == 0) unit = 1;  // every draw had Δ = 0
  const int64_t values = (last - first) / unit + 1;
  const int64_t merge = (values + max_bins - 1) / max_bins;
  out.width_steps = unit * merge;
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const int64_t first_bin = floor_div(first - zero, out.width_steps),
                last_bin = floor_div(last - zero, out.width_steps);
  for (int64_t bin = first_bin; bin <= last_bin; ++bin) out.bins.push_back({bin * out.width_steps, 0});
  for (size_t x = static_cast<size_t>(first); x <= static_cast<size_t>(last); ++x)
    out.bins[floor_div(static_cast<int64_t>(x) - zero, out.width_steps) - first_bin].draws += s.delta_hist[x];
  return out;
}

namespace {

constexpr const char* kBlue = "#4c78a8";
constexpr const char* kRed = "#d62728";

// Held-out Δ distribution of one (k, rule) in points on bins aligned to the Δ grid, with the
// Δ = 0 and Δ = −tol lines.
// The Δ range (shares) and the highest bin's share of draws of one summary's histogram.
struct DeltaExtent {
  double lo = 0, hi = 0, top = 0;
};

DeltaExtent delta_extent(const BudgetSummary& s, double tol) {
  const DeltaBins bins = delta_bins(s);
  const double draws = static_cast<double>(std::max<uint64_t>(s.draws, 1));
  const double width = bins.step * static_cast<double>(bins.width_steps);
  DeltaExtent e{-tol, 0, 0};
  for (const DeltaBin& b : bins.bins) {
    e.lo = std::min(e.lo, b.left_steps * bins.step);
    e.hi = std::max(e.hi, b.left_steps * bins.step + width);
    e.top = std::max(e.top, static_cast<double>(b.draws) / draws);
  }
  return e;
}

// `shared`: the axes' extent, the same for every (k, rule) so that the histograms compare at a glance (issue 31).
PlotFile delta_figure(const BudgetSummary& s, double tol, const DeltaExtent& shared) {
  const DeltaBins bins = delta_bins(s);
  const double draws = static_cast<double>(std::max<uint64_t>(s.draws, 1));
  const double width = bins.step * static_cast<double>(bins.width_steps);
  Figure fig;
  set_x_axis(fig, 100 * shared.lo, 100 * shared.hi, 6);
  set_y_axis(fig, 0, 100 * std::max(shared.top, 1e-9));
  fig.title = "held-out Δ, k = " + std::to_string(s.k) + ", " + rule_name(s.rule) + " rule: " + percent(s.loss_share) +
              " of draws lose more than " + fixed(100 * tol, 1) + " points";
  fig.x_title = "held-out Δ = cascade − fallback accuracy (points)";
  fig.y_title = "draws (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = "series,x_lo,x_hi,draws,estimate\n";
  for (const DeltaBin& b : bins.bins) {
    const double left = b.left_steps * bins.step, right = left + width;
    const double share = static_cast<double>(b.draws) / draws;
    csv += "delta," + csv_number(left) + "," + csv_number(right) + "," + std::to_string(b.draws) + "," +
           csv_number(share) + "\n";
    if (b.draws == 0) continue;
    const double x = f.px(100 * left), y = f.py(100 * share);
    const bool losing = right <= -tol + 1e-12;
    fig.body += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" +
                svg_number(std::max(0.5, f.px(100 * right) - x - (f.px(100 * right) - x > 3 ? 1 : 0))) +
                "\" height=\"" + svg_number(f.py(0) - y) + "\" fill=\"" + (losing ? kRed : kBlue) + "\"><title>Δ in [" +
                fixed(100 * left, 2) + ", " + fixed(100 * right, 2) + ") points: " + percent(share, 2) +
                "</title></rect>\n";
  }
  fig.body += svg_vline(f, 0, "#444444");
  fig.body += svg_vline(f, -100 * tol, kRed);
  fig.legend.push_back({"draws, bins of " + std::to_string(bins.width_steps) +
                            " Δ-grid steps (1/(2(N − k)) = " + fixed(100 * bins.step, 3) + " points)",
                        kBlue, LegendMark::kBar});
  fig.legend.push_back({"losing more than tol", kRed, LegendMark::kBar});
  fig.legend.push_back({"Δ = 0", "#444444", LegendMark::kDashed});
  fig.legend.push_back({"Δ = −tol = −" + fixed(100 * tol, 1) + " points", kRed, LegendMark::kDashed});
  return {"budget_delta_k" + std::to_string(s.k) + "_" + rule_name(s.rule), fig.render(), csv};
}

// Loss share against k (log scale), one line per rule, with Wilson intervals for the Monte Carlo error.
PlotFile loss_share_figure(const std::vector<BudgetSummary>& summaries, double tol) {
  std::vector<uint32_t> ks;
  double top = 0.01;
  for (const auto& s : summaries) {
    if (std::find(ks.begin(), ks.end(), s.k) == ks.end()) ks.push_back(s.k);
    top = std::max(top, wilson_interval(std::llround(s.loss_share * static_cast<double>(s.draws)), s.draws).second);
  }
  std::sort(ks.begin(), ks.end());
  Figure fig;
  set_log_k_axis(fig, ks);
  set_y_axis(fig, 0, 100 * top);
  const bool per_stratum = !summaries.empty() && summaries.front().per_stratum;
  fig.title = "share of draws losing more than " + fixed(100 * tol, 1) + " points" +
              (per_stratum ? " (thresholds per stratum)" : "");
  fig.x_title = "labelled items k (log scale)";
  fig.y_title = "loss share (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = "series,k,draws,estimate,ci_lo,ci_hi\n";
  const char* colours[] = {kBlue, "#f58518"};
  int n_series = 0;
  for (ThresholdRule rule : {ThresholdRule::kPoint, ThresholdRule::kLower}) {
    std::vector<const BudgetSummary*> line;
    for (const auto& s : summaries)
      if (s.rule == rule) line.push_back(&s);
    if (line.empty()) continue;
    std::sort(line.begin(), line.end(), [](const BudgetSummary* a, const BudgetSummary* b) { return a->k < b->k; });
    const std::string colour = colours[n_series++ % 2];
    std::vector<std::pair<double, double>> points;
    for (const BudgetSummary* s : line) {
      const double x = std::log2(static_cast<double>(s->k));
      const auto [lo, hi] = wilson_interval(std::llround(s->loss_share * static_cast<double>(s->draws)), s->draws);
      points.emplace_back(f.px(x), f.py(100 * s->loss_share));
      fig.body += svg_error_bar_y(f, x, 100 * s->loss_share, 100 * lo, 100 * hi, colour,
                                  "k " + std::to_string(s->k) + ": " + percent(s->loss_share, 2));
      csv += std::string(rule_name(rule)) + "," + std::to_string(s->k) + "," + std::to_string(s->draws) + "," +
             csv_number(s->loss_share) + "," + csv_number(lo) + "," + csv_number(hi) + "\n";
    }
    fig.body += svg_polyline(points, colour, 1.5);
    fig.legend.push_back({std::string(rule_name(rule)) + " rule (bars: 95% Wilson interval, Monte Carlo error)", colour,
                          LegendMark::kPointWithBar});
  }
  return {"budget_loss_share", fig.render(), csv};
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
  notes.push_back(
      "Δ = cascade − fallback accuracy on the N − k held-out items, in percentage points; P(loss > tol) = "
      "share of draws with Δ < −" +
      fixed(100 * report.tol, 2) +
      " pp (JEV Table 31); median Δ with the 2.5 % and 97.5 % quantiles of the draws; "
      "Δ p10 = its 10th percentile; the mean Δ is in the JSON; median escalated = median share of the " +
      "held-out items sent to the fallback" + (report.per_stratum ? "; thresholds chosen per " + report.strata : ""));
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
  // Only when there is one: the key is new, and outputs without such a judge keep their bytes.
  if (const auto notes = all_invalid_notes(report.validity); !notes.empty()) json["notes"] = notes;
  json["timing"] = {{"load_s", head.load_s + report.setup_s},
                    {"resample_s", report.resample_s},
                    {"draws_per_s", draws_per_s(report)}};
  return json;
}

// In percentage points with two decimals, as JEV Table 31 prints Δ.
std::string points(double delta) { return std::isnan(delta) ? "–" : fixed(100.0 * delta, 2); }
// A share in percent without the sign (the column name carries the unit).
std::string percent_number(double share, int digits) { return std::isnan(share) ? "–" : fixed(100.0 * share, digits); }

// JEV Table 31's layout: P(loss > tol), median Δ with its 2.5–97.5 % range and the 10th percentile
// in points, median escalated and fee ratio (the mean Δ stays in the JSON).
Table budget_table(const BudgetReport& report) {
  Table table;
  table.header = {"k",
                  "rule",
                  "draws",
                  "P(loss > " + fixed(100 * report.tol, 0) + " pp) (%)",
                  "median Δ (pp) (2.5–97.5 % range)",
                  "Δ p10 (pp)",
                  "median escalated (%)",
                  "median fee ratio",
                  "most chosen τ",
                  "escalate all (%)"};
  for (const auto& s : report.summaries) {
    table.rows.push_back({std::to_string(s.k), rule_name(s.rule), std::to_string(s.draws),
                          percent_number(s.loss_share, 2),
                          points(s.delta_q[1]) + " (" + points(s.delta_q[0]) + ", " + points(s.delta_q[2]) + ")",
                          points(s.delta_p10), percent_number(s.escalated_median, 1), fixed(s.fee_ratio_median),
                          most_chosen(s, report.grid), percent_number(s.escalate_all_share, 2)});
  }
  table.notes = table_notes(report);
  return table;
}

std::string tables(const BudgetReport& report, const std::string& format) {
  const Table table = budget_table(report);
  if (format == "csv") return numeric_long_csv({{"budget", table}});
  return all_invalid_warnings(report.validity, format) + table.render(format);
}

std::vector<PlotFile> plot_files(const BudgetReport& report) {
  std::vector<PlotFile> figures;
  DeltaExtent shared{-report.tol, 0, 0};
  for (const auto& s : report.summaries) {
    const DeltaExtent e = delta_extent(s, report.tol);
    shared = {std::min(shared.lo, e.lo), std::max(shared.hi, e.hi), std::max(shared.top, e.top)};
  }
  for (const auto& s : report.summaries) figures.push_back(delta_figure(s, report.tol, shared));
  if (!report.summaries.empty()) figures.push_back(loss_share_figure(report.summaries, report.tol));
  return figures;
}

void plots(const BudgetReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
