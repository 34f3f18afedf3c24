#include "analyses/covariates/covariate_bias.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "records/covariate_bins.hpp"

namespace judgestat {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double total(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

int32_t add_column(Plan& plan, const std::string& name, const std::vector<double>& values) {
  const int32_t k = plan.add_column(name);
  plan.columns[k] = values;
  return k;
}

std::vector<double> times(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size());
  for (size_t u = 0; u < a.size(); ++u) out[u] = a[u] * b[u];
  return out;
}

// A ratio statistic's columns and its n (0: not added, its denominator is 0 on the scope).
struct RatioColumns {
  int32_t num = -1, den = -1;
  int64_t n = 0;
};

/// Σ num·den / Σ den over the scope's units as statistic `label` (den a 0/1 indicator: the
/// numerator counts only the units the denominator does); nothing when Σ den is 0 there.
RatioColumns add_ratio(Plan& plan, StatLabel label, const std::string& tag, const std::vector<double>& num,
                       const std::vector<double>& den, const std::vector<double>& mask) {
  RatioColumns out;
  const std::vector<double> den_values = times(den, mask);
  out.n = static_cast<int64_t>(total(den_values));
  if (out.n == 0) return out;
  out.num = add_column(plan, tag + "/" + label.name + "/num", times(num, den_values));
  out.den = add_column(plan, tag + "/" + label.name + "/den", den_values);
  label.n = out.n;
  plan.statistics.push_back({std::move(label), ratio_program(out.num, out.den)});
  return out;
}

StatLabel scope_label(const ItemMatrix& m, const Selection& sel, const MetricsScope& scope, int32_t j,
                      const std::string& name) {
  StatLabel label = group_label(sel, scope.group);
  label.name = name;
  label.judge = m.judges[j];
  return label;
}

std::string scope_tag(const ItemMatrix& m, const MetricsScope& scope, int32_t j, const std::string& what) {
  return m.judges[j] + (scope.group ? "/" + *scope.group : "") + "/" + what;
}

// One judge's order-0 verdicts on the accuracy units: present, picking a label, right.
struct OrderZero {
  std::vector<double> present, picked, correct;
  std::vector<int32_t> verdict;
};

OrderZero order_zero_facts(const ItemMatrix& m, int32_t j, const std::vector<AccuracyUnit>& units) {
  OrderZero out{std::vector<double>(units.size(), 0.0), std::vector<double>(units.size(), 0.0),
                std::vector<double>(units.size(), 0.0), std::vector<int32_t>(units.size(), kAbsent)};
  for (size_t u = 0; u < units.size(); ++u) {
    const size_t c = m.cell(j, units[u].item, 0, units[u].variant);
    out.verdict[u] = m.verdict[c];
    out.present[u] = m.present(c);
    out.picked[u] = m.verdict[c] >= 0;
    out.correct[u] = m.present(c) && m.correct(c, units[u].item);
  }
  return out;
}

/// The edges of `spec_text` (flag `flag`) over the finite values of `values` where `keep` is 1. A
/// kept value outside given edges is a usage error naming the flag and the item (`what` says what
/// the value is), as for `--by x.NAME --bins`: a unit is never dropped from the bins.
std::vector<double> edges_over(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                               const std::vector<double>& values, const std::vector<double>& keep,
                               const std::string& spec_text, const std::string& flag, const std::string& what) {
  std::vector<double> kept;
  for (size_t u = 0; u < values.size(); ++u)
    if (keep[u] && std::isfinite(values[u])) kept.push_back(values[u]);
  std::vector<double> edges = bin_edges(parse_bins(spec_text, flag), kept);
  for (size_t u = 0; u < values.size(); ++u)
    if (keep[u] && std::isfinite(values[u]) && bin_of(edges, values[u]) < 0)
      throw UsageError(flag + ": item '" + m.items[units[u].item] + "' has " + what + number_text(values[u]) +
                       ", outside the edges " + number_text(edges.front()) + " to " + number_text(edges.back()) +
                       "; widen them (inf and -inf are allowed)");
  return edges;
}

/// Accuracy per bin of `value` (name, label = the bin): Σ correct / Σ present with gold in the bin.
void add_binned_accuracy(Plan& plan, StatLabel label, const std::string& tag, const OrderZero& z,
                         const std::vector<double>& value, const std::vector<double>& with_gold,
                         const std::vector<double>& edges, const std::vector<double>& mask) {
  for (int32_t k = 0; k + 1 < static_cast<int32_t>(edges.size()); ++k) {
    std::vector<double> den(value.size(), 0.0);
    for (size_t u = 0; u < value.size(); ++u)
      den[u] = z.present[u] * with_gold[u] * (std::isfinite(value[u]) && bin_of(edges, value[u]) == k);
    label.label = bin_text(edges, k);
    add_ratio(plan, label, tag + "/" + *label.label, z.correct, den, mask);
  }
}

// Per unit, the item's length facts (docs/statistics.md §8.3): the longer candidate (0 = A,
// 1 = B, -1 equal lengths, -2 a length missing), its gold, whether it has gold, and
// len(gold) − len(other) (NaN without gold or a length).
struct LengthFacts {
  std::vector<int32_t> longer, gold;
  std::vector<double> with_gold, gold_minus_other;  // with --length-measure ratio: len(other) / len(gold)
  int64_t items_without_length = 0, items = 0;
  int64_t items_without_ratio = 0;  // units whose gold response has length 0: no ratio
};

std::vector<std::string> length_columns(const ItemMatrix& m, const std::string& text) {
  std::vector<std::string> names(1);
  for (char ch : text) {
    if (ch == ',')
      names.emplace_back();
    else if (ch != ' ')
      names.back() += ch;
  }
  if (names.size() != 2 || names[0].empty() || names[1].empty())
    throw UsageError("--length: expected the two length columns x.LEN_A,x.LEN_B (candidate A's, then B's), got '" +
                     text + "'");
  if (m.n_labels() != 2)
    throw UsageError("--length: length bias reads two-label pairwise items (A and B in label order), but " + m.path +
                     " has " + std::to_string(m.n_labels()) + " labels");
  return names;
}

LengthFacts length_facts(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const std::string& text,
                         bool ratio) {
  const std::vector<std::string> names = length_columns(m, text);
  const std::vector<double> a = unit_covariate(m, units, names[0], "--length");
  const std::vector<double> b = unit_covariate(m, units, names[1], "--length");
  LengthFacts f{std::vector<int32_t>(units.size(), -2), std::vector<int32_t>(units.size(), kNoGold),
                std::vector<double>(units.size(), 0.0), std::vector<double>(units.size(), kNaN)};
  std::vector<uint8_t> seen(m.items.size(), 0);
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t item = units[u].item;
    const bool known = std::isfinite(a[u]) && std::isfinite(b[u]);
    if (!seen[item]) {
      seen[item] = 1;
      ++f.items;
      f.items_without_length += !known;
    }
    f.gold[u] = m.gold[item];
    f.with_gold[u] = m.has_gold(item);
    if (!known) continue;
    f.longer[u] = a[u] > b[u] ? 0 : b[u] > a[u] ? 1 : -1;
    if (!m.has_gold(item)) continue;
    const double gold = m.gold[item] == 0 ? a[u] : b[u], other = m.gold[item] == 0 ? b[u] : a[u];
    if (!ratio) {
      f.gold_minus_other[u] = gold - other;
    } else if (gold > 0) {
      f.gold_minus_other[u] = other / gold;  // rejected over preferred [JEV Table 12]
    } else {
      ++f.items_without_ratio;
    }
  }
  return f;
}

