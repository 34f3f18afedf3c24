#include "judgestat/records.hpp"
#include "judgestat/scores.hpp"

namespace judgestat {

AlphaLevel parse_alpha_level(const std::string& name) {
  if (name == "nominal") return AlphaLevel::kNominal;
  if (name == "ordinal") return AlphaLevel::kOrdinal;
  if (name == "interval") return AlphaLevel::kInterval;
  if (name == "ratio") return AlphaLevel::kRatio;
  throw UsageError("--alpha-level: expected nominal, ordinal, interval or ratio, got '" + name + "'");
}

std::string to_string(AlphaLevel level) {
  switch (level) {
    case AlphaLevel::kNominal:
      return "nominal";
    case AlphaLevel::kOrdinal:
      return "ordinal";
    case AlphaLevel::kInterval:
      return "interval";
    case AlphaLevel::kRatio:
      break;
  }
  return "ratio";
}

}  // namespace judgestat
