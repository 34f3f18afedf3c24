#include "analyses/scores/score_judge.hpp"

#include <cmath>
#include <map>
#include <utility>

#include "analyses/scores/score_programs.hpp"

namespace judgestat {
namespace {

// Differences of decimal scores are not exact in binary (7.3 − 6.3 = 1.0000000000000009): within one
// point means up to 1 + this.
constexpr double kScoreTolerance = 1e-9;

// Σ over the units of 1, x (gold), y (judge), x², y², xy, |x − y|, (x − y)², [x = y], [|x − y| ≤ 1],
// x and y less score_centre's integer.
struct MomentColumns {
  int32_t n, x, y, xx, yy, xy, abs_error, squared_error, exact, within_one;
};

// An integer near the mean of the entering gold and judge scores: the moments are taken about it,
// so that scores far from 0 (1e9 + 1, …) keep their spread in nΣx² − (Σx)², and integer scores stay
// exact. Every statistic here is unchanged by one shift of both x and y.
double score_centre(const std::vector<double>& score, const ScoredUnits& units) {
  double sum = 0;
  int64_t n = 0;
  for (size_t u = 0; u < units.gold.size(); ++u)
    if (units.gold[u] >= 0 && units.judge[u] >= 0) {
      sum += score[units.gold[u]] + score[units.judge[u]];
      n += 2;
    }
  return n > 0 ? std::round(sum / double(n)) : 0.0;
}

MomentColumns add_moment_columns(const std::vector<double>& score, const ScoredUnits& units, const std::string& tag,
                                 Plan& plan) {
  const size_t U = units.gold.size();
  const double centre = score_centre(score, units);
  std::vector<std::vector<double>> v(10, std::vector<double>(U, 0.0));
  for (size_t u = 0; u < U; ++u) {
    if (units.gold[u] < 0 || units.judge[u] < 0) continue;
    // The error from the scores as given: mae, rmse, exact and within_one do not move with the centre.
    const double x = score[units.gold[u]] - centre, y = score[units.judge[u]] - centre,
                 e = score[units.gold[u]] - score[units.judge[u]];
    const double values[10] = {1,
                               x,
                               y,
                               x * x,
                               y * y,
                               x * y,
                               std::fabs(e),
                               e * e,
                               e == 0 ? 1.0 : 0.0,
                               std::fabs(e) <= 1.0 + kScoreTolerance ? 1.0 : 0.0};
    for (int k = 0; k < 10; ++k) v[k][u] = values[k];
  }
  const char* names[10] = {"n", "x", "y", "xx", "yy", "xy", "abs_error", "squared_error", "exact", "within_one"};
  int32_t k[10];
  for (int i = 0; i < 10; ++i) k[i] = add_score_column(plan, tag + "/" + names[i], v[i]);
  return {k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9]};
}

// Count columns per gold level, per judge level and per (gold, judge) cell, for the levels and
// cells the units use (the others are 0 on every replicate).
struct LevelColumns {
  std::vector<int32_t> gold, judge;  // per level: column, −1 when unused
  struct Cell {
    int32_t a, b, column;
  };
  std::vector<Cell> cells;
};

LevelColumns add_level_columns(int32_t n_levels, const ScoredUnits& units, const std::string& tag, Plan& plan) {
  const size_t U = units.gold.size();
  std::vector<std::vector<double>> gold(n_levels), judge(n_levels);
  std::map<std::pair<int32_t, int32_t>, std::vector<double>> cell;  // the cells used only: L² would not fit
  for (size_t u = 0; u < U; ++u) {
    const int32_t a = units.gold[u], b = units.judge[u];
    if (a < 0 || b < 0) continue;
    for (auto* column : {&gold[a], &judge[b], &cell[{a, b}]}) {
      if (column->empty()) column->assign(U, 0.0);
      (*column)[u] = 1;
    }
  }
  LevelColumns out;
  out.gold.assign(n_levels, -1);
  out.judge.assign(n_levels, -1);
  const std::string level_tag = tag + "/level";
  for (int32_t a = 0; a < n_levels; ++a) {
    if (!gold[a].empty()) out.gold[a] = add_score_column(plan, level_tag + "/gold" + std::to_string(a), gold[a]);
    if (!judge[a].empty()) out.judge[a] = add_score_column(plan, level_tag + "/judge" + std::to_string(a), judge[a]);
  }
  for (const auto& [ab, values] : cell)  // (gold, judge) ascending, as before
    out.cells.push_back(
        {ab.first, ab.second,
         add_score_column(plan, level_tag + "/cell" + std::to_string(ab.first) + "_" + std::to_string(ab.second),
                          values)});
  return out;
}

// Twice the centred average rank of level a: (units below a) − (units above a).
std::vector<Op> twice_centred_rank(const std::vector<int32_t>& level_columns, int32_t a) {
  SignedSum sum;
  for (int32_t g = 0; g < static_cast<int32_t>(level_columns.size()); ++g)
    if (level_columns[g] >= 0 && g != a) sum.add(level_columns[g], g < a ? 1 : -1);
  std::vector<Op> out;
  push_signed_sum(out, sum);
  return out;
}

// 4 Σ (rank − mean rank)² of one side: Σ_a N_a (2 c_a)².
std::vector<Op> rank_variance(const std::vector<int32_t>& level_columns) {
  std::vector<Op> sum;
  for (int32_t a = 0; a < static_cast<int32_t>(level_columns.size()); ++a) {
    if (level_columns[a] < 0) continue;
    const std::vector<Op> c = twice_centred_rank(level_columns, a);
    add_program_term(sum, product(product(column_op(level_columns[a]), c), c));
  }
  return sum.empty() ? constant_op(0) : sum;
}

// Spearman's ρ: Pearson's r of the average ranks, Σ_ab N_ab c_a d_b / √(Σ N_a c_a² · Σ M_b d_b²).
std::vector<Op> spearman_program(const LevelColumns& levels) {
  std::vector<Op> covariance;
  for (const LevelColumns::Cell& cell : levels.cells)
    add_program_term(covariance, product(product(column_op(cell.column), twice_centred_rank(levels.gold, cell.a)),
                                         twice_centred_rank(levels.judge, cell.b)));
  return correlation(covariance, rank_variance(levels.gold), rank_variance(levels.judge));
}

// Σ_a N_a (N_a − 1) over one side's levels: twice the pairs tied on that side.
std::vector<Op> tied_pairs(const std::vector<int32_t>& level_columns) {
  std::vector<Op> sum;
  for (int32_t k : level_columns)
    if (k >= 0)
      add_program_term(sum, product(column_op(k), {{OpCode::kColumn, k}, {OpCode::kConstant, 0, 1.0}, {OpCode::kSub}}));
  return sum.empty() ? constant_op(0) : sum;
}

// Kendall's τ_b = 2(P − Q) / √((n(n−1) − Σ N_a(N_a−1)) (n(n−1) − Σ M_b(M_b−1))), with
// P − Q = Σ_ab N_ab Σ_{a'>a} Σ_b' sgn(b' − b) N_a'b' over the table of (gold, judge) levels.
std::vector<Op> kendall_program(const LevelColumns& levels, int32_t n) {
  std::vector<Op> difference;
  for (const LevelColumns::Cell& cell : levels.cells) {
    SignedSum later;
    for (const LevelColumns::Cell& other : levels.cells)
      if (other.a > cell.a && other.b != cell.b) later.add(other.column, other.b > cell.b ? 1 : -1);
    if (later.empty()) continue;
    std::vector<Op> others;
    push_signed_sum(others, later);
    add_program_term(difference, product(column_op(cell.column), others));
  }
  if (difference.empty()) difference = constant_op(0);
  difference = product(constant_op(2), difference);
  const std::vector<Op> pairs =
      product(column_op(n), {{OpCode::kColumn, n}, {OpCode::kConstant, 0, 1.0}, {OpCode::kSub}});
  auto untied = [&](const std::vector<int32_t>& side) {
    std::vector<Op> out = pairs;
    const std::vector<Op> ties = tied_pairs(side);
    out.insert(out.end(), ties.begin(), ties.end());
    out.push_back({OpCode::kSub});
    return out;
  };
  return correlation(difference, untied(levels.gold), untied(levels.judge));
}

// n Σab − Σa Σb
std::vector<Op> scaled_covariance(const MomentColumns& k, int32_t ab, int32_t a, int32_t b) {
  return {{OpCode::kColumn, k.n}, {OpCode::kColumn, ab}, {OpCode::kMul}, {OpCode::kColumn, a},
          {OpCode::kColumn, b},   {OpCode::kMul},        {OpCode::kSub}};
}

// Quadratic-weighted κ with weights (x − y)² (Cohen 1968): 1 − n Σ(x−y)² / (n Σx² + n Σy² − 2 Σx Σy),
// the chance term Σ_ab N_a M_b (x_a − y_b)² / n written with the moments.
std::vector<Op> qwk_program(const MomentColumns& k) {
  std::vector<Op> out = {{OpCode::kConstant, 0, 1.0},
                         {OpCode::kColumn, k.n},
                         {OpCode::kColumn, k.squared_error},
                         {OpCode::kMul},
                         {OpCode::kColumn, k.n},
                         {OpCode::kColumn, k.xx},
                         {OpCode::kMul},
                         {OpCode::kColumn, k.n},
                         {OpCode::kColumn, k.yy},
                         {OpCode::kMul},
                         {OpCode::kAdd},
                         {OpCode::kConstant, 0, 2.0},
                         {OpCode::kColumn, k.x},
                         {OpCode::kColumn, k.y},
                         {OpCode::kMul},
                         {OpCode::kMul},
                         {OpCode::kSub},
                         {OpCode::kDiv},
                         {OpCode::kSub}};
  return out;
}

struct UnitCounts {
  int64_t n = 0;
  int32_t gold_levels = 0, judge_levels = 0;
  bool same_constant = false;  // one gold level, one judge level, the same one
};

UnitCounts count_units(int32_t n_levels, const ScoredUnits& units) {
  UnitCounts out;
  std::vector<uint8_t> gold(n_levels, 0), judge(n_levels, 0);
  int32_t some_gold = -1, some_judge = -1;
  for (size_t u = 0; u < units.gold.size(); ++u) {
    if (units.gold[u] < 0 || units.judge[u] < 0) continue;
    ++out.n;
    out.gold_levels += !gold[units.gold[u]];
    out.judge_levels += !judge[units.judge[u]];
    gold[units.gold[u]] = judge[units.judge[u]] = 1;
    some_gold = units.gold[u];
    some_judge = units.judge[u];
  }
  out.same_constant = out.gold_levels == 1 && out.judge_levels == 1 && some_gold == some_judge;
  return out;
}

}  // namespace