StatLabel judge_label(const ItemMatrix& m, const Selection& sel, const MetricsScope& scope, int32_t j,
                      const char* name) {
  return scope_label(m, sel, scope, j, name);
}

/// One judge's length statistics on one scope (docs/statistics.md §8.3, JEV Tables 11–12).
void add_length_scope(const ItemMatrix& m, const Selection& sel, const LengthFacts& f, const OrderZero& z, int32_t j,
                      const MetricsScope& scope, const std::vector<double>& edges, Plan& plan) {
  const size_t U = f.longer.size();
  std::vector<double> picks_longer(U), mismatched_picks(U), gold_longer(U), gold_shorter(U);
  for (size_t u = 0; u < U; ++u) {
    const bool mismatched = f.longer[u] >= 0, gold = mismatched && f.with_gold[u] > 0;
    picks_longer[u] = z.picked[u] && mismatched && z.verdict[u] == f.longer[u];
    mismatched_picks[u] = z.picked[u] && mismatched;
    gold_longer[u] = gold && f.gold[u] == f.longer[u];
    gold_shorter[u] = gold && f.gold[u] != f.longer[u];
  }
  const std::string tag = scope_tag(m, scope, j, "length");
  const std::vector<double>& mask = scope.mask;
  add_ratio(plan, judge_label(m, sel, scope, j, "longer_rate"), tag, picks_longer, mismatched_picks, mask);
  add_ratio(plan, judge_label(m, sel, scope, j, "gold_longer_rate"), tag, times(gold_longer, z.picked),
            times(mismatched_picks, f.with_gold), mask);
  add_ratio(plan, judge_label(m, sel, scope, j, "longer_rate_gold_shorter"), tag, picks_longer,
            times(mismatched_picks, gold_shorter), mask);
  const RatioColumns longer = add_ratio(plan, judge_label(m, sel, scope, j, "acc_gold_longer"), tag, z.correct,
                                        times(z.present, gold_longer), mask);
  const RatioColumns shorter = add_ratio(plan, judge_label(m, sel, scope, j, "acc_gold_shorter"), tag, z.correct,
                                         times(z.present, gold_shorter), mask);
  if (longer.n > 0 && shorter.n > 0) {
    StatLabel diff = judge_label(m, sel, scope, j, "length_acc_diff");
    diff.n = longer.n + shorter.n;
    plan.statistics.push_back({std::move(diff), difference_program(ratio_program(longer.num, longer.den),
                                                                   ratio_program(shorter.num, shorter.den))});
  }
  add_binned_accuracy(plan, judge_label(m, sel, scope, j, "length_acc"), tag + "/bins", z, f.gold_minus_other,
                      f.with_gold, edges, mask);
}

}  // namespace

