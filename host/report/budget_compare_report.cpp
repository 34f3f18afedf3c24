// `budget --compare`'s writers (include/judgestat/label_budget.hpp, docs/statistics.md §7.6): the
// JSON, the power table and the power curve.
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

Json list_or_null(const std::vector<std::string>& values) { return values.empty() ? Json(nullptr) : Json(values); }

Json compare_row(const BudgetCompareReport& report, const CompareSummary& s) {
  Json row;
  row["compare"] = {report.a, report.b};
  row["statistic"] = report.statistic;
  row["k"] = s.k;
  row["draws"] = s.draws;
  row["power"] = s.power;
  row["wrong_sign"] = s.wrong_sign;
  row["d_median"] = s.d_median;
  row["d_q"] = {s.d_q[0], s.d_q[1]};
  row["pool_diff"] = s.pool_diff;
  return row;
}

double draws_per_s(const BudgetCompareReport& report) {
  return report.resample_s > 0 ? static_cast<double>(report.total_draws) / report.resample_s : 0.0;
}

std::vector<std::string> table_notes(const BudgetCompareReport& report) {
  const std::string value = report.statistic == "pa" ? "pa" : "acc";
  std::vector<std::string> notes;
  notes.push_back("d = " + value + "(" + report.b + ") − " + value + "(" + report.a + ") on k labelled items" +
                  (report.statistic == "pa" ? " (mean over each item's orders)" : " (order 0)"));
  notes.push_back("pool: " + std::to_string(report.items) + " items (variant " + report.variant + "); " + value + " " +
                  fixed(report.value_a) + " (" + report.a + "), " + fixed(report.value_b) + " (" + report.b +
                  "); difference " + fixed(report.pool_diff));
  notes.push_back("power = draws whose " + fixed(100 * report.level, 1) +
                  " % z-interval (SE = sd/√k) excludes 0 on the side of the pool difference; wrong sign = "
                  "excludes 0 on the other side");
  for (const std::string& note : report.notes) notes.push_back(note);
  char summary_line[256];
  std::snprintf(summary_line, sizeof summary_line, "seed %llu, backend %s (%s), %.2fs, %.3g draws/s",
                static_cast<unsigned long long>(report.seed), report.backend.c_str(), report.device.c_str(),
                report.resample_s, draws_per_s(report));
  notes.push_back(summary_line);
  return notes;
}

// Power and wrong-sign share against k (log scale).
std::string power_plot(const BudgetCompareReport& report) {
  std::vector<const CompareSummary*> line;
  for (const auto& s : report.summaries) line.push_back(&s);
  std::sort(line.begin(), line.end(), [](const CompareSummary* a, const CompareSummary* b) { return a->k < b->k; });
  PlotFrame f;
  f.x0 = std::log2(static_cast<double>(line.front()->k)) - 0.25;
  f.x1 = std::log2(static_cast<double>(line.back()->k)) + 0.25;
  f.y0 = 0;
  f.y1 = 1;
  std::vector<double> x_ticks;
  for (const CompareSummary* s : line) x_ticks.push_back(std::log2(static_cast<double>(s->k)));
  std::string out = svg_open(f, "telling " + report.b + " from " + report.a + " apart (" + report.statistic + ")");
  out += svg_axes(
      f, x_ticks, even_ticks(0, 1, 5), "labelled items k", "share of draws",
      [](double v) { return std::to_string(static_cast<long long>(std::llround(std::exp2(v)))); },
      [](double v) { return fixed(100 * v, 0) + " %"; });
  const struct {
    const char* label;
    const char* colour;
    double CompareSummary::*share;
  } series[] = {{"power", "#4c78a8", &CompareSummary::power}, {"wrong sign", "#d62728", &CompareSummary::wrong_sign}};
  for (int n = 0; n < 2; ++n) {
    std::vector<std::pair<double, double>> points;
    for (const CompareSummary* s : line)
      points.emplace_back(f.px(std::log2(static_cast<double>(s->k))), f.py(s->*series[n].share));
    out += svg_polyline(points, series[n].colour);
    for (size_t p = 0; p < line.size(); ++p)
      out += svg_circle(points[p].first, points[p].second, 3.5, series[n].colour,
                        "k " + std::to_string(line[p]->k) + ": " + percent(line[p]->*series[n].share, 1));
    out += svg_legend_entry(f.width - f.right - 110, f.top + 8 + 16 * n, series[n].colour, series[n].label);
  }
  return out + "</svg>\n";
}

}  // namespace

Json to_json(const BudgetCompareReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["settings"] = {{"seed", report.seed},
                      {"draws", report.draws},
                      {"backend", report.backend},
                      {"device", report.device},
                      {"compare", {report.a, report.b}},
                      {"statistic", report.statistic},
                      {"level", report.level},
                      {"z", report.z},
                      {"stream", static_cast<uint64_t>(kCompareStream)},
                      {"variant", report.variant},
                      {"benchmarks", list_or_null(report.benchmarks)},
                      {"conditions", list_or_null(report.conditions)},
                      {"common_items", report.common_items}};
  Json values = Json::object();
  values[report.a] = report.value_a;
  values[report.b] = report.value_b;
  json["pool"] = {
      {"items", report.items}, {"dropped", report.dropped}, {"values", values}, {"pool_diff", report.pool_diff}};
  Json rows = Json::array();
  for (const auto& s : report.summaries) rows.push_back(compare_row(report, s));
  json["budget"] = rows;
  json["notes"] = report.notes;
  json["timing"] = {{"load_s", head.load_s + report.setup_s},
                    {"resample_s", report.resample_s},
                    {"draws_per_s", draws_per_s(report)}};
  return json;
}

std::string tables(const BudgetCompareReport& report, const std::string& format) {
  Table table;
  table.header = {"k", "draws", "power", "wrong sign", "median d (2.5 %, 97.5 %)"};
  for (const auto& s : report.summaries)
    table.rows.push_back({std::to_string(s.k), std::to_string(s.draws), percent(s.power, 2), percent(s.wrong_sign, 2),
                          fixed(s.d_median) + " (" + fixed(s.d_q[0]) + ", " + fixed(s.d_q[1]) + ")"});
  table.notes = table_notes(report);
  return table.render(format);
}

std::vector<PlotFile> plot_files(const BudgetCompareReport& report) {
  if (report.summaries.empty()) return {};
  return {{"budget_compare_power", power_plot(report), ""}};
}

void plots(const BudgetCompareReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
