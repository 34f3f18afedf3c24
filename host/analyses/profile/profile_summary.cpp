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

namespace {

// Mean |ρ| and negative pairs per benchmark [CAP Table 14]; range and "k of m significant" per
// condition across benchmarks [CAP Table 13], at p_t < 0.05 as the matrices mark it.
// Table 14's 28 pairs are C1–C8's: pairs with overall stay out.
void summarize_rhos(ProfileSummary& out) {
  for (const SpearmanEntry& e : out.between_conditions) {
    if (std::isnan(e.result.rho) || e.a == "overall" || e.b == "overall") continue;
    if (out.condition_rho.empty() || out.condition_rho.back().benchmark != e.scope)
      out.condition_rho.push_back({e.scope, 0, 0, 0.0});
    ConditionRhoSummary& row = out.condition_rho.back();
    row.mean_abs_rho += std::fabs(e.result.rho);  // the sum until divided below
    ++row.pairs;
    row.negative += e.result.rho < 0;
  }
  for (ConditionRhoSummary& row : out.condition_rho) row.mean_abs_rho /= row.pairs;
  for (const SpearmanEntry& e : out.between_benchmarks) {
    if (std::isnan(e.result.rho)) continue;
    if (out.benchmark_rho.empty() || out.benchmark_rho.back().condition != e.scope)
      out.benchmark_rho.push_back({e.scope, 0, 0, e.result.rho, e.result.rho});
    BenchmarkRhoSummary& row = out.benchmark_rho.back();
    ++row.pairs;
    row.significant += e.result.p_t < 0.05;  // as the matrix marks (ns)
    row.min_rho = std::min(row.min_rho, e.result.rho);
    row.max_rho = std::max(row.max_rho, e.result.rho);
  }
}

// Each judge's rank per main-table cell and overall (1 = highest; ties share the best rank).
std::vector<CellRank> cell_ranks(const ProfilePlan& plan, const std::vector<double>& estimates) {
  std::vector<CellRank> ranks;
  for (int32_t b = 0; b < static_cast<int32_t>(plan.benchmarks.size()); ++b)
    for (const CellSpec& cell : plan.benchmarks[b].spec.cells) {
      if (cell.status == Coverage::kUnavailable || !cell.main_table) continue;
      std::vector<std::pair<int32_t, double>> values;
      for (int32_t jj = 0; jj < static_cast<int32_t>(plan.judges.size()); ++jj) {
        const int32_t s = plan.find(Kind::kCell, b, jj, cell.name);
        if (s >= 0 && std::isfinite(estimates[s])) values.push_back({jj, estimates[s]});
      }
      for (const auto& [jj, v] : values) {
        int higher = 0;
        for (const auto& other : values) higher += other.second > v;
        ranks.push_back(
            {plan.benchmarks[b].spec.name, cell.name, plan.judges[jj], higher + 1, static_cast<int>(values.size())});
      }
    }
  return ranks;
}

}  // namespace

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
    const PearsonResult linear = pearson(x, y);
    entry.pearson_r = linear.r;
    entry.pearson_p = linear.p;
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
  summarize_rhos(out);
  out.ranks = cell_ranks(plan, estimates);
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
