// A small judge study with everything docs/statistics.md §7 reads: three judges in both orders,
// one with probabilities, fees and latencies, an adjudicated column, and clusters whose items
// fall in two conditions (domain estimation). Deterministic, built from a formula.
#pragma once
#include <cmath>
#include <cstring>
#include <string>

#include "analyses/metrics/metrics_plan.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

namespace judgestat::testing_support {

inline std::string metrics_study_csv(int items = 60) {
  std::string csv = "judge,item,cluster,condition,order,gold,verdict,p.A,p.B,fee_usd,latency_s,adjudicated\n";
  const char* judges[] = {"J1", "J2", "J3"};
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < items; ++i)
      for (int o = 0; o < 2; ++o) {
        const bool gold_a = (i * 7) % 3 != 0;
        const int h = (i * 31 + j * 17 + o * 5) % 11;  // a fixed pseudo-random pattern
        const bool right = h < 7 - j;
        const bool invalid = h == 10 && j == 2;
        const bool says_a = right == gold_a;
        std::string verdict = invalid ? "" : says_a ? "A" : "B";
        const double pa = says_a ? 0.55 + 0.04 * h : 0.45 - 0.04 * h;
        const std::string p = j == 0 && !invalid ? std::to_string(pa) + "," + std::to_string(1 - pa) : ",";
        // Every fifth item adjudicated: indecisive (i % 10 == 0), the other label (i % 20 == 5),
        // else the gold label.
        const bool human_a = i % 20 == 5 ? !gold_a : gold_a;
        const std::string adjudicated = i % 5 == 0 ? (i % 10 == 0 ? "indecisive" : human_a ? "A" : "B") : "";
        csv += std::string(judges[j]) + ",i" + std::to_string(i) + ",c" + std::to_string(i / 3) + "," +
               (i % 2 ? "x" : "y") + "," + std::to_string(o) + "," + (gold_a ? "A" : "B") + "," + verdict + "," + p +
               "," + std::to_string(0.001 * (j + 1) + 0.0001 * h) + "," + std::to_string(0.5 + 0.1 * h * (j + 1)) +
               "," + adjudicated + "\n";
      }
  return csv;
}

/// The metrics plan of metrics_study_csv(), written to the temporary `file`, with its records
/// selected for `strata` ("" = unstratified).
inline Plan metrics_study_plan(const std::string& file, const std::string& strata, const MetricsOptions& options) {
  const ItemMatrix m = load_item_matrix(write_temp(file, metrics_study_csv()));
  SelectionOptions select;
  select.strata = strata;
  return build_metrics_run_plan(m, select_records(m, select), options).plan;
}

/// The same bits, or both NaN (a CUDA run's NaN payload may differ from the CPU's).
inline bool same_bits_or_nan(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace judgestat::testing_support
