// The cluster bootstrap-t's plan columns and programs (docs/statistics.md §2 `studentized`).
#include "intervals/studentized.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

namespace judgestat {
namespace {

bool is_ratio_at(const Op* ops, int32_t at) {
  return ops[at].code == OpCode::kColumn && ops[at + 1].code == OpCode::kColumn && ops[at + 2].code == OpCode::kDiv;
}

double real_sum(const CompiledPlan& plan, int64_t cluster, int32_t column) {
  return static_cast<double>(plan.cluster_sums[static_cast<size_t>(cluster) * plan.n_columns + column]) *
         plan.column_unscale[column];
}

double real_total(const CompiledPlan& plan, int32_t column) {
  return static_cast<double>(plan.totals[column]) * plan.column_unscale[column];
}

int n_ratios(const RatioForm& form) { return form.difference ? 2 : 1; }
double weight(int i) { return i == 0 ? 1.0 : -1.0; }

/// Postfix emission with the stack depth tracked (the backends allow kMaxStack).
struct Emitter {
  std::vector<Op> ops;
  int depth = 0, max_depth = 0;
  void push(Op op) {
    ops.push_back(op);
    depth += op.code == OpCode::kColumn || op.code == OpCode::kConstant ? 1 : op.code == OpCode::kAbs ? 0 : -1;
    max_depth = std::max(max_depth, depth);
  }
  void column(int32_t k) { push({OpCode::kColumn, k}); }
  void constant(double v) { push({OpCode::kConstant, 0, v}); }
  void op(OpCode code) { push({code}); }
};

/// Product and linear columns of the studentised statistics, one per (stratum, column, column)
/// (second column −1: the linear sum), shared between statistics; units are the clusters.
class ProductColumns {
 public:
  explicit ProductColumns(const CompiledPlan& plan) : plan_(plan) {
    mini_.stratum_offset = plan.stratum_offset;
    mini_.stratum_names.assign(plan.n_strata(), "");
    for (int64_t c = 0; c < plan.n_clusters; ++c) mini_.unit_cluster.push_back(static_cast<int32_t>(c));
  }

  /// The mini-plan column holding Σ over stratum h's clusters of x_c y_c (y = −1: of x_c).
  int32_t get(int32_t h, int32_t x, int32_t y) {
    if (y >= 0 && y < x) std::swap(x, y);
    const auto key = std::make_tuple(h, x, y);
    const auto found = index_.find(key);
    if (found != index_.end()) return found->second;
    const int32_t k = mini_.add_column("studentized " + std::to_string(x) + "x" + std::to_string(y));
    for (int64_t c = plan_.stratum_offset[h]; c < plan_.stratum_offset[h + 1]; ++c)
      mini_.columns[k].set(c, real_sum(plan_, c, x) * (y >= 0 ? real_sum(plan_, c, y) : 1.0));
    index_.emplace(key, k);
    return k;
  }

  Plan& mini() { return mini_; }

