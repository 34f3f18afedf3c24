// compile() against a plain reference — compile() as first written: duplicate columns found with
// a std::map, the exact shift found by trying each shift in turn, llround, a stable sort of each
// rank term — field by field and bit for bit, and with the same errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::kRoot;

namespace {

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

/// The reference: every step the obvious way, one column and one term at a time.
CompiledPlan reference_compile(const Plan& plan) {
  const int64_t n_clusters = plan.n_clusters();
  CompiledPlan out;
  out.n_clusters = n_clusters;
  out.stratum_offset = plan.stratum_offset;

  std::map<std::vector<double>, int32_t> first_copy;
  std::vector<int32_t> kept_index;
  std::vector<std::vector<double>> kept;
  std::vector<std::string> kept_name;  // the first copy's
  for (size_t c = 0; c < plan.columns.size(); ++c) {
    const int32_t next = static_cast<int32_t>(kept.size());
    const std::vector<double> values = plan.columns[c].values();
    const int32_t index = first_copy.emplace(values, next).first->second;
    if (index == next) {
      kept.push_back(values);
      kept_name.push_back(plan.column_names[c]);
    }
    kept_index.push_back(index);
  }
  out.n_columns = static_cast<int32_t>(kept.size());
  out.cluster_sums.assign(static_cast<size_t>(n_clusters) * out.n_columns, 0);
  out.fits_int32 = true;
  for (int32_t k = 0; k < out.n_columns; ++k) {
    const std::vector<double>& values = kept[k];
    if (!all_finite(values)) throw std::logic_error("plan: non-finite value in a column");
    std::vector<double> cluster_weight(n_clusters, 0.0);
    for (size_t u = 0; u < values.size(); ++u) cluster_weight[plan.unit_cluster[u]] += std::fabs(values[u]);
    const auto larger = [](double a, double b) { return std::max(a, b); };
    double heaviest_total = 0;
    for (int32_t h = 0; h < plan.n_strata(); ++h) {
      const auto begin = cluster_weight.begin() + plan.stratum_offset[h];
      const auto end = cluster_weight.begin() + plan.stratum_offset[h + 1];
      heaviest_total += std::accumulate(begin, end, 0.0, larger) * static_cast<double>(end - begin);
    }
    const double bound = heaviest_total + 1.0;
    int shift = -1;
    for (int s = 0; s <= 4 && shift < 0; ++s)
      if (std::all_of(values.begin(), values.end(), [s](double v) {
            const double scaled = std::ldexp(v, s);
            return scaled == std::nearbyint(scaled) && std::fabs(scaled) <= 1e15;
          }))
        shift = s;
    if (shift < 0) shift = std::min(60, static_cast<int>(std::floor(61.0 - std::log2(bound))));
    if (std::ldexp(bound, shift) >= std::ldexp(1.0, 62))
      throw std::runtime_error("plan: column '" + kept_name[k] + "' is too large for exact replicate sums");
    out.fits_int32 = out.fits_int32 && std::ldexp(bound, shift) < 2147483647.0;
    out.column_unscale.push_back(std::ldexp(1.0, -shift));
    int64_t total = 0;
    for (size_t u = 0; u < values.size(); ++u) {
      const int64_t fixed = std::llround(std::ldexp(values[u], shift));
      out.cluster_sums[static_cast<size_t>(plan.unit_cluster[u]) * out.n_columns + k] += fixed;
      total += fixed;
    }
    out.totals.push_back(total);
  }

  out.n_rank_terms = static_cast<int32_t>(plan.rank_terms.size());
  for (const RankTerm& term : plan.rank_terms) {
    if (!all_finite(term.scores)) throw std::logic_error("plan: non-finite rank score");
    std::vector<size_t> order(term.units.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return std::make_pair(term.scores[x], term.positive[x] != 0) <
             std::make_pair(term.scores[y], term.positive[y] != 0);
    });
    for (size_t e = 0; e < order.size(); ++e) {
      out.rank_cluster.push_back(plan.unit_cluster[term.units[order[e]]]);
      out.rank_positive.push_back(term.positive[order[e]] != 0);
      out.rank_tie_start.push_back(e == 0 || term.scores[order[e]] != term.scores[order[e - 1]]);
    }
    out.rank_offset.push_back(static_cast<int64_t>(out.rank_cluster.size()));
  }

