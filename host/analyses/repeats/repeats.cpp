// run_repeats (judgestat/repeats.hpp): select, build the plan, resample on the target.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "analyses/repeats/repeats_plan.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/repeats.hpp"

namespace judgestat {
namespace {

SelectionOptions repeats_selection(const RepeatsOptions& options) {
  if (!options.by.empty() && options.by != "benchmark" && options.by != "condition" && options.by != "variant" &&
      options.by != "repeat")
    throw std::invalid_argument("by: expected benchmark, condition, variant or repeat, got '" + options.by + "'");
  SelectionOptions selection;
  selection.judges = options.judges;
  selection.benchmarks = options.benchmarks;
  selection.conditions = options.conditions;
  selection.variants = options.variants;
  // --by variant and --by repeat slice requests, not items: the selection keeps one group (§8.5).
  if (options.by != "variant" && options.by != "repeat") selection.strata = options.by;
  return selection;
}

bool named_in(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

// The selection is made of repeat 0's records, so an item with records of repeats >= 1 only (for the
// selected judges and variants) does not enter: a note counts those records and items (§8.5).
std::string repeat_only_items_note(const ItemMatrix& m, const Selection& sel, const RepeatsOptions& options) {
  int64_t records = 0, items = 0;
  for (int32_t i = 0; i < m.n_items(); ++i) {
    if (sel.item_cluster[i] >= 0 || !named_in(options.benchmarks, m.benchmarks[m.item_benchmark[i]]) ||
        !named_in(options.conditions, m.conditions[m.item_condition[i]]))
      continue;
    int64_t found = 0;
    for (int32_t j : sel.judges)
      for (int32_t o = 0; o < m.orders; ++o)
        for (int32_t v : sel.variants)
          for (int32_t r = 1; r < m.repeats; ++r) found += m.verdict_at(m.cell(j, i, o, v), r) != kAbsent;
    records += found;
    items += found > 0;
  }
  if (records == 0) return {};
  return std::to_string(records) + " record(s) of repeats >= 1 on " + std::to_string(items) +
         " item(s) with no repeat-0 record are left out: the items compared are repeat 0's";
}

}  // namespace

RepeatsReport run_repeats(const ItemMatrix& matrix, const RepeatsOptions& options, const ExecTarget& target) {
  const auto start = std::chrono::steady_clock::now();
  validate_bootstrap_options(options.bootstrap);
  const Selection selection = select_records(matrix, repeats_selection(options));
  RepeatsPlan built = build_repeats_plan(matrix, selection, options);
  RepeatsReport report;
  report.plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (built.plan.statistics.empty()) {
    std::string why;
    for (const std::string& note : built.notes) why += (why.empty() ? "" : "; ") + note;
    throw UsageError("repeats: nothing to compare: " + why);
  }
  auto backend = make_backend(target);
  report.statistics = run_bootstrap(built.plan, *backend, options.bootstrap);
  report.validity = judge_validity(matrix, selection.judges);
  for (JudgeValidity& v : report.validity) v.repeat_records = 0;  // this analysis reads them: no note
  report.notes = std::move(built.notes);
  if (std::string note = repeat_only_items_note(matrix, selection, options); !note.empty())
    report.notes.push_back(std::move(note));
  report.by = options.by;
  report.strata_mode = options.by == "variant" ? "none" : strata_setting(selection);
  if (!selection.strata_note.empty()) report.notes.insert(report.notes.begin(), selection.strata_note);
  report.invalid_match = options.invalid_match;
  report.repeats = matrix.repeats;
  report.repeat_records = matrix.repeat_records;
  return report;
}

}  // namespace judgestat
