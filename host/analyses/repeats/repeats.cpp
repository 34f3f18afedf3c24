// run_repeats (judgestat/repeats.hpp): select, build the plan, resample on the target.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "analyses/repeats/repeat_requests.hpp"
#include "analyses/repeats/repeats_plan.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/repeats.hpp"
#include "records/validity.hpp"

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

// The most common of a judge's invalid values (ties: the one seen first), as ValidityTally names it.
struct InvalidValueTally {
  explicit InvalidValueTally(size_t values) : count(values, 0) {}
  void add(int32_t value) {
    if (value >= 0 && count[value]++ == 0) order.push_back(value);
  }
  void name_most_common(const ItemMatrix& m, JudgeValidity& v) const {
    for (int32_t value : order)
      if (count[value] > v.common_invalid_count) {
        v.common_invalid_value = m.invalid_values[value];
        v.common_invalid_count = count[value];
      }
  }
  std::vector<int64_t> count;
  std::vector<int32_t> order;
};

// docs/statistics.md §8.5: this analysis reads every repeat, so its validity counts every record of
// each judge, repeat 0 and the runs again alike (the other analyses count repeat 0's, which they read).
JudgeValidity every_repeat_validity(const ItemMatrix& m, int32_t j) {
  JudgeValidity v{m.judges[j], 0, 0, ""};
  loading::InvalidReasons reasons;
  InvalidValueTally values(m.invalid_values.size());
  for (int32_t r = 0; r < m.repeats; ++r)
    for (int32_t item = 0; item < m.n_items(); ++item)
      for (int32_t variant = 0; variant < m.n_variants(); ++variant)
        for (int32_t o = 0; o < m.orders; ++o) {
          const size_t c = m.cell(j, item, o, variant);
          const int16_t code = m.verdict_at(c, r);
          if (code == kAbsent) continue;
          ++v.records;
          if (code != kInvalid) continue;
          ++v.invalid;
          reasons.add(m.probs_at(c, r), m.labels.size());
          values.add(m.invalid_value_of(static_cast<size_t>(r) * m.n_cells() + c));
        }
  v.invalid_reason = reasons.most_common();
  values.name_most_common(m, v);
  return v;  // repeat_records stays 0: this analysis reads them, so no note says they are left out
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
  for (int32_t j : selection.judges) report.validity.push_back(every_repeat_validity(matrix, j));
  report.notes = std::move(built.notes);
  report.point_statistics = std::move(built.point_statistics);
  report.with_requests = options.requests;
  if (options.requests) report.requests = request_rows(matrix, selection, built.families, options.invalid_match);
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