  // Programs (their checks are compile()'s own code, not under test here): column arguments
  // through the kept-column map, rank arguments after the normals.
  for (const StatisticDef& stat : plan.statistics)
    for (const Op& op : stat.program)
      if (op.code == OpCode::kNormal) out.n_normals = std::max(out.n_normals, op.arg + 1);
  out.op_offset = {0};
  for (const StatisticDef& stat : plan.statistics) {
    for (Op op : stat.program) {
      if (op.code == OpCode::kColumn) op.arg = kept_index[op.arg];
      if (op.code == OpCode::kRank) op.arg += out.n_normals;
      out.ops.push_back(op);
    }
    out.op_offset.push_back(static_cast<int32_t>(out.ops.size()));
  }
  out.n_statistics = static_cast<int32_t>(plan.statistics.size());
  return out;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void expect_same_compiled(const CompiledPlan& actual, const CompiledPlan& expected, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(actual.n_clusters, expected.n_clusters);
  EXPECT_EQ(actual.n_columns, expected.n_columns);
  EXPECT_EQ(actual.n_statistics, expected.n_statistics);
  EXPECT_EQ(actual.stratum_offset, expected.stratum_offset);
  EXPECT_TRUE(actual.cluster_sums == expected.cluster_sums) << "cluster_sums";
  EXPECT_TRUE(same_bits(actual.column_unscale, expected.column_unscale)) << "column_unscale";
  EXPECT_EQ(actual.totals, expected.totals);
  EXPECT_EQ(actual.fits_int32, expected.fits_int32);
  ASSERT_EQ(actual.ops.size(), expected.ops.size());
  for (size_t i = 0; i < actual.ops.size(); ++i) {
    EXPECT_EQ(actual.ops[i].code, expected.ops[i].code) << "op " << i;
    EXPECT_EQ(actual.ops[i].arg, expected.ops[i].arg) << "op " << i;
    EXPECT_EQ(std::memcmp(&actual.ops[i].value, &expected.ops[i].value, sizeof(double)), 0) << "op " << i;
  }
  EXPECT_EQ(actual.op_offset, expected.op_offset);
  EXPECT_EQ(actual.n_normals, expected.n_normals);
  EXPECT_EQ(actual.n_rank_terms, expected.n_rank_terms);
  EXPECT_EQ(actual.rank_offset, expected.rank_offset);
  EXPECT_TRUE(actual.rank_cluster == expected.rank_cluster) << "rank_cluster";
  EXPECT_TRUE(actual.rank_positive == expected.rank_positive) << "rank_positive";
  EXPECT_TRUE(actual.rank_tie_start == expected.rank_tie_start) << "rank_tie_start";
}

/// The plan `judgestat metrics FILE [--by strata]` builds (accuracy family, then probability
/// quality on the same units).
Plan metrics_command_plan(const std::string& file, const std::string& strata) {
  const ItemMatrix matrix = load_item_matrix(file);
  SelectionOptions select;
  select.strata = strata;
  const Selection selection = select_records(matrix, select);
  MetricsOptions options;
  options.per_group = !strata.empty();
  MetricsPlan built = build_metrics_plan(matrix, selection, options);
  add_probability_quality(matrix, selection, options.per_group, built.plan, &built.units);
  return std::move(built.plan);
}

/// Units spread over strata of the given cluster counts, clusters in a scrambled order.
Plan plan_with_units(const std::vector<int64_t>& clusters_per_stratum, int64_t n_units, std::mt19937_64& random) {
  Plan plan = testing_support::plan_with_strata(clusters_per_stratum);
  std::uniform_int_distribution<int32_t> cluster(0, static_cast<int32_t>(plan.n_clusters()) - 1);
  for (int64_t u = 0; u < n_units; ++u) plan.unit_cluster.push_back(cluster(random));
  return plan;
}

/// Adds a column from `value(u)` and a statistic over it (its ratio to column 0).
void add_column(Plan& plan, const std::string& name, const std::function<double(int64_t)>& value) {
  const int32_t k = plan.add_column(name);
  for (int64_t u = 0; u < plan.n_units(); ++u) plan.columns[k][u] = value(u);
  StatisticDef stat;
  stat.label.name = name;
  stat.program = ratio_program(k, 0);
  plan.statistics.push_back(stat);
}

/// Adds a rank term over every `stride`-th unit with scores from `score(e)` and an AUROC-like
/// statistic of it.
void add_rank(Plan& plan, int64_t stride, const std::function<double(size_t)>& score, std::mt19937_64& random) {
  std::vector<int32_t> units;
  std::vector<double> scores;
  std::vector<uint8_t> positive;
  for (int64_t u = 0; u < plan.n_units(); u += stride) {
    units.push_back(static_cast<int32_t>(u));
    scores.push_back(score(scores.size()));
    positive.push_back(static_cast<uint8_t>(random() % 3 == 0 ? 1 + random() % 5 : 0));
  }
  const int32_t t = plan.add_rank_term(units, scores, positive);
  StatisticDef stat;
  stat.label.name = "rank" + std::to_string(t);
  stat.program = {{OpCode::kRank, t}, {OpCode::kNormal, t, 0.5}, {OpCode::kAdd}};
  plan.statistics.push_back(stat);
}

/// Columns of every kind compile() tells apart: counts, halves to sixteenths, general reals of
/// very different sizes (so different shifts), values at and past the exact limit, copies (one
/// with −0 for +0); rank terms with ties, ±0, one score for all, already in order, reversed,
/// scores far apart in size, one entry and none.
Plan awkward_plan(const std::vector<int64_t>& clusters_per_stratum, int64_t n_units, uint64_t seed) {
  std::mt19937_64 random(seed);
  Plan plan = plan_with_units(clusters_per_stratum, n_units, random);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> noise(n_units);
  for (double& x : noise) x = uniform(random);
  add_column(plan, "count", [&](int64_t u) { return noise[u] < 0.7 ? 1.0 : 0.0; });
  for (int shift = 1; shift <= 5; ++shift)
    add_column(plan, "fraction/" + std::to_string(shift),
               [&](int64_t u) { return std::ldexp(std::floor(noise[u] * 40) - 20, -shift); });
  add_column(plan, "count/copy", [&](int64_t u) { return noise[u] < 0.7 ? 1.0 : 0.0; });
  add_column(plan, "signed_zero", [&](int64_t u) { return noise[u] < 0.5 ? -0.0 : 2.0; });
  add_column(plan, "signed_zero/copy", [&](int64_t u) { return noise[u] < 0.5 ? 0.0 : 2.0; });
  add_column(plan, "zero", [](int64_t) { return 0.0; });
  add_column(plan, "zero/copy", [](int64_t) { return -0.0; });
  for (double scale : {1e-9, 1e-3, 1.0, 7e5, 3e11})
    add_column(plan, "real", [&, scale](int64_t u) { return scale * (noise[u] - 0.3); });
  add_column(plan, "real/copy", [&](int64_t u) { return 1e-3 * (noise[u] - 0.3); });
  add_column(plan, "past_exact_limit", [&](int64_t u) { return noise[u] < 0.5 ? 2e15 : 3.0; });
  add_column(plan, "half_past_exact_limit", [&](int64_t u) { return noise[u] < 0.5 ? 6e14 + 0.5 : 1.0; });
  add_column(plan, "at_exact_limit", [](int64_t u) { return u == 0 ? 1e15 : -3.0; });
  // Fixed point with few fraction bits (one huge value): values · 2^shift end in exactly ½.
  add_column(plan, "rounding_ties", [](int64_t u) { return u == 0 ? 1e17 : (u % 64 - 32) / 64.0; });
  add_column(plan, "fee", [&](int64_t u) { return 0.001 * std::round(noise[u] * 1000); });

  add_rank(
      plan, 1, [&](size_t e) { return std::round(noise[e] * 10) / 10; }, random);
  add_rank(
      plan, 2, [&](size_t e) { return noise[e] < 0.5   ? -0.0
                                      : noise[e] < 0.7 ? 0.0
                                                       : -noise[e]; }, random);
  add_rank(
      plan, 3, [](size_t) { return 0.25; }, random);
  add_rank(
      plan, 1, [](size_t e) { return static_cast<double>(e / 3); }, random);
  add_rank(
      plan, 2, [](size_t e) { return -static_cast<double>(e); }, random);
  add_rank(
      plan, 1, [](size_t e) { return -1e300 * static_cast<double>(e % 7) + 1e-300 * e; }, random);
  add_rank(
      plan, n_units, [](size_t) { return 1.0; }, random);
  plan.add_rank_term({}, {}, {});
  return plan;
}

/// Exact columns in one heavy cluster: their sums at 2^4 would pass 2^63, so compile() cannot
/// use the scan's sums there and quantises again at the column's own shift.
Plan heavy_plan() {
  std::mt19937_64 random(7);
  Plan plan = plan_with_units({1}, 700, random);
  add_column(plan, "count", [](int64_t) { return 1.0; });
  add_column(plan, "heavy", [](int64_t) { return 1e15; });
  add_column(plan, "heavy_half", [](int64_t u) { return u % 2 ? 4.5e14 + 0.5 : 3.0; });
  return plan;
}

void expect_matches_reference(const Plan& plan, const std::string& what) {
  expect_same_compiled(compile(plan), reference_compile(plan), what);
}

/// compile() of a plan the caller keeps (the overload for a plan given up is tested below).
CompiledPlan compile_kept(const Plan& plan) { return compile(plan); }

/// The error compile() throws: its type's name and message ("" when none).
template <typename Compile>
std::string error_of(const Compile& compile_plan, const Plan& plan) {
  try {
    compile_plan(plan);
  } catch (const std::runtime_error& e) {
    return std::string("runtime_error: ") + e.what();
  } catch (const std::logic_error& e) {
    return std::string("logic_error: ") + e.what();
  }
  return "";
}

void expect_same_error(const Plan& plan, const std::string& expected) {
  EXPECT_EQ(error_of(compile_kept, plan), expected);
  EXPECT_EQ(error_of(reference_compile, plan), expected);
}

}  // namespace

