// What a result's intervals cannot promise (docs/statistics.md §2, §7.3) as data: the statistical
// judgement lives here, next to the intervals; host/report turns it into the notes people read.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

bool few_distinct_values(const Interval& interval, CiMethod method) {
  return method != CiMethod::kT && interval.distinct > 0 && interval.distinct < kFewDistinct;
}

std::optional<double> measured_coverage(CiMethod method, int64_t clusters, double level) {
  // bench/RESULTS.md, "Coverage of the CI methods by number of clusters": mean coverage (%) of
  // nominal 95% intervals over acc J1, acc J2 and diff J2 − J1, 300 simulated data sets each.
  struct Cell {
    CiMethod method;
    int64_t clusters;
    double percent;
  };
  static const Cell cells[] = {{CiMethod::kPercentile, 10, 89.3},  {CiMethod::kPercentile, 20, 91.8},
                               {CiMethod::kBasic, 10, 87.6},       {CiMethod::kBasic, 20, 91.4},
                               {CiMethod::kBca, 10, 90.1},         {CiMethod::kBca, 20, 93.0},
                               {CiMethod::kT, 10, 94.7},           {CiMethod::kT, 20, 93.4},
                               {CiMethod::kStudentized, 10, 94.1}, {CiMethod::kStudentized, 20, 94.2}};
  if (level != 0.95) return std::nullopt;
  for (const Cell& cell : cells)
    if (cell.method == method && cell.clusters == clusters) return cell.percent;
  return std::nullopt;
}

namespace {

// The statistic names (once each, in order) of the rows that satisfy `pick`.
template <typename Pick>
std::vector<std::string> names_where(const BootstrapResult& result, const Pick& pick) {
  std::vector<std::string> names;
  for (size_t s = 0; s < result.labels.size(); ++s)
    if (pick(result.labels[s], result.intervals[s]) &&
        std::find(names.begin(), names.end(), result.labels[s].name) == names.end())
      names.push_back(result.labels[s].name);
  return names;
}

IntervalWarning warning(IntervalWarningKind kind, const BootstrapResult& result) {
  IntervalWarning w;
  w.kind = kind;
  w.method = result.ci;
  return w;
}

// Few clusters: the studentized and t intervals are built for them (docs/statistics.md §2), the
// quantile methods are not, so they are told to switch; the coverage figure only where measured.
void add_few_clusters(const BootstrapResult& result, std::vector<IntervalWarning>& out) {
  int64_t fewest = 0;
  for (const Interval& interval : result.intervals)
    if (interval.clusters > 0 && (fewest == 0 || interval.clusters < fewest)) fewest = interval.clusters;
  if (fewest == 0 || fewest >= kFewClusters) return;
  const bool very_few = fewest < kStronglyFewClusters;
  IntervalWarning w =
      warning(very_few ? IntervalWarningKind::kVeryFewClusters : IntervalWarningKind::kFewClusters, result);
  w.threshold = static_cast<double>(very_few ? kStronglyFewClusters : kFewClusters);
  w.observed = static_cast<double>(fewest);
  if (result.ci != CiMethod::kStudentized && result.ci != CiMethod::kT)
    w.suggested_methods = {CiMethod::kStudentized, CiMethod::kT};
  w.measured_coverage = measured_coverage(result.ci, fewest, result.level);
  out.push_back(std::move(w));
}

// Ratios whose cluster sizes vary widely: quantile intervals can miss on one side.
void add_unequal_sizes(const BootstrapResult& result, std::vector<IntervalWarning>& out) {
  double widest_cv = 0;
  for (const Interval& interval : result.intervals)
    if (std::isfinite(interval.size_cv)) widest_cv = std::max(widest_cv, interval.size_cv);
  if (widest_cv < kUnequalSizesCv) return;
  IntervalWarning w = warning(IntervalWarningKind::kUnequalClusterSizes, result);
  w.threshold = kUnequalSizesCv;
  w.observed = widest_cv;
  w.suggested_methods = {CiMethod::kStudentized};
  w.statistics = names_where(result, [](const StatLabel&, const Interval& i) {
    return std::isfinite(i.size_cv) && i.size_cv >= kUnequalSizesCv;
  });
  out.push_back(std::move(w));
}

// Which diff rows' p is withheld, one warning per reason (docs/statistics.md §7.3), naming the
// statistic each differences.
void add_withheld_p(const BootstrapResult& result, std::vector<IntervalWarning>& out) {
  const size_t first = out.size();
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    if (label.name != "diff") continue;
    const std::string reason = p_withheld_reason(result.intervals[s], result.replicates_run);
    if (reason.empty()) continue;
    auto it = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                           [&](const IntervalWarning& w) { return w.reason == reason; });
    if (it == out.end()) {
      out.push_back(warning(IntervalWarningKind::kPWithheld, result));
      out.back().reason = reason;
      it = out.end() - 1;
    }
    const std::string name = label.of ? *label.of : label.name;
    if (std::find(it->statistics.begin(), it->statistics.end(), name) == it->statistics.end())
      it->statistics.push_back(name);
  }
}

