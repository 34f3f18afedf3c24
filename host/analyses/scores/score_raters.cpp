#include "analyses/scores/score_raters.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
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

void check_ratio_scores(const std::vector<double>& score, const std::vector<int32_t>& used) {
  for (int32_t c : used)
    if (score[c] < 0) {
      char text[32];
      const std::string value(text, std::to_chars(text, text + sizeof text, score[c]).ptr);  // shortest form
      throw UsageError("--alpha-level ratio: the ratio metric needs scores >= 0, and the raters give " + value +
                       "; use interval");
    }
}

// The pairable units (two or more ratings): m_u per unit, the levels they use (ascending) and per
// used level i a column: n_ui at the nominal, interval and ratio levels, the running total
// Σ_{g ≤ i} n_ug at the ordinal one (its last is the values column).
struct PairableValues {
  std::vector<double> values;  // m_u on pairable units, 0 elsewhere
  int64_t units = 0;
  std::vector<int32_t> used, position;  // the levels used; per level its index in `used`, −1
  std::vector<int32_t> columns;         // per used level
  int32_t k_values = -1;
};

PairableValues pairable_values(const LevelCounts& counts) {
  const size_t U = counts.ratings.size();
  const int32_t n_levels = static_cast<int32_t>(counts.by_level.size());
  PairableValues out{std::vector<double>(U, 0.0), 0, {}, std::vector<int32_t>(n_levels, -1), {}, -1};
  for (size_t u = 0; u < U; ++u)
    if (counts.ratings[u] >= 2) {
      out.values[u] = counts.ratings[u];
      ++out.units;
    }
  for (int32_t c = 0; c < n_levels; ++c)
    for (size_t u = 0; u < U; ++u)
      if (out.values[u] > 0 && counts.by_level[c][u] > 0) {
        out.position[c] = static_cast<int32_t>(out.used.size());
        out.used.push_back(c);
        break;
      }
  return out;
}

// The columns of `values` (see PairableValues), running totals at the ordinal level.
void add_value_columns(const LevelCounts& counts, bool running_totals, const std::string& tag, Plan& plan,
                       PairableValues& values) {
  const size_t U = counts.ratings.size();
  std::vector<double> running(U, 0.0);
  for (size_t i = 0; i < values.used.size(); ++i) {
    std::vector<double> column(U, 0.0);
    for (size_t u = 0; u < U; ++u) column[u] = values.values[u] > 0 ? counts.by_level[values.used[i]][u] : 0.0;
    if (running_totals)
      for (size_t u = 0; u < U; ++u) column[u] = running[u] += column[u];
    if (!running_totals || i + 1 < values.used.size())  // the last running total is the values column
      values.columns.push_back(add_score_column(plan, tag + "/n" + std::to_string(values.used[i]), column));
  }
  values.k_values = add_score_column(plan, tag + "/values", values.values);
  if (running_totals) values.columns.push_back(values.k_values);
}

// The δ² of used levels i < j (as a program), up to a factor common to every pair: the ordinal one
// is (f_j − f_i)² with f_i = C_{i−1} + C_i from the replicate's running totals, four times
// Krippendorff's (n_i/2 + Σ_{i<g<j} n_g + n_j/2)².
std::vector<Op> squared_distance(const std::vector<double>& score, const PairableValues& values, AlphaLevel level,
                                 int32_t i, int32_t j) {
  const double a = score[values.used[i]], b = score[values.used[j]];
  switch (level) {
    case AlphaLevel::kNominal:
      return constant_op(1.0);
    case AlphaLevel::kInterval:
      return constant_op((a - b) * (a - b));
    case AlphaLevel::kRatio:
      return constant_op(((a - b) / (a + b)) * ((a - b) / (a + b)));
    case AlphaLevel::kOrdinal:
      break;
  }
  std::vector<Op> t = twice_centred_rank(values.columns, j);
  const std::vector<Op> lower = twice_centred_rank(values.columns, i);
  t.insert(t.end(), lower.begin(), lower.end());
  t.push_back({OpCode::kSub});
  return product(t, t);
}

// Per pair of used levels i < j and rating count m, the units' n_ui n_uj (a count; o_ij is
// Σ_m of its sum / (m − 1)), for the pairs some unit holds: one pass over the units, however many
// levels there are.
using Coincidences = std::map<std::array<int32_t, 3>, std::vector<std::pair<size_t, double>>>;

Coincidences coincidences(const LevelCounts& counts, const PairableValues& values) {
  Coincidences out;
  std::vector<int32_t> present;
  for (size_t u = 0; u < counts.ratings.size(); ++u) {
    if (counts.ratings[u] < 2) continue;
    present.clear();
    for (int32_t c : values.used)
      if (counts.by_level[c][u] > 0) present.push_back(c);
    for (size_t x = 0; x < present.size(); ++x)
      for (size_t y = x + 1; y < present.size(); ++y)
        out[{values.position[present[x]], values.position[present[y]], counts.ratings[u]}].push_back(
            {u, counts.by_level[present[x]][u] * counts.by_level[present[y]][u]});
  }
  return out;
}