TEST(Compile, MetricsPlansOfTheBundledDataMatchTheReference) {
  const std::string judgebench = kRoot + "/data/judgebench/gpt4o_split.csv";
  const std::string llmbar = kRoot + "/data/llmbar/natural_neighbor.csv";
  struct Case {
    std::string file, strata;
  };
  for (const Case& c :
       {Case{judgebench, ""}, Case{judgebench, "benchmark"}, Case{llmbar, ""}, Case{llmbar, "condition"}}) {
    const Plan plan = metrics_command_plan(c.file, c.strata);
    ASSERT_GT(plan.columns.size(), 10u);
    const CompiledPlan compiled = compile(plan);
    EXPECT_LT(compiled.n_columns, static_cast<int32_t>(plan.columns.size())) << "duplicates merged";
    expect_same_compiled(compiled, reference_compile(plan), c.file + " by '" + c.strata + "'");
  }
  EXPECT_GT(metrics_command_plan(judgebench, "").rank_terms.size(), 0u);
}

TEST(Compile, AwkwardColumnsAndRankTermsMatchTheReference) {
  const Plan plan = awkward_plan({5, 1, 9}, 400, 1);
  const CompiledPlan compiled = compile(plan);
  // The kinds of column the plan means to hold: copies merged, several exact and real shifts.
  EXPECT_EQ(compiled.n_columns, static_cast<int32_t>(plan.columns.size()) - 4);
  std::map<double, int> shifts;
  for (double unscale : compiled.column_unscale) ++shifts[unscale];
  EXPECT_GE(shifts.size(), 9u);
  expect_same_compiled(compiled, reference_compile(plan), "awkward plan");
  expect_matches_reference(heavy_plan(), "heavy plan");
  EXPECT_FALSE(compile(heavy_plan()).fits_int32);
}

