// Plan compilation: per-column fixed point, per-cluster sums, concatenated programs.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "judgestat/plan.hpp"

namespace judgestat {

int32_t Plan::add_column(const std::string& name) {
  columns.emplace_back(unit_cluster.size(), 0.0);
  column_names.push_back(name);
  return static_cast<int32_t>(columns.size()) - 1;
}

int32_t Plan::add_rank_term(const std::vector<int32_t>& units, const std::vector<double>& scores,
                            const std::vector<uint8_t>& positive) {
  if (units.size() != scores.size() || units.size() != positive.size())
    throw std::logic_error("plan: rank term arrays differ in length");
  rank_terms.push_back({units, scores, positive});
  return static_cast<int32_t>(rank_terms.size()) - 1;
}

std::vector<double> point_extras(const CompiledPlan& plan) {
  std::vector<double> extras(plan.n_normals + plan.n_rank_terms, 0.0);
  const std::vector<int32_t> ones(plan.n_clusters, 1);
  for (int32_t t = 0; t < plan.n_rank_terms; ++t)
    extras[plan.n_normals + t] = static_cast<double>(
        rank_term_2u(plan.rank_offset.data(), plan.rank_cluster.data(), plan.rank_positive.data(),
                     plan.rank_tie_start.data(), t, ones.data()));
  return extras;
}

namespace {

// Counts and halves (and quarters…) are exact at a small power of two; report the smallest
// shift at which every value is an integer, or -1 when the column holds general reals.
int exact_shift(const std::vector<double>& values) {
  for (int shift = 0; shift <= 4; ++shift) {
    const double scale = std::ldexp(1.0, shift);
    bool exact = true;
    for (double v : values) {
      const double scaled = v * scale;
      if (scaled != std::nearbyint(scaled) || std::fabs(scaled) > 1e15) {
        exact = false;
        break;
      }
    }
    if (exact) return shift;
  }
  return -1;
}

void check_program(const StatisticDef& stat, int32_t n_columns) {
  int depth = 0;
  for (const Op& op : stat.program) {
    switch (op.code) {
      case OpCode::kColumn:
        if (op.arg < 0 || op.arg >= n_columns)
          throw std::logic_error("plan: statistic '" + stat.label.name + "' names column " +
                                 std::to_string(op.arg) + " of " + std::to_string(n_columns));
        ++depth;
        break;
      case OpCode::kConstant:
      case OpCode::kNormal:
      case OpCode::kRank:
        ++depth;
        break;
      case OpCode::kAbs:
        if (depth < 1) throw std::logic_error("plan: abs on an empty stack");
        break;
      default:
        if (depth < 2) throw std::logic_error("plan: binary op on a short stack in '" +
                                              stat.label.name + "'");
        --depth;
    }
    if (depth > kMaxStack) throw std::logic_error("plan: program deeper than kMaxStack");
  }
  if (depth != 1) throw std::logic_error("plan: program of '" + stat.label.name +
                                         "' leaves " + std::to_string(depth) + " values");
}

}  // namespace

CompiledPlan compile(const Plan& plan) {
  const int64_t n_units = plan.n_units();
  const int64_t n_clusters = plan.n_clusters();
  const int32_t n_strata = plan.n_strata();
  if (n_clusters <= 0) throw std::logic_error("plan: no clusters");
  for (int64_t c : plan.unit_cluster)
    if (c < 0 || c >= n_clusters) throw std::logic_error("plan: unit cluster out of range");

  // Identical columns (a count shared by several statistics) are stored once.
  std::map<std::vector<double>, int32_t> first_copy;
  std::vector<int32_t> column_map(plan.columns.size());
  std::vector<const std::vector<double>*> kept;
  for (size_t k = 0; k < plan.columns.size(); ++k) {
    if (static_cast<int64_t>(plan.columns[k].size()) != n_units)
      throw std::logic_error("plan: column '" + plan.column_names[k] + "' has the wrong length");
    auto [it, inserted] = first_copy.emplace(plan.columns[k], static_cast<int32_t>(kept.size()));
    if (inserted) kept.push_back(&plan.columns[k]);
    column_map[k] = it->second;
  }

  CompiledPlan out;
  out.n_clusters = n_clusters;
  out.n_columns = static_cast<int32_t>(kept.size());
  out.stratum_offset = plan.stratum_offset;
  out.cluster_sums.assign(static_cast<size_t>(n_clusters) * out.n_columns, 0);
  out.column_unscale.resize(out.n_columns);
  out.totals.assign(out.n_columns, 0);

  // The largest sum a replicate can reach: every draw of stratum h hits its heaviest cluster.
  std::vector<int32_t> cluster_stratum(n_clusters);
  for (int32_t h = 0; h < n_strata; ++h)
    for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1]; ++c)
      cluster_stratum[c] = h;
  auto replicate_bound = [&](const std::vector<double>& abs_cluster) {
    double bound = 0;
    for (int32_t h = 0; h < n_strata; ++h) {
      double heaviest = 0;
      for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1]; ++c)
        heaviest = std::max(heaviest, abs_cluster[c]);
      bound += heaviest * static_cast<double>(plan.stratum_offset[h + 1] - plan.stratum_offset[h]);
    }
    return bound;
  };

  bool fits_int32 = true;
  for (int32_t k = 0; k < out.n_columns; ++k) {
    const std::vector<double>& values = *kept[k];
    for (double v : values)
      if (!std::isfinite(v)) throw std::logic_error("plan: non-finite value in a column");
    std::vector<double> abs_cluster(n_clusters, 0.0);
    for (int64_t u = 0; u < n_units; ++u) abs_cluster[plan.unit_cluster[u]] += std::fabs(values[u]);
    const double bound = replicate_bound(abs_cluster) + 1.0;
    int shift = exact_shift(values);
    if (shift < 0) {
      // General reals: as many fraction bits as the bound leaves below 2^62 (rounding slack
      // included), at most 52 beyond the largest value's exponent's reach.
      shift = std::min(60, static_cast<int>(std::floor(61.0 - std::log2(bound))));
    }
    if (std::ldexp(bound, shift) >= std::ldexp(1.0, 62))
      throw std::runtime_error("plan: column '" + plan.column_names[k] +
                               "' is too large for exact replicate sums");
    if (std::ldexp(bound, shift) >= 2147483647.0) fits_int32 = false;
    out.column_unscale[k] = std::ldexp(1.0, -shift);
    // Summed in a per-column buffer first: cluster_sums is cluster-major, and scattering every
    // unit into it directly missed the cache once per unit.
    std::vector<int64_t> column_sums(n_clusters, 0);
    const double scale = std::ldexp(1.0, shift);  // a power of two: the product is exact
    for (int64_t u = 0; u < n_units; ++u) {
      const int64_t fixed = std::llround(values[u] * scale);
      column_sums[plan.unit_cluster[u]] += fixed;
      out.totals[k] += fixed;
    }
    for (int64_t c = 0; c < n_clusters; ++c)
      out.cluster_sums[static_cast<size_t>(c) * out.n_columns + k] = column_sums[c];
  }
  out.fits_int32 = fits_int32;

  // Rank terms: entries sorted by score, tie groups marked.
  out.n_rank_terms = static_cast<int32_t>(plan.rank_terms.size());
  for (const RankTerm& term : plan.rank_terms) {
    std::vector<size_t> order(term.units.size());
    for (size_t e = 0; e < order.size(); ++e) {
      order[e] = e;
      if (!std::isfinite(term.scores[e])) throw std::logic_error("plan: non-finite rank score");
    }
    // By score; within a tie group negatives first, which rank_term_2u's single scan needs.
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      if (term.scores[x] != term.scores[y]) return term.scores[x] < term.scores[y];
      return (term.positive[x] != 0) < (term.positive[y] != 0);
    });
    for (size_t e = 0; e < order.size(); ++e) {
      out.rank_cluster.push_back(plan.unit_cluster[term.units[order[e]]]);
      out.rank_positive.push_back(term.positive[order[e]] != 0);
      out.rank_tie_start.push_back(e == 0 || term.scores[order[e]] != term.scores[order[e - 1]]);
    }
    out.rank_offset.push_back(static_cast<int64_t>(out.rank_cluster.size()));
  }

  for (const StatisticDef& stat : plan.statistics)
    for (const Op& op : stat.program)
      if (op.code == OpCode::kNormal) out.n_normals = std::max(out.n_normals, op.arg + 1);
  out.op_offset.push_back(0);
  for (const StatisticDef& stat : plan.statistics) {
    check_program(stat, static_cast<int32_t>(plan.columns.size()));
    for (Op op : stat.program) {
      if (op.code == OpCode::kColumn) op.arg = column_map[op.arg];
      if (op.code == OpCode::kRank) {
        if (op.arg < 0 || op.arg >= out.n_rank_terms)
          throw std::logic_error("plan: statistic '" + stat.label.name + "' names a missing rank term");
        op.arg += out.n_normals;
      }
      out.ops.push_back(op);
    }
    out.op_offset.push_back(static_cast<int32_t>(out.ops.size()));
  }
  out.n_statistics = static_cast<int32_t>(plan.statistics.size());
  return out;
}

}  // namespace judgestat
