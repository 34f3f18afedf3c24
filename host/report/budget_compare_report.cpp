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
#include "report/cascade_report.hpp"
#include "report/plot_axes.hpp"
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

// Power and wrong-sign share against k (log scale), with 95% Wilson intervals for the Monte
// Carlo error of each share of draws.
PlotFile power_figure(const BudgetCompareReport& report) {
  std::vector<const CompareSummary*> line;
  for (const auto& s : report.summaries) line.push_back(&s);
  std::sort(line.begin(), line.end(), [](const CompareSummary* a, const CompareSummary* b) { return a->k < b->k; });
  std::vector<uint32_t> ks;
  for (const CompareSummary* s : line) ks.push_back(s->k);
  Figure fig;
  set_log_k_axis(fig, ks);
  fig.frame.y0 = 0;
  fig.frame.y1 = 100;
  fig.y_ticks = nice_ticks(0, 100, 5).values;
  fig.title = "telling " + report.b + " from " + report.a + " apart (" + report.statistic + ")";
  fig.x_title = "labelled items k (log scale)";
  fig.y_title = "draws (%)";
  const PlotFrame& f = fig.frame;
  std::string csv = "series,k,draws,estimate,ci_lo,ci_hi\n";
  const struct {
    const char* name;
    const char* label;
    const char* colour;
    double CompareSummary::*share;
  } series[] = {{"power", "power", "#4c78a8", &CompareSummary::power},
                {"wrong_sign", "wrong sign", "#d62728", &CompareSummary::wrong_sign}};
  for (const auto& one : series) {
    std::vector<std::pair<double, double>> points;
    for (const CompareSummary* s : line) {
      const double share = s->*one.share, x = std::log2(static_cast<double>(s->k));
      const auto [lo, hi] = wilson_interval(std::llround(share * static_cast<double>(s->draws)), s->draws);
      points.emplace_back(f.px(x), f.py(100 * share));
      fig.body += svg_error_bar_y(f, x, 100 * share, 100 * lo, 100 * hi, one.colour,
                                  std::string(one.label) + " at k " + std::to_string(s->k) + ": " + percent(share, 2));
      csv += std::string(one.name) + "," + std::to_string(s->k) + "," + std::to_string(s->draws) + "," +
             csv_number(share) + "," + csv_number(lo) + "," + csv_number(hi) + "\n";
    }
    fig.body += svg_polyline(points, one.colour, 1.5, one.share == &CompareSummary::wrong_sign ? "5,4" : "");
    fig.legend.push_back({std::string(one.label) + " (bars: 95% Wilson interval, Monte Carlo error)", one.colour,
                          LegendMark::kPointWithBar});
  }
  fig.body += svg_hline(f, 80, "#888888", "3,3");
  fig.legend.push_back({"80% power", "#888888", LegendMark::kDashed});
  return {"budget_compare_power", fig.render(), csv};
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
  std::vector<std::string> notes = all_invalid_notes(report.validity);
  notes.insert(notes.end(), report.notes.begin(), report.notes.end());
  json["notes"] = notes;
  json["timing"] = {{"load_s", head.load_s + report.setup_s},
                    {"resample_s", report.resample_s},
                    {"draws_per_s", draws_per_s(report)}};
  return json;
}

std::string tables(const BudgetCompareReport& report, const std::string& format) {
  Table table;
  table.header = {"k", "draws", "power (%)", "wrong sign (%)", "median d (2.5–97.5 % range)"};
  auto share = [](double value) { return std::isnan(value) ? std::string("–") : fixed(100.0 * value, 2); };
  for (const auto& s : report.summaries)
    table.rows.push_back({std::to_string(s.k), std::to_string(s.draws), share(s.power), share(s.wrong_sign),
                          fixed(s.d_median) + " (" + fixed(s.d_q[0]) + ", " + fixed(s.d_q[1]) + ")"});
  table.notes = table_notes(report);
  if (format == "csv") return numeric_long_csv({{"budget_compare", table}});
  return all_invalid_warnings(report.validity, format) + table.render(format);
}

std::vector<PlotFile> plot_files(const BudgetCompareReport& report) {
  if (report.summaries.empty()) return {};
  return {power_figure(report)};
}

void plots(const BudgetCompareReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