TEST(Compile, LargePlansSplitOverThreadsMatchTheReference) {
  // Enough values and rank entries for compile() to use every thread.
  expect_matches_reference(awkward_plan({3000, 1, 997}, 30000, 2), "large awkward plan");
}

TEST(Compile, RankTermsGiveTheMannWhitneyCount) {
  // Independently of the reference: 2U over all pairs, ties counting one.
  const Plan plan = awkward_plan({5, 1, 9}, 400, 3);
  const CompiledPlan compiled = compile(plan);
  const std::vector<double> extras = point_extras(compiled);
  for (int32_t t = 0; t < compiled.n_rank_terms; ++t) {
    const RankTerm& term = plan.rank_terms[t];
    int64_t twice_u = 0;
    for (size_t i = 0; i < term.units.size(); ++i)
      for (size_t j = 0; j < term.units.size(); ++j)
        if (term.positive[i] && !term.positive[j])
          twice_u += term.scores[i] > term.scores[j] ? 2 : term.scores[i] == term.scores[j];
    EXPECT_EQ(extras[compiled.n_normals + t], static_cast<double>(twice_u)) << "term " << t;
  }
}

TEST(Compile, ErrorsAreTheReferencesInTheSameOrder) {
  const auto with_value = [](Plan plan, int32_t column, double value) {
    plan.columns[column][plan.n_units() / 2] = value;
    return plan;
  };
  const std::string non_finite = "logic_error: plan: non-finite value in a column";
  for (const Plan& base : {awkward_plan({5, 1, 9}, 400, 4), awkward_plan({3000, 1, 997}, 30000, 5)}) {
    const int32_t last = static_cast<int32_t>(base.columns.size()) - 1;
    expect_same_error(with_value(base, last, NAN), non_finite);
    expect_same_error(with_value(base, 3, -INFINITY), non_finite);
    Plan bad_score = base;
    bad_score.rank_terms[2].scores[1] = NAN;
    expect_same_error(bad_score, "logic_error: plan: non-finite rank score");
  }

  // On a plan large enough for threads, the first failing column in order decides, and columns
  // are checked before rank terms. A count of 1e15 per unit cannot be summed exactly.
  const Plan base = awkward_plan({3000, 1, 997}, 30000, 5);
  const auto too_large = [](Plan plan, int32_t column) {
    plan.columns[column].fill(1e15);
    return plan;
  };
  const auto too_large_error = [](const std::string& name) {
    return "runtime_error: plan: column '" + name + "' is too large for exact replicate sums";
  };
  const int32_t last = static_cast<int32_t>(base.columns.size()) - 1;  // compiled in another group
  expect_same_error(too_large(base, 1), too_large_error("fraction/1"));
  expect_same_error(with_value(too_large(base, 1), last, NAN), too_large_error("fraction/1"));
  expect_same_error(too_large(with_value(base, 1, NAN), last), non_finite);
  Plan duplicate_first = base;  // kept columns renumber: the message names the plan's column
  duplicate_first.columns[1] = duplicate_first.columns[0];
  expect_same_error(too_large(duplicate_first, 3), too_large_error("fraction/3"));
  Plan bad_score = too_large(base, 4);
  bad_score.rank_terms[0].scores[0] = INFINITY;
  expect_same_error(bad_score, too_large_error("fraction/4"));

  Plan wrong_length = awkward_plan({5, 1, 9}, 400, 6);
  wrong_length.columns[4].resize(wrong_length.columns[4].size() - 1);
  EXPECT_EQ(error_of(compile_kept, wrong_length), "logic_error: plan: column 'fraction/4' has the wrong length");
  Plan stray_unit = awkward_plan({5, 1, 9}, 400, 6);
  stray_unit.unit_cluster[7] = 15;
  EXPECT_EQ(error_of(compile_kept, stray_unit), "logic_error: plan: unit cluster out of range");
}

