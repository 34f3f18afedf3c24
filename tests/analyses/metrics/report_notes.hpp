// Whether a metrics run's notes say something: the check the suites of new metrics options share.
#pragma once
#include <string>

#include "judgestat/metrics.hpp"
#include "test_support.hpp"

namespace judgestat::testing_support {

inline bool has_note(const MetricsReport& report, const std::string& text) {
  for (const std::string& note : report.notes)
    if (contains(note, text)) return true;
  return false;
}

}  // namespace judgestat::testing_support
