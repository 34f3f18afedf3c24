// What a profile derives from the plan's point estimates (docs/statistics.md §3.6): Spearman rank correlations
// between conditions and between benchmarks, and the judge pairs inside each L1 mean.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analyses/profile/profile_detail.hpp"
#include "analyses/profile/spearman.hpp"

namespace judgestat {

using Kind = ProfileStat::Kind;

// ---------------------------------------------------------------------------------------------
// Spearman and L1 pairs on the point estimates.

ProfileSummary summarize_profile(const ProfilePlan& plan, const std::vector<double>& estimates, int exact_max_n) {
  ProfileSummary out;
  const int32_t J = static_cast<int32_t>(plan.judges.size());
  auto value = [&](int32_t b, int32_t jj, const std::string& c) {
    const int32_t s = plan.find(Kind::kCell, b, jj, c);
    return s < 0 ? std::numeric_limits<double>::quiet_NaN() : estimates[s];
  };
  auto status_of = [&](int32_t b, const std::string& c) {
    for (const CellSpec& cell : plan.benchmarks[b].spec.cells)
      if (cell.name == c) return cell.status;
    return Coverage::kUnavailable;
  };
  auto correlate = [&](const std::vector<std::pair<int32_t, std::string>>& sides, const std::string& scope,
                       const std::string& a, const std::string& z) {
    SpearmanEntry entry;
    entry.scope = scope;
    entry.a = a;
    entry.b = z;
    entry.status_a = status_of(sides[0].first, sides[0].second);
    entry.status_b = status_of(sides[1].first, sides[1].second);
    std::vector<double> x, y;
    for (int32_t jj = 0; jj < J; ++jj) {
      const double vx = value(sides[0].first, jj, sides[0].second);
      const double vy = value(sides[1].first, jj, sides[1].second);
      if (std::isnan(vx) || std::isnan(vy)) continue;
      x.push_back(vx);
      y.push_back(vy);
      entry.judges.push_back(plan.judges[jj]);
    }
    entry.result = spearman(x, y, exact_max_n);
    return entry;
  };
  const std::vector<std::string>& names = cap_cell_names();
  const int32_t B = static_cast<int32_t>(plan.benchmarks.size());
  for (int32_t b = 0; b < B; ++b) {
    std::vector<std::string> measured;
    for (const std::string& c : names)
      if (status_of(b, c) != Coverage::kUnavailable) measured.push_back(c);
    for (size_t x = 0; x < measured.size(); ++x)
      for (size_t y = x + 1; y < measured.size(); ++y)
        out.between_conditions.push_back(
            correlate({{b, measured[x]}, {b, measured[y]}}, plan.benchmarks[b].spec.name, measured[x], measured[y]));
  }
  for (const std::string& c : names) {
    double sum = 0;
    int pairs = 0;
    for (int32_t x = 0; x < B; ++x)
      for (int32_t y = x + 1; y < B; ++y) {
        if (status_of(x, c) == Coverage::kUnavailable || status_of(y, c) == Coverage::kUnavailable) continue;
        SpearmanEntry entry =
            correlate({{x, c}, {y, c}}, c, plan.benchmarks[x].spec.name, plan.benchmarks[y].spec.name);
        if (entry.status_a == Coverage::kDirect && entry.status_b == Coverage::kDirect &&
            !std::isnan(entry.result.rho)) {
          sum += entry.result.rho;
          ++pairs;
        }
        out.between_benchmarks.push_back(std::move(entry));
      }
    if (pairs > 0) out.mean_rho.push_back({c, pairs, sum / pairs});
  }
  // The pairs inside each L1 mean, as point values.
  std::map<std::string, std::string> family_of;
  for (const FamilySpec& family : plan.families)
    for (const std::string& judge : family.members) family_of.emplace(judge, family.name);
  for (const ProfileStat& stat : plan.stats) {
    if (stat.kind != Kind::kL1) continue;
    const std::string& group = stat.group;
    for (int32_t x = 0; x < J; ++x)
      for (int32_t y = x + 1; y < J; ++y) {
        const auto fx = family_of.find(plan.judges[x]), fy = family_of.find(plan.judges[y]);
        if (fx == family_of.end() || fy == family_of.end()) continue;
        const bool within = fx->second == fy->second;
        if (within ? fx->second != group : group != "cross-family") continue;
        double distance = 0;
        for (const std::string& c : stat.over)
          distance += std::fabs(value(stat.benchmark, x, c) - value(stat.benchmark, y, c));
        if (std::isnan(distance)) continue;
        out.l1_pairs.push_back({plan.benchmarks[stat.benchmark].spec.name, to_string(stat.status), plan.judges[x],
                                plan.judges[y], within ? group : "", distance});
      }
  }
  return out;
}

}  // namespace judgestat