namespace {

/// compile(Plan&&) against the reference on a copy of `plan`, and what it leaves of the copy.
void expect_given_up_matches_reference(const Plan& plan, const std::string& what) {
  Plan given_up = plan;
  const CompiledPlan compiled = compile(std::move(given_up));
  expect_same_compiled(compiled, reference_compile(plan), what);
  EXPECT_TRUE(given_up.columns.empty()) << what;
  EXPECT_TRUE(given_up.rank_terms.empty()) << what;
  EXPECT_EQ(given_up.n_units(), 0) << what;
}

}  // namespace

TEST(Compile, GivenUpPlansFreeTheirColumnsAndCompileAsTheReference) {
  // Columns heavier than the compiled sums (doubles, many units per cluster): the sums wait for
  // the columns to go; lighter (bytes, a unit per cluster): cluster_sums is allocated first.
  const Plan awkward = awkward_plan({5, 1, 9}, 400, 1);
  expect_given_up_matches_reference(awkward, "awkward plan");
  expect_given_up_matches_reference(awkward_plan({3000, 1, 997}, 30000, 2), "large awkward plan");
  expect_given_up_matches_reference(heavy_plan(), "heavy plan");
  std::mt19937_64 random(11);
  Plan unit_clusters = plan_with_units({500}, 500, random);
  add_column(unit_clusters, "count", [](int64_t) { return 1.0; });
  add_column(unit_clusters, "copy", [](int64_t) { return 1.0; });
  add_column(unit_clusters, "small", [](int64_t u) { return static_cast<double>(u % 7) - 3.0; });
  ASSERT_EQ(unit_clusters.columns[2].kind(), PlanColumn::Kind::kByte);
  expect_given_up_matches_reference(unit_clusters, "a unit per cluster");
  expect_given_up_matches_reference(metrics_command_plan(kRoot + "/data/judgebench/gpt4o_split.csv", "benchmark"),
                                    "judgebench metrics plan");
  // Errors are the same as for a kept plan.
  Plan bad = awkward;
  bad.columns[0].set(3, std::numeric_limits<double>::infinity());
  Plan bad_given_up = bad;
  EXPECT_THROW(compile(std::move(bad_given_up)), std::logic_error);
}

