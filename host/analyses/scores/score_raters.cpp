#include "analyses/scores/score_raters.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "analyses/scores/score_judge.hpp"
#include "analyses/scores/score_programs.hpp"
#include "judgestat/records.hpp"

namespace judgestat {
namespace {

// Per unit how many ratings fall on each level, and their total m_u.
struct LevelCounts {
  std::vector<std::vector<double>> by_level;  // [level][unit]
  std::vector<int32_t> ratings;               // per unit
};

LevelCounts level_counts(const RaterLevels& ratings, int32_t n_levels) {
  const size_t U = ratings.empty() ? 0 : ratings.front().size();
  LevelCounts out{std::vector<std::vector<double>>(n_levels, std::vector<double>(U, 0.0)), std::vector<int32_t>(U, 0)};
  for (const std::vector<int32_t>& rater : ratings)
    for (size_t u = 0; u < U; ++u)
      if (rater[u] >= 0) {
        ++out.by_level[rater[u]][u];
        ++out.ratings[u];
      }
  return out;
}

// The δ² of values c < k (as a program), up to a factor common to every pair: the ordinal one is
// (n_c + n_k + 2 Σ_{c<g<k} n_g)², four times Krippendorff's, from the replicate's value counts.
std::vector<Op> squared_distance(const std::vector<double>& score, const std::vector<int32_t>& value_columns,
                                 AlphaLevel level, int32_t c, int32_t k) {
  switch (level) {
    case AlphaLevel::kNominal:
      return constant_op(1.0);
    case AlphaLevel::kInterval:
      return constant_op((score[c] - score[k]) * (score[c] - score[k]));
    case AlphaLevel::kRatio: {
      const double r = (score[c] - score[k]) / (score[c] + score[k]);
      return constant_op(r * r);
    }
    case AlphaLevel::kOrdinal:
      break;
  }
  SignedSum between;
  between.add(value_columns[c], 1);
  between.add(value_columns[k], 1);
  for (int32_t g = c + 1; g < k; ++g)
    if (value_columns[g] >= 0) {
      between.add(value_columns[g], 1);
      between.add(value_columns[g], 1);
    }
  std::vector<Op> t;
  push_signed_sum(t, between);
  return product(t, t);
}

void check_ratio_scores(const std::vector<double>& score, const std::vector<int32_t>& used) {
  for (int32_t c : used)
    if (score[c] < 0) {
      char text[32];
      const std::string value(text, std::to_chars(text, text + sizeof text, score[c]).ptr);  // shortest form
      throw UsageError("--alpha-level ratio: the ratio metric needs scores >= 0, and the raters give " + value +
                       "; use interval");
    }
}

// Σ_m (Σ_u over units with m ratings of n_uc n_uk) / (m − 1): o_ck of the pair, each per-m column
// a count (the division stays in the program).
std::vector<Op> coincidences(const LevelCounts& counts, int32_t c, int32_t k, const std::string& tag, Plan& plan) {
  std::map<int32_t, std::vector<double>> by_m;
  const size_t U = counts.ratings.size();
  for (size_t u = 0; u < U; ++u) {
    const double product_count = counts.by_level[c][u] * counts.by_level[k][u];
    if (counts.ratings[u] < 2 || product_count == 0) continue;
    auto& column = by_m[counts.ratings[u]];
    if (column.empty()) column.assign(U, 0.0);
    column[u] = product_count;
  }
  std::vector<Op> out;
  for (const auto& [m, values] : by_m) {
    const int32_t column = add_score_column(
        plan, tag + "/o" + std::to_string(c) + "_" + std::to_string(k) + "/m" + std::to_string(m), values);
    add_program_term(out, {{OpCode::kColumn, column}, {OpCode::kConstant, 0, double(m - 1)}, {OpCode::kDiv}});
  }
  return out;
}

// The pairable units (two or more ratings): m_u per unit, and per value used its count column.
struct PairableValues {
  std::vector<double> values;  // m_u on pairable units, 0 elsewhere
  int64_t units = 0;
  std::vector<int32_t> value_columns, used;  // per level: n_uc column or −1; the levels used
};

PairableValues pairable_values(const LevelCounts& counts, const std::string& tag, Plan& plan) {
  const size_t U = counts.ratings.size();
  const int32_t n_levels = static_cast<int32_t>(counts.by_level.size());
  PairableValues out{std::vector<double>(U, 0.0), 0, std::vector<int32_t>(n_levels, -1), {}};
  for (size_t u = 0; u < U; ++u)
    if (counts.ratings[u] >= 2) {
      out.values[u] = counts.ratings[u];
      ++out.units;
    }
  for (int32_t c = 0; c < n_levels; ++c) {
    std::vector<double> column(U, 0.0);
    double total = 0;
    for (size_t u = 0; u < U; ++u) total += column[u] = out.values[u] > 0 ? counts.by_level[c][u] : 0.0;
    if (total == 0) continue;
    out.value_columns[c] = add_score_column(plan, tag + "/n" + std::to_string(c), column);
    out.used.push_back(c);
  }
  return out;
}

// The distinct levels among the units with two or more ratings, ascending.
std::vector<int32_t> pairable_levels(const RaterLevels& ratings) {
  const size_t U = ratings.empty() ? 0 : ratings.front().size();
  std::map<int32_t, bool> levels;
  for (size_t u = 0; u < U; ++u) {
    int m = 0;
    for (const std::vector<int32_t>& rater : ratings) m += rater[u] >= 0;
    if (m >= 2)
      for (const std::vector<int32_t>& rater : ratings)
        if (rater[u] >= 0) levels[rater[u]] = true;
  }
  std::vector<int32_t> out;
  for (const auto& entry : levels) out.push_back(entry.first);
  return out;
}

// `whose`: "the raters'" (α pools them) or "a rater's" (W ranks each rater's own).
std::string too_many_levels(const std::string& whose, size_t levels) {
  return whose + " scores take " + std::to_string(levels) + " distinct values, more than the " +
         std::to_string(kMaxRankLevels) + " it is built for (§8.2)";
}

}  // namespace

std::string add_score_alpha(const std::vector<double>& level_score, const RaterLevels& ratings, AlphaLevel level,
                            StatLabel label, const std::string& tag, Plan& plan) {
  // Checked before any column is added: a statistic left out leaves nothing in the plan.
  const std::vector<int32_t> levels = pairable_levels(ratings);
  if (levels.size() < 2) return "no item with two ratings, or every rating one value";
  if (levels.size() > size_t(kMaxRankLevels)) return too_many_levels("the raters'", levels.size());
  if (level == AlphaLevel::kRatio) check_ratio_scores(level_score, levels);
  const LevelCounts counts = level_counts(ratings, static_cast<int32_t>(level_score.size()));
  const PairableValues pairable = pairable_values(counts, tag, plan);
  const std::vector<int32_t>&used = pairable.used, &value_columns = pairable.value_columns;
  const int32_t k_values = add_score_column(plan, tag + "/values", pairable.values);
  std::vector<Op> observed, expected;
  for (size_t i = 0; i < used.size(); ++i)
    for (size_t j = i + 1; j < used.size(); ++j) {
      const int32_t c = used[i], k = used[j];
      const std::vector<Op> distance = squared_distance(level_score, value_columns, level, c, k);
      const std::vector<Op> o = coincidences(counts, c, k, tag, plan);
      if (!o.empty()) add_program_term(observed, product(o, distance));
      add_program_term(expected, product(product(column_op(value_columns[c]), column_op(value_columns[k])), distance));
    }
  if (observed.empty()) observed = constant_op(0);
  // 1 − (n − 1) · observed / expected
  std::vector<Op> program = {
      {OpCode::kConstant, 0, 1.0}, {OpCode::kColumn, k_values}, {OpCode::kConstant, 0, 1.0}, {OpCode::kSub}};
  program.insert(program.end(), observed.begin(), observed.end());
  program.push_back({OpCode::kMul});
  program.insert(program.end(), expected.begin(), expected.end());
  program.push_back({OpCode::kDiv});
  program.push_back({OpCode::kSub});
  label.name = "krippendorff_alpha";
  label.n = pairable.units;
  plan.statistics.push_back({std::move(label), std::move(program)});
  return {};
}

namespace {

// Twice a rater's centred average rank of level l among the complete units: below − above.
std::vector<Op> twice_centred(const std::vector<int32_t>& level_columns, int32_t l) {
  SignedSum sum;
  for (int32_t g = 0; g < static_cast<int32_t>(level_columns.size()); ++g)
    if (level_columns[g] >= 0 && g != l) sum.add(level_columns[g], g < l ? 1 : -1);
  std::vector<Op> out;
  push_signed_sum(out, sum);
  return out;
}

// m Σ_r Σ_l (t_rl³ − t_rl): the tie correction of W's denominator.
std::vector<Op> tie_correction(const std::vector<std::vector<int32_t>>& level_columns) {
  std::vector<Op> sum;
  for (const auto& rater : level_columns)
    for (int32_t k : rater)
      if (k >= 0)
        add_program_term(sum, {{OpCode::kColumn, k},
                               {OpCode::kColumn, k},
                               {OpCode::kColumn, k},
                               {OpCode::kMul},
                               {OpCode::kMul},
                               {OpCode::kColumn, k},
                               {OpCode::kSub}});
  if (sum.empty()) sum = constant_op(0);
  return product(constant_op(double(level_columns.size())), sum);
}

}  // namespace

namespace {

// The units every rater scored: their indicator, their patterns (each rater's level → units) and,
// per rater and level, its units.
struct CompleteUnits {
  std::vector<double> complete;
  int64_t n = 0;
  std::map<std::vector<int32_t>, std::vector<double>> patterns;
  std::vector<std::vector<std::vector<double>>> by_level;  // [rater][level][unit], empty when unused
};

void set_unit(std::vector<double>& column, size_t U, size_t u) {
  if (column.empty()) column.assign(U, 0.0);
  column[u] = 1;
}

CompleteUnits complete_units(const RaterLevels& ratings, int32_t n_levels) {
  const size_t R = ratings.size(), U = R == 0 ? 0 : ratings.front().size();
  CompleteUnits out{std::vector<double>(U, 0.0),
                    0,
                    {},
                    std::vector<std::vector<std::vector<double>>>(R, std::vector<std::vector<double>>(n_levels))};
  for (size_t u = 0; u < U; ++u) {
    std::vector<int32_t> pattern;
    for (size_t r = 0; r < R && pattern.size() == r; ++r)
      if (ratings[r][u] >= 0) pattern.push_back(ratings[r][u]);
    if (pattern.size() != R) continue;
    out.complete[u] = 1;
    ++out.n;
    set_unit(out.patterns[pattern], U, u);
    for (size_t r = 0; r < R; ++r) set_unit(out.by_level[r][pattern[r]], U, u);
  }
  return out;
}

// Per rater and level its count column (−1 when unused); `varies`: some rater uses two levels.
std::vector<std::vector<int32_t>> rater_level_columns(const CompleteUnits& units, const std::string& tag, Plan& plan,
                                                      bool& varies) {
  std::vector<std::vector<int32_t>> columns;
  varies = false;
  for (size_t r = 0; r < units.by_level.size(); ++r) {
    columns.emplace_back(units.by_level[r].size(), -1);
    int used = 0;
    for (size_t l = 0; l < units.by_level[r].size(); ++l) {
      if (units.by_level[r][l].empty()) continue;
      columns[r][l] =
          add_score_column(plan, tag + "/r" + std::to_string(r) + "/l" + std::to_string(l), units.by_level[r][l]);
      ++used;
    }
    varies = varies || used >= 2;
  }
  return columns;
}

// The most levels one rater uses on the complete units; `varying`: the raters that use two or more.
size_t most_levels_of_a_rater(const CompleteUnits& units, size_t& varying) {
  size_t most = 0;
  varying = 0;
  for (const auto& rater : units.by_level) {
    size_t used = 0;
    for (const std::vector<double>& column : rater) used += !column.empty();
    most = std::max(most, used);
    varying += used >= 2;
  }
  return most;
}

// m² (n³ − n), the denominator's untied part.
std::vector<Op> untied_denominator(int32_t k_n, double m) {
  return {{OpCode::kColumn, k_n}, {OpCode::kColumn, k_n}, {OpCode::kColumn, k_n},        {OpCode::kMul}, {OpCode::kMul},
          {OpCode::kColumn, k_n}, {OpCode::kSub},         {OpCode::kConstant, 0, m * m}, {OpCode::kMul}};
}

}  // namespace

std::string add_kendall_w(const RaterLevels& ratings, int32_t n_levels, StatLabel label, const std::string& tag,
                          Plan& plan) {
  const CompleteUnits units = complete_units(ratings, n_levels);
  size_t varying = 0;
  const size_t most_levels = most_levels_of_a_rater(units, varying);
  // Each distinct pattern of the raters' scores is a column and a term of S: past a few thousand the
  // program outgrows what a replicate can afford (issue's scale: items × raters of a study). Checked
  // before any column is added.
  if (units.n < 2 || varying == 0 || units.patterns.size() > kMaxKendallWPatterns)
    return "fewer than two items every rater scored, every rater gives one score, or more than " +
           std::to_string(kMaxKendallWPatterns) + " distinct patterns of scores";
  if (most_levels > size_t(kMaxRankLevels)) return too_many_levels("a rater's", most_levels);
  bool varies = false;
  const std::vector<std::vector<int32_t>> level_columns = rater_level_columns(units, tag, plan, varies);
  const int32_t k_n = add_score_column(plan, tag + "/units", units.complete);
  // 4 S = Σ_patterns count · (Σ_r 2 c_r)²
  std::vector<Op> spread;
  int32_t p = 0;
  for (const auto& [pattern, members] : units.patterns) {
    std::vector<Op> rank_sum;
    for (size_t r = 0; r < pattern.size(); ++r) add_program_term(rank_sum, twice_centred(level_columns[r], pattern[r]));
    const int32_t k = add_score_column(plan, tag + "/p" + std::to_string(p++), members);
    add_program_term(spread, product(product(column_op(k), rank_sum), rank_sum));
  }
  // W = 12 S / (m² (n³ − n) − m Σ T) = 3 (4 S) / (…)
  std::vector<Op> program = product(constant_op(3.0), spread);
  const std::vector<Op> denominator = untied_denominator(k_n, double(ratings.size()));
  program.insert(program.end(), denominator.begin(), denominator.end());
  const std::vector<Op> ties = tie_correction(level_columns);
  program.insert(program.end(), ties.begin(), ties.end());
  program.push_back({OpCode::kSub});
  program.push_back({OpCode::kDiv});
  label.name = "kendall_w";
  label.n = units.n;
  plan.statistics.push_back({std::move(label), std::move(program)});
  return {};
}

}  // namespace judgestat
