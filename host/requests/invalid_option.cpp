// `--invalid wrong|exclude` (docs/statistics.md §1 "Validity"), applied in the request layer.
#include "requests/invalid_option.hpp"

#include "records/invalid_policy.hpp"

namespace judgestat {

bool excludes_invalid(const std::string& rule) {
  if (rule != "wrong" && rule != "exclude")
    throw UsageError(
        "--invalid: expected wrong (an invalid output is an error, kept in n) or exclude (failed "
        "calls leave n, as in CAP), got '" +
        rule + "'");
  return rule == "exclude";
}

ItemMatrix matrix_without_invalid(const ItemMatrix& matrix, InvalidExclusion& exclusion) {
  ItemMatrix copy = matrix;
  exclusion.judges = copy.judges;
  exclusion.excluded = exclude_invalid_records(copy);
  return copy;
}

void note_invalid_exclusion(AnalysisResult& result, const InvalidExclusion& exclusion) {
  Json per_judge = Json::object();
  for (size_t j = 0; j < exclusion.judges.size(); ++j) per_judge[exclusion.judges[j]] = exclusion.excluded[j];
  Json& settings = result.json["settings"];
  settings["invalid"] = "exclude";
  settings["invalid_excluded"] = per_judge;
  const std::string line = invalid_exclusion_line(exclusion);
  result.text = line + "\n" + result.text;
  if (!result.md.empty()) result.md = line + "\n\n" + result.md;
}

}  // namespace judgestat
