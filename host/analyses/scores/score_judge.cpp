#include "analyses/scores/score_judge.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
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

// One side's levels as the rank statistics read them: the levels the entering units use,
// ascending, and per used level i the column of units at or below it, so that its sum on a
// replicate is the replicate's C_i (C_last is the n column). Ranks, tie counts and the centred
// rank of a level are then a few operations on C_{i−1} and C_i, whatever the number of levels.
struct CumulativeLevels {
  std::vector<int32_t> index;        // per level: its rank among the used levels, −1 when unused
  std::vector<int32_t> at_or_below;  // per used level: column of C_i
};

CumulativeLevels add_cumulative_levels(int32_t n_levels, const std::vector<int32_t>& side, const ScoredUnits& units,
                                       int32_t k_n, const std::string& name, Plan& plan) {
  const size_t U = units.gold.size();
  CumulativeLevels out{std::vector<int32_t>(n_levels, -1), {}};
  for (size_t u = 0; u < U; ++u)
    if (units.gold[u] >= 0 && units.judge[u] >= 0) out.index[side[u]] = 0;
  int32_t used = 0;
  for (int32_t& i : out.index)
    if (i == 0) i = used++;
  for (int32_t i = 0; i + 1 < used; ++i) {
    std::vector<double> values(U, 0.0);
    for (size_t u = 0; u < U; ++u)
      values[u] = units.gold[u] >= 0 && units.judge[u] >= 0 && out.index[side[u]] <= i ? 1.0 : 0.0;
    out.at_or_below.push_back(add_score_column(plan, name + "/le" + std::to_string(i), values));
  }
  if (used > 0) out.at_or_below.push_back(k_n);
  return out;
}

std::vector<Op> at_or_below(const CumulativeLevels& side, int32_t i) { return cumulative_sum(side.at_or_below, i); }
std::vector<Op> level_count(const CumulativeLevels& side, int32_t i) { return cumulative_step(side.at_or_below, i); }
std::vector<Op> twice_centred_rank(const CumulativeLevels& side, int32_t i) {
  return judgestat::twice_centred_rank(side.at_or_below, i);
}

// 4 Σ (rank − mean rank)² of one side: Σ_i N_i (2 c_i)².
std::vector<Op> rank_variance(const CumulativeLevels& side) {
  std::vector<Op> sum;
  for (int32_t i = 0; i < static_cast<int32_t>(side.at_or_below.size()); ++i) {
    const std::vector<Op> c = twice_centred_rank(side, i);
    add_program_term(sum, product(product(level_count(side, i), c), c));
  }
  return sum.empty() ? constant_op(0) : sum;
}

// The entering units' used-level ranks on one side, −1 elsewhere.
std::vector<int32_t> used_ranks(const std::vector<int32_t>& side, const CumulativeLevels& levels,
                                const ScoredUnits& units) {
  std::vector<int32_t> out(side.size(), -1);
  for (size_t u = 0; u < side.size(); ++u)
    if (units.gold[u] >= 0 && units.judge[u] >= 0) out[u] = levels.index[side[u]];
  return out;
}

// A rank term over the units whose `role` is 0 (negative) or 1 (positive), scored by `other`: on
// a replicate, 2U − N_positive N_negative of it is Σ_{u positive, t negative} w_u w_t sgn(other_u − other_t).
int32_t add_sign_term(const std::vector<int8_t>& role, const std::vector<int32_t>& other, Plan& plan) {
  std::vector<int32_t> term_units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (size_t u = 0; u < role.size(); ++u) {
    if (role[u] < 0) continue;
    term_units.push_back(static_cast<int32_t>(u));
    scores.push_back(other[u]);
    positive.push_back(static_cast<uint8_t>(role[u]));
  }
  return plan.add_rank_term(term_units, scores, positive);
}

