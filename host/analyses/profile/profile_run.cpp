// run_profile (docs/statistics.md §3.6): the profile plan, its bootstrap on the execution target and the
// summary on the point estimates.
#include <chrono>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "analyses/profile/profile_detail.hpp"

namespace judgestat {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ProfileReport run_profile(const ItemMatrix& input, const ProfileOptions& options, const ExecTarget& target) {
  // docs/statistics.md §8.1: profile needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "profile", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  if (options.exact_max_n < 0 || options.exact_max_n > 10) throw std::invalid_argument("exact_max_n: expected 0 … 10");
  ProfileReport report;
  report.options = options;  // the settings; the run's bootstrap settings are result's
  const double plan_start = seconds_now();
  report.plan = build_profile_plan(matrix, options.config, options);
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
