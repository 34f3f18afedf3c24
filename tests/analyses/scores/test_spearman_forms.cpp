// Spearman's ρ of a score judge in its two forms (docs/statistics.md §8.2): from rank terms (up to
// 2^22 rank entries) and, past them, from per-cell counts (few (gold, judge) pairs of values, any
// number of items). Both are Pearson's r of the replicate's average ranks: on the same plan units
// they agree with each other and with the ranks computed here, on the data and on every replicate;
// and a few-level scale keeps ρ however many items it has (the review's item 3: 430,000 items on
// 1:10 lost ρ).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/scores/score_judge.hpp"
#include "judgestat/backend.hpp"

using namespace judgestat;

namespace {

// Units in clusters of three; every seventh unit does not enter (no gold or no valid score).
Plan clustered_plan(int32_t n_units) {
  Plan plan;
  for (int32_t u = 0; u < n_units; ++u) plan.unit_cluster.push_back(u / 3);
  plan.stratum_offset = {0, (n_units + 2) / 3};
  for (int32_t c = 0; c < (n_units + 2) / 3; ++c) plan.cluster_names.push_back("c" + std::to_string(c));
  return plan;
}

// Gold on 10 levels, the judge near it (ties on both sides, 30-odd cells used).
ScoredUnits ten_level_units(int32_t n_units) {
  ScoredUnits units{std::vector<int32_t>(n_units, -1), std::vector<int32_t>(n_units, -1)};
  for (int32_t u = 0; u < n_units; ++u) {
    if (u % 7 == 6) continue;
    units.gold[u] = (u * 37 / 5) % 10;
    units.judge[u] = std::min(9, std::max(0, units.gold[u] + (u * 13) % 5 - 2));
  }
  return units;
}

const std::vector<double> kOneToTen = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

StatLabel judge_label() {
  StatLabel label;
  label.judge = "J";
  return label;
}

int32_t spearman_index(const Plan& plan) {
  for (size_t s = 0; s < plan.statistics.size(); ++s)
    if (plan.statistics[s].label.name == "spearman") return static_cast<int32_t>(s);
  return -1;
}

// Average ranks from per-level counts (1 + units below + (ties − 1) / 2), then Pearson's r in two
// passes: scipy.stats.spearmanr's definition, written out.
double spearman_of_levels(const ScoredUnits& units) {
  std::vector<double> gold_count(10, 0.0), judge_count(10, 0.0);
  std::vector<int32_t> entering;
  for (size_t u = 0; u < units.gold.size(); ++u)
    if (units.gold[u] >= 0)
      ++gold_count[units.gold[u]], ++judge_count[units.judge[u]], entering.push_back(static_cast<int32_t>(u));
  auto average_rank = [](const std::vector<double>& count, int32_t level) {
    double below = 0;
    for (int32_t l = 0; l < level; ++l) below += count[l];
    return 1 + below + (count[level] - 1) / 2;
  };
  const double n = static_cast<double>(entering.size());
  double mean_x = 0, mean_y = 0;
  for (int32_t u : entering)
    mean_x += average_rank(gold_count, units.gold[u]) / n, mean_y += average_rank(judge_count, units.judge[u]) / n;
  double xy = 0, xx = 0, yy = 0;
  for (int32_t u : entering) {
    const double x = average_rank(gold_count, units.gold[u]) - mean_x,
                 y = average_rank(judge_count, units.judge[u]) - mean_y;
    xy += x * y, xx += x * x, yy += y * y;
  }
  return xy / std::sqrt(xx * yy);
}

}  // namespace

TEST(SpearmanForms, TheChoiceTakesRankTermsFirstThenCellsThenLeavesOut) {
  EXPECT_EQ(chosen_spearman_form(kMaxSpearmanCells * 10, kMaxSpearmanEntries), SpearmanForm::kRankTerms);
  EXPECT_EQ(chosen_spearman_form(kMaxSpearmanCells, kMaxSpearmanEntries + 1), SpearmanForm::kCells);
  EXPECT_EQ(chosen_spearman_form(kMaxSpearmanCells + 1, kMaxSpearmanEntries + 1), SpearmanForm::kChosen);
}