// Σ_{i<j} o_ij δ²_ij: a column per (pair, m) that some unit holds.
std::vector<Op> observed_disagreement(const std::vector<double>& score, const PairableValues& values,
                                      const Coincidences& pairs, AlphaLevel level, const std::string& tag, Plan& plan) {
  std::vector<Op> out;
  for (const auto& [key, entries] : pairs) {
    std::vector<double> column(values.values.size(), 0.0);
    for (const auto& [u, count] : entries) column[u] = count;
    const int32_t k = add_score_column(plan,
                                       tag + "/o" + std::to_string(values.used[key[0]]) + "_" +
                                           std::to_string(values.used[key[1]]) + "/m" + std::to_string(key[2]),
                                       column);
    const std::vector<Op> o = {{OpCode::kColumn, k}, {OpCode::kConstant, 0, double(key[2] - 1)}, {OpCode::kDiv}};
    add_program_term(out, product(o, squared_distance(score, values, level, key[0], key[1])));
  }
  return out.empty() ? constant_op(0) : out;
}

// Σ_{i<j} n_i n_j (f_j − f_i)² = n Σ n_i f_i² − (Σ n_i f_i)²: a sum over the levels, not their pairs.
std::vector<Op> pairwise_spread(const std::vector<Op>& n, size_t levels,
                                const std::function<std::vector<Op>(int32_t)>& count,
                                const std::function<std::vector<Op>(int32_t)>& f) {
  std::vector<Op> squares, firsts;
  for (int32_t i = 0; i < static_cast<int32_t>(levels); ++i) {
    add_program_term(squares, product(product(count(i), f(i)), f(i)));
    add_program_term(firsts, product(count(i), f(i)));
  }
  return difference_program(product(n, squares), product(firsts, firsts));
}

// δ² = 1: Σ_{i<j} n_i n_j = (n² − Σ n_i²) / 2.
std::vector<Op> nominal_expected(const PairableValues& values) {
  std::vector<Op> squares;
  for (int32_t k : values.columns) add_program_term(squares, product(column_op(k), column_op(k)));
  return product(difference_program(product(column_op(values.k_values), column_op(values.k_values)), squares),
                 constant_op(0.5));
}

// Σ_{i<j} n_i n_j δ²_ij over the pairable values, in the units of squared_distance.
std::vector<Op> expected_disagreement(const std::vector<double>& score, const PairableValues& values,
                                      AlphaLevel level) {
  const size_t L = values.used.size();
  const std::vector<Op> n = column_op(values.k_values);
  auto count = [&](int32_t i) { return column_op(values.columns[i]); };
  switch (level) {
    case AlphaLevel::kNominal:
      return nominal_expected(values);
    case AlphaLevel::kInterval: {
      const double origin = score[values.used.front()];  // f_i from the lowest value: no cancellation far from 0
      return pairwise_spread(n, L, count, [&](int32_t i) { return constant_op(score[values.used[i]] - origin); });
    }
    case AlphaLevel::kOrdinal:
      return pairwise_spread(
          n, L, [&](int32_t i) { return cumulative_step(values.columns, i); },
          [&](int32_t i) { return twice_centred_rank(values.columns, i); });
    case AlphaLevel::kRatio:
      break;
  }
  std::vector<Op> out;  // ratio: ((a − b)/(a + b))² does not separate, so every pair of levels
  for (int32_t i = 0; i < static_cast<int32_t>(L); ++i)
    for (int32_t j = i + 1; j < static_cast<int32_t>(L); ++j)
      add_program_term(out, product(product(count(i), count(j)), squared_distance(score, values, level, i, j)));
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
std::string too_many_levels(const std::string& whose, size_t levels, size_t bound) {
  return whose + " scores take " + std::to_string(levels) + " distinct values, more than the " + std::to_string(bound) +
         " it is built for (§8.2)";
}

}  // namespace