std::vector<double> unit_covariate(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const std::string& name,
                                   const std::string& flag) {
  const Covariate* covariate = nullptr;
  try {
    covariate = &m.covariate(name);
  } catch (const UsageError& error) {
    throw UsageError(flag + ": " + error.what());
  }
  if (!covariate->numeric)
    for (size_t l = 0; l < covariate->levels.size(); ++l)
      if (!std::isfinite(covariate->numbers[l]))
        throw UsageError(flag + ": x." + covariate->name + " must be a number, but it has '" + covariate->levels[l] +
                         "' in " + m.path);
  const std::vector<int32_t>& level = m.item_levels(name, flag);
  std::vector<double> out(units.size(), kNaN);
  for (size_t u = 0; u < units.size(); ++u)
    if (level[units[u].item] >= 0) out[u] = covariate->numbers[level[units[u].item]];
  return out;
}

namespace {

/// n·Σxy − Σx·Σy over n·Σxx − (Σx)² and n·Σyy − (Σy)²'s root: Pearson's r from column sums.
std::vector<Op> pearson_program(int32_t n, int32_t x, int32_t y, int32_t xy, int32_t xx) {
  using O = OpCode;
  return {{O::kColumn, n}, {O::kColumn, xy}, {O::kMul},        {O::kColumn, x}, {O::kColumn, y}, {O::kMul},
          {O::kSub},       {O::kColumn, n},  {O::kColumn, xx}, {O::kMul},       {O::kColumn, x}, {O::kColumn, x},
          {O::kMul},       {O::kSub},        {O::kColumn, n},  {O::kColumn, y}, {O::kMul},       {O::kColumn, y},
          {O::kColumn, y}, {O::kMul},        {O::kSub},        {O::kMul},       {O::kSqrt},      {O::kDiv}};
}

// The covariate per unit for the association: its value (NaN without one), the value less a
// centre (an integer near the mean, so integer values stay exact in the plan; 0 without a
// value) and whether the unit enters (gold and a value).
struct AssocFacts {
  std::vector<double> value, centred, with_gold;
};

AssocFacts assoc_facts(const ItemMatrix& m, const std::vector<AccuracyUnit>& units, const std::string& name) {
  AssocFacts f{unit_covariate(m, units, name, "--assoc"), std::vector<double>(units.size(), 0.0),
               std::vector<double>(units.size(), 0.0)};
  double sum = 0, n = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    f.with_gold[u] = m.has_gold(units[u].item) && std::isfinite(f.value[u]);
    if (f.with_gold[u] > 0) sum += f.value[u], n += 1;
  }
  const double centre = n > 0 ? std::round(sum / n) : 0.0;
  for (size_t u = 0; u < units.size(); ++u) f.centred[u] = f.with_gold[u] > 0 ? f.value[u] - centre : 0.0;
  return f;
}

