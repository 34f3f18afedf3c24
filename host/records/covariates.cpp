// Covariates of the item matrix (docs/statistics.md §8.3): looking one up by name, and the one
// value per item an analysis may need.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/records.hpp"
#include "records/fields.hpp"
#include "support/text.hpp"

namespace judgestat {

const Covariate& ItemMatrix::covariate(const std::string& name) const {
  const std::string bare = name.rfind("x.", 0) == 0 ? name.substr(2) : name;
  for (const Covariate& covariate : covariates)
    if (covariate.name == bare) return covariate;
  std::vector<std::string> names;
  for (const Covariate& covariate : covariates) names.push_back("x." + covariate.name);
  throw UsageError(
      "no covariate column 'x." + bare + "' in " + loading::display_name(path) +
      (names.empty() ? " (it has no x.* columns); add a column x." + bare : " (it has " + join(names, ", ") + ")"));
}

namespace {

// The file of the record on run-on line `line` of `m` and its line there (ItemMatrix::line_files).
std::pair<std::string, int64_t> file_and_line(const ItemMatrix& m, int64_t line) {
  if (m.line_files.empty()) return {loading::display_name(m.path), line};
  const size_t k = static_cast<size_t>(std::upper_bound(m.line_offsets.begin(), m.line_offsets.end(), line) -
                                       m.line_offsets.begin());
  const size_t file = k == 0 ? 0 : k - 1;  // offsets start at 0, below every line
  return {m.line_files[file], line - m.line_offsets[file]};
}

}  // namespace

std::string record_location(const ItemMatrix& m, int64_t line) {
  const auto place = file_and_line(m, line);
  return place.first + ":" + std::to_string(place.second);
}

const std::vector<int32_t>& ItemMatrix::item_levels(const std::string& name, const std::string& why) const {
  const Covariate& found = covariate(name);
  if (found.mixed_item.empty()) return found.item_level;
  // One file: "line N"; several: "line N of FILE", as the loader's own messages name a second record.
  const auto first_place = file_and_line(*this, found.first_line);
  const std::string first =
      "line " + std::to_string(first_place.second) + (line_files.empty() ? "" : " of " + first_place.first);
  throw InputError(record_location(*this, found.mixed_line) + ": column 'x." + found.name + "': item " +
                   loading::shown_text(found.mixed_item) + " has " + loading::shown_text(found.mixed_text) +
                   " here but " + loading::shown_text(found.first_text) + " on " + first + "; " + why +
                   " needs one value per item, so give every record of the item the same x." + found.name);
}

}  // namespace judgestat