namespace {

/// A copy of `plan` with the columns whose index `pick` accepts folded (Plan::fold_column); how many folded.
Plan with_folded_columns(const Plan& plan, const std::function<bool(int32_t)>& pick, int32_t& folded) {
  Plan out = plan;
  folded = 0;
  for (int32_t k = 0; k < static_cast<int32_t>(out.columns.size()); ++k)
    if (pick(k)) folded += out.fold_column(k);
  return out;
}

}  // namespace

// Issue 26 part 7: a column folded into its cluster sums as soon as it is written compiles exactly as its values
// did, whichever other columns are folded (copies of it among them), kept or given up, on one thread or many.
TEST(Compile, FoldedColumnsCompileAsTheirValues) {
  struct Case {
    std::string what;
    Plan plan;
  };
  for (const Case& c :
       {Case{"awkward plan", awkward_plan({5, 1, 9}, 400, 1)},
        Case{"large awkward plan", awkward_plan({3000, 1, 997}, 30000, 2)}, Case{"heavy plan", heavy_plan()}}) {
    const CompiledPlan expected = reference_compile(c.plan);
    int32_t doubles = 0;
    for (const PlanColumn& column : c.plan.columns) doubles += column.kind() == PlanColumn::Kind::kDouble;
    for (int parity : {0, 1, 2}) {  // every column, the even ones, the odd ones
      const std::string what = c.what + ", folding " + (parity == 2 ? "all" : parity ? "odd" : "even") + " columns";
      int32_t folded = 0;
      Plan plan = with_folded_columns(
          c.plan, [&](int32_t k) { return parity == 2 || k % 2 == parity; }, folded);
      EXPECT_GT(folded, 0) << what;
      if (parity == 2) EXPECT_EQ(folded, doubles) << what << ": every column of doubles folds";
      for (int32_t k = 0; k < static_cast<int32_t>(plan.columns.size()); ++k)
        EXPECT_EQ(plan.columns[k].folded() != nullptr,
                  c.plan.columns[k].kind() == PlanColumn::Kind::kDouble && (parity == 2 || k % 2 == parity))
            << what << ": column " << k;
      expect_same_compiled(compile(plan), expected, what);
      expect_same_compiled(compile(std::move(plan)), expected, what + ", given up");
    }
  }
}

