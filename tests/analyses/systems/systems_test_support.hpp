// Shared by the systems tests: running the analysis on a CSV text and finding its rows.
#pragma once
#include <optional>
#include <string>

#include "judgestat/systems.hpp"
#include "test_support.hpp"

namespace judgestat::systems_testing {

inline SystemsReport systems_of(const std::string& name, const std::string& csv, SystemsOptions options,
                                LoadOptions load = {}, int threads = 2) {
  if (options.bootstrap.replicates == 10000) options.bootstrap.replicates = 200;
  return run_systems(load_item_matrix(testing_support::write_temp(name, csv), load), options,
                     testing_support::cpu_target(threads));
}

/// The row of statistic `name` of `judge` with the given system, opponent and part, or nothing.
struct Found {
  Interval interval;
  int64_t n = 0;
};
inline std::optional<Found> row(const SystemsReport& report, const std::string& name, const std::string& judge,
                                std::optional<std::string> system = std::nullopt,
                                std::optional<std::string> opponent = std::nullopt,
                                std::optional<std::string> part = std::nullopt) {
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == name && labels[s].judge == judge && report.keys[s].system == system &&
        report.keys[s].opponent == opponent && report.keys[s].part == part)
      return Found{report.statistics.intervals[s], labels[s].n};
  return std::nullopt;
}

inline double estimate(const SystemsReport& report, const std::string& name, const std::string& judge,
                       std::optional<std::string> system = std::nullopt,
                       std::optional<std::string> opponent = std::nullopt,
                       std::optional<std::string> part = std::nullopt) {
  const auto found = row(report, name, judge, system, opponent, part);
  EXPECT_TRUE(found) << name << " of " << judge << " is missing";
  return found ? found->interval.estimate : NAN;
}

}  // namespace judgestat::systems_testing