TEST(SpearmanForms, CellsAndRankTermsGiveTheSameEstimateAndReplicates) {
  const int32_t U = 300;
  const ScoredUnits units = ten_level_units(U);
  Plan cells = clustered_plan(U), ranks = clustered_plan(U);
  EXPECT_TRUE(add_score_statistics(kOneToTen, units, judge_label(), "s", cells, SpearmanForm::kCells).empty());
  EXPECT_TRUE(add_score_statistics(kOneToTen, units, judge_label(), "s", ranks, SpearmanForm::kRankTerms).empty());
  // The cell form adds no rank term of its own: only τ_b's (⌈log₂ 10⌉ levels of splits, 9 terms).
  EXPECT_EQ(cells.rank_terms.size(), 9u);
  EXPECT_EQ(ranks.rank_terms.size(), 9u + 10u);  // and one per gold level for ρ (both sides have 10)
  const int32_t s_cells = spearman_index(cells), s_ranks = spearman_index(ranks);
  ASSERT_GE(s_cells, 0);
  ASSERT_GE(s_ranks, 0);
  const double want = spearman_of_levels(units);
  EXPECT_GT(want, 0.5);
  EXPECT_NEAR(point_estimates(cells)[s_cells], want, 1e-12);
  EXPECT_NEAR(point_estimates(ranks)[s_ranks], want, 1e-12);
  const CompiledPlan compiled_cells = compile(cells), compiled_ranks = compile(ranks);
  const int B = 40;
  std::vector<double> by_cells(size_t(B) * compiled_cells.n_statistics),
      by_ranks(size_t(B) * compiled_ranks.n_statistics);
  make_cpu_backend(2)->run_replicates(compiled_cells, 99, 0, B, by_cells.data());
  make_cpu_backend(3)->run_replicates(compiled_ranks, 99, 0, B, by_ranks.data());
  std::vector<double> by_cells_one_thread(by_cells.size());
  make_cpu_backend(1)->run_replicates(compiled_cells, 99, 0, B, by_cells_one_thread.data());
  EXPECT_EQ(0, std::memcmp(by_cells.data(), by_cells_one_thread.data(), by_cells.size() * sizeof(double)));
  for (int r = 0; r < B; ++r) {
    const double a = by_cells[size_t(r) * compiled_cells.n_statistics + s_cells],
                 b = by_ranks[size_t(r) * compiled_ranks.n_statistics + s_ranks];
    ASSERT_TRUE(std::isfinite(a)) << "replicate " << r;
    EXPECT_NEAR(a, b, 1e-12) << "replicate " << r;
    EXPECT_NE(a, want) << "replicate " << r;  // each replicate re-ranks its own sample
  }
}

// 2^22 / 10 + 1 entering items on 1:10: n × 10 levels pass the rank terms' 2^22 entries, but the
// ≤ 100 cells are counted directly, so ρ stays (with no note) and is the formula on the data.
TEST(SpearmanForms, AFewLevelScaleKeepsSpearmanPastTheRankEntries) {
  const int32_t entering = static_cast<int32_t>(kMaxSpearmanEntries / 10 + 1);
  ScoredUnits units{std::vector<int32_t>(entering), std::vector<int32_t>(entering)};
  for (int32_t u = 0; u < entering; ++u) {
    units.gold[u] = u % 10;
    units.judge[u] = (u % 10 + (u % 4 == 0)) % 10;
  }
  Plan plan;
  plan.unit_cluster.assign(entering, 0);
  plan.stratum_offset = {0, 1};
  plan.cluster_names = {"all"};
  const std::vector<std::string> notes = add_score_statistics(kOneToTen, units, judge_label(), "s", plan);
  for (const std::string& note : notes) ADD_FAILURE() << note;
  const int32_t s = spearman_index(plan);
  ASSERT_GE(s, 0);
  EXPECT_EQ(plan.statistics[s].label.n, entering);
  EXPECT_GT(int64_t(entering) * 10, kMaxSpearmanEntries);
  EXPECT_NEAR(point_estimates(plan)[s], spearman_of_levels(units), 1e-12);
}
