// run_systems (judgestat/systems.hpp, docs/statistics.md §8.4): the selection, one plan with the win
// rates, the system level and self-preference, and one bootstrap of it.
#include <chrono>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "analyses/systems/systems_plan.hpp"
#include "judgestat/systems.hpp"

namespace judgestat {

namespace {

SelectionOptions selection_options(const SystemsOptions& options) {
  SelectionOptions select;
  select.judges = options.judges;
  select.benchmarks = options.benchmarks;
  select.conditions = options.conditions;
  select.variants = options.variants;
  return select;
}

void check_options(const SystemsOptions& options) {
  if (options.systems.empty() && options.self.empty())
    throw std::invalid_argument("systems: name the systems' columns (--systems x.A,x.B or x.MODEL) or --self x.MODEL");
  if (options.systems.size() > 2)
    throw std::invalid_argument("systems: expected one column (pointwise) or two (candidates A and B), got " +
                                std::to_string(options.systems.size()));
  if (!options.baseline.empty() && options.systems.size() != 2)
    throw std::invalid_argument("baseline: win rates need the two columns of candidates A and B (--systems x.A,x.B)");
  if (options.self.empty() && (!options.family.empty() || !options.family_column.empty()))
    throw std::invalid_argument("family: families are read for --self only; add --self x.MODEL");
}

// Each analysed judge's records over the units, and the items without gold (§8.1).
void add_validity(const ItemMatrix& m, const Selection& sel, const SystemUnits& su, SystemsReport& report) {
  for (int32_t j : sel.judges) {
    ValidityTally tally(m, j);
    for (const SystemsUnit& unit : su.units)
      for (int o = 0; o < m.orders; ++o) tally.add(m.cell(j, unit.item, o, unit.variant));
    report.validity.push_back(tally.finish());
  }
  std::vector<uint8_t> seen(m.items.size(), 0);
  int64_t items = 0, without_gold = 0;
  for (const SystemsUnit& unit : su.units) {
    if (seen[unit.item]) continue;
    seen[unit.item] = 1;
    ++items;
    without_gold += !m.has_gold(unit.item);
  }
  set_gold_counts(report.validity, items, without_gold,
                  "system_score, kendall_tau, spearman_rho, self_acc and self_error");
}

SystemsPlan build_systems_plan(const ItemMatrix& m, const Selection& sel, const SystemsOptions& options,
                               SystemsReport& report) {
  SystemsPlan built;
  built.plan = plan_for(sel);
  const SystemUnits all = system_units(m, sel, {}, "", &built.plan);
  if (!options.systems.empty()) {
    const SystemUnits su = system_units(m, sel, options.systems, "--systems", nullptr);
    report.systems = su.systems;
    if (options.systems.size() == 2) add_win_rates(m, sel, su, options, built);
    add_system_level(m, sel, su, options.systems.size() == 2, built);
  }
  if (!options.self.empty()) add_self_preference(m, sel, options, report.judge_family, built);
  add_validity(m, sel, all, report);
  if (built.plan.statistics.empty())
    throw UsageError("systems: nothing to compute on the analysed records (" +
                     (built.notes.empty() ? std::string("no units") : built.notes.back()) + ")");
  return built;
}

}  // namespace

SystemsReport run_systems(const ItemMatrix& m, const SystemsOptions& options, const ExecTarget& target) {
  const auto start = std::chrono::steady_clock::now();
  check_options(options);
  validate_bootstrap_options(options.bootstrap);
  SystemsReport report;
  const Selection sel = select_records(m, selection_options(options));
  SystemsPlan built = build_systems_plan(m, sel, options, report);
  report.plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto backend = make_backend(target);
  std::vector<StatLabel> labels;
  for (const StatisticDef& stat : built.plan.statistics) labels.push_back(stat.label);
  const CompiledPlan compiled = compile(std::move(built.plan));
  report.statistics = run_bootstrap(compiled, labels, *backend, options.bootstrap);
  report.keys = std::move(built.keys);
  report.notes = std::move(built.notes);
  report.system_columns = options.systems;
  report.self_columns = options.self;
  report.baseline = options.baseline;
  report.scored = m.scored;
  return report;
}

}  // namespace judgestat
