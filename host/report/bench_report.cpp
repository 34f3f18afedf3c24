// The bench workloads' writers (include/judgestat/bench.hpp): the JSON the compare scripts read
// and the text table.
#include <cstdio>
#include <string>
#include <vector>

#include "judgestat/bench.hpp"
#include "judgestat/report.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string unit_of(const BenchReport& report) {
  return report.workload == "w1" ? "cluster_draws_per_s" : "draws_per_s";
}

Json measurement_json(const BenchReport& report, const BenchMeasurement& m) {
  const bool w1 = report.workload == "w1";
  const std::string unit = unit_of(report);
  Json row;
  if (w1) {
    row["replicates"] = m.sizes.replicates;
    row["clusters"] = m.clusters;
    row["items"] = m.items;
    row["statistics"] = m.statistics;
    row["columns"] = m.columns;
  } else {
    row["items"] = m.items;
    row["k"] = m.sizes.k;
    row["grid"] = m.sizes.grid;
    row["draws"] = m.sizes.draws;
  }
  row[unit] = m.median;
  row["range"] = Json::array({m.low, m.high});
  row["repetitions"] = m.rates;
  if (w1) row["with_summary_" + unit] = m.median_with_summary;
  if (!w1) row["kernel_" + unit] = m.median_kernel > 0 ? Json(m.median_kernel) : Json(nullptr);
  if (report.probe > 0 && w1) row["probe_fraction"] = m.median / report.probe;
  return row;
}

// W2 on CUDA: the kernel's own rate beside the end-to-end one.
bool kernel_timed(const BenchReport& report) {
  return report.workload == "w2" && report.measured.front().median_kernel > 0;
}

std::string sci(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return std::string(buffer);
}

std::vector<std::string> measurement_row(const BenchReport& report, const BenchMeasurement& m) {
  const bool w1 = report.workload == "w1";
  std::vector<std::string> row;
  if (w1)
    row = {std::to_string(m.sizes.replicates), std::to_string(m.clusters), std::to_string(m.statistics),
           std::to_string(m.columns)};
  else
    row = {std::to_string(m.items), std::to_string(m.sizes.k), std::to_string(m.sizes.grid),
           std::to_string(m.sizes.draws)};
  row.push_back(sci(m.median));
  row.push_back(sci(m.low) + " – " + sci(m.high));
  if (w1) row.push_back(sci(m.median_with_summary));
  if (report.probe > 0 && w1) row.push_back(fixed(100 * m.median / report.probe, 1) + " %");
  if (kernel_timed(report)) row.push_back(sci(m.median_kernel));
  return row;
}

}  // namespace

Json to_json(const BenchReport& report, const ReportHead& head) {
  const std::string unit = unit_of(report);
  const BenchMeasurement& front = report.measured.front();
  Json out = head.envelope;
  out["tool"] = "judgestat";
  out["workload"] = report.workload;
  out["backend"] = front.backend;
  out["device"] = front.device;
  out["unit"] = unit;
  out["sweep"] = report.sweep.empty() ? Json(nullptr) : Json(report.sweep);
  Json rows = Json::array();
  for (const BenchMeasurement& m : report.measured) rows.push_back(measurement_json(report, m));
  out["measurements"] = rows;
  // The single-measurement form keeps the flat keys the compare scripts read.
  if (report.measured.size() == 1) {
    out[unit] = front.median;
    if (report.workload == "w1") {
      out["with_summary_" + unit] = front.median_with_summary;
      out["replicates"] = front.sizes.replicates;
      out["clusters"] = front.clusters;
      out["statistics"] = front.statistics;
    }
    if (report.workload == "w2")
      out["kernel_" + unit] = front.median_kernel > 0 ? Json(front.median_kernel) : Json(nullptr);
    if (!report.results.empty()) {
      Json results;
      for (const BenchResult& r : report.results)
        results[r.name] = Json::array({r.interval.estimate, r.interval.lo, r.interval.hi, r.interval.se});
      out["results"] = results;
    }
  }
  return out;
}

std::string tables(const BenchReport& report, const std::string& format) {
  const bool w1 = report.workload == "w1";
  const BenchMeasurement& front = report.measured.front();
  Table table;
  table.header =
      w1 ? std::vector<std::string>{"replicates", "clusters",      "statistics", "columns", "cluster draws/s (median)",
                                    "range",      "with summaries"}
         : std::vector<std::string>{"items", "k", "grid", "draws", "draws/s (median)", "range"};
  if (report.probe > 0 && w1) table.header.push_back("of probe");
  if (kernel_timed(report)) table.header.push_back("kernel only");
  for (const BenchMeasurement& m : report.measured) table.rows.push_back(measurement_row(report, m));
  table.notes.push_back(report.workload + " on " + front.backend + " (" + front.device + "), " +
                        std::to_string(report.warmup) + " warm-up and " + std::to_string(report.repeats) +
                        " timed repetitions per size" +
                        (report.input.empty() ? ", synthetic input" : ", input " + report.input));
  if (w1) table.notes.push_back("cluster draws/s over resampling; 'with summaries' adds the intervals (quantiles, SE)");
  if (kernel_timed(report))
    table.notes.push_back(
        "draws/s end to end (copies, summaries on the host); 'kernel only' over the kernel's CUDA-event time");
  return table.render(format);
}

}  // namespace judgestat