TEST(Compile, FoldedColumnHoldsItsKnownClusterSums) {
  // Four units in two clusters. Quarters are exact at shift 2: sums 0.75·4 = 3 and 2.25·4 = 9.
  Plan plan = testing_support::plan_with_strata({2});
  plan.unit_cluster = {0, 0, 1, 1};
  add_column(plan, "n", [](int64_t) { return 1.0; });
  add_column(plan, "quarters", [](int64_t u) { return std::vector<double>{0.5, 0.25, 0.75, 1.5}[u]; });
  add_column(plan, "tenths", [](int64_t u) { return 0.1 * static_cast<double>(u + 1); });
  EXPECT_FALSE(plan.fold_column(0)) << "a column of bytes is smaller than its sums";
  ASSERT_TRUE(plan.fold_column(1));
  ASSERT_TRUE(plan.fold_column(2));
  const FoldedSums& quarters = *plan.columns[1].folded();
  EXPECT_EQ(quarters.shift, 2);
  EXPECT_EQ(quarters.sums, (std::vector<int64_t>{3, 9}));
  EXPECT_TRUE(quarters.fits_int32);
  // General reals: the heaviest cluster's |Σ| (0.3 + 0.4) times the 2 clusters, plus 1, is 2.4, which leaves
  // 61 − ⌈log2 2.4⌉ = 59 fraction bits; each value is rounded at 2^59, then summed per cluster.
  const FoldedSums& tenths = *plan.columns[2].folded();
  EXPECT_EQ(tenths.shift, 59);
  const double scale = std::ldexp(1.0, 59);
  EXPECT_EQ(tenths.sums, (std::vector<int64_t>{std::llround(0.1 * scale) + std::llround(0.2 * scale),
                                               std::llround(0.30000000000000004 * scale) + std::llround(0.4 * scale)}));
  EXPECT_FALSE(tenths.fits_int32);
  EXPECT_EQ(plan.columns[2].size(), 4u);
  const CompiledPlan compiled = compile(plan);
  ASSERT_EQ(compiled.n_columns, 3);
  EXPECT_EQ(compiled.totals[1], 12);
  EXPECT_EQ(compiled.column_unscale[1], 0.25);
  EXPECT_EQ(compiled.cluster_sums[1 * 3 + 2], tenths.sums[1]);
  // Reading it back is the builder's bug; so is folding where the clusters are not fewer than the units.
  const PlanColumn& folded_quarters = plan.columns[1];
  EXPECT_THROW((void)folded_quarters[0], std::logic_error);
  EXPECT_THROW(plan.columns[1].values(), std::logic_error);
  EXPECT_THROW(plan.columns[1].set(0, 0.5), std::logic_error);
  EXPECT_THROW((void)(plan.columns[1] == plan.columns[2]), std::logic_error);
  Plan unit_clusters = testing_support::plan_with_strata({4});
  unit_clusters.unit_cluster = {0, 1, 2, 3};
  add_column(unit_clusters, "tenths", [](int64_t u) { return 0.1 * static_cast<double>(u + 1); });
  EXPECT_FALSE(unit_clusters.fold_column(0));
  EXPECT_EQ(unit_clusters.columns[0].kind(), PlanColumn::Kind::kDouble);
}

TEST(Compile, FoldedColumnsTakeAppendedUnitsAndRefuseOtherStrata) {
  const Plan base = awkward_plan({5, 1, 9}, 400, 8);
  int32_t folded = 0;
  Plan plan = with_folded_columns(
      base, [](int32_t) { return true; }, folded);
  ASSERT_GT(folded, 0);
  // Units appended in existing clusters read 0 in every column, folded or not.
  Plan widened = base;
  for (Plan* p : {&plan, &widened}) {
    for (int32_t c : {0, 14, 7}) p->unit_cluster.push_back(c);
    for (PlanColumn& column : p->columns) column.resize(p->unit_cluster.size());
  }
  expect_same_compiled(compile(plan), reference_compile(widened), "appended units");
  // A folded column's sums are per cluster of the strata it was folded on.
  plan.stratum_offset = {0, 6, 6, 15};
  EXPECT_EQ(error_of(compile_kept, plan).rfind("logic_error: plan: column '", 0), 0u);
  EXPECT_NE(error_of(compile_kept, plan).find("' was folded on other clusters or strata"), std::string::npos);
  // Folding finds the errors compile() would, with its messages.
  Plan bad = base;
  bad.columns[1][3] = NAN;
  EXPECT_THROW(bad.fold_column(1), std::logic_error);
  Plan huge = awkward_plan({3000, 1, 997}, 30000, 5);  // as in ErrorsAreTheReferencesInTheSameOrder
  huge.columns[1].fill(1e15);
  try {
    huge.fold_column(1);
    ADD_FAILURE() << "a column too large for exact sums folded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "plan: column 'fraction/1' is too large for exact replicate sums");
  }
}