std::string add_score_alpha(const std::vector<double>& level_score, const RaterLevels& ratings, AlphaLevel level,
                            StatLabel label, const std::string& tag, Plan& plan) {
  // Checked before any column is added: a statistic left out leaves nothing in the plan.
  const std::vector<int32_t> levels = pairable_levels(ratings);
  if (levels.size() < 2) return "no item with two ratings, or every rating one value";
  const size_t bound = level == AlphaLevel::kRatio ? size_t(kMaxRatioAlphaLevels) : size_t(kMaxRankLevels);
  if (levels.size() > bound) return too_many_levels("the raters'", levels.size(), bound);
  if (level == AlphaLevel::kRatio) check_ratio_scores(level_score, levels);
  const LevelCounts counts = level_counts(ratings, static_cast<int32_t>(level_score.size()));
  PairableValues values = pairable_values(counts);
  const Coincidences pairs = coincidences(counts, values);
  if (pairs.size() > kMaxAlphaPairColumns)
    return "the raters' scores form " + std::to_string(pairs.size()) +
           " distinct (pair of values, ratings per item) combinations, more than the " +
           std::to_string(kMaxAlphaPairColumns) + " it is built for (§8.2)";
  add_value_columns(counts, level == AlphaLevel::kOrdinal, tag, plan, values);
  const std::vector<Op> expected = expected_disagreement(level_score, values, level);
  const std::vector<Op> observed = observed_disagreement(level_score, values, pairs, level, tag, plan);
  // 1 − (n − 1) · observed / expected
  std::vector<Op> program = {
      {OpCode::kConstant, 0, 1.0}, {OpCode::kColumn, values.k_values}, {OpCode::kConstant, 0, 1.0}, {OpCode::kSub}};
  program.insert(program.end(), observed.begin(), observed.end());
  program.push_back({OpCode::kMul});
  program.insert(program.end(), expected.begin(), expected.end());
  program.push_back({OpCode::kDiv});
  program.push_back({OpCode::kSub});
  label.name = "krippendorff_alpha";
  label.n = values.units;
  plan.statistics.push_back({std::move(label), std::move(program)});
  return {};
}

namespace {

// Per rater, on the complete units: the running totals over the levels it uses (units at or below
// each; the last is the units column) and each level's index among them, −1 when unused.
struct RaterRanks {
  std::vector<int32_t> position, at_or_below;
};

// m Σ_r Σ_i (t_ri³ − t_ri): the tie correction of W's denominator.
std::vector<Op> tie_correction(const std::vector<RaterRanks>& raters) {
  std::vector<Op> sum;
  for (const RaterRanks& rater : raters)
    for (int32_t i = 0; i < static_cast<int32_t>(rater.at_or_below.size()); ++i) {
      const std::vector<Op> t = cumulative_step(rater.at_or_below, i);
      add_program_term(sum, difference_program(product(product(t, t), t), t));
    }
  if (sum.empty()) sum = constant_op(0);
  return product(constant_op(double(raters.size())), sum);
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

std::vector<RaterRanks> rater_rank_columns(const CompleteUnits& units, int32_t k_units, const std::string& tag,
                                           Plan& plan) {
  std::vector<RaterRanks> out;
  const size_t U = units.complete.size();
  for (size_t r = 0; r < units.by_level.size(); ++r) {
    RaterRanks rater{std::vector<int32_t>(units.by_level[r].size(), -1), {}};
    std::vector<int32_t> used;
    for (size_t l = 0; l < units.by_level[r].size(); ++l)
      if (!units.by_level[r][l].empty()) used.push_back(static_cast<int32_t>(l));
    std::vector<double> running(U, 0.0);
    for (size_t i = 0; i < used.size(); ++i) {
      rater.position[used[i]] = static_cast<int32_t>(i);
      if (i + 1 == used.size()) break;  // the last running total is the units column
      for (size_t u = 0; u < U; ++u) running[u] += units.by_level[r][used[i]][u];
      rater.at_or_below.push_back(
          add_score_column(plan, tag + "/r" + std::to_string(r) + "/le" + std::to_string(used[i]), running));
    }
    rater.at_or_below.push_back(k_units);
    out.push_back(std::move(rater));
  }
  return out;
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
  if (most_levels > size_t(kMaxRankLevels)) return too_many_levels("a rater's", most_levels, kMaxRankLevels);
  const int32_t k_n = add_score_column(plan, tag + "/units", units.complete);
  const std::vector<RaterRanks> raters = rater_rank_columns(units, k_n, tag, plan);
  // 4 S = Σ_patterns count · (Σ_r 2 c_r)²
  std::vector<Op> spread;
  int32_t p = 0;
  for (const auto& [pattern, members] : units.patterns) {
    std::vector<Op> rank_sum;
    for (size_t r = 0; r < pattern.size(); ++r)
      add_program_term(rank_sum, twice_centred_rank(raters[r].at_or_below, raters[r].position[pattern[r]]));
    const int32_t k = add_score_column(plan, tag + "/p" + std::to_string(p++), members);
    add_program_term(spread, product(product(column_op(k), rank_sum), rank_sum));
  }
  // W = 12 S / (m² (n³ − n) − m Σ T) = 3 (4 S) / (…)
  std::vector<Op> program = product(constant_op(3.0), spread);
  const std::vector<Op> denominator = untied_denominator(k_n, double(ratings.size()));
  program.insert(program.end(), denominator.begin(), denominator.end());
  const std::vector<Op> ties = tie_correction(raters);
  program.insert(program.end(), ties.begin(), ties.end());
  program.push_back({OpCode::kSub});
  program.push_back({OpCode::kDiv});
  label.name = "kendall_w";
  label.n = units.n;
  plan.statistics.push_back({std::move(label), std::move(program)});
  return {};
}

}  // namespace judgestat