/// Whether n·Σv² − (Σv)² > 0: the values differ, so the correlation is defined.
bool varies(const std::vector<double>& v, const std::vector<double>& den) {
  double n = 0, sum = 0, squares = 0;
  for (size_t u = 0; u < v.size(); ++u) n += den[u], sum += v[u] * den[u], squares += v[u] * v[u] * den[u];
  return n * squares - sum * sum > 0;
}

// ρ's tie correction needs the replicate's count of every distinct value: a plan column per value,
// summed per cluster on every replicate. The bound is the columns a score judge's ranks may take
// (256 running counts per side, §8.2), which cost the same per value; N_v as its own column keeps
// the program short. Token lengths of a few hundred distinct values fit.
constexpr size_t kMaxAssocRhoValues = 512;

/// The distinct covariate values of the units `den` counts, ascending.
std::vector<double> distinct_values(const std::vector<double>& value, const std::vector<double>& den) {
  std::vector<double> out;
  for (size_t u = 0; u < value.size(); ++u)
    if (den[u] > 0) out.push_back(value[u]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Spearman's ρ of x and 0/1 y with mid-ranks, from a replicate's sums (docs/statistics.md §8.3):
/// n(2U − n₀n₁) / √(n n₀ n₁ (n³ − Σ_v N_v³) / 3), 2U the Mann–Whitney count of the pairs (y = 1,
/// y = 0) ordered by x (rank term `rank`, ties ½), n₁ = Σy, N_v the units with x = v.
std::vector<Op> spearman_binary_program(int32_t n, int32_t y, int32_t rank, const std::vector<int32_t>& value_counts) {
  using O = OpCode;
  std::vector<Op> out = {
      {O::kColumn, n}, {O::kRank, rank}, {O::kColumn, n}, {O::kColumn, y}, {O::kSub},       {O::kColumn, y}, {O::kMul},
      {O::kSub},       {O::kMul},        {O::kColumn, n}, {O::kColumn, n}, {O::kColumn, y}, {O::kSub},       {O::kMul},
      {O::kColumn, y}, {O::kMul},        {O::kColumn, n}, {O::kColumn, n}, {O::kMul},       {O::kColumn, n}, {O::kMul}};
  for (int32_t k : value_counts)
    out.insert(out.end(), {{O::kColumn, k}, {O::kColumn, k}, {O::kMul}, {O::kColumn, k}, {O::kMul}, {O::kSub}});
  out.insert(out.end(), {{O::kConstant, 0, 3.0}, {O::kDiv}, {O::kMul}, {O::kSqrt}, {O::kDiv}});
  return out;
}

/// One judgment of the association: its unit and whether it is right.
struct AssocEntry {
  int32_t unit;
  bool right;
};

/// assoc_rho: Spearman's ρ of the covariate and correctness over `entries` (a judge's units, or
/// every judge's on them when pooled; `den` counts each unit's entries, column kn = den and ky the
/// right ones, already in the plan); a note instead when x takes too many values.
void add_assoc_rho(const AssocFacts& f, const std::vector<double>& den, const std::vector<AssocEntry>& entries,
                   int32_t kn, int32_t ky, const std::string& tag, StatLabel label, MetricsPlan& built) {
  const std::vector<double> values = distinct_values(f.value, den);
  if (values.size() > kMaxAssocRhoValues) {
    const std::optional<std::string>& group = label.benchmark ? label.benchmark : label.condition;
    built.notes.push_back("assoc_rho of " + label.judge + (group ? " on " + *group : "") +
                          " is left out: the covariate takes " + std::to_string(values.size()) +
                          " distinct values, more than the " + std::to_string(kMaxAssocRhoValues) +
                          " its tie counts are built for (§8.3; round or bin the covariate)");
    return;
  }
  Plan& plan = built.plan;
  std::vector<int32_t> units, counts;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (const AssocEntry& entry : entries) {
    units.push_back(entry.unit);
    scores.push_back(f.value[entry.unit]);
    positive.push_back(entry.right);
  }
  for (size_t v = 0; v < values.size(); ++v) {
    std::vector<double> at(den.size(), 0.0);
    for (size_t u = 0; u < den.size(); ++u) at[u] = f.value[u] == values[v] ? den[u] : 0.0;
    counts.push_back(add_column(plan, tag + "/rho/value" + std::to_string(v), at));
  }
  const int32_t rank = plan.add_rank_term(units, scores, positive);
  label.name = "assoc_rho";
  plan.statistics.push_back({std::move(label), spearman_binary_program(kn, ky, rank, counts)});
}

/// point_biserial and assoc_rho over the judgments `den` counts per unit (`right` of them right),
/// the covariate values centred in f: Pearson's r from the sums, ρ from the entries.
void add_assoc_correlations(const AssocFacts& f, const std::vector<double>& den, const std::vector<double>& right,
                            const std::vector<AssocEntry>& entries, const std::string& tag, StatLabel label,
                            MetricsPlan& built) {
  Plan& plan = built.plan;
  const std::vector<double> x = times(f.centred, den);
  const int32_t kn = add_column(plan, tag + "/n", den), kx = add_column(plan, tag + "/x", x);
  const int32_t ky = add_column(plan, tag + "/y", right), kxy = add_column(plan, tag + "/xy", times(f.centred, right));
  const int32_t kxx = add_column(plan, tag + "/xx", times(f.centred, x));
  label.name = "point_biserial";
  plan.statistics.push_back({label, pearson_program(kn, kx, ky, kxy, kxx)});
  add_assoc_rho(f, den, entries, kn, ky, tag, std::move(label), built);
}

/// One judge's point-biserial correlation, Spearman's ρ and accuracy per bin on one scope.
void add_assoc_scope(const ItemMatrix& m, const Selection& sel, const AssocFacts& f, const OrderZero& z, int32_t j,
                     const MetricsScope& scope, const std::vector<double>& edges, MetricsPlan& built) {
  const std::vector<double> den = times(times(z.present, f.with_gold), scope.mask);
  const auto n = static_cast<int64_t>(total(den));
  if (n == 0) return;
  const std::vector<double> y = times(z.correct, den);
  const std::string tag = scope_tag(m, scope, j, "assoc");
  if (varies(f.centred, den) && varies(z.correct, den)) {
    std::vector<AssocEntry> entries;
    for (size_t u = 0; u < den.size(); ++u)
      if (den[u] > 0) entries.push_back({static_cast<int32_t>(u), y[u] > 0});
    StatLabel label = scope_label(m, sel, scope, j, "point_biserial");
    label.n = n;
    add_assoc_correlations(f, den, y, entries, tag, std::move(label), built);
  } else {
    built.notes.push_back("point_biserial and assoc_rho of " + m.judges[j] +
                          (scope.group ? " on " + *scope.group : "") +
                          " are left out: the covariate is constant or every verdict is right (or every one wrong) "
                          "on its " +
                          std::to_string(n) + " items, so r = ρ = 0/0");
  }
  add_binned_accuracy(built.plan, scope_label(m, sel, scope, j, "assoc_acc"), tag + "/bins", z, f.value, f.with_gold,
                      edges, scope.mask);
}

void add_length_bias(const ItemMatrix& m, const Selection& sel, const CovariateOptions& options, MetricsPlan& built) {
  const bool ratio = options.length_measure == "ratio";
  const LengthFacts f = length_facts(m, built.units, options.length, ratio);
  const std::vector<double> edges =
      edges_over(m, built.units, f.gold_minus_other, f.with_gold, options.length_bins, "--length-bins",
                 ratio ? "a length ratio (rejected / preferred) of " : "a length difference of ");
  if (f.items_without_ratio > 0)
    built.notes.push_back("length_acc by ratio leaves out " + std::to_string(f.items_without_ratio) +
                          " units whose gold response has length 0 (no ratio)");
  if (f.items_without_length > 0)
    built.notes.push_back("length statistics leave out " + std::to_string(f.items_without_length) + " of the " +
                          std::to_string(f.items) + " analysed items: they have no value in one of " + options.length);
  for (int32_t j : sel.judges) {
    const OrderZero z = order_zero_facts(m, j, built.units);
    for (const MetricsScope& scope : built.scopes) add_length_scope(m, sel, f, z, j, scope, edges, built.plan);
  }
}

// The note for judge j's items (with gold and a verdict) that have no value of the covariate: the
// --assoc statistics leave them out, and a row's n alone would not say why it is smaller.
std::optional<std::string> items_without_value_note(const ItemMatrix& m, const std::vector<AccuracyUnit>& units,
                                                    const AssocFacts& f, const OrderZero& z, int32_t j,
                                                    const std::string& name) {
  std::vector<uint8_t> seen(m.items.size(), 0);
  int64_t items = 0, without = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const int32_t item = units[u].item;
    if (!z.present[u] || !m.has_gold(item) || seen[item]) continue;
    seen[item] = 1;
    ++items;
    without += !std::isfinite(f.value[u]);
  }
  if (without == 0) return std::nullopt;
  return "point_biserial, assoc_rho and assoc_acc of " + m.judges[j] + " leave out " + std::to_string(without) +
         " of its " + std::to_string(items) + " items with gold: they have no value of " + name;
}

// CAP App. A.3's single correlation of an item covariate with correctness pooled over the judges:
// every judge's order-0 judgment of an item is one observation (judge = the judges joined by ",").
void add_assoc_pooled(const ItemMatrix& m, const Selection& sel, const AssocFacts& f, const std::vector<OrderZero>& zs,
                      const MetricsScope& scope, MetricsPlan& built) {
  const size_t U = f.value.size();
  std::vector<double> den(U, 0.0), right(U, 0.0);
  std::vector<AssocEntry> entries;
  for (const OrderZero& z : zs)
    for (size_t u = 0; u < U; ++u) {
      if (!(z.present[u] > 0 && f.with_gold[u] > 0 && scope.mask[u] > 0)) continue;
      den[u] += 1;
      right[u] += z.correct[u];
      entries.push_back({static_cast<int32_t>(u), z.correct[u] > 0});
    }
  const double n = total(den), n_right = total(right);
  if (n == 0) return;
  std::string judges;
  for (int32_t j : sel.judges) judges += (judges.empty() ? "" : ",") + m.judges[j];
  if (!varies(f.centred, den) || n_right == 0 || n_right == n) {
    built.notes.push_back("point_biserial and assoc_rho pooled over the judges" +
                          (scope.group ? " on " + *scope.group : std::string()) +
                          " are left out: the covariate is constant or every judgment is right (or every one wrong)");
    return;
  }
  StatLabel label = scope_label(m, sel, scope, sel.judges.front(), "point_biserial");
  label.judge = judges;
  label.n = static_cast<int64_t>(n);
  const std::string tag = "pooled/assoc" + (scope.group ? "/" + *scope.group : std::string());
  add_assoc_correlations(f, den, right, entries, tag, std::move(label), built);
}

void add_association(const ItemMatrix& m, const Selection& sel, const CovariateOptions& options, MetricsPlan& built) {
  const AssocFacts f = assoc_facts(m, built.units, options.assoc);
  const std::vector<double> edges =
      edges_over(m, built.units, f.value, f.with_gold, options.assoc_bins, "--assoc-bins", options.assoc + " = ");
  std::vector<OrderZero> zs;
  for (int32_t j : sel.judges) {
    zs.push_back(order_zero_facts(m, j, built.units));
    const OrderZero& z = zs.back();
    if (std::optional<std::string> note = items_without_value_note(m, built.units, f, z, j, options.assoc))
      built.notes.push_back(std::move(*note));
    for (const MetricsScope& scope : built.scopes) add_assoc_scope(m, sel, f, z, j, scope, edges, built);
  }
  if (sel.judges.size() < 2) return;
  for (const MetricsScope& scope : built.scopes) add_assoc_pooled(m, sel, f, zs, scope, built);
}

}  // namespace

void add_covariate_bias(const ItemMatrix& m, const Selection& sel, const CovariateOptions& options,
                        MetricsPlan& built) {
  if (!options.length.empty()) add_length_bias(m, sel, options, built);
  if (!options.assoc.empty()) add_association(m, sel, options, built);
}

}  // namespace judgestat