// Rows whose replicates are more than kMaxUndefinedShareForP undefined: the defined ones are a
// selected subset (the replicates that happened to draw a denominator, an SE*), so the interval
// describes those draws, not every one. From the counts (which a report read back from its JSON
// has too), as p_withheld_reason does.
void add_many_undefined(const BootstrapResult& result, std::vector<IntervalWarning>& out) {
  if (result.replicates_run == 0) return;
  const auto share = [&](const Interval& i) {
    return static_cast<double>(i.undefined) / static_cast<double>(result.replicates_run);
  };
  IntervalWarning w = warning(IntervalWarningKind::kManyUndefined, result);
  w.threshold = kMaxUndefinedShareForP;
  w.observed = 0;
  w.statistics = names_where(result, [&](const StatLabel&, const Interval& i) {
    if (!(share(i) > kMaxUndefinedShareForP)) return false;
    w.observed = std::max(w.observed, share(i));
    return true;
  });
  if (!w.statistics.empty()) out.push_back(std::move(w));
}

}  // namespace

std::vector<IntervalWarning> interval_warnings(const BootstrapResult& result) {
  std::vector<IntervalWarning> out;
  add_few_clusters(result, out);
  add_unequal_sizes(result, out);
  IntervalWarning coarse = warning(IntervalWarningKind::kCoarseIntervals, result);
  coarse.threshold = static_cast<double>(kFewDistinct);
  coarse.statistics = names_where(result, [&](const StatLabel&, const Interval& i) {
    return few_distinct_values(i, result.ci) || (std::isfinite(i.lo) && i.lo == i.hi);
  });
  if (!coarse.statistics.empty()) out.push_back(std::move(coarse));
  IntervalWarning ece = warning(IntervalWarningKind::kNoCoverageGuarantee, result);
  ece.statistics = names_where(result, [](const StatLabel& l, const Interval&) { return l.name == "ece"; });
  if (!ece.statistics.empty()) out.push_back(std::move(ece));
  IntervalWarning not_applicable = warning(IntervalWarningKind::kMethodNotApplicable, result);
  not_applicable.suggested_methods = {CiMethod::kT};
  not_applicable.statistics = names_where(result, [](const StatLabel&, const Interval& i) { return !i.note.empty(); });
  if (!not_applicable.statistics.empty()) out.push_back(std::move(not_applicable));
  add_withheld_p(result, out);
  add_many_undefined(result, out);
  IntervalWarning clipped = warning(IntervalWarningKind::kClippedToRange, result);
  clipped.statistics = names_where(result, [](const StatLabel&, const Interval& i) { return i.clipped; });
  if (!clipped.statistics.empty()) out.push_back(std::move(clipped));
  return out;
}

}  // namespace judgestat
