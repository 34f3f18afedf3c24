#include "analyses/metrics/classification.hpp"

#include <algorithm>
#include <utility>

namespace judgestat {

namespace {

// One judge's order-0 records on a scope: the units that count and the labels occurring as gold or verdict.
struct OrderZero {
  std::vector<uint8_t> in;       // per unit: in the scope with an order-0 record
  std::vector<int16_t> verdict;  // per unit: the order-0 verdict (kAbsent where !in)
  int64_t n = 0;                 // units in
  std::vector<int32_t> labels;   // ascending label index
};

OrderZero order_zero(const ItemMatrix& m, int32_t judge, const ScopeView& scope) {
  const size_t U = scope.size();
  OrderZero z;
  z.in.assign(U, 0);
  z.verdict.assign(U, kAbsent);
  // sklearn's default label set: every label that occurs as gold or as a prediction.
  std::vector<uint8_t> gold_occurs(m.n_labels(), 0);
  for (size_t u = 0; u < U; ++u) {
    const AccuracyUnit& unit = scope.units[u];
    const size_t c = m.cell(judge, unit.item, 0, unit.variant);
    if (!scope.has(u) || !m.present(c)) continue;
    z.in[u] = 1;
    z.verdict[u] = m.verdict[c];
    ++z.n;
    gold_occurs[m.gold[unit.item]] = 1;
    if (m.verdict[c] >= 0) gold_occurs[m.verdict[c]] = 1;  // predicted labels count too
  }
  for (int32_t k = 0; k < m.n_labels(); ++k)
    if (gold_occurs[k]) z.labels.push_back(k);
  return z;
}

// One label's per-unit indicator columns and their totals on the original data.
struct LabelColumns {
  int32_t tp, pred_gold, pred, gold;
  int64_t n_pred = 0, n_gold = 0, n_either = 0;
};

LabelColumns label_columns(const ItemMatrix& m, const ScopeView& scope, const OrderZero& z, int32_t label, size_t index,
                           Plan& plan) {
  const size_t U = scope.size();
  std::vector<double> tp(U, 0.0), pred_gold(U, 0.0), pred(U, 0.0), gold(U, 0.0);
  LabelColumns out{};
  for (size_t u = 0; u < U; ++u) {
    if (!z.in[u]) continue;
    const bool gold_k = m.gold[scope.units[u].item] == label, pred_k = z.verdict[u] == label;
    tp[u] = gold_k && pred_k;
    pred_gold[u] = gold_k + pred_k;
    pred[u] = pred_k;
    gold[u] = gold_k;
    out.n_pred += pred_k;
    out.n_gold += gold_k;
    out.n_either += gold_k || pred_k;
  }
  // tp and pred+gold keep the names add_macro_f1 gave them.
  const std::string prefix = scope.tag + "/f1/";
  const std::string k = std::to_string(index);
  out.tp = add_values_column(plan, prefix + "tp" + k, std::move(tp));
  out.pred_gold = add_values_column(plan, prefix + "pg" + k, std::move(pred_gold));
  out.pred = add_values_column(plan, prefix + "pred" + k, std::move(pred));
  out.gold = add_values_column(plan, prefix + "gold" + k, std::move(gold));
  return out;
}

// numerator · scale / denominator, 0 when the denominator is 0 (sklearn's zero_division=0).
std::vector<Op> share_or_zero(int32_t numerator, double scale, int32_t denominator) {
  return {{OpCode::kColumn, numerator},
          {OpCode::kConstant, 0, scale},
          {OpCode::kMul},
          {OpCode::kColumn, denominator},
          {OpCode::kDivOrZero}};
}

// composition_acc = Σ_k w_k · TP_k / P_k over the weighted labels (kDiv: undefined on a replicate where a
// weighted label is never the verdict); a note instead when one is never the verdict on the data.
template <typename Add>
std::optional<std::string> add_composition_agreement(const ItemMatrix& m, const OrderZero& z,
                                                     const std::vector<LabelColumns>& columns,
                                                     const std::vector<double>& composition, Add add) {
  std::vector<Op> program;
  for (int32_t k = 0; k < m.n_labels(); ++k) {
    if (composition[k] == 0) continue;
    const auto at = std::find(z.labels.begin(), z.labels.end(), k);
    const LabelColumns* c = at == z.labels.end() ? nullptr : &columns[at - z.labels.begin()];
    if (!c || c->n_pred == 0) return "no verdict '" + m.labels[k] + "' to condition on";
    add_term(program, {{OpCode::kColumn, c->tp},
                       {OpCode::kColumn, c->pred},
                       {OpCode::kDiv},
                       {OpCode::kConstant, 0, composition[k]},
                       {OpCode::kMul}});
  }
  add(std::move(program));
  return std::nullopt;
}

}  // namespace

std::optional<std::string> add_classification(const ItemMatrix& m, int32_t judge, const ScopeView& scope, Plan& plan,
                                              const std::vector<double>& composition) {
  const OrderZero z = order_zero(m, judge, scope);
  if (z.n == 0) return std::nullopt;
  std::vector<LabelColumns> columns;
  for (size_t k = 0; k < z.labels.size(); ++k) columns.push_back(label_columns(m, scope, z, z.labels[k], k, plan));
  const std::string& judge_name = m.judges[judge];
  auto add = [&](const std::string& name, std::vector<Op> program, int64_t n, const std::string* label) {
    StatisticDef stat{scope_label(scope, name, judge_name), std::move(program)};
    stat.label.order = 0;
    stat.label.n = n;
    if (label) stat.label.label = *label;
    plan.statistics.push_back(std::move(stat));
  };
  // Macro averages: the per-label terms summed left to right, over the number of labels.
  // macro_f1's program is the one add_macro_f1 has always built.
  std::vector<Op> precision, recall, f1;
  for (const LabelColumns& c : columns) {
    add_term(precision, share_or_zero(c.tp, 1.0, c.pred));
    add_term(recall, share_or_zero(c.tp, 1.0, c.gold));
    add_term(f1, share_or_zero(c.tp, 2.0, c.pred_gold));
  }
  const Op n_labels{OpCode::kConstant, 0, static_cast<double>(columns.size())};
  for (std::vector<Op>* program : {&precision, &recall, &f1}) {
    program->push_back(n_labels);
    program->push_back({OpCode::kDiv});
  }
  add("macro_precision", precision, z.n, nullptr);
  add("macro_recall", recall, z.n, nullptr);
  add("macro_f1", f1, z.n, nullptr);
  for (size_t k = 0; k < columns.size(); ++k) {
    const LabelColumns& c = columns[k];
    const std::string& label = m.labels[z.labels[k]];
    add("precision", share_or_zero(c.tp, 1.0, c.pred), c.n_pred, &label);
    add("recall", share_or_zero(c.tp, 1.0, c.gold), c.n_gold, &label);
    add("f1", share_or_zero(c.tp, 2.0, c.pred_gold), c.n_either, &label);
  }
  if (composition.empty()) return std::nullopt;
  return add_composition_agreement(m, z, columns, composition, [&](std::vector<Op> program) {
    add("composition_acc", std::move(program), z.n, nullptr);
  });
}

Confusion confusion_counts(const ItemMatrix& m, int32_t judge, const ScopeView& scope) {
  const OrderZero z = order_zero(m, judge, scope);
  Confusion out;
  out.judge = m.judges[judge];
  out.scope = scope_label(scope, "confusion", out.judge);
  out.scope.order = 0;
  out.scope.n = z.n;
  std::vector<int32_t> row_of(m.n_labels(), -1);
  for (int32_t k : z.labels) {
    row_of[k] = static_cast<int32_t>(out.gold_labels.size());
    out.gold_labels.push_back(m.labels[k]);
  }
  bool any_tie = false;
  for (size_t u = 0; u < z.in.size(); ++u) any_tie = any_tie || (z.in[u] && z.verdict[u] == kTie);
  out.verdict_labels = m.labels;
  if (any_tie) out.verdict_labels.push_back("tie");
  out.verdict_labels.push_back("invalid");
  const int32_t tie_column = m.n_labels(), invalid_column = static_cast<int32_t>(out.verdict_labels.size()) - 1;
  out.counts.assign(out.gold_labels.size(), std::vector<int64_t>(out.verdict_labels.size(), 0));
  for (size_t u = 0; u < z.in.size(); ++u) {
    if (!z.in[u]) continue;
    const int16_t v = z.verdict[u];
    const int32_t column = v >= 0 ? v : v == kTie ? tie_column : invalid_column;
    ++out.counts[row_of[m.gold[scope.units[u].item]]][column];
  }
  return out;
}

}  // namespace judgestat