const std::vector<std::string>& score_statistic_names() {
  static const std::vector<std::string> names{"pearson", "spearman", "kendall_tau_b", "mae",
                                              "rmse",    "exact",    "within_one",    "qwk"};
  return names;
}

std::vector<std::string> add_score_statistics(const std::vector<double>& level_score, const ScoredUnits& units,
                                              const StatLabel& base, const std::string& tag, Plan& plan) {
  const int32_t n_levels = static_cast<int32_t>(level_score.size());
  const UnitCounts counts = count_units(n_levels, units);
  const std::string who = base.judge + (base.benchmark   ? " on " + *base.benchmark
                                        : base.condition ? " on " + *base.condition
                                                         : "");
  if (counts.n == 0) return {"score statistics of " + who + " are left out: no item with gold and a valid score"};
  const MomentColumns k = add_moment_columns(level_score, units, tag, plan);
  auto add = [&](const char* name, std::vector<Op> program) {
    StatLabel label = base;
    label.name = name;
    label.n = counts.n;
    plan.statistics.push_back({std::move(label), std::move(program)});
  };
  std::vector<std::string> notes;
  if (counts.gold_levels >= 2 && counts.judge_levels >= 2) {
    add("pearson", correlation(scaled_covariance(k, k.xy, k.x, k.y), scaled_covariance(k, k.xx, k.x, k.x),
                               scaled_covariance(k, k.yy, k.y, k.y)));
    if (counts.gold_levels <= kMaxRankLevels && counts.judge_levels <= kMaxRankLevels) {
      const LevelColumns levels = add_level_columns(n_levels, units, tag, plan);
      add("spearman", spearman_program(levels));
      add("kendall_tau_b", kendall_program(levels, k.n));
    } else {
      notes.push_back("spearman and kendall_tau_b of " + who + " are left out: " +
                      (counts.gold_levels > kMaxRankLevels
                           ? "gold takes " + std::to_string(counts.gold_levels)
                           : "the judge's scores take " + std::to_string(counts.judge_levels)) +
                      " distinct values, more than the " + std::to_string(kMaxRankLevels) +
                      " a rank statistic is built for (§8.2)");
    }
  } else {
    notes.push_back("pearson, spearman and kendall_tau_b of " + who + " are left out: " +
                    (counts.gold_levels < 2 ? "gold" : "the judge's scores") + " take one value there (0/0)");
  }
  add("mae", ratio_program(k.abs_error, k.n));
  std::vector<Op> rmse = ratio_program(k.squared_error, k.n);
  rmse.push_back({OpCode::kSqrt});
  add("rmse", std::move(rmse));
  add("exact", ratio_program(k.exact, k.n));
  add("within_one", ratio_program(k.within_one, k.n));
  if (!counts.same_constant)
    add("qwk", qwk_program(k));
  else
    notes.push_back("qwk of " + who + " is left out: gold and the judge give one and the same score (0/0)");
  return notes;
}

}  // namespace judgestat