 private:
  const CompiledPlan& plan_;
  Plan mini_;
  std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> index_;
};

/// Strata in which the form's columns are non-zero in some cluster.
std::vector<int32_t> form_strata(const CompiledPlan& plan, const RatioForm& form) {
  std::vector<int32_t> strata;
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    bool used = false;
    for (int64_t c = plan.stratum_offset[h]; c < plan.stratum_offset[h + 1] && !used; ++c)
      for (int i = 0; i < n_ratios(form); ++i)
        used = used || plan.cluster_sums[c * plan.n_columns + form.num[i]] != 0 ||
               plan.cluster_sums[c * plan.n_columns + form.den[i]] != 0;
    if (used) strata.push_back(h);
  }
  return strata;
}

/// Emits (θ* − θ̂)|θ* − θ̂| / SE*²; mini-plan columns are emitted as `offset + k` (their place
/// after the original columns is fixed once the mini plan is compiled).
std::vector<Op> t_square_program(const CompiledPlan& plan, const RatioForm& form, double estimate,
                                 ProductColumns& products, std::vector<int32_t>& mini_refs) {
  Emitter e;
  auto ratio = [&](int i) {
    e.column(form.num[i]);
    e.column(form.den[i]);
    e.op(OpCode::kDiv);
  };
  auto product = [&](int32_t h, int32_t x, int32_t y) {
    // A placeholder argument that compile-time remapping replaces (see studentize).
    mini_refs.push_back(static_cast<int32_t>(e.ops.size()));
    e.push({OpCode::kColumn, products.get(h, x, y)});
  };
  auto statistic = [&] {
    ratio(0);
    if (form.difference) {
      ratio(1);
      e.op(OpCode::kSub);
    }
  };
  statistic();
  e.constant(estimate);
  e.op(OpCode::kSub);
  statistic();
  e.constant(estimate);
  e.op(OpCode::kSub);
  e.op(OpCode::kAbs);
  e.op(OpCode::kMul);  // d |d|

  bool first_term = true;
  for (int32_t h : form_strata(plan, form)) {
    const double C = static_cast<double>(plan.stratum_offset[h + 1] - plan.stratum_offset[h]);
    if (C < 2) continue;
    // Σ_c e_c² = Σ_ij w_i w_j Q_ij / (B_i B_j), Q_ij = S(a_i a_j) − R_j S(a_i b_j) − R_i S(b_i a_j) + R_i R_j S(b_i
    // b_j).
    bool first = true;
    for (int i = 0; i < n_ratios(form); ++i)
      for (int j = i; j < n_ratios(form); ++j) {
        product(h, form.num[i], form.num[j]);
        ratio(j);
        product(h, form.num[i], form.den[j]);
        e.op(OpCode::kMul);
        e.op(OpCode::kSub);
        ratio(i);
        product(h, form.den[i], form.num[j]);
        e.op(OpCode::kMul);
        e.op(OpCode::kSub);
        ratio(i);
        ratio(j);
        e.op(OpCode::kMul);
        product(h, form.den[i], form.den[j]);
        e.op(OpCode::kMul);
        e.op(OpCode::kAdd);
        e.column(form.den[i]);
        e.column(form.den[j]);
        e.op(OpCode::kMul);
        e.op(OpCode::kDiv);
        e.constant(weight(i) * weight(j) * (i == j ? 1.0 : 2.0));
        e.op(OpCode::kMul);
        if (!first) e.op(OpCode::kAdd);
        first = false;
      }
    // (Σ_c e_c)² / C_h, Σ_c e_c = Σ_i w_i (S(a_i) − R_i S(b_i)) / B_i, emitted twice (no dup op).
    for (int twice = 0; twice < 2; ++twice)
      for (int i = 0; i < n_ratios(form); ++i) {
        product(h, form.num[i], -1);
        ratio(i);
        product(h, form.den[i], -1);
        e.op(OpCode::kMul);
        e.op(OpCode::kSub);
        e.column(form.den[i]);
        e.op(OpCode::kDiv);
        if (i > 0) e.op(OpCode::kSub);
      }
    e.op(OpCode::kMul);
    e.constant(1.0 / C);
    e.op(OpCode::kMul);
    e.op(OpCode::kSub);
    e.constant(C / (C - 1));
    e.op(OpCode::kMul);
    if (!first_term) e.op(OpCode::kAdd);
    first_term = false;
  }
  if (first_term) e.constant(0.0);  // no stratum with two clusters: undefined
  e.op(OpCode::kDiv);
  if (e.max_depth > kMaxStack || e.depth != 1) throw std::logic_error("studentized: program stack out of bounds");
  return e.ops;
}

/// Appends the compiled mini plan's columns to `out` (row-major cluster_sums re-laid).
void append_columns(CompiledPlan& out, const CompiledPlan& extra) {
  const int32_t n0 = out.n_columns, n1 = extra.n_columns, n = n0 + n1;
  std::vector<int64_t> sums(static_cast<size_t>(out.n_clusters) * n);
  for (int64_t c = 0; c < out.n_clusters; ++c) {
    std::copy_n(out.cluster_sums.begin() + c * n0, n0, sums.begin() + c * n);
    std::copy_n(extra.cluster_sums.begin() + c * n1, n1, sums.begin() + c * n + n0);
  }
  out.cluster_sums = std::move(sums);
  out.column_unscale.insert(out.column_unscale.end(), extra.column_unscale.begin(), extra.column_unscale.end());
  out.totals.insert(out.totals.end(), extra.totals.begin(), extra.totals.end());
  out.fits_int32 = out.fits_int32 && extra.fits_int32;
  out.n_columns = n;
}

}  // namespace

