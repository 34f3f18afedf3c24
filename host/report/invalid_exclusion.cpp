// The JSON and text form of `--invalid exclude`'s counts (docs/statistics.md §1 "Validity").
#include "report/invalid_exclusion.hpp"

namespace judgestat {

int64_t InvalidExclusion::total() const {
  int64_t sum = 0;
  for (int64_t n : excluded) sum += n;
  return sum;
}

std::string invalid_exclusion_line(const InvalidExclusion& exclusion) {
  std::string line = "invalid: excluded (--invalid exclude, CAP's rule): " + std::to_string(exclusion.total()) +
                     " invalid records left out of every n";
  for (size_t j = 0; j < exclusion.judges.size(); ++j)
    line += (j ? ", " : "; ") + exclusion.judges[j] + " " + std::to_string(exclusion.excluded[j]);
  return line;
}

InvalidExclusion take_invalid_exclusion(Json& json) {
  InvalidExclusion out;
  if (!json.contains("settings") || !json["settings"].is_object()) return out;
  Json& settings = json["settings"];
  if (!settings.contains("invalid_excluded")) return out;
  for (const auto& [judge, n] : settings["invalid_excluded"].items()) {
    out.judges.push_back(judge);
    out.excluded.push_back(n.get<int64_t>());
  }
  settings.erase("invalid");
  settings.erase("invalid_excluded");
  return out;
}

}  // namespace judgestat