// {kRank, term} − positives · negatives: the term's Σ sgn (add_sign_term).
std::vector<Op> sign_sum(int32_t term, const std::vector<Op>& positives, const std::vector<Op>& negatives) {
  std::vector<Op> out = {{OpCode::kRank, term}};
  const std::vector<Op> pairs = product(positives, negatives);
  out.insert(out.end(), pairs.begin(), pairs.end());
  out.push_back({OpCode::kSub});
  return out;
}

// C_last − C_i: the units above used level i.
std::vector<Op> above(const CumulativeLevels& side, int32_t i) {
  std::vector<Op> out = column_op(side.at_or_below.back());
  const std::vector<Op> through = at_or_below(side, i);
  out.insert(out.end(), through.begin(), through.end());
  out.push_back({OpCode::kSub});
  return out;
}

// Spearman's ρ: Pearson's r of the average ranks, Σ_u c_u d_u / √(Σ_u c_u² · Σ_u d_u²) with c, d
// twice the centred ranks. The cross term is Σ_i c_i T_i over side A's levels, T_i = Σ_{u at i}
// d_u = Σ_{u at i, t not} sgn(b_u − b_t) (pairs inside level i cancel): one rank term per level of
// A, the side with fewer levels, so a replicate re-ranks both sides of its own sample.
std::vector<Op> spearman_program(const CumulativeLevels& a, const std::vector<int32_t>& a_ranks,
                                 const CumulativeLevels& b, const std::vector<int32_t>& b_ranks, Plan& plan) {
  std::vector<Op> covariance;
  for (int32_t i = 0; i < static_cast<int32_t>(a.at_or_below.size()); ++i) {
    std::vector<int8_t> role(a_ranks.size(), -1);  // level i against every other level
    for (size_t u = 0; u < a_ranks.size(); ++u)
      if (a_ranks[u] >= 0) role[u] = a_ranks[u] == i;
    std::vector<Op> others = at_or_below(a, i - 1);  // n − N_i
    const std::vector<Op> rest = above(a, i);
    others.insert(others.end(), rest.begin(), rest.end());
    others.push_back({OpCode::kAdd});
    const std::vector<Op> t = sign_sum(add_sign_term(role, b_ranks, plan), level_count(a, i), others);
    add_program_term(covariance, product(twice_centred_rank(a, i), t));
  }
  return correlation(covariance, rank_variance(a), rank_variance(b));
}

// Per (gold, judge) pair of used levels, gold-major: whether an entering unit takes it.
std::vector<uint8_t> used_cells(const std::vector<int32_t>& gold_ranks, const std::vector<int32_t>& judge_ranks,
                                size_t gold_levels, size_t judge_levels) {
  std::vector<uint8_t> used(gold_levels * judge_levels, 0);
  for (size_t u = 0; u < gold_ranks.size(); ++u)
    if (gold_ranks[u] >= 0) used[size_t(gold_ranks[u]) * judge_levels + size_t(judge_ranks[u])] = 1;
  return used;
}

// A used (gold, judge) pair of levels and its column of the units that take it.
struct RankCell {
  int32_t gold, judge, column;
};

std::vector<RankCell> add_rank_cells(const std::vector<int32_t>& gold_ranks, const std::vector<int32_t>& judge_ranks,
                                     const std::vector<uint8_t>& used, size_t judge_levels, const std::string& name,
                                     Plan& plan) {
  std::vector<RankCell> cells;
  std::vector<int32_t> column(used.size(), -1);
  for (size_t c = 0; c < used.size(); ++c) {
    if (!used[c]) continue;
    const auto a = static_cast<int32_t>(c / judge_levels), b = static_cast<int32_t>(c % judge_levels);
    column[c] = plan.add_column(name + "/cell" + std::to_string(a) + "_" + std::to_string(b));
    plan.columns[column[c]] = PlanColumn(gold_ranks.size());
    cells.push_back({a, b, column[c]});
  }
  for (size_t u = 0; u < gold_ranks.size(); ++u)
    if (gold_ranks[u] >= 0)
      plan.columns[column[size_t(gold_ranks[u]) * judge_levels + size_t(judge_ranks[u])]].set(u, 1);
  return cells;
}

