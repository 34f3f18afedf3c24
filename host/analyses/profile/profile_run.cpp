// run_profile (docs/statistics.md §3.6): the profile plan, its bootstrap on the execution target and the
// summary on the point estimates.
#include <chrono>
#include <optional>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "analyses/profile/profile_detail.hpp"
#include "records/invalid_policy.hpp"

namespace judgestat {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

// The config's `invalid: exclude` [CAP App. L Table 20]: failed calls leave n. The excluded cells
// per judge go into the notes. Returns nullopt when nothing changes.
std::optional<ItemMatrix> apply_invalid_rule(const ItemMatrix& input, const ProfileConfig& config,
                                             std::vector<std::string>& notes) {
  if (config.invalid != "exclude") {
    if (config.invalid == "wrong")
      notes.push_back("invalid verdicts: counted as errors and kept in n (config invalid: wrong)");
    return std::nullopt;
  }
  std::optional<ItemMatrix> out = input;
  const std::vector<int64_t> excluded = exclude_invalid_records(*out);
  std::string counts;
  int64_t total = 0;
  for (size_t j = 0; j < excluded.size(); ++j) {
    total += excluded[j];
    if (excluded[j] > 0) counts += (counts.empty() ? "" : ", ") + out->judges[j] + " " + std::to_string(excluded[j]);
  }
  notes.push_back("invalid verdicts excluded from n as CAP does (config invalid: exclude; App. L Table 20): " +
                  std::to_string(total) + " record(s)" + (counts.empty() ? "" : " (" + counts + ")"));
  return out;
}

ProfileReport run_profile(const ItemMatrix& original, const ProfileOptions& options, const ExecTarget& target) {
  std::vector<std::string> invalid_notes;
  const std::optional<ItemMatrix> without_invalid = apply_invalid_rule(original, options.config, invalid_notes);
  const ItemMatrix& input = without_invalid ? *without_invalid : original;
  // docs/statistics.md §8.1: profile needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "profile", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  if (options.exact_max_n < 0 || options.exact_max_n > 10) throw std::invalid_argument("exact_max_n: expected 0 … 10");
  ProfileReport report;
  report.options = options;  // the settings; the run's bootstrap settings are result's
  const double plan_start = seconds_now();
  report.plan = build_profile_plan(matrix, options.config, options);
  report.plan.notes.insert(report.plan.notes.begin(), invalid_notes.begin(), invalid_notes.end());
  if (options.hard || options.config.hard)
    report.plan.notes.insert(report.plan.notes.begin(),
                             "Hard-Empirical subset: only items some analysed judge gets wrong in order 0 [CAP §3.2]");
  report.plan_s = seconds_now() - plan_start;
  for (const std::string& judge : report.plan.judges)
    report.validity.push_back(judge_validity(matrix, {matrix.judge_index(judge)}).front());
  set_gold_counts(report.validity, items_analysed, without_gold, "");

  auto backend = make_backend(target);
  report.result = run_bootstrap(report.plan.plan, *backend, options.bootstrap);
  std::vector<double> estimates;
  estimates.reserve(report.result.intervals.size());
  for (const Interval& ci : report.result.intervals) estimates.push_back(ci.estimate);
  report.summary = summarize_profile(report.plan, estimates, options.exact_max_n);
  return report;
}

}  // namespace judgestat
