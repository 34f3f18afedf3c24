// The profile plan (docs/statistics.md §3.6): ProfilePlanBuilder turns the config and the item matrix into one
// bootstrap plan whose statistics share the same replicates.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/profile/profile_detail.hpp"
#include "records/selection.hpp"

namespace judgestat {

// ---------------------------------------------------------------------------------------------
// The plan.

namespace {

using Kind = ProfileStat::Kind;

bool accepts(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

bool family_member(const FamilySpec& family, const std::string& judge) {
  for (const std::string& pattern : family.members) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (judge.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0) return true;
    } else if (pattern == judge) {
      return true;
    }
  }
  return false;
}

// Programs are built from ratios and combined on the stack; every helper leaves one value.
std::vector<Op> concat(std::vector<Op> a, const std::vector<Op>& b, OpCode joint) {
  a.insert(a.end(), b.begin(), b.end());
  a.push_back({joint});
  return a;
}

// Sum of terms, accumulated left to right so the stack stays one term deep.
std::vector<Op> sum_of_programs(const std::vector<std::vector<Op>>& terms) {
  std::vector<Op> out = terms.front();
  for (size_t k = 1; k < terms.size(); ++k) {
    out.insert(out.end(), terms[k].begin(), terms[k].end());
    out.push_back({OpCode::kAdd});
  }
  return out;
}

std::vector<Op> mean_of(const std::vector<std::vector<Op>>& terms) {
  std::vector<Op> out = sum_of_programs(terms);
  if (terms.size() > 1) {
    out.push_back({OpCode::kConstant, 0, static_cast<double>(terms.size())});
    out.push_back({OpCode::kDiv});
  }
  return out;
}

double sum_of(const std::vector<double>& values) {
  double total = 0;
  for (double v : values) total += v;
  return total;
}

// A cell resolved against the data: which units and verdicts its operator reads.
struct ResolvedCell {
  const CellSpec* spec = nullptr;
  std::vector<int32_t> items;     // matrix items in the cell's subset
  std::vector<int32_t> variants;  // matrix variant indices (kVariantBc: base, perturbed)
};

// Per-unit columns of one judge on one cell: indicator sums (num) over unit counts (den) and,
// for the robustness operators, the pure-consistency indicator.
struct CellColumns {
  std::vector<double> num, den, cons;
  bool has_cons = false;
};

}  // namespace

bool ProfilePlan::Key::operator<(const Key& other) const {
  return std::tie(kind, benchmark, to, judge, condition, group, status) <
         std::tie(other.kind, other.benchmark, other.to, other.judge, other.condition, other.group, other.status);
}

int32_t ProfilePlan::find(Kind kind, int32_t benchmark, int32_t judge, const std::string& condition,
                          const std::string& group, int32_t to) const {
  const auto it = index_.find(Key{kind, benchmark, to, judge, condition, group, Coverage::kDirect});
  return it == index_.end() ? -1 : it->second;
}

int32_t ProfilePlan::find_l1(int32_t benchmark, const std::string& group, Coverage status) const {
  const auto it = index_.find(Key{Kind::kL1, benchmark, -1, -1, "", group, status});
  return it == index_.end() ? -1 : it->second;
}

void ProfilePlan::index(int32_t statistic) {
  const ProfileStat& s = stats[statistic];
  const Coverage status = s.kind == Kind::kL1 ? s.status : Coverage::kDirect;
  index_[Key{s.kind, s.benchmark, s.to, s.judge, s.condition, s.group, status}] = statistic;
}

namespace {

// Builds the profile plan step by step; the state the steps share is members (the selection, its
// accuracy units and per-judge facts, the plan being built and the programs of the cells).
class ProfilePlanBuilder {
 public:
  ProfilePlanBuilder(const ItemMatrix& matrix, const ProfileConfig& config, const ProfileOptions& options);
  ProfilePlan build();

 private:
  // A cell of one judge on one profiled benchmark, whose ratio program the derived statistics
  // (stress, supported-correct, bias correction, L1) reuse.
  struct CellKey {
    int32_t benchmark, judge;
    std::string condition;
    bool operator<(const CellKey& other) const {
      return std::tie(benchmark, judge, condition) < std::tie(other.benchmark, other.judge, other.condition);
    }
  };

  void check_asked_benchmarks() const;
  void names_known(const std::vector<std::string>& wanted, const std::vector<std::string>& have,
                   const std::string& column, const std::string& where) const;
  void add_stat(ProfileStat stat, StatLabel label, std::vector<Op> program);
  int32_t add_column(const std::string& name, const std::vector<double>& values);
  std::vector<double> masked(const std::vector<double>& values) const;

  void add_benchmark(const BenchmarkSpec& spec);
  void resolve_cell(const BenchmarkSpec& spec, const CellSpec& cell, const std::vector<int32_t>& items,
                    const std::string& where, ResolvedCell& r) const;
  CellColumns cell_columns(const ResolvedCell& r, int32_t jj) const;
  void add_cell_stats(int32_t b, int32_t jj, const BenchmarkSpec& spec, const CellSpec& cell, const CellColumns& cols,
                      int64_t n, bool has_flagged);
  void add_supported_correct(int32_t b, int32_t jj);
  void add_bias_correction(int32_t b, const BenchmarkSpec& spec, const std::vector<ResolvedCell>& resolved,
                           const std::string& where);
  void add_stress(const StressSpec& pair);
  void resolve_families();
  void add_l1(int32_t b, const std::map<std::string, int32_t>& family_of);
  void add_selected_l1(int32_t b, const std::map<std::string, int32_t>& family_of);
  void add_stress_extras(const StressSpec& pair, int32_t from, int32_t to,
                         const std::vector<std::map<std::string, std::vector<Op>>>& deltas);
  void add_judge_stress_mean(const ProfileStat& stat, const std::string& name, const StressSpec& pair,
                             const std::vector<std::vector<Op>>& programs);
  void add_spread(int32_t b);
  void add_differences(int32_t b);
  void add_judge_sets(int32_t b);
  void resolve_judge_sets();
  std::vector<int32_t> judges_with_cell(int32_t b, const std::string& c) const;
  std::vector<std::string> measured_cells(int32_t b) const;