// Spearman's ρ from the cells: the cross term Σ_u c_u d_u is Σ_ab N_ab c_a d_b, a column sum times
// two centred ranks off the running counts per cell. No rank term, so nothing is scanned per item
// on a replicate and the number of items is unlimited; the columns are one per cell, hence the cap.
std::vector<Op> spearman_cells_program(const CumulativeLevels& gold, const CumulativeLevels& judge,
                                       const std::vector<RankCell>& cells) {
  std::vector<Op> covariance;
  for (const RankCell& cell : cells)
    add_program_term(covariance, product(product(column_op(cell.column), twice_centred_rank(gold, cell.gold)),
                                         twice_centred_rank(judge, cell.judge)));
  return correlation(covariance, rank_variance(gold), rank_variance(judge));
}

// P − Q over the gold levels [first, last): the pairs split by the halves' boundary `mid` are
// concordant or discordant by the judge's order alone, Σ sgn(b_upper − b_lower) = 2U − N_upper
// N_lower of one rank term (upper half positive); the pairs inside each half by recursion, and
// pairs tied on gold are never split. Each unit enters ⌈log₂ levels⌉ terms.
void add_concordance_terms(const CumulativeLevels& gold, const std::vector<int32_t>& gold_ranks,
                           const std::vector<int32_t>& judge_ranks, int32_t first, int32_t last, Plan& plan,
                           std::vector<Op>& sum) {
  if (last - first < 2) return;
  const int32_t mid = first + (last - first) / 2;
  std::vector<int8_t> role(gold_ranks.size(), -1);
  for (size_t u = 0; u < gold_ranks.size(); ++u)
    if (gold_ranks[u] >= first && gold_ranks[u] < last) role[u] = gold_ranks[u] >= mid;
  std::vector<Op> upper = at_or_below(gold, last - 1), lower = at_or_below(gold, mid - 1);
  for (const auto& [side, below] : {std::pair{&upper, mid - 1}, std::pair{&lower, first - 1}}) {
    const std::vector<Op> subtract = at_or_below(gold, below);
    side->insert(side->end(), subtract.begin(), subtract.end());
    side->push_back({OpCode::kSub});
  }
  add_program_term(sum, sign_sum(add_sign_term(role, judge_ranks, plan), upper, lower));
  add_concordance_terms(gold, gold_ranks, judge_ranks, first, mid, plan, sum);
  add_concordance_terms(gold, gold_ranks, judge_ranks, mid, last, plan, sum);
}

// Σ_i N_i (N_i − 1) over one side's levels: twice the pairs tied on that side.
std::vector<Op> tied_pairs(const CumulativeLevels& side) {
  std::vector<Op> sum;
  for (int32_t i = 0; i < static_cast<int32_t>(side.at_or_below.size()); ++i) {
    std::vector<Op> less_one = level_count(side, i);
    less_one.push_back({OpCode::kConstant, 0, 1.0});
    less_one.push_back({OpCode::kSub});
    add_program_term(sum, product(level_count(side, i), less_one));
  }
  return sum.empty() ? constant_op(0) : sum;
}

// Kendall's τ_b = 2(P − Q) / √((n(n−1) − Σ N_a(N_a−1)) (n(n−1) − Σ M_b(M_b−1))).
std::vector<Op> kendall_program(const CumulativeLevels& gold, const std::vector<int32_t>& gold_ranks,
                                const CumulativeLevels& judge, const std::vector<int32_t>& judge_ranks, int32_t n,
                                Plan& plan) {
  std::vector<Op> difference;
  add_concordance_terms(gold, gold_ranks, judge_ranks, 0, static_cast<int32_t>(gold.at_or_below.size()), plan,
                        difference);
  if (difference.empty()) difference = constant_op(0);
  difference = product(constant_op(2), difference);
  const std::vector<Op> pairs =
      product(column_op(n), {{OpCode::kColumn, n}, {OpCode::kConstant, 0, 1.0}, {OpCode::kSub}});
  auto untied = [&](const CumulativeLevels& side) {
    std::vector<Op> out = pairs;
    const std::vector<Op> ties = tied_pairs(side);
    out.insert(out.end(), ties.begin(), ties.end());
    out.push_back({OpCode::kSub});
    return out;
  };
  return correlation(difference, untied(gold), untied(judge));
}

