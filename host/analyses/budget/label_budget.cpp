// run_budget (include/judgestat/label_budget.hpp): the cascade pool, the budget problem, one
// engine from the execution target, and one simulate_budget per (k, rule).
#include "judgestat/label_budget.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "analyses/cascade/cascade_pool.hpp"
#include "analyses/common/judge_validity.hpp"

namespace judgestat {
namespace {

double seconds_from(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The settings and pool facts the report repeats.
BudgetReport report_head(const BudgetOptions& options, const CascadePool& pool, const BudgetProblem& problem,
                         const BudgetEngine& engine, uint64_t draws) {
  BudgetReport report;
  report.seed = options.seed;
  report.draws = draws;
  report.backend = engine.name();
  report.device = engine.device();
  report.first = options.first;
  report.fallback = options.fallback;
  report.grid = options.grid;
  report.tol = options.tol;
  report.z = options.z;
  report.per_stratum = options.per_stratum;
  report.strata = options.per_stratum ? (options.strata.empty() ? "benchmark" : options.strata) : "";
  report.gate_orders = options.gate_orders;
  report.pool_items = pool.size();
  for (uint8_t ok : pool.gate_ok) report.gate_ok += ok;
  report.pool_strata = problem.strata_names;
  report.total_draws = draws * options.ks.size() * options.rules.size();
  return report;
}

// Every (k, rule), k-major; progress counts over all of them.
void simulate_all(BudgetEngine& engine, const BudgetProblem& problem, const BudgetOptions& options,
                  BudgetReport& report) {
  uint64_t finished = 0;
  for (uint32_t k : options.ks) {
    for (ThresholdRule rule : options.rules) {
      BudgetRun run;
      run.k = k;
      run.rule.tol = options.tol;
      run.rule.z = options.z;
      run.rule.rule = rule;
      run.seed = options.seed;
      report.summaries.push_back(simulate_budget(engine, problem, run, report.draws, [&](uint64_t done) {
        if (options.progress) options.progress(finished + done, report.total_draws);
      }));
      finished += report.draws;
      report.resample_s += report.summaries.back().resample_s;
    }
  }
}

}  // namespace

void check_budget_options(const BudgetOptions& options) {
  if (!(std::isfinite(options.tol) && options.tol >= 0)) throw std::invalid_argument("tol: expected a number >= 0");
  if (!(std::isfinite(options.z) && options.z >= 0)) throw std::invalid_argument("z: expected a number >= 0");
}

BudgetReport run_budget(const ItemMatrix& input, const BudgetOptions& options, const ExecTarget& target) {
  check_budget_options(options);
  // docs/statistics.md §8.1: budget needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "budget", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  const auto setup_start = std::chrono::steady_clock::now();
  const std::string strata = options.per_stratum ? (options.strata.empty() ? "benchmark" : options.strata) : "";
  const CascadePool pool =
      build_cascade_pool(matrix, options.first, options.fallback, options.gate_orders, strata, options.fee_per_call);
  const BudgetProblem problem = make_budget_problem(pool, options.grid, options.per_stratum);
  const double setup_s = seconds_from(setup_start);
  for (uint32_t k : options.ks)
    for (ThresholdRule rule : options.rules) check_budget_k(problem, k, rule);

  std::unique_ptr<BudgetEngine> engine = make_budget_engine(problem, target);
  const uint64_t draws = options.draws              ? *options.draws
                         : engine->name() == "cuda" ? kDefaultBudgetDrawsCuda
                                                    : kDefaultBudgetDrawsCpu;
  if (draws == 0 || draws > (uint64_t{1} << 32))
    throw std::invalid_argument("draws: expected 1 to 2^32 (draw indices are 32-bit Philox counters)");

  BudgetReport report = report_head(options, pool, problem, *engine, draws);
  report.setup_s = setup_s;
  report.validity = judge_validity(matrix, {matrix.judge_index(options.first), matrix.judge_index(options.fallback)});
  set_gold_counts(report.validity, items_analysed, without_gold, "");
  simulate_all(*engine, problem, options, report);
  return report;
}

}  // namespace judgestat