  int32_t benchmark_index(const std::string& name) const;
  const CellSpec& cell_spec(int32_t b, const std::string& name) const;

  const ItemMatrix& m;
  const ProfileConfig& config;
  const ProfileOptions& options;
  Selection sel;
  int32_t J = 0, V = 0;
  std::vector<AccuracyUnit> units;
  std::vector<int32_t> unit_of;  // item × variant → accuracy unit, -1 when none
  size_t U = 0;
  std::vector<JudgeUnits> facts;  // per analysed judge
  std::vector<double> unflagged;  // per unit: 1 unless its item has flag = 1
  const std::vector<std::string> conditions{cap_cell_names().begin(), cap_cell_names().end() - 1};
  ProfilePlan out;
  std::map<CellKey, std::vector<Op>> program_of;
  int32_t normal_draws = 0;
};

ProfilePlanBuilder::ProfilePlanBuilder(const ItemMatrix& matrix, const ProfileConfig& config,
                                       const ProfileOptions& options)
    : m(matrix), config(config), options(options) {
  // Clusters are resampled within each data `benchmark` (docs/statistics.md §2 stratified bootstrap), so
  // every config benchmark — a union of data benchmarks and conditions — keeps its make-up.
  SelectionOptions select;
  select.judges = options.judges;
  select.strata = "benchmark";
  select.hard_only = options.hard || config.hard;  // CAP's Hard-Empirical rule, as `metrics --hard` reads it
  sel = select_records(m, select);
  out.plan = plan_for(sel);
  out.orders = sel.orders;
  for (int32_t j : sel.judges) out.judges.push_back(m.judges[j]);
  J = static_cast<int32_t>(sel.judges.size());
  V = m.n_variants();

  units = accuracy_units(m, sel, out.plan);
  unit_of.assign(static_cast<size_t>(m.n_items()) * V, -1);
  for (size_t u = 0; u < units.size(); ++u)
    unit_of[static_cast<size_t>(units[u].item) * V + units[u].variant] = static_cast<int32_t>(u);
  U = units.size();
  for (int32_t j : sel.judges) facts.push_back(judge_units(m, j, units, sel.orders, options.invalid_match));
  unflagged.resize(U);
  for (size_t u = 0; u < U; ++u) unflagged[u] = m.item_flag[units[u].item] ? 0.0 : 1.0;
}

ProfilePlan ProfilePlanBuilder::build() {
  check_asked_benchmarks();
  for (const BenchmarkSpec& spec : config.benchmarks) add_benchmark(spec);
  if (out.benchmarks.empty())
    throw UsageError("no benchmark of " + config.source +
                     " has records in the input; check each "
                     "benchmark's 'records' filter against the data's benchmark and condition columns");
  // Stress degradation [CAP §4.3, Eq. 3] on conditions measured with the same status on both.
  for (const StressSpec& pair : config.stress) add_stress(pair);
  resolve_families();
  // L1 profile distances [CAP App. J]: Σ_c |CAP_c(j1) − CAP_c(j2)| over the main-table cells of
  // one status (approx and direct cells are never summed together), mean over the pairs within
  // each family and over the cross-family pairs.
  if (!out.families.empty()) {
    std::map<std::string, int32_t> family_of;  // judge name → family index (first family wins)
    for (size_t fam = 0; fam < out.families.size(); ++fam)
      for (const std::string& judge : out.families[fam].members) family_of.emplace(judge, static_cast<int32_t>(fam));
    for (int32_t b = 0; b < static_cast<int32_t>(out.benchmarks.size()); ++b) {
      add_l1(b, family_of);
      add_selected_l1(b, family_of);
    }
  }
  // Across judges on every main-table cell: spread [CAP §4.1], differences to a reference
  // [CAP §5] and means over judge sets [CAP Table 19].
  resolve_judge_sets();
  out.reference = options.diff_reference.empty() ? config.differences.reference : options.diff_reference;
  if (!out.reference.empty() && std::find(out.judges.begin(), out.judges.end(), out.reference) == out.judges.end()) {
    const std::string what =
        "reference judge '" + out.reference + "' is not an analysed judge (they are: " + join(out.judges) + ")";
    if (!options.diff_reference.empty()) throw UsageError("--diff-reference: " + what);
    out.notes.push_back("differences left out: the config's " + what);  // a shared config, other judges
    out.reference.clear();
  }
  for (int32_t b = 0; b < static_cast<int32_t>(out.benchmarks.size()); ++b) {
    add_spread(b);
    if (!out.reference.empty()) add_differences(b);
    add_judge_sets(b);
  }
  return std::move(out);
}

// Which config benchmarks to profile: every name asked for must be one of the config's.
void ProfilePlanBuilder::check_asked_benchmarks() const {
  for (const std::string& name : options.benchmarks) {
    const bool known = std::any_of(config.benchmarks.begin(), config.benchmarks.end(),
                                   [&](const BenchmarkSpec& b) { return b.name == name; });
    if (!known) {
      std::vector<std::string> names;
      for (const auto& b : config.benchmarks) names.push_back(b.name);
      throw std::invalid_argument("benchmarks: '" + name + "' is not a benchmark of " + config.source +
                                  " (it has: " + join(names) + ")");
    }
  }
}

void ProfilePlanBuilder::names_known(const std::vector<std::string>& wanted, const std::vector<std::string>& have,
                                     const std::string& column, const std::string& where) const {
  for (const std::string& name : wanted)
    if (std::find(have.begin(), have.end(), name) == have.end())
      throw UsageError(where + ": " + column + " '" + name + "' does not occur in the data (it has: " + join(have) +
                       ")");
}

void ProfilePlanBuilder::add_stat(ProfileStat stat, StatLabel label, std::vector<Op> program) {
  out.plan.statistics.push_back({std::move(label), std::move(program)});
  out.stats.push_back(std::move(stat));
  out.index(static_cast<int32_t>(out.stats.size()) - 1);
}

int32_t ProfilePlanBuilder::add_column(const std::string& name, const std::vector<double>& values) {
  const int32_t k = out.plan.add_column(name);
  out.plan.columns[k] = values;
  return k;
}

std::vector<double> ProfilePlanBuilder::masked(const std::vector<double>& values) const {
  std::vector<double> kept(U);
  for (size_t u = 0; u < U; ++u) kept[u] = values[u] * unflagged[u];
  return kept;
}

// One config benchmark: its items, its cells resolved against the data, the statistics of every
// judge on every cell, supported-correct and the bias correction.
void ProfilePlanBuilder::add_benchmark(const BenchmarkSpec& spec) {
  const bool asked =
      std::find(options.benchmarks.begin(), options.benchmarks.end(), spec.name) != options.benchmarks.end();
  if (!options.benchmarks.empty() && !asked) return;
  const std::string where = "benchmark '" + spec.name + "'";
  std::vector<int32_t> items;
  for (int32_t i : sel.items)
    if (accepts(spec.records.benchmarks, m.benchmarks[m.item_benchmark[i]]) &&
        accepts(spec.records.conditions, m.conditions[m.item_condition[i]]))
      items.push_back(i);
  if (items.empty()) {
    if (asked)
      throw UsageError(where + " (" + config.source +
                       "): no records match its records filter; "
                       "check the config's 'records' against the data's benchmark and condition columns");
    out.notes.push_back(where + ": no records in the input; not profiled");
    return;
  }
  names_known(spec.records.variants, m.variants, "variant", where + ": records");
  for (const auto& [wanted, have, column] : {std::make_tuple(&spec.records.benchmarks, &m.benchmarks, "benchmark"),
                                             std::make_tuple(&spec.records.conditions, &m.conditions, "condition")})
    for (const std::string& name : *wanted)
      if (std::find(have->begin(), have->end(), name) == have->end())
        out.notes.push_back(where + ": its records filter names " + column + " '" + name +
                            "', which does not occur in the input");
  const int32_t b = static_cast<int32_t>(out.benchmarks.size());
  ProfiledBenchmark profiled;
  profiled.spec = spec;
  profiled.items = static_cast<int64_t>(items.size());
  for (int32_t i : items) profiled.has_flagged = profiled.has_flagged || m.item_flag[i];
  profiled.cell_items.assign(spec.cells.size(), 0);

  // Resolve every measurable cell; problems name the cell.
  std::vector<ResolvedCell> resolved(spec.cells.size());
  for (size_t c = 0; c < spec.cells.size(); ++c) {
    if (spec.cells[c].status == Coverage::kUnavailable) continue;
    resolve_cell(spec, spec.cells[c], items, where, resolved[c]);
    profiled.cell_items[c] = static_cast<int64_t>(resolved[c].items.size());
  }

  // Columns and statistics per judge and cell; judges without records in a cell are listed
  // once per cell.
  std::vector<std::vector<std::string>> judges_without(spec.cells.size());
  for (int32_t jj = 0; jj < J; ++jj) {
    for (size_t c = 0; c < spec.cells.size(); ++c) {
      const ResolvedCell& r = resolved[c];
      if (!r.spec) continue;
      const CellColumns cols = cell_columns(r, jj);
      const int64_t n = static_cast<int64_t>(sum_of(cols.den));
      if (n == 0) {
        judges_without[c].push_back(m.judges[sel.judges[jj]]);
        continue;
      }
      add_cell_stats(b, jj, spec, *r.spec, cols, n, profiled.has_flagged);
    }
    add_supported_correct(b, jj);
  }
  for (size_t c = 0; c < spec.cells.size(); ++c)
    if (!judges_without[c].empty())
      out.notes.push_back(where + " " + spec.cells[c].name + ": no records in the cell for " +
                          (static_cast<int32_t>(judges_without[c].size()) == J
                               ? std::string("any judge")
                               : "judge(s) " + join(judges_without[c])));
  add_bias_correction(b, spec, resolved, where);
  out.benchmarks.push_back(std::move(profiled));
}

// A measurable cell against the data: its items and variants; UsageError names the cell when the
// data cannot fill it.
void ProfilePlanBuilder::resolve_cell(const BenchmarkSpec& spec, const CellSpec& cell,
                                      const std::vector<int32_t>& items, const std::string& where,
                                      ResolvedCell& r) const {
  const std::string cell_where =
      where + " " + cell.name + " (" + to_string(cell.status) + ", " + to_string(cell.op) + ")";
  names_known(cell.subset.benchmarks, m.benchmarks, "benchmark", cell_where);
  names_known(cell.subset.conditions, m.conditions, "condition", cell_where);
  r.spec = &cell;
  std::vector<std::string> variant_names =
      cell.op == CapOperator::kVariantBc ? cell.variant_pair : cell.subset.variants;
  if (variant_names.empty()) variant_names = spec.records.variants;
  if (variant_names.empty()) variant_names = m.variants;
  for (const std::string& name : variant_names) {
    const int32_t v = m.variant_index(name);
    if (v < 0) {
      throw UsageError(cell_where + ": needs variant '" + name +
                       "', which the data lacks (its "
                       "variants: " +
                       join(m.variants) +
                       "); mark the cell unavailable or "
                       "give records with that variant");
    }
    if (accepts(spec.records.variants, name)) {
      r.variants.push_back(v);
    } else if (cell.op == CapOperator::kVariantBc) {
      throw UsageError(cell_where + ": needs variant '" + name +
                       "', which the benchmark's records "
                       "filter leaves out; add it to 'records' or mark the cell unavailable");
    }
  }
  for (int32_t i : items)
    if (accepts(cell.subset.benchmarks, m.benchmarks[m.item_benchmark[i]]) &&
        accepts(cell.subset.conditions, m.conditions[m.item_condition[i]]))
      r.items.push_back(i);
  // Items with a unit in the cell's variants (kVariantBc: in both).
  std::vector<int32_t> with_units;
  for (int32_t i : r.items) {
    bool ok = cell.op == CapOperator::kVariantBc;
    for (int32_t v : r.variants) {
      const bool has = unit_of[static_cast<size_t>(i) * V + v] >= 0;
      ok = cell.op == CapOperator::kVariantBc ? ok && has : ok || has;
    }
    if (ok && !r.variants.empty()) with_units.push_back(i);
  }
  r.items = with_units;
  std::string subset =
      "benchmark = " + (cell.subset.benchmarks.empty() ? "any" : join(cell.subset.benchmarks, "|")) +
      ", condition = " + (cell.subset.conditions.empty() ? "any" : join(cell.subset.conditions, "|")) + ", variant" +
      (cell.op == CapOperator::kVariantBc ? "s = " + join(variant_names, " and ") : " = " + join(variant_names, "|"));
  if (r.items.empty())
    throw UsageError(cell_where + ": no items match its subset (" + subset +
                     "); fix the config's subset or mark the cell unavailable");
  if (cell.op == CapOperator::kBc && sel.orders < 2)
    throw UsageError(cell_where +
                     ": operator bc compares presentation orders, but the data has "
                     "one order; give both orders or mark the cell unavailable");
  if (cell.op == CapOperator::kRationale && !m.has_rationale)
    throw UsageError(cell_where +
                     ": operator rationale needs a rationale_ok column, which the "
                     "data lacks; mark the cell unavailable");
}

// Per-unit columns of one judge on one cell, as the cell's operator reads the verdicts.
CellColumns ProfilePlanBuilder::cell_columns(const ResolvedCell& r, int32_t jj) const {
  const int32_t j = sel.judges[jj];
  const JudgeUnits& f = facts[jj];
  const CellSpec& cell = *r.spec;
  CellColumns cols;
  cols.num.assign(U, 0.0);
  cols.den.assign(U, 0.0);
  cols.cons.assign(U, 0.0);
  cols.has_cons = cell.op == CapOperator::kBc || cell.op == CapOperator::kVariantBc;
  for (int32_t i : r.items) {
    auto unit = [&](int32_t v) { return unit_of[static_cast<size_t>(i) * V + v]; };
    switch (cell.op) {
      case CapOperator::kPa:
        for (int32_t v : r.variants) {
          const int32_t u = unit(v);
          if (u < 0 || !f.any_present[u]) continue;
          cols.num[u] = f.order_mean[u];
          cols.den[u] = 1;
        }
        break;
      case CapOperator::kAcc:
        for (int32_t v : r.variants) {
          const int32_t u = unit(v);
          if (u < 0 || !f.present[0][u]) continue;
          cols.num[u] = f.correct[0][u];
          cols.den[u] = 1;
        }
        break;
      case CapOperator::kBc:
        for (int32_t v : r.variants) {
          const int32_t u = unit(v);
          if (u < 0 || !f.complete[u]) continue;
          cols.num[u] = f.all_correct[u];
          cols.cons[u] = f.consistent[u];
          cols.den[u] = 1;
        }
        break;
      case CapOperator::kVariantBc: {
        // Per order: correct in both variants (strict) / the same verdict in both (cons;
        // an invalid verdict matches nothing unless --invalid-match); mean over the
        // orders the judge answered in both. The value sits on the base variant's unit.
        const int32_t base = r.variants[0], perturbed = r.variants[1];
        const int32_t ub = unit(base), up = unit(perturbed);
        int answered = 0, both_correct = 0, same = 0;
        for (int o = 0; o < sel.orders; ++o) {
          if (!f.present[o][ub] || !f.present[o][up]) continue;
          ++answered;
          both_correct += f.correct[o][ub] && f.correct[o][up];
          const int16_t vb = m.verdict[m.cell(j, i, o, base)];
          const int16_t vp = m.verdict[m.cell(j, i, o, perturbed)];
          same += vb == vp && (vb != kInvalid || options.invalid_match);
        }
        if (answered == 0) break;
        cols.num[ub] = static_cast<double>(both_correct) / answered;
        cols.cons[ub] = static_cast<double>(same) / answered;
        cols.den[ub] = 1;
        break;
      }
      case CapOperator::kRationale:
        for (int32_t v : r.variants) {
          const int32_t u = unit(v);
          if (u < 0) continue;
          const size_t cell0 = m.cell(j, i, 0, v);
          if (!m.present(cell0) || !m.correct(cell0, i) || std::isnan(m.rationale_ok[cell0])) continue;
          cols.num[u] = m.rationale_ok[cell0];
          cols.den[u] = 1;
        }
        break;
    }
  }
  return cols;
}

// The cell's statistic, its pure-consistency counterpart and stable-but-wrong mass, and its
// leave-out shift.
void ProfilePlanBuilder::add_cell_stats(int32_t b, int32_t jj, const BenchmarkSpec& spec, const CellSpec& cell,
                                        const CellColumns& cols, int64_t n, bool has_flagged) {
  const int32_t j = sel.judges[jj];
  const std::string tag = spec.name + "/" + m.judges[j] + "/" + cell.name;
  const int32_t k_num = add_column(tag + "/num", cols.num);
  const int32_t k_den = add_column(tag + "/den", cols.den);
  const std::vector<Op> ratio = ratio_program(k_num, k_den);
  program_of[{b, jj, cell.name}] = ratio;
  auto label = [&](const std::string& name) {
    StatLabel l;
    l.name = name;
    l.judge = m.judges[j];
    l.benchmark = spec.name;
    l.n = n;
    return l;
  };
  ProfileStat stat;
  stat.benchmark = b;
  stat.judge = jj;
  stat.condition = cell.name;
  stat.status = cell.status;
  stat.main_table = cell.main_table;
  stat.kind = Kind::kCell;
  add_stat(stat, label(cell.name), ratio);
  if (cols.has_cons && cell.name != "overall") {
    // Pure-consistency counterpart and the stable-but-wrong mass [CAP App. H].
    const int32_t k_cons = add_column(tag + "/cons", cols.cons);
    stat.kind = Kind::kConsistency;
    add_stat(stat, label(cell.name + "_cons"), ratio_program(k_cons, k_den));
    stat.kind = Kind::kStableWrong;
    StatLabel sw = label("stable_wrong");
    sw.of = cell.name;
    add_stat(stat, sw,
             {{OpCode::kColumn, k_cons},
              {OpCode::kColumn, k_num},
              {OpCode::kSub},
              {OpCode::kColumn, k_den},
              {OpCode::kDiv}});
  }
  if (options.leave_out && has_flagged) {
    const std::vector<double> kept_den = masked(cols.den);
    const int64_t n_kept = static_cast<int64_t>(sum_of(kept_den));
    if (n_kept > 0) {
      const int32_t k_kept_num = add_column(tag + "/kept/num", masked(cols.num));
      const int32_t k_kept_den = add_column(tag + "/kept/den", kept_den);
      stat.kind = Kind::kLeaveOut;
      StatLabel shift = label("leave_out");
      shift.of = cell.name;
      shift.n = n_kept;
      add_stat(stat, shift, difference_program(ratio_program(k_kept_num, k_kept_den), ratio));
    }
  }
}

void ProfilePlanBuilder::add_supported_correct(int32_t b, int32_t jj) {
  // Supported-correct = overall × C8 [CAP §4.1].
  const int32_t c8 = out.find(Kind::kCell, b, jj, "C8");
  const int32_t overall = out.find(Kind::kCell, b, jj, "overall");
  if (c8 >= 0 && overall >= 0) {
    ProfileStat stat = out.stats[c8];
    stat.kind = Kind::kSupportedCorrect;
    stat.condition = "supported_correct";
    StatLabel l = out.plan.statistics[c8].label;
    l.name = "supported_correct";
    l.n = out.plan.statistics[overall].label.n;
    add_stat(stat, l, concat(program_of[{b, jj, "overall"}], program_of[{b, jj, "C8"}], OpCode::kMul));
  }
}

void ProfilePlanBuilder::add_bias_correction(int32_t b, const BenchmarkSpec& spec,
                                             const std::vector<ResolvedCell>& resolved, const std::string& where) {
  // Bias correction [CAP App. K]: q1 / q0 = accuracy with the gold response shown first /
  // second, on the overall cell's presentations; CI by joint bootstrap with normal draws.
  const auto overall_it =
      std::find_if(spec.cells.begin(), spec.cells.end(), [](const CellSpec& c) { return c.name == "overall"; });
  const ResolvedCell& overall_cell = resolved[overall_it - spec.cells.begin()];
  const auto label_a = std::find(m.labels.begin(), m.labels.end(), "A");
  const auto label_b = std::find(m.labels.begin(), m.labels.end(), "B");
  const bool pairwise = m.n_labels() == 2 && label_a != m.labels.end() && label_b != m.labels.end() && sel.orders <= 2;
  bool any_corrected = false;
  for (const auto& name : config.corrected)
    any_corrected = any_corrected || std::any_of(resolved.begin(), resolved.end(),
                                                 [&](const ResolvedCell& r) { return r.spec && r.spec->name == name; });
  if (any_corrected && !overall_cell.spec) {
    out.notes.push_back(where + ": bias correction left out: it needs the overall cell for q0 and q1");
  } else if (any_corrected && !pairwise) {
    out.notes.push_back(where +
                        ": bias correction left out: it needs pairwise items with labels A "
                        "and B and at most two orders");
  } else if (any_corrected) {
    const int32_t gold_a = static_cast<int32_t>(label_a - m.labels.begin());
    std::vector<std::string> one_sided, chance_level;  // judges left out, for one note each
    for (int32_t jj = 0; jj < J; ++jj) {
      const int32_t j = sel.judges[jj];
      CorrectionParams q;
      q.benchmark = b;
      q.judge = jj;
      int64_t correct_first = 0, correct_second = 0;
      for (int32_t i : overall_cell.items)
        for (int32_t v : overall_cell.variants)
          for (int o = 0; o < sel.orders; ++o) {
            const size_t cell = m.cell(j, i, o, v);
            if (!m.present(cell)) continue;
            // Order 0 shows the canonical order, order 1 the swap.
            const bool gold_first = (m.gold[i] == gold_a) == (o == 0);
            (gold_first ? q.n1 : q.n0) += 1;
            (gold_first ? correct_first : correct_second) += m.correct(cell, i);
          }
      if (q.n0 == 0 || q.n1 == 0) {
        one_sided.push_back(m.judges[j]);
        continue;
      }
      q.q1 = static_cast<double>(correct_first) / q.n1;
      q.q0 = static_cast<double>(correct_second) / q.n0;
      q.se1 = std::sqrt(q.q1 * (1 - q.q1) / q.n1);
      q.se0 = std::sqrt(q.q0 * (1 - q.q0) / q.n0);
      if (q.q0 + q.q1 - 1 <= 0) {
        chance_level.push_back(m.judges[j]);
        continue;
      }
      const int32_t k0 = normal_draws++, k1 = normal_draws++;
      out.corrections.push_back(q);
      // q0* = q0 + se0·N, q1* = q1 + se1·N: one pair of draws per judge and replicate, shared
      // by all of the judge's corrected cells.
      const std::vector<Op> q0_star{{OpCode::kConstant, 0, q.q0}, {OpCode::kNormal, k0, q.se0}, {OpCode::kAdd}};
      const std::vector<Op> q1_star{{OpCode::kConstant, 0, q.q1}, {OpCode::kNormal, k1, q.se1}, {OpCode::kAdd}};
      std::vector<Op> denominator = concat(q0_star, q1_star, OpCode::kAdd);
      denominator.push_back({OpCode::kConstant, 0, 1.0});
      denominator.push_back({OpCode::kSub});
      for (const std::string& name : config.corrected) {
        const int32_t raw = out.find(Kind::kCell, b, jj, name);
        if (raw < 0) continue;
        std::vector<Op> numerator = concat(program_of[{b, jj, name}], q0_star, OpCode::kAdd);
        numerator.push_back({OpCode::kConstant, 0, 1.0});
        numerator.push_back({OpCode::kSub});
        ProfileStat stat = out.stats[raw];
        stat.kind = Kind::kCorrected;
        StatLabel l = out.plan.statistics[raw].label;
        l.name = name + "_corrected";
        add_stat(stat, l, concat(numerator, denominator, OpCode::kDiv));
      }
    }
    if (!one_sided.empty())
      out.notes.push_back(where + ": bias correction left out for " + join(one_sided) +
                          ": the gold response is never shown in one of the two positions");
    if (!chance_level.empty())
      out.notes.push_back(where + ": bias correction left out for " + std::to_string(chance_level.size()) +
                          " judge(s) with q0 + q1 <= 1 (no better than chance; not identified): " + join(chance_level));
  }
}

void ProfilePlanBuilder::add_stress(const StressSpec& pair) {
  const int32_t from = benchmark_index(pair.from), to = benchmark_index(pair.to);
  if (from < 0 || to < 0) {
    out.notes.push_back("stress " + pair.from + " → " + pair.to + ": left out, '" + (from < 0 ? pair.from : pair.to) +
                        "' was not profiled");
    return;
  }
  out.stress.push_back(pair);
  std::vector<std::string> shared;
  for (const std::string& c : conditions) {
    const CellSpec& a = cell_spec(from, c);
    const CellSpec& z = cell_spec(to, c);
    if (a.status == Coverage::kUnavailable || z.status == Coverage::kUnavailable) continue;
    if (!a.main_table || !z.main_table) continue;  // n.r. cells stay out of the stress table
    if (a.status != z.status) {
      out.notes.push_back("stress " + pair.from + " → " + pair.to + ": " + c + " left out (" + to_string(a.status) +
                          " on one side, " + to_string(z.status) + " on the other; they are never combined)");
      continue;
    }
    shared.push_back(c);
  }
  std::map<std::pair<std::string, Coverage>, std::vector<std::vector<Op>>> by_condition;
  std::vector<std::map<std::string, std::vector<Op>>> judge_deltas(J);  // per judge: condition → δ
  for (int32_t jj = 0; jj < J; ++jj) {
    std::map<Coverage, std::vector<std::pair<std::string, std::vector<Op>>>> by_status;
    for (const std::string& c : shared) {
      const int32_t a = out.find(Kind::kCell, from, jj, c), z = out.find(Kind::kCell, to, jj, c);
      if (a < 0 || z < 0) continue;
      const std::vector<Op> delta = difference_program(program_of[{from, jj, c}], program_of[{to, jj, c}]);
      ProfileStat stat;
      stat.kind = Kind::kStress;
      stat.benchmark = from;
      stat.to = to;
      stat.judge = jj;
      stat.condition = c;
      stat.status = cell_spec(from, c).status;
      StatLabel l;
      l.name = "stress";
      l.of = c;
      l.judge = out.judges[jj];
      l.benchmark = pair.from;
      l.n = std::min(out.plan.statistics[a].label.n, out.plan.statistics[z].label.n);
      add_stat(stat, l, delta);
      by_status[stat.status].push_back({c, delta});
      by_condition[{c, stat.status}].push_back(delta);
      judge_deltas[jj][c] = delta;
    }
    // A judge's mean drop, per status: approx cells never enter a direct mean.
    for (const auto& [status, terms] : by_status) {
      ProfileStat stat;
      stat.kind = Kind::kStressJudgeMean;
      stat.benchmark = from;
      stat.to = to;
      stat.judge = jj;
      stat.status = status;
      stat.group = to_string(status);
      std::vector<std::vector<Op>> programs;
      for (const auto& [c, program] : terms) {
        stat.over.push_back(c);
        programs.push_back(program);
      }
      add_judge_stress_mean(stat, "stress_mean", pair, programs);
    }
  }
  for (const auto& [key, programs] : by_condition) {
    ProfileStat stat;
    stat.kind = Kind::kStressConditionMean;
    stat.benchmark = from;
    stat.to = to;
    stat.condition = key.first;
    stat.status = key.second;
    StatLabel l;
    l.name = "stress_mean";
    l.of = key.first;
    l.benchmark = pair.from;
    l.n = static_cast<int64_t>(programs.size());
    add_stat(stat, l, mean_of(programs));
  }
  add_stress_extras(pair, from, to, judge_deltas);
}

// Families, resolved to the analysed judges.
void ProfilePlanBuilder::resolve_families() {
  for (const FamilySpec& family : config.families) {
    FamilySpec resolved{family.name, {}};
    for (const std::string& judge : out.judges)
      if (family_member(family, judge)) resolved.members.push_back(judge);
    if (resolved.members.empty()) {
      out.notes.push_back("family '" + family.name + "': no analysed judge matches " + join(family.members));
      continue;
    }
    out.families.push_back(resolved);
  }
}

void ProfilePlanBuilder::add_l1(int32_t b, const std::map<std::string, int32_t>& family_of) {
  std::map<Coverage, std::vector<std::string>> groups;
  for (const std::string& c : conditions) {
    const CellSpec& cell = cell_spec(b, c);
    if (cell.status != Coverage::kUnavailable && cell.main_table) groups[cell.status].push_back(c);
  }
  for (const auto& status_group : groups) {
    // A named reference, not a structured binding: C++17 lambdas cannot capture bindings (clang).
    const Coverage status = status_group.first;
    const std::vector<std::string>& group = status_group.second;
    auto complete = [&](int32_t jj) {
      return std::all_of(group.begin(), group.end(),
                         [&](const std::string& c) { return out.find(Kind::kCell, b, jj, c) >= 0; });
    };
    auto distance = [&](int32_t x, int32_t y) {
      std::vector<std::vector<Op>> terms;
      for (const std::string& c : group) {
        std::vector<Op> term = difference_program(program_of[{b, x, c}], program_of[{b, y, c}]);
        term.push_back({OpCode::kAbs});
        terms.push_back(term);
      }
      return sum_of_programs(terms);
    };
    std::map<std::string, std::vector<std::vector<Op>>> pair_programs;  // family or cross
    for (int32_t x = 0; x < J; ++x)
      for (int32_t y = x + 1; y < J; ++y) {
        const auto fx = family_of.find(out.judges[x]), fy = family_of.find(out.judges[y]);
        if (fx == family_of.end() || fy == family_of.end() || !complete(x) || !complete(y)) continue;
        const std::string group_name =
            fx->second == fy->second ? out.families[fx->second].name : std::string("cross-family");
        pair_programs[group_name].push_back(distance(x, y));
      }
    for (const auto& [group_name, programs] : pair_programs) {
      ProfileStat stat;
      stat.kind = Kind::kL1;
      stat.benchmark = b;
      stat.status = status;
      stat.group = group_name;
      stat.over = group;
      stat.pairs = static_cast<int64_t>(programs.size());
      StatLabel l;
      l.name = "l1";
      l.benchmark = out.benchmarks[b].spec.name;
      l.n = stat.pairs;
      add_stat(stat, l, mean_of(programs));
    }
  }
}

// A judge's mean of stress deltas (`stat` says which judge and conditions).
void ProfilePlanBuilder::add_judge_stress_mean(const ProfileStat& stat, const std::string& name, const StressSpec& pair,
                                               const std::vector<std::vector<Op>>& programs) {
  StatLabel l;
  l.name = name;
  l.judge = out.judges[stat.judge];
  l.benchmark = pair.from;
  l.n = static_cast<int64_t>(programs.size());
  add_stat(stat, l, mean_of(programs));
}

// Stress extras: a judge's Mean over the config's mean_over conditions whatever their status
// [CAP Table 6], and the mean |δ| over every delta of the pair [CAP Table 16].
void ProfilePlanBuilder::add_stress_extras(const StressSpec& pair, int32_t from, int32_t to,
                                           const std::vector<std::map<std::string, std::vector<Op>>>& deltas) {
  std::vector<std::vector<Op>> absolute;
  for (int32_t jj = 0; jj < J; ++jj) {
    for (const auto& entry : deltas[jj]) {
      std::vector<Op> term = entry.second;
      term.push_back({OpCode::kAbs});
      absolute.push_back(term);
    }
    if (pair.mean_over.empty()) continue;
    ProfileStat stat;
    std::vector<std::vector<Op>> programs;
    for (const std::string& c : pair.mean_over) {
      const auto it = deltas[jj].find(c);
      if (it == deltas[jj].end()) continue;
      stat.over.push_back(c);
      programs.push_back(it->second);
    }
    if (stat.over.size() < pair.mean_over.size()) {
      out.notes.push_back("stress " + pair.from + " → " + pair.to + ": " + out.judges[jj] +
                          "'s mean_over Mean left out: it has δ on " +
                          (stat.over.empty() ? std::string("none") : join(stat.over)) + " of " + join(pair.mean_over));
      continue;
    }
    stat.kind = Kind::kStressSelectedMean;
    stat.benchmark = from;
    stat.to = to;
    stat.judge = jj;
    stat.group = "mean_over";
    add_judge_stress_mean(stat, "stress_mean_over", pair, programs);
  }
  if (absolute.empty()) return;
  ProfileStat stat;
  stat.kind = Kind::kStressMeanAbs;
  stat.benchmark = from;
  stat.to = to;
  stat.group = "mean_abs";
  StatLabel l;
  l.name = "stress_mean_abs";
  l.benchmark = pair.from;
  l.n = static_cast<int64_t>(absolute.size());
  add_stat(stat, l, mean_of(absolute));
}

// L1 summed over the config's sum_over conditions whatever their status [CAP Table 17: on
// JudgeBench C1≈ + C2≈ + C7]; conditions the benchmark does not measure in its main table drop out.
void ProfilePlanBuilder::add_selected_l1(int32_t b, const std::map<std::string, int32_t>& family_of) {
  auto listed = config.l1_over.find(out.benchmarks[b].spec.name);
  if (listed == config.l1_over.end()) listed = config.l1_over.find("");
  if (listed == config.l1_over.end()) return;
  std::vector<std::string> over;
  for (const std::string& c : listed->second) {
    const CellSpec& cell = cell_spec(b, c);
    if (cell.status != Coverage::kUnavailable && cell.main_table) over.push_back(c);
  }
  if (over.empty()) return;
  std::map<std::string, std::vector<std::vector<Op>>> pair_programs;
  for (int32_t x = 0; x < J; ++x)
    for (int32_t y = x + 1; y < J; ++y) {
      const auto fx = family_of.find(out.judges[x]), fy = family_of.find(out.judges[y]);
      if (fx == family_of.end() || fy == family_of.end()) continue;
      std::vector<std::vector<Op>> terms;
      for (const std::string& c : over) {
        if (out.find(Kind::kCell, b, x, c) < 0 || out.find(Kind::kCell, b, y, c) < 0) break;
        terms.push_back(difference_program(program_of[{b, x, c}], program_of[{b, y, c}]));
        terms.back().push_back({OpCode::kAbs});
      }
      if (terms.size() < over.size()) continue;
      const std::string name = fx->second == fy->second ? out.families[fx->second].name : "cross-family";
      pair_programs[name].push_back(sum_of_programs(terms));
    }
  for (const auto& group : pair_programs) {
    ProfileStat stat;
    stat.kind = Kind::kL1Selected;
    stat.benchmark = b;
    stat.group = group.first;
    stat.over = over;
    stat.pairs = static_cast<int64_t>(group.second.size());
    StatLabel l;
    l.name = "l1_sum_over";
    l.benchmark = out.benchmarks[b].spec.name;
    l.n = stat.pairs;
    add_stat(stat, l, mean_of(group.second));
  }
}

// The benchmark's main-table cells and overall, in report order.
std::vector<std::string> ProfilePlanBuilder::measured_cells(int32_t b) const {
  std::vector<std::string> cells;
  for (const CellSpec& cell : out.benchmarks[b].spec.cells)
    if (cell.status != Coverage::kUnavailable && cell.main_table) cells.push_back(cell.name);
  return cells;
}

std::vector<int32_t> ProfilePlanBuilder::judges_with_cell(int32_t b, const std::string& c) const {
  std::vector<int32_t> judges;
  for (int32_t jj = 0; jj < J; ++jj)
    if (out.find(Kind::kCell, b, jj, c) >= 0) judges.push_back(jj);
  return judges;
}

// max(a, b) = (a + b + |a − b|) / 2 and min(a, b) = (a + b − |a − b|) / 2: the plan's programs
// have no max, and these keep CPU and CUDA replicates bit-identical. A balanced tree keeps the
// program at O(n²) terms and the stack at O(log n).
std::vector<Op> extreme_of(const std::vector<std::vector<Op>>& terms, size_t lo, size_t hi, bool maximum) {
  if (hi - lo == 1) return terms[lo];
  const size_t mid = lo + (hi - lo) / 2;
  const std::vector<Op> a = extreme_of(terms, lo, mid, maximum), z = extreme_of(terms, mid, hi, maximum);
  std::vector<Op> out = concat(a, z, OpCode::kAdd);
  std::vector<Op> gap = difference_program(a, z);
  gap.push_back({OpCode::kAbs});
  out = concat(out, gap, maximum ? OpCode::kAdd : OpCode::kSub);
  out.push_back({OpCode::kConstant, 0, 0.5});
  out.push_back({OpCode::kMul});
  return out;
}

// Cross-judge spread max − min on every main-table cell [CAP §4.1: 79.9 on C1].
void ProfilePlanBuilder::add_spread(int32_t b) {
  constexpr size_t kMaxSpreadJudges = 16;  // the program grows with the square of the judges
  for (const std::string& c : measured_cells(b)) {
    const std::vector<int32_t> judges = judges_with_cell(b, c);
    if (judges.size() < 2) continue;
    if (judges.size() > kMaxSpreadJudges) {
      out.notes.push_back("benchmark '" + out.benchmarks[b].spec.name + "' " + c + ": spread left out (more than " +
                          std::to_string(kMaxSpreadJudges) + " judges)");
      continue;
    }
    std::vector<std::vector<Op>> terms;
    int64_t n = 0;
    for (int32_t jj : judges) {
      terms.push_back(program_of[{b, jj, c}]);
      n = std::max(n, out.plan.statistics[out.find(Kind::kCell, b, jj, c)].label.n);
    }
    ProfileStat stat;
    stat.kind = Kind::kSpread;
    stat.benchmark = b;
    stat.condition = c;
    stat.status = cell_spec(b, c).status;
    for (int32_t jj : judges) stat.over.push_back(out.judges[jj]);
    StatLabel l;
    l.name = "spread";
    l.of = c;
    l.benchmark = out.benchmarks[b].spec.name;
    l.n = n;
    const size_t k = terms.size();
    add_stat(stat, l, difference_program(extreme_of(terms, 0, k, true), extreme_of(terms, 0, k, false)));
  }
}

// Per cell, judge − reference and the mean |judge − reference| over the compared judges [CAP §5,
// Table 16].
void ProfilePlanBuilder::add_differences(int32_t b) {
  const int32_t ref =
      static_cast<int32_t>(std::find(out.judges.begin(), out.judges.end(), out.reference) - out.judges.begin());
  const std::vector<std::string>& asked = config.differences.judges;
  for (const std::string& c : measured_cells(b)) {
    const int32_t ref_stat = out.find(Kind::kCell, b, ref, c);
    if (ref_stat < 0) continue;
    std::vector<std::vector<Op>> absolute;
    ProfileStat stat;
    stat.benchmark = b;
    stat.condition = c;
    stat.status = cell_spec(b, c).status;
    StatLabel l;
    l.of = c;
    l.reference = out.reference;
    l.benchmark = out.benchmarks[b].spec.name;
    for (int32_t jj : judges_with_cell(b, c)) {
      if (jj == ref || !(asked.empty() || std::find(asked.begin(), asked.end(), out.judges[jj]) != asked.end()))
        continue;
      std::vector<Op> diff = difference_program(program_of[{b, jj, c}], program_of[{b, ref, c}]);
      stat.kind = Kind::kDifference;
      stat.judge = jj;
      l.name = "diff";
      l.judge = out.judges[jj];
      l.n =
          std::min(out.plan.statistics[out.find(Kind::kCell, b, jj, c)].label.n, out.plan.statistics[ref_stat].label.n);
      add_stat(stat, l, diff);
      diff.push_back({OpCode::kAbs});
      absolute.push_back(diff);
      stat.over.push_back(out.judges[jj]);
    }
    if (absolute.empty()) continue;
    stat.kind = Kind::kMeanAbsDifference;
    stat.judge = -1;
    l.name = "mean_abs_diff";
    l.judge = "";
    l.n = static_cast<int64_t>(absolute.size());
    add_stat(stat, l, mean_of(absolute));
  }
}

void ProfilePlanBuilder::resolve_judge_sets() {
  for (const JudgeSetSpec& set : config.judge_sets) {
    JudgeSetSpec resolved{set.name, {}};
    for (const std::string& judge : out.judges)
      if (family_member(FamilySpec{set.name, set.members}, judge)) resolved.members.push_back(judge);
    if (resolved.members.empty()) {
      out.notes.push_back("judge set '" + set.name + "': no analysed judge matches " + join(set.members));
      continue;
    }
    out.judge_sets.push_back(resolved);
  }
}

// Mean over each judge set per main-table cell [CAP Table 19: the non-GPT peer mean]; a cell
// some member lacks is left out with a note.
void ProfilePlanBuilder::add_judge_sets(int32_t b) {
  for (const JudgeSetSpec& set : out.judge_sets)
    for (const std::string& c : measured_cells(b)) {
      std::vector<std::vector<Op>> terms;
      int64_t n = 0;
      for (const std::string& judge : set.members) {
        const int32_t jj =
            static_cast<int32_t>(std::find(out.judges.begin(), out.judges.end(), judge) - out.judges.begin());
        const int32_t s = out.find(Kind::kCell, b, jj, c);
        if (s < 0) break;
        terms.push_back(program_of[{b, jj, c}]);
        n = std::max(n, out.plan.statistics[s].label.n);
      }
      if (terms.size() < set.members.size()) {
        out.notes.push_back("judge set '" + set.name + "' on " + out.benchmarks[b].spec.name + " " + c +
                            ": left out, not every member has the cell");
        continue;
      }
      ProfileStat stat;
      stat.kind = Kind::kJudgeSetMean;
      stat.benchmark = b;
      stat.condition = c;
      stat.status = cell_spec(b, c).status;
      stat.group = set.name;
      stat.over = set.members;
      StatLabel l;
      l.name = "set_mean";
      l.of = c;
      l.judge = set.name;
      l.benchmark = out.benchmarks[b].spec.name;
      l.n = n;
      add_stat(stat, l, mean_of(terms));
    }
}

int32_t ProfilePlanBuilder::benchmark_index(const std::string& name) const {
  for (size_t b = 0; b < out.benchmarks.size(); ++b)
    if (out.benchmarks[b].spec.name == name) return static_cast<int32_t>(b);
  return -1;
}

const CellSpec& ProfilePlanBuilder::cell_spec(int32_t b, const std::string& name) const {
  const auto& cells = out.benchmarks[b].spec.cells;
  return *std::find_if(cells.begin(), cells.end(), [&](const CellSpec& c) { return c.name == name; });
}

}  // namespace

ProfilePlan build_profile_plan(const ItemMatrix& m, const ProfileConfig& config, const ProfileOptions& options) {
  return ProfilePlanBuilder(m, config, options).build();
}

}  // namespace judgestat
