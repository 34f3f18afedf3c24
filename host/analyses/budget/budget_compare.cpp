// run_budget_compare (include/judgestat/label_budget.hpp, docs/statistics.md §7.6): the two judges'
// per-item values on the analysed items, the compare problem, one engine from the execution
// target, and one simulate_compare per k.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/common/item_names.hpp"
#include "analyses/common/judge_validity.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/label_budget.hpp"
#include "records/selection.hpp"

namespace judgestat {
namespace {

const std::vector<uint32_t> kDefaultCompareKs = {50, 100, 200, 400};

double seconds_from(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A judge's tally on one item: correct and present presentations among those the statistic reads
// (acc: order 0; pa: every order). Invalid and tie verdicts are wrong, as in `metrics`.
struct Tally {
  int32_t correct = 0, present = 0;
};

Tally tally(const ItemMatrix& m, int32_t judge, int32_t item, int32_t variant, bool pa) {
  Tally t;
  for (int32_t o = 0; o < (pa ? m.orders : 1); ++o) {
    const size_t cell = m.cell(judge, item, o, variant);
    if (!m.present(cell)) continue;
    ++t.present;
    t.correct += m.correct(cell, item) ? 1 : 0;
  }
  return t;
}

// The analysed items both judges rated in order 0, in first-appearance order; the others are an
// error naming them, or (common_items) left out and counted.
struct ComparedItems {
  std::vector<int32_t> items;
  int64_t dropped = 0;
  int32_t variant = 0;
};

ComparedItems compared_items(const ItemMatrix& m, const BudgetCompareOptions& options, int32_t ja, int32_t jb) {
  ComparedItems out;
  const auto plain = std::find(m.variants.begin(), m.variants.end(), "plain");
  out.variant = plain == m.variants.end() ? 0 : static_cast<int32_t>(plain - m.variants.begin());
  SelectionOptions select;
  select.judges = {options.a, options.b};
  select.benchmarks = options.benchmarks;
  select.conditions = options.conditions;
  select.variants = {m.variants[out.variant]};
  const Selection selection = select_records(m, select);
  for (const auto& [judge, name] : {std::pair{ja, options.a}, std::pair{jb, options.b}}) {
    std::vector<int32_t> missing;
    for (int32_t i : selection.items)
      if (!m.present(m.cell(judge, i, 0, out.variant))) missing.push_back(i);
    if (missing.empty() || options.common_items) continue;
    throw UsageError("judge '" + name + "' has no order-0 record on " + std::to_string(missing.size()) + " of the " +
                     std::to_string(selection.items.size()) + " analysed items (" + name_some(m, missing) +
                     "): --compare needs both judges on every item; filter those items out (--benchmark, "
                     "--condition) or analyse the judges' common items (--common-items)");
  }
  for (int32_t i : selection.items) {
    if (m.present(m.cell(ja, i, 0, out.variant)) && m.present(m.cell(jb, i, 0, out.variant)))
      out.items.push_back(i);
    else
      ++out.dropped;
  }
  if (out.items.empty())
    throw UsageError("judges '" + options.a + "' and '" + options.b +
                     "' have no item in common with an order-0 record");
  return out;
}

// d_i = value_B − value_A per item, with the scale that makes every d an integer: 2 for acc
// (the docs' "2d"), and for pa the least common multiple of 2 and the items' order counts.
struct CompareValues {
  std::vector<double> d;
  int32_t scale = 2;
  double value_a = 0, value_b = 0, pool_diff = 0;
};

CompareValues compare_values(const ItemMatrix& m, const ComparedItems& compared, int32_t ja, int32_t jb, bool pa) {
  std::vector<Tally> a, b;
  int32_t scale = 2;
  for (int32_t i : compared.items) {
    a.push_back(tally(m, ja, i, compared.variant, pa));
    b.push_back(tally(m, jb, i, compared.variant, pa));
    scale = std::lcm(scale, std::lcm(a.back().present, b.back().present));
    if (scale > kMaxCompareScale)
      throw UsageError("--statistic pa: the items' order counts make pa a multiple of 1/" + std::to_string(scale) +
                       ", finer than --compare's exact counts allow (1/" + std::to_string(kMaxCompareScale) +
                       "); use --statistic acc");
  }
  CompareValues out;
  out.scale = scale;
  int64_t sum_a = 0, sum_b = 0;
  for (size_t n = 0; n < a.size(); ++n) {
    const int32_t scaled_a = a[n].correct * (scale / a[n].present), scaled_b = b[n].correct * (scale / b[n].present);
    out.d.push_back(static_cast<double>(scaled_b - scaled_a) / scale);
    sum_a += scaled_a;
    sum_b += scaled_b;
  }
  const double units = static_cast<double>(scale) * static_cast<double>(a.size());
  out.value_a = static_cast<double>(sum_a) / units;
  out.value_b = static_cast<double>(sum_b) / units;
  out.pool_diff = static_cast<double>(sum_b - sum_a) / units;  // = CompareSummary::pool_diff
  return out;
}

// The budgets asked for, or the default ones that fit the pool (noting those that do not).
std::vector<uint32_t> budgets(const BudgetCompareOptions& options, int64_t items, std::vector<std::string>& notes) {
  if (!options.ks.empty()) return options.ks;
  std::vector<uint32_t> ks;
  for (uint32_t k : kDefaultCompareKs) {
    if (k <= items)
      ks.push_back(k);
    else
      notes.push_back("k = " + std::to_string(k) + " (a default budget) left out: the pool has " +
                      std::to_string(items) + " items");
  }
  if (ks.empty())
    throw std::invalid_argument("k: the pool has " + std::to_string(items) +
                                " items, fewer than every default budget (50, 100, 200, 400); give budgets of 2 to " +
                                std::to_string(items));
  return ks;
}

BudgetCompareReport report_head(const BudgetCompareOptions& options, const ComparedItems& compared,
                                const CompareValues& values, const ItemMatrix& m) {
  BudgetCompareReport report;
  report.seed = options.seed;
  report.a = options.a;
  report.b = options.b;
  report.statistic = options.statistic;
  report.level = options.level;
  report.z = normal_quantile(1.0 - (1.0 - options.level) / 2.0);
  report.benchmarks = options.benchmarks;
  report.conditions = options.conditions;
  report.common_items = options.common_items;
  report.items = static_cast<int64_t>(compared.items.size());
  report.dropped = compared.dropped;
  report.variant = m.variants[compared.variant];
  report.scale = values.scale;
  report.value_a = values.value_a;
  report.value_b = values.value_b;
  report.pool_diff = values.pool_diff;
  if (compared.dropped > 0)
    report.notes.push_back(std::to_string(compared.dropped) + " items left out (--common-items): a judge has no " +
                           "order-0 record on them");
  return report;
}

}  // namespace

void check_budget_compare_options(const BudgetCompareOptions& options) {
  if (options.a.empty() || options.b.empty())
    throw std::invalid_argument("compare: expected two judges A,B (d = B − A)");
  if (options.a == options.b)
    throw std::invalid_argument("compare: '" + options.a + "' twice; name two different judges A,B");
  if (options.statistic != "acc" && options.statistic != "pa")
    throw std::invalid_argument("statistic: expected acc or pa, got '" + options.statistic + "'");
  if (!(options.level > 0.0 && options.level < 1.0))
    throw std::invalid_argument("level: expected a number between 0 and 1 (e.g. 0.95)");
  for (uint32_t k : options.ks)
    if (k < 2)
      throw std::invalid_argument("k: " + std::to_string(k) +
                                  " is too small: the interval's SE needs at least 2 labelled items");
}

BudgetCompareReport run_budget_compare(const ItemMatrix& input, const BudgetCompareOptions& options,
                                       const ExecTarget& target) {
  check_budget_compare_options(options);
  // docs/statistics.md §8.1: budget --compare needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "budget --compare", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  const auto setup_start = std::chrono::steady_clock::now();
  const int32_t ja = matrix.judge_index(options.a), jb = matrix.judge_index(options.b);
  const ComparedItems compared = compared_items(matrix, options, ja, jb);
  const CompareValues values = compare_values(matrix, compared, ja, jb, options.statistic == "pa");
  const CompareProblem problem = make_compare_problem(values.d, values.scale);
  BudgetCompareReport report = report_head(options, compared, values, matrix);
  report.validity = judge_validity(matrix, {ja, jb});
  set_gold_counts(report.validity, items_analysed, without_gold, "");
  const std::vector<uint32_t> ks = budgets(options, report.items, report.notes);
  for (uint32_t k : ks) check_compare_k(problem, k);
  report.setup_s = seconds_from(setup_start);

  std::unique_ptr<CompareEngine> engine = make_compare_engine(problem, target);
  report.backend = engine->name();
  report.device = engine->device();
  report.draws = options.draws              ? *options.draws
                 : engine->name() == "cuda" ? kDefaultCompareDrawsCuda
                                            : kDefaultCompareDrawsCpu;
  if (report.draws == 0 || report.draws > (uint64_t{1} << 32))
    throw std::invalid_argument("draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");
  report.total_draws = report.draws * ks.size();
  if (problem.pool_scaled_sum == 0)
    report.notes.push_back(
        "the judges tie on the whole pool: power is 0 and wrong_sign counts every interval that "
        "excludes 0");

  uint64_t finished = 0;
  for (uint32_t k : ks) {
    CompareRun run;
    run.k = k;
    run.z = report.z;
    run.seed = options.seed;
    report.summaries.push_back(simulate_compare(*engine, problem, run, report.draws, [&](uint64_t done) {
      if (options.progress) options.progress(finished + done, report.total_draws);
    }));
    finished += report.draws;
    report.resample_s += report.summaries.back().resample_s;
  }
  return report;
}

}  // namespace judgestat