std::optional<RatioForm> ratio_form(const CompiledPlan& plan, int32_t statistic) {
  const Op* ops = plan.ops.data() + plan.op_offset[statistic];
  const int32_t n = plan.op_offset[statistic + 1] - plan.op_offset[statistic];
  RatioForm form;
  if (n == 3 && is_ratio_at(ops, 0)) {
    form.num[0] = ops[0].arg, form.den[0] = ops[1].arg;
    return form;
  }
  if (n == 7 && is_ratio_at(ops, 0) && is_ratio_at(ops, 3) && ops[6].code == OpCode::kSub) {
    form.num[0] = ops[0].arg, form.den[0] = ops[1].arg, form.num[1] = ops[3].arg, form.den[1] = ops[4].arg;
    form.difference = true;
    return form;
  }
  return std::nullopt;
}

std::vector<double> linearised_residuals(const CompiledPlan& plan, const RatioForm& form) {
  std::vector<double> e(plan.n_clusters, 0.0);
  for (int i = 0; i < n_ratios(form); ++i) {
    const double B = real_total(plan, form.den[i]);
    const double R = B == 0 ? std::numeric_limits<double>::quiet_NaN() : real_total(plan, form.num[i]) / B;
    for (int64_t c = 0; c < plan.n_clusters; ++c)
      e[c] += weight(i) * (real_sum(plan, c, form.num[i]) - R * real_sum(plan, c, form.den[i])) / B;
  }
  return e;
}

double linearised_se(const CompiledPlan& plan, const std::vector<double>& e) {
  double variance = 0;
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    const int64_t first = plan.stratum_offset[h], last = plan.stratum_offset[h + 1];
    const double C = static_cast<double>(last - first);
    if (C < 2) continue;
    double sum = 0, squares = 0;
    for (int64_t c = first; c < last; ++c) sum += e[c], squares += e[c] * e[c];
    variance += C / (C - 1) * (squares - sum * sum / C);
  }
  return std::sqrt(variance);
}

StudentizedPlan studentize(const CompiledPlan& plan, const std::vector<double>& estimates) {
  StudentizedPlan out;
  out.plan = plan;
  out.t_statistic.assign(plan.n_statistics, -1);
  out.se.assign(plan.n_statistics, std::numeric_limits<double>::quiet_NaN());
  ProductColumns products(plan);
  std::vector<std::vector<Op>> programs;
  std::vector<std::vector<int32_t>> refs;
  std::vector<int32_t> owner;
  for (int32_t s = 0; s < plan.n_statistics; ++s) {
    const std::optional<RatioForm> form = ratio_form(plan, s);
    if (!form || !std::isfinite(estimates[s])) continue;
    out.se[s] = linearised_se(plan, linearised_residuals(plan, *form));
    refs.emplace_back();
    programs.push_back(t_square_program(plan, *form, estimates[s], products, refs.back()));
    owner.push_back(s);
  }
  if (programs.empty()) return out;
  // One trivial statistic per mini column tells where compile() put it (it merges equal columns).
  Plan& mini = products.mini();
  for (int32_t k = 0; k < static_cast<int32_t>(mini.columns.size()); ++k)
    mini.statistics.push_back({StatLabel{}, {{OpCode::kColumn, k}}});
  const CompiledPlan compiled = compile(mini);
  const int32_t offset = out.plan.n_columns;
  append_columns(out.plan, compiled);
  for (size_t p = 0; p < programs.size(); ++p) {
    for (int32_t at : refs[p]) {
      const int32_t k = programs[p][at].arg;
      programs[p][at].arg = offset + compiled.ops[compiled.op_offset[k]].arg;
    }
    out.plan.ops.insert(out.plan.ops.end(), programs[p].begin(), programs[p].end());
    out.plan.op_offset.push_back(static_cast<int32_t>(out.plan.ops.size()));
    out.t_statistic[owner[p]] = out.plan.n_statistics++;
  }
  return out;
}

}  // namespace judgestat
