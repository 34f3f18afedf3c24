#include "analyses/scores/score_calibration.hpp"

#include <algorithm>
#include <cmath>

#include "analyses/scores/score_programs.hpp"

namespace judgestat {

int calibration_bin(double score, double lo, double hi) {
  if (!(hi > lo)) return 0;
  const int bin = static_cast<int>(std::floor((score - lo) / (hi - lo) * kCalibrationBins));
  return std::clamp(bin, 0, kCalibrationBins - 1);
}

namespace {

// Per unit its group (a gold level, or a bin of levels) or −1, the groups' labels, and whether
// they are bins.
struct CalibrationGroups {
  std::vector<int32_t> of_unit;
  std::vector<std::string> labels;
  bool binned = false;
};

CalibrationGroups calibration_groups(const std::vector<double>& score, const std::vector<std::string>& names,
                                     const ScoredUnits& units) {
  const size_t U = units.gold.size();
  std::vector<uint8_t> used(score.size(), 0);
  for (size_t u = 0; u < U; ++u)
    if (units.gold[u] >= 0 && units.judge[u] >= 0) used[units.gold[u]] = 1;
  std::vector<int32_t> levels;  // ascending score: label indices are sorted by score
  for (size_t a = 0; a < used.size(); ++a)
    if (used[a]) levels.push_back(static_cast<int32_t>(a));
  CalibrationGroups out;
  std::vector<int32_t> group_of_level(score.size(), -1);
  out.binned = static_cast<int>(levels.size()) > kMaxCalibrationLevels;
  if (!out.binned) {
    for (int32_t a : levels) {
      group_of_level[a] = static_cast<int32_t>(out.labels.size());
      out.labels.push_back(names[a]);
    }
  } else {
    const double lo = score[levels.front()], hi = score[levels.back()];
    int last_bin = -1;
    int32_t first_level = -1, last_level = -1;
    auto close_bin = [&] {
      if (first_level < 0) return;
      out.labels.push_back(names[first_level] + (first_level == last_level ? "" : " to " + names[last_level]));
    };
    for (int32_t a : levels) {
      const int bin = calibration_bin(score[a], lo, hi);
      if (bin != last_bin) {
        close_bin();
        first_level = a;
        last_bin = bin;
      }
      last_level = a;
      group_of_level[a] = static_cast<int32_t>(out.labels.size());
    }
    close_bin();
  }
  out.of_unit.assign(U, -1);
  for (size_t u = 0; u < U; ++u)
    if (units.gold[u] >= 0 && units.judge[u] >= 0) out.of_unit[u] = group_of_level[units.gold[u]];
  return out;
}

}  // namespace

void add_calibration_means(const std::vector<double>& level_score, const std::vector<std::string>& level_names,
                           const ScoredUnits& units, const StatLabel& base, const std::string& tag, Plan& plan) {
  const CalibrationGroups groups = calibration_groups(level_score, level_names, units);
  const size_t U = units.gold.size();
  for (size_t g = 0; g < groups.labels.size(); ++g) {
    std::vector<double> count(U, 0.0), judge_sum(U, 0.0), gold_sum(U, 0.0);
    int64_t n = 0;
    for (size_t u = 0; u < U; ++u) {
      if (groups.of_unit[u] != static_cast<int32_t>(g)) continue;
      count[u] = 1;
      judge_sum[u] = level_score[units.judge[u]];
      gold_sum[u] = level_score[units.gold[u]];
      ++n;
    }
    const std::string column = tag + "/calibration/" + std::to_string(g);
    const int32_t kn = add_score_column(plan, column + "/n", count);
    StatLabel label = base;
    label.label = groups.labels[g];
    label.n = n;
    label.name = "mean_score";
    plan.statistics.push_back({label, ratio_program(add_score_column(plan, column + "/judge", judge_sum), kn)});
    if (!groups.binned) continue;
    label.name = "mean_gold";
    plan.statistics.push_back({label, ratio_program(add_score_column(plan, column + "/gold", gold_sum), kn)});
  }
}

}  // namespace judgestat
