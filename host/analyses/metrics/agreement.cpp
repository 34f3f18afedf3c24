#include "analyses/metrics/agreement.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "support/text.hpp"

namespace judgestat {

namespace {

void check_order(const ItemMatrix& m, int order) {
  if (order < 0 || order >= m.orders)
    throw std::invalid_argument("order: the data has presentation orders 0.." + std::to_string(m.orders - 1) +
                                ", not " + std::to_string(order));
}

void check_raters(const ItemMatrix& m, const std::vector<int32_t>& raters) {
  if (raters.size() < 2)
    throw std::invalid_argument("raters: need at least two raters for fleiss_kappa and krippendorff_alpha, got " +
                                std::to_string(raters.size()));
  for (size_t a = 0; a < raters.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (raters[a] == raters[b])
        throw std::invalid_argument("raters: " + m.judges[raters[a]] + " is named twice; name each rater once");
}

std::string rater_names(const ItemMatrix& m, const std::vector<int32_t>& raters) {
  std::vector<std::string> names;
  for (int32_t j : raters) names.push_back(m.judges[j]);
  return join(names, ",");
}

// Per unit of a scope, how many of the raters chose each category in one order.
struct RatingCounts {
  std::vector<std::vector<double>> by_category;  // [category][unit]
  std::vector<int32_t> ratings;                  // per unit: raters with a record (0 outside the scope)
};

RatingCounts rating_counts(const ItemMatrix& m, const std::vector<int32_t>& raters, int order, const ScopeView& scope) {
  const size_t U = scope.size();
  RatingCounts out;
  out.by_category.assign(agreement_categories(m), std::vector<double>(U, 0.0));
  out.ratings.assign(U, 0);
  for (size_t u = 0; u < U; ++u) {
    if (!scope.has(u)) continue;
    for (int32_t j : raters) {
      const size_t c = m.cell(j, scope.units[u].item, order, scope.units[u].variant);
      if (!m.present(c)) continue;
      ++out.ratings[u];
      ++out.by_category[agreement_category(m, m.verdict[c])][u];
    }
  }
  return out;
}

// `values` on the units where `keep`, 0 elsewhere.
std::vector<double> kept(const std::vector<double>& values, const std::vector<uint8_t>& keep) {
  std::vector<double> out(values.size(), 0.0);
  for (size_t u = 0; u < values.size(); ++u)
    if (keep[u]) out[u] = values[u];
  return out;
}

// Σ_c (column c)² over the given columns, summed left to right.
std::vector<Op> sum_of_squares(const std::vector<int32_t>& columns) {
  std::vector<Op> program;
  for (int32_t k : columns) add_term(program, {{OpCode::kColumn, k}, {OpCode::kColumn, k}, {OpCode::kMul}});
  if (program.empty()) program.push_back({OpCode::kConstant, 0, 0.0});
  return program;
}

// (observed − chance) / (1 − chance): the chance-corrected agreement of κ and Fleiss' κ.
std::vector<Op> chance_corrected(const std::vector<Op>& observed, const std::vector<Op>& chance) {
  std::vector<Op> program = observed;
  program.insert(program.end(), chance.begin(), chance.end());
  program.push_back({OpCode::kSub});
  program.push_back({OpCode::kConstant, 0, 1.0});
  program.insert(program.end(), chance.begin(), chance.end());
  program.push_back({OpCode::kSub});
  program.push_back({OpCode::kDiv});
  return program;
}

// One column per category the kept units use (empty categories add 0 on every replicate), and
// Σ_c (category total)² on the original data.
struct CategoryColumns {
  std::vector<int32_t> columns;
  double squared_totals = 0;
};

CategoryColumns add_category_columns(const RatingCounts& counts, const std::vector<uint8_t>& keep,
                                     const std::string& prefix, Plan& plan) {
  CategoryColumns out;
  for (size_t c = 0; c < counts.by_category.size(); ++c) {
    std::vector<double> values = kept(counts.by_category[c], keep);
    const double total = column_total(values);
    if (total == 0) continue;
    out.squared_totals += total * total;
    out.columns.push_back(add_values_column(plan, prefix + "/c" + std::to_string(c), std::move(values)));
  }
  return out;
}

}  // namespace

// The categories a rater never uses on the original data contribute 0 to p_e on every
// replicate too, so they get no columns.
bool add_cohen_kappa(const std::vector<int32_t>& first, const std::vector<int32_t>& second, int32_t n_categories,
                     const std::string& prefix, StatLabel label, Plan& plan) {
  const size_t U = first.size();
  std::vector<double> agree(U, 0.0), n(U, 0.0);
  std::vector<std::vector<double>> x(n_categories, std::vector<double>(U, 0.0)), y = x;
  std::vector<int64_t> x_total(n_categories, 0), y_total(n_categories, 0);
  int64_t n_total = 0;
  for (size_t u = 0; u < U; ++u) {
    if (first[u] < 0 || second[u] < 0) continue;
    n[u] = 1;
    agree[u] = first[u] == second[u];
    x[first[u]][u] = 1;
    y[second[u]][u] = 1;
    ++x_total[first[u]];
    ++y_total[second[u]];
    ++n_total;
  }
  int64_t chance_total = 0;  // n² p_e
  for (int32_t c = 0; c < n_categories; ++c) chance_total += x_total[c] * y_total[c];
  if (n_total == 0 || chance_total == n_total * n_total) return false;
  label.n = n_total;
  const int32_t k_agree = add_values_column(plan, prefix + "/agree", std::move(agree));
  const int32_t k_n = add_values_column(plan, prefix + "/n", std::move(n));
  std::vector<Op> chance;  // p_e
  for (int32_t c = 0; c < n_categories; ++c) {
    if (x_total[c] == 0 || y_total[c] == 0) continue;
    const int32_t kx = add_values_column(plan, prefix + "/x" + std::to_string(c), std::move(x[c]));
    const int32_t ky = add_values_column(plan, prefix + "/y" + std::to_string(c), std::move(y[c]));
    add_term(chance, {{OpCode::kColumn, kx}, {OpCode::kColumn, ky}, {OpCode::kMul}});
  }
  if (chance.empty()) chance.push_back({OpCode::kConstant, 0, 0.0});
  chance.insert(chance.end(), {{OpCode::kColumn, k_n}, {OpCode::kColumn, k_n}, {OpCode::kMul}, {OpCode::kDiv}});
  const std::vector<Op> program = chance_corrected(ratio_program(k_agree, k_n), chance);
  plan.statistics.push_back({std::move(label), std::move(program)});
  return true;
}

void add_pair_kappa(const ItemMatrix& m, int32_t judge, int32_t reference, int order, const ScopeView& scope,
                    Plan& plan) {
  check_order(m, order);
  if (judge == reference)
    throw std::invalid_argument("reference: kappa needs two different judges, got " + m.judges[judge] + " twice");
  const size_t U = scope.size();
  std::vector<int32_t> first(U, -1), second(U, -1);
  for (size_t u = 0; u < U; ++u) {
    const AccuracyUnit& unit = scope.units[u];
    const size_t a = m.cell(judge, unit.item, order, unit.variant),
                 b = m.cell(reference, unit.item, order, unit.variant);
    if (!scope.has(u) || !m.present(a) || !m.present(b)) continue;
    first[u] = agreement_category(m, m.verdict[a]);
    second[u] = agreement_category(m, m.verdict[b]);
  }
  StatLabel label = scope_label(scope, "kappa", m.judges[judge]);
  label.reference = m.judges[reference];
  label.order = order;
  const std::string prefix = scope.tag + "/kappa/" + m.judges[reference] + "/o" + std::to_string(order);
  add_cohen_kappa(first, second, agreement_categories(m), prefix, std::move(label), plan);
}

namespace {

std::string category_name(const ItemMatrix& m, int32_t category) {
  if (category < m.n_labels()) return m.labels[category];
  return category == m.n_labels() ? "tie" : "invalid";
}

}  // namespace

void add_pair_disagreements(const ItemMatrix& m, int32_t judge, int32_t reference, int order, const ScopeView& scope,
                            Plan& plan) {
  check_order(m, order);
  const size_t U = scope.size();
  const int32_t C = agreement_categories(m);
  std::vector<double> n(U, 0.0);
  std::vector<std::vector<double>> said(C * C);  // [x * C + y]: judge x, reference y
  std::vector<int64_t> seen(C * C, 0);
  int64_t n_total = 0;
  for (size_t u = 0; u < U; ++u) {
    const AccuracyUnit& unit = scope.units[u];
    const size_t a = m.cell(judge, unit.item, order, unit.variant),
                 b = m.cell(reference, unit.item, order, unit.variant);
    if (!scope.has(u) || !m.present(a) || !m.present(b)) continue;
    const int32_t x = agreement_category(m, m.verdict[a]), y = agreement_category(m, m.verdict[b]);
    n[u] = 1;
    ++n_total;
    if (x == y) continue;
    if (said[x * C + y].empty()) said[x * C + y].assign(U, 0.0);
    said[x * C + y][u] = 1;
    ++seen[x * C + y];
  }
  if (n_total == 0) return;
  const std::string prefix = scope.tag + "/disagree/" + m.judges[reference] + "/o" + std::to_string(order);
  const int32_t k_n = add_values_column(plan, prefix + "/n", std::move(n));
  for (int32_t x = 0; x < C; ++x)
    for (int32_t y = 0; y < C; ++y) {
      // Both directions of a pair of categories, once either is seen: "0 vs 5" shows its 0.
      if (x == y || (seen[x * C + y] == 0 && seen[y * C + x] == 0)) continue;
      std::vector<double> values = said[x * C + y].empty() ? std::vector<double>(U, 0.0) : said[x * C + y];
      const int32_t k =
          add_values_column(plan, prefix + "/" + std::to_string(x) + "-" + std::to_string(y), std::move(values));
      StatLabel label = scope_label(scope, "disagree", m.judges[judge]);
      label.reference = m.judges[reference];
      label.order = order;
      label.label = category_name(m, x) + "/" + category_name(m, y);
      label.n = n_total;
      plan.statistics.push_back({std::move(label), ratio_program(k, k_n)});
    }
}

void add_label_shares(const ItemMatrix& m, int32_t judge, int order, const ScopeView& scope, Plan& plan) {
  check_order(m, order);
  const size_t U = scope.size();
  const int32_t C = m.n_labels() + 1;  // the labels and tie: valid verdicts
  std::vector<double> n(U, 0.0);
  std::vector<std::vector<double>> gave(C, std::vector<double>(U, 0.0));
  std::vector<int64_t> count(C, 0);
  int64_t n_total = 0;
  for (size_t u = 0; u < U; ++u) {
    const size_t c = m.cell(judge, scope.units[u].item, order, scope.units[u].variant);
    if (!scope.has(u) || !m.present(c) || !m.valid(c)) continue;
    const int32_t category = agreement_category(m, m.verdict[c]);
    n[u] = 1;
    gave[category][u] = 1;
    ++count[category];
    ++n_total;
  }
  if (n_total == 0) return;
  const std::string prefix = scope.tag + "/label_share/o" + std::to_string(order);
  const int32_t k_n = add_values_column(plan, prefix + "/n", std::move(n));
  for (int32_t category = 0; category < C; ++category) {
    // Every label (a share of 0 says the rater never gave it); tie only when given.
    if (category == m.n_labels() && count[category] == 0) continue;
    const int32_t k = add_values_column(plan, prefix + "/" + std::to_string(category), std::move(gave[category]));
    StatLabel label = scope_label(scope, "label_share", m.judges[judge]);
    label.order = order;
    label.label = category_name(m, category);
    label.n = n_total;
    plan.statistics.push_back({std::move(label), ratio_program(k, k_n)});
  }
}

// κ = (P̄ − P̄e) / (1 − P̄e) with P̄ = Σ_i (Σ_k n_ik² − n) / (N n (n − 1)) and P̄e = Σ_k (Σ_i n_ik)² / (N n)²
// over the N units all n raters rated: column sums of n_ik, Σ_k n_ik² − n and 1.
void add_fleiss_kappa(const ItemMatrix& m, const std::vector<int32_t>& raters, int order, const ScopeView& scope,
                      Plan& plan) {
  check_raters(m, raters);
  check_order(m, order);
  const RatingCounts counts = rating_counts(m, raters, order, scope);
  const size_t U = scope.size();
  const int64_t R = static_cast<int64_t>(raters.size());
  std::vector<uint8_t> complete(U, 0);
  std::vector<double> units(U, 0.0), agreeing(U, 0.0);
  int64_t n_units = 0;
  for (size_t u = 0; u < U; ++u) {
    if (counts.ratings[u] != R) continue;
    complete[u] = 1;
    units[u] = 1;
    double squares = 0;
    for (const auto& category : counts.by_category) squares += category[u] * category[u];
    agreeing[u] = squares - static_cast<double>(R);
    ++n_units;
  }
  if (n_units == 0) return;
  const std::string prefix = scope.tag + "/fleiss/o" + std::to_string(order);
  const CategoryColumns categories = add_category_columns(counts, complete, prefix, plan);  // (N n)² P̄e
  const double ratings_total = static_cast<double>(n_units * R);
  if (categories.squared_totals == ratings_total * ratings_total) return;  // every rating in one category: 0/0
  const int32_t k_units = add_values_column(plan, prefix + "/units", std::move(units));
  const int32_t k_agreeing = add_values_column(plan, prefix + "/agreeing", std::move(agreeing));
  const std::vector<Op> observed = {{OpCode::kColumn, k_agreeing},
                                    {OpCode::kColumn, k_units},
                                    {OpCode::kDiv},
                                    {OpCode::kConstant, 0, static_cast<double>(R * (R - 1))},
                                    {OpCode::kDiv}};
  std::vector<Op> chance = sum_of_squares(categories.columns);
  chance.insert(chance.end(), {{OpCode::kColumn, k_units},
                               {OpCode::kColumn, k_units},
                               {OpCode::kMul},
                               {OpCode::kConstant, 0, static_cast<double>(R * R)},
                               {OpCode::kMul},
                               {OpCode::kDiv}});
  const std::vector<Op> program = chance_corrected(observed, chance);
  StatLabel label = scope_label(scope, "fleiss_kappa", rater_names(m, raters));
  label.order = order;
  label.n = n_units;
  plan.statistics.push_back({std::move(label), std::move(program)});
}

// α = 1 − (n − 1) (n − Σ_c o_cc) / (n² − Σ_c n_c²) over pairable units (≥ 2 ratings), with
// o_cc = Σ_u n_uc (n_uc − 1) / (m_u − 1): the coincidences are summed per rating count m_u as
// integer columns and divided by m_u − 1 in the program, so every column is a count.
void add_krippendorff_alpha(const ItemMatrix& m, const std::vector<int32_t>& raters, int order, const ScopeView& scope,
                            Plan& plan) {
  check_raters(m, raters);
  check_order(m, order);
  const RatingCounts counts = rating_counts(m, raters, order, scope);
  const size_t U = scope.size();
  const int32_t R = static_cast<int32_t>(raters.size());
  std::vector<uint8_t> pairable(U, 0);
  std::vector<double> values(U, 0.0);
  std::vector<std::vector<double>> coincidences(R + 1, std::vector<double>(U, 0.0));  // [m_u][unit]
  int64_t n_units = 0;
  for (size_t u = 0; u < U; ++u) {
    const int32_t m_u = counts.ratings[u];
    if (m_u < 2) continue;
    pairable[u] = 1;
    values[u] = m_u;
    for (const auto& category : counts.by_category) coincidences[m_u][u] += category[u] * (category[u] - 1);
    ++n_units;
  }
  if (n_units == 0) return;
  const std::string prefix = scope.tag + "/alpha/o" + std::to_string(order);
  const double n_total = column_total(values);
  const CategoryColumns categories = add_category_columns(counts, pairable, prefix, plan);  // Σ_c n_c²
  if (categories.squared_totals == n_total * n_total) return;  // every value in one category: D_e = 0
  const int32_t k_values = add_values_column(plan, prefix + "/values", std::move(values));
  std::vector<Op> matching;  // Σ_c o_cc
  for (int32_t m_u = 2; m_u <= R; ++m_u) {
    if (column_total(coincidences[m_u]) == 0) continue;
    const int32_t k = add_values_column(plan, prefix + "/coincide" + std::to_string(m_u), std::move(coincidences[m_u]));
    add_term(matching, {{OpCode::kColumn, k}, {OpCode::kConstant, 0, static_cast<double>(m_u - 1)}, {OpCode::kDiv}});
  }
  if (matching.empty()) matching.push_back({OpCode::kConstant, 0, 0.0});
  std::vector<Op> program = {{OpCode::kConstant, 0, 1.0},
                             {OpCode::kColumn, k_values},
                             {OpCode::kConstant, 0, 1.0},
                             {OpCode::kSub},
                             {OpCode::kColumn, k_values}};
  program.insert(program.end(), matching.begin(), matching.end());
  program.push_back({OpCode::kSub});
  program.push_back({OpCode::kMul});  // (n − 1)(n − Σ o_cc)
  program.insert(program.end(), {{OpCode::kColumn, k_values}, {OpCode::kColumn, k_values}, {OpCode::kMul}});
  const std::vector<Op> squares = sum_of_squares(categories.columns);
  program.insert(program.end(), squares.begin(), squares.end());
  program.push_back({OpCode::kSub});  // n² − Σ n_c²
  program.push_back({OpCode::kDiv});
  program.push_back({OpCode::kSub});
  StatLabel label = scope_label(scope, "krippendorff_alpha", rater_names(m, raters));
  label.order = order;
  label.n = n_units;
  plan.statistics.push_back({std::move(label), std::move(program)});
}

}  // namespace judgestat
