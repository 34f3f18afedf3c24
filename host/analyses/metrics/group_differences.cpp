#include "analyses/metrics/group_differences.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "analyses/metrics/metrics_plan.hpp"
#include "support/text.hpp"

namespace judgestat {
namespace {

std::string key_of(const std::optional<std::string>& value) { return value ? "=" + *value : "-"; }
std::string key_of(const std::optional<int>& value) { return value ? "=" + std::to_string(*value) : "-"; }

// A statistic's identity across groups: everything but the group field and the judge.
std::string across_groups(const StatLabel& label) {
  return label.name + "|" + key_of(label.variant) + "|" + key_of(label.threshold) + "|" + key_of(label.order) + "|" +
         key_of(label.label) + "|" + key_of(label.position);
}

// The text of the group field a label carries (group_label's benchmark or condition), "" for none.
std::string group_text(const StatLabel& label) {
  return label.benchmark ? *label.benchmark : label.condition ? *label.condition : "";
}

void check_group(const Selection& sel, const std::string& group) {
  if (std::find(sel.stratum_names.begin(), sel.stratum_names.end(), group) != sel.stratum_names.end()) return;
  std::string names;
  for (const auto& name : sel.stratum_names) names += (names.empty() ? "" : ", ") + name;
  throw UsageError("--group-diff: '" + group + "' is not a group of --by " + sel.strata + " (groups: " + names + ")");
}

using ByIdentity = std::map<std::string, std::map<std::string, size_t>>;  // judge → identity → statistic

// The group_diff rows of every judge (a − b), indexed by judge and identity.
ByIdentity add_within_judge(const Selection& sel, const std::string& a, const std::string& b,
                            const std::vector<std::string>& names, Plan& plan) {
  const std::string text_a = group_text(group_label(sel, a)), text_b = group_text(group_label(sel, b));
  ByIdentity on_a, on_b, added;
  for (size_t s = 0; s < plan.statistics.size(); ++s) {
    const StatLabel& label = plan.statistics[s].label;
    if (label.reference || label.of || label.judge.empty()) continue;
    if (std::find(names.begin(), names.end(), label.name) == names.end()) continue;
    const std::string group = group_text(label);
    if (group == text_a) on_a[label.judge][across_groups(label)] = s;
    if (group == text_b) on_b[label.judge][across_groups(label)] = s;
  }
  for (const auto& [judge, statistics] : on_a)
    for (const auto& [identity, s] : statistics) {
      const auto other = on_b[judge].find(identity);
      if (other == on_b[judge].end()) continue;
      // Copies: push_back below may move the statistics.
      const StatisticDef mine = plan.statistics[s], theirs = plan.statistics[other->second];
      StatisticDef row{mine.label, difference_program(mine.program, theirs.program)};
      row.label.of = mine.label.name;
      row.label.name = "group_diff";
      (row.label.benchmark ? row.label.benchmark : row.label.condition) = text_a + " − " + text_b;
      row.label.n = std::min(mine.label.n, theirs.label.n);
      added[judge][identity] = plan.statistics.size();
      plan.statistics.push_back(std::move(row));
    }
  return added;
}

}  // namespace

std::vector<std::string> add_group_differences(const ItemMatrix& m, const Selection& sel,
                                               const std::vector<std::string>& groups,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::pair<int32_t, int32_t>>& pairs, Plan& plan) {
  if (groups.empty()) return {};
  if (groups.size() != 2) throw UsageError("--group-diff: expected two groups A,B (A − B), got " + join(groups, ","));
  if (sel.strata.empty()) throw UsageError("--group-diff: give --by, the groups it differences");
  const std::string &a = groups[0], &b = groups[1];
  check_group(sel, a);
  check_group(sel, b);
  if (a == b) throw UsageError("--group-diff: name two different groups, got '" + a + "' twice");
  ByIdentity within = add_within_judge(sel, a, b, names, plan);
  std::vector<std::string> notes;
  if (within.empty())
    notes.push_back("group_diff is left out: no judge has " + join(names, ", ") + " on both " + a + " and " + b);
  // The difference of differences: judge's a − b minus the reference's, on the same replicates.
  for (const auto& [j, r] : pairs)
    for (const auto& [identity, s] : within[m.judges[j]]) {
      const std::string& reference = m.judges[r];
      const auto theirs = within[reference].find(identity);
      if (theirs == within[reference].end()) continue;
      const StatisticDef mine = plan.statistics[s], other = plan.statistics[theirs->second];
      StatisticDef row{mine.label, difference_program(mine.program, other.program)};
      row.label.reference = reference;
      row.label.n = std::min(mine.label.n, other.label.n);
      plan.statistics.push_back(std::move(row));
    }
  return notes;
}

}  // namespace judgestat
