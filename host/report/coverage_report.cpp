// Writers of the coverage check (judgestat/coverage.hpp): a statistic × method table of achieved
// coverage with Monte Carlo SEs for people, the tidy CSV (one row per cell) and the JSON.
#include <cmath>
#include <string>
#include <vector>

#include "judgestat/coverage.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string statistic_title(const CoverageCell& cell) {
  return cell.statistic == "diff" ? "diff acc " + cell.judge + " − " + cell.reference : "acc " + cell.judge;
}

std::string number_cell(double value) {
  if (!std::isfinite(value)) return "";
  std::string out;
  append_17g(out, value);
  return out;
}

std::string tidy_csv(const CoverageReport& report) {
  Table table;
  table.header = {"statistic", "judge", "reference", "method", "truth",     "datasets",
                  "covered",   "null",  "coverage",  "mc_se",  "mean_width"};
  for (const CoverageCell& c : report.cells)
    table.rows.push_back({c.statistic, c.judge, c.reference, to_string(c.method), number_cell(c.truth),
                          std::to_string(c.datasets), std::to_string(c.covered), std::to_string(c.null_intervals),
                          number_cell(c.coverage), number_cell(c.mc_se), number_cell(c.mean_width)});
  return table.render("csv");
}

std::vector<std::string> model_notes(const CoverageReport& report) {
  const CoverageDesign& d = report.design;
  std::vector<std::string> notes;
  std::string strata;
  for (size_t h = 0; h < d.stratum_clusters.size(); ++h)
    strata += (h ? ", " : "") + d.stratum_names[h] + ": " + std::to_string(d.stratum_clusters[h]) + " clusters";
  notes.push_back("design from the file: " + std::to_string(d.n_clusters()) + " clusters (" + strata + "), " +
                  std::to_string(d.n_units() / d.orders) + " items × " + std::to_string(d.orders) + " order(s)");
  for (const CoverageJudge& j : d.judges)
    notes.push_back("model " + j.name + ": accuracy " + fixed(j.accuracy, 4) + ", ICC " + fixed(j.icc, 3) +
                    ", order effect (logit) " + fixed(j.order_effect, 3) + " → mu " + fixed(j.mu, 3) + ", sigma " +
                    fixed(j.sigma, 3));
  notes.push_back(
      "right ~ Bernoulli(expit(mu + sigma z_c + order offset)), z_c ~ N(0, 1) per cluster shared by the "
      "judges (docs/statistics.md §2 \"Coverage check\")");
  notes.push_back(std::to_string(report.options.datasets) + " datasets, " +
                  std::to_string(report.options.bootstrap.replicates) + " replicates each, level " +
                  fixed(report.options.bootstrap.level, 3) + ", seed " + std::to_string(report.options.bootstrap.seed) +
                  ", backend " + report.backend + " (" + report.device + "), " + fixed(report.seconds, 1) + "s");
  notes.push_back("cells: coverage % ± Monte Carlo SE; a null interval counts as a miss");
  return notes;
}

std::string wide_table(const CoverageReport& report, const std::string& format) {
  const std::vector<CiMethod>& methods = report.options.methods;
  Table table;
  table.header = {"statistic", "truth"};
  for (CiMethod m : methods) table.header.push_back(to_string(m));
  std::vector<double> sum(methods.size(), 0.0);
  size_t statistics = 0;
  for (size_t at = 0; at + methods.size() <= report.cells.size(); at += methods.size(), ++statistics) {
    std::vector<std::string> row{statistic_title(report.cells[at]), fixed(report.cells[at].truth, 4)};
    for (size_t m = 0; m < methods.size(); ++m) {
      const CoverageCell& c = report.cells[at + m];
      row.push_back(fixed(100 * c.coverage, 1) + " ± " + fixed(100 * c.mc_se, 1));
      sum[m] += c.coverage;
    }
    table.rows.push_back(row);
  }
  if (statistics > 1) {
    std::vector<std::string> row{"mean", ""};
    for (double s : sum) row.push_back(fixed(100 * s / statistics, 1));
    table.rows.push_back(row);
  }
  table.notes = model_notes(report);
  return "Coverage of nominal " + fixed(100 * report.options.bootstrap.level, 0) +
         "% intervals on simulated datasets of this design\n" + table.render(format);
}

}  // namespace

std::string tables(const CoverageReport& report, const std::string& format) {
  if (format == "csv") return tidy_csv(report);
  return all_invalid_warnings(report.validity, format) + wide_table(report, format);
}

Json to_json(const CoverageReport& report, const ReportHead& head) {
  Json json = head.envelope;
  const CoverageOptions& o = report.options;
  Json methods = Json::array();
  for (CiMethod m : o.methods) methods.push_back(to_string(m));
  json["settings"] = {{"seed", o.bootstrap.seed},   {"replicates", o.bootstrap.replicates},
                      {"datasets", o.datasets},     {"methods", methods},
                      {"level", o.bootstrap.level}, {"backend", report.backend},
                      {"device", report.device},    {"icc", o.icc >= 0 ? Json(o.icc) : Json(nullptr)}};
  const CoverageDesign& d = report.design;
  Json strata = Json::array(), judges = Json::array();
  for (size_t h = 0; h < d.stratum_clusters.size(); ++h)
    strata.push_back({{"name", d.stratum_names[h]}, {"clusters", d.stratum_clusters[h]}});
  for (const CoverageJudge& j : d.judges)
    judges.push_back({{"judge", j.name},
                      {"accuracy", j.accuracy},
                      {"icc", j.icc},
                      {"order_effect", j.order_effect},
                      {"mu", j.mu},
                      {"sigma", j.sigma},
                      {"truth_by_order", j.truth_by_order}});
  json["design"] = {{"strata", strata}, {"cluster_items", d.cluster_items}, {"orders", d.orders}, {"judges", judges}};
  Json cells = Json::array();
  for (const CoverageCell& c : report.cells)
    cells.push_back({{"name", c.statistic},
                     {"judge", c.judge},
                     {"reference", c.reference.empty() ? Json(nullptr) : Json(c.reference)},
                     {"method", to_string(c.method)},
                     {"truth", c.truth},
                     {"datasets", c.datasets},
                     {"covered", c.covered},
                     {"null", c.null_intervals},
                     {"coverage", c.coverage},
                     {"mc_se", c.mc_se},
                     {"mean_width", c.mean_width}});
  json["coverage"] = cells;
  // Only when there is one: the key is new, and outputs without such a judge keep their bytes.
  if (const auto notes = all_invalid_notes(report.validity); !notes.empty()) json["notes"] = notes;
  json["timing"] = {{"load_s", head.load_s}, {"run_s", report.seconds}};
  return json;
}

}  // namespace judgestat