std::string spearman_left_out(const std::string& who, int64_t n, int64_t entries, int64_t cells) {
  return "spearman of " + who + " is left out: " + std::to_string(n) + " items × " + std::to_string(entries / n) +
         " distinct values need " + std::to_string(entries) + " rank entries, more than the " +
         std::to_string(kMaxSpearmanEntries) + " it is built for, and its " + std::to_string(cells) +
         " (gold, judge) pairs of values are more than the " + std::to_string(kMaxSpearmanCells) +
         " counted one by one (§8.2)";
}

// Spearman's ρ and Kendall's τ_b on the per-level cumulative columns, ρ's cross term from cell
// columns or rank terms (chosen_spearman_form), τ_b's from rank terms (§8.2).
std::vector<std::string> add_rank_statistics(int32_t n_levels, const ScoredUnits& units, int64_t n, int32_t k_n,
                                             const std::string& tag, const std::string& who, SpearmanForm form,
                                             const std::function<void(const char*, std::vector<Op>)>& add, Plan& plan) {
  const CumulativeLevels gold = add_cumulative_levels(n_levels, units.gold, units, k_n, tag + "/rank/gold", plan);
  const CumulativeLevels judge = add_cumulative_levels(n_levels, units.judge, units, k_n, tag + "/rank/judge", plan);
  const std::vector<int32_t> gold_ranks = used_ranks(units.gold, gold, units),
                             judge_ranks = used_ranks(units.judge, judge, units);
  const size_t gold_levels = gold.at_or_below.size(), judge_levels = judge.at_or_below.size();
  const std::vector<uint8_t> used = used_cells(gold_ranks, judge_ranks, gold_levels, judge_levels);
  const auto cells = static_cast<int64_t>(std::count(used.begin(), used.end(), 1));
  const int64_t entries = n * static_cast<int64_t>(std::min(gold_levels, judge_levels));
  if (form == SpearmanForm::kChosen) form = chosen_spearman_form(cells, entries);
  std::vector<std::string> notes;
  if (form == SpearmanForm::kCells)
    add("spearman", spearman_cells_program(
                        gold, judge, add_rank_cells(gold_ranks, judge_ranks, used, judge_levels, tag + "/rank", plan)));
  else if (form == SpearmanForm::kRankTerms && gold_levels <= judge_levels)
    add("spearman", spearman_program(gold, gold_ranks, judge, judge_ranks, plan));
  else if (form == SpearmanForm::kRankTerms)
    add("spearman", spearman_program(judge, judge_ranks, gold, gold_ranks, plan));
  else
    notes.push_back(spearman_left_out(who, n, entries, cells));
  add("kendall_tau_b", kendall_program(gold, gold_ranks, judge, judge_ranks, k_n, plan));
  return notes;
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

SpearmanForm chosen_spearman_form(int64_t cells, int64_t entries) {
  return entries <= kMaxSpearmanEntries ? SpearmanForm::kRankTerms
         : cells <= kMaxSpearmanCells   ? SpearmanForm::kCells
                                        : SpearmanForm::kChosen;
}

std::vector<std::string> add_score_statistics(const std::vector<double>& level_score, const ScoredUnits& units,
                                              const StatLabel& base, const std::string& tag, Plan& plan,
                                              SpearmanForm spearman_form) {
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
      for (std::string& note : add_rank_statistics(n_levels, units, counts.n, k.n, tag, who, spearman_form, add, plan))
        notes.push_back(std::move(note));
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
