#include "analyses/probability/native_confidence.hpp"

#include <cmath>

#include "analyses/profile/spearman.hpp"

namespace judgestat {

double native_value(const Covariate& native, size_t cell) {
  const int32_t level = native.cell_level[cell];
  return level >= 0 ? native.numbers[level] : kMissing;
}

std::vector<Op> auroc_program(int32_t rank_term, int32_t positives, int32_t negatives) {
  return {{OpCode::kRank, rank_term},
          {OpCode::kColumn, positives},
          {OpCode::kColumn, negatives},
          {OpCode::kMul},
          {OpCode::kConstant, 0, 2.0},
          {OpCode::kMul},
          {OpCode::kDiv}};
}

namespace {

StatLabel labelled(const StatLabel& base, const char* name, int64_t n) {
  StatLabel label = base;
  label.name = name;
  label.n = n;
  return label;
}

// AUROC = 2U / (2·P·N) on each replicate, as auroc_err (docs/statistics.md §3.2) with the native
// score in place of q.
void add_auroc(const NativeConfidenceUnits& units, const std::vector<size_t>& kept, const StatLabel& base,
               const std::string& who, const std::string& tag, Plan& plan, NativeConfidenceRows& out) {
  int64_t errors = 0;
  for (size_t u : kept) errors += units.correct[u] < 1.0;
  const auto n = static_cast<int64_t>(kept.size());
  if (errors == 0 || errors == n) {
    out.notes.push_back("native_auroc_err of " + who + " is left out: it needs both errors and correct outputs, and " +
                        (errors == 0 ? "there are no errors" : "every output is an error"));
    return;
  }
  std::vector<int32_t> rank_units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  const int32_t k_pos = plan.add_column(tag + "/native_auroc/pos");
  const int32_t k_neg = plan.add_column(tag + "/native_auroc/neg");
  for (size_t u : kept) {
    const bool error = units.correct[u] < 1.0;
    rank_units.push_back(units.plan_unit[u]);
    scores.push_back(-units.native[u]);  // errors ranked by 1 − native: −native ranks alike, exactly
    positive.push_back(error);
    plan.columns[k_pos].set(units.plan_unit[u], error);
    plan.columns[k_neg].set(units.plan_unit[u], !error);
  }
  const int32_t term = plan.add_rank_term(rank_units, scores, positive);
  plan.statistics.push_back({labelled(base, "native_auroc_err", n), auroc_program(term, k_pos, k_neg)});
}

}  // namespace

void add_native_confidence(const NativeConfidenceUnits& units, const StatLabel& base, const std::string& who,
                           const std::string& tag, Plan& plan, NativeConfidenceRows& out) {
  std::vector<size_t> kept;
  for (size_t u = 0; u < units.native.size(); ++u)
    if (std::isfinite(units.native[u])) kept.push_back(u);
  const size_t without = units.native.size() - kept.size();
  if (kept.empty()) return;  // the judge gives no native confidence here: one note per judge (the caller's)
  if (without > 0)
    out.notes.push_back("native_auroc_err and native_q_rho of " + who + " leave out " + std::to_string(without) +
                        " of " + std::to_string(units.native.size()) +
                        " records with probabilities: they carry no native confidence");
  add_auroc(units, kept, base, who, tag, plan, out);
  std::vector<double> native, q;
  for (size_t u : kept) native.push_back(units.native[u]), q.push_back(units.q[u]);
  const double rho = pearson(average_ranks(native), average_ranks(q)).r;  // Spearman's ρ: Pearson r of ranks
  if (std::isfinite(rho))
    out.points.push_back({labelled(base, "native_q_rho", static_cast<int64_t>(kept.size())), rho});
  else
    out.notes.push_back("native_q_rho of " + who + " is left out: it needs two records or more and neither the " +
                        "native confidence nor q constant");
}

}  // namespace judgestat
