// Covariates of the item matrix (docs/statistics.md §8.3): looking one up by name, and the one
// value per item an analysis may need.
#include <algorithm>
#include <string>
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

const std::vector<int32_t>& ItemMatrix::item_levels(const std::string& name, const std::string& why) const {
  const Covariate& found = covariate(name);
  if (found.mixed_item.empty()) return found.item_level;
  loading::fail(loading::display_name(path), found.mixed_line, "x." + found.name,
                "item " + loading::shown_text(found.mixed_item) + " has " + loading::shown_text(found.mixed_text) +
                    " here but " + loading::shown_text(found.first_text) + " on line " +
                    std::to_string(found.first_line) + "; " + why +
                    " needs one value per item, so give every record of the item the same x." + found.name);
}

}  // namespace judgestat
