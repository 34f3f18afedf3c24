// `--by difficulty` as JEV Table 11 counts it (docs/statistics.md §7.1): the judges wrong in order
// 0 among the *other* judges (`--difficulty-from others`, the compared pair excluded), in the
// paper's bins (`--difficulty-bins`).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Compared judges P and Q; four others O0..O3. Per item: how many others are wrong, and whether
// P and Q are wrong. Gold is A; a wrong verdict is B.
struct Spec {
  int others_wrong;
  bool p_wrong, q_wrong;
};
const std::vector<Spec> kItems{{0, true, true},   {1, false, true}, {2, false, false},
                               {3, false, false}, {4, true, false}, {1, false, false}};

std::string records() {
  std::string csv = "judge,item,gold,verdict\n";
  for (size_t i = 0; i < kItems.size(); ++i) {
    const std::string item = ",i" + std::to_string(i) + ",A,";
    csv += "P" + item + (kItems[i].p_wrong ? "B" : "A") + "\n";
    csv += "Q" + item + (kItems[i].q_wrong ? "B" : "A") + "\n";
    for (int o = 0; o < 4; ++o) csv += "O" + std::to_string(o) + item + (o < kItems[i].others_wrong ? "B" : "A") + "\n";
  }
  return csv;
}

// Each item's group name under the selection.
std::vector<std::string> groups_of(const ItemMatrix& m, const Selection& sel) {
  std::vector<std::string> out;
  for (int32_t i = 0; i < m.n_items(); ++i) out.push_back(sel.stratum_names[sel.item_stratum[i]]);
  return out;
}

SelectionOptions pair_by_difficulty(bool others, const std::string& bins) {
  SelectionOptions options;
  options.judges = {"P", "Q"};
  options.strata = "difficulty";
  options.difficulty_others = others;
  options.difficulty_bins = bins;
  return options;
}

}  // namespace

TEST(SelectionDifficulty, OthersCountsTheJudgesNotCompared) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty_others.csv", records()));
  std::vector<std::string> others, selected;
  for (const Spec& s : kItems) {
    others.push_back(std::to_string(s.others_wrong));
    selected.push_back(std::to_string(s.p_wrong + s.q_wrong));
  }
  EXPECT_EQ(groups_of(m, select_records(m, pair_by_difficulty(true, ""))), others);
  // The default counts the compared pair itself (difficulty 0: both right by construction).
  EXPECT_EQ(groups_of(m, select_records(m, pair_by_difficulty(false, ""))), selected);
}

TEST(SelectionDifficulty, BinsGroupTheCountsInTheOrderGiven) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty_others.csv", records()));
  const Selection sel = select_records(m, pair_by_difficulty(true, "0,1-2,3-4"));
  EXPECT_EQ(sel.stratum_names, (std::vector<std::string>{"0", "1-2", "3-4"}));
  std::vector<std::string> want;
  for (const Spec& s : kItems) want.push_back(s.others_wrong == 0 ? "0" : s.others_wrong <= 2 ? "1-2" : "3-4");
  EXPECT_EQ(groups_of(m, sel), want);
}

TEST(SelectionDifficulty, PerBinAccuracyOfTheComparedJudge) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty_others.csv", records()));
  MetricsOptions options;
  options.judges = {"P", "Q"};
  options.by = "difficulty";
  options.difficulty_others = true;
  options.difficulty_bins = "0,1-2,3-4";
  options.bootstrap.replicates = 50;
  const MetricsReport report = run_metrics(m, options, cpu_target(1));
  // P by hand: bin 0 = {i0} wrong; 1-2 = {i1, i2, i5} right; 3-4 = {i3 right, i4 wrong}.
  const std::map<std::string, std::pair<double, int64_t>> want{
      {"difficulty=0", {0.0, 1}}, {"difficulty=1-2", {1.0, 3}}, {"difficulty=3-4", {0.5, 2}}};
  int found = 0;
  for (size_t s = 0; s < report.statistics.labels.size(); ++s) {
    const StatLabel& l = report.statistics.labels[s];
    if (l.name != "acc" || l.judge != "P" || !l.condition) continue;
    EXPECT_EQ(report.statistics.intervals[s].estimate, want.at(*l.condition).first) << *l.condition;
    EXPECT_EQ(l.n, want.at(*l.condition).second) << *l.condition;
    ++found;
  }
  EXPECT_EQ(found, 3);
  const Json settings = to_json(report, ReportHead{})["settings"];
  EXPECT_EQ(settings["difficulty_from"], "others");
  EXPECT_EQ(settings["difficulty_bins"], "0,1-2,3-4");
}

TEST(SelectionDifficulty, BadBinsAndNoOthersAreErrors) {
  const ItemMatrix m = load_item_matrix(write_temp("difficulty_others.csv", records()));
  const std::string gap = thrown_message<UsageError>([&] { select_records(m, pair_by_difficulty(true, "0,1-2")); });
  EXPECT_TRUE(contains(gap, "item 'i3' has 3 judges wrong, which no bin holds")) << gap;
  const std::string overlap =
      thrown_message<std::invalid_argument>([&] { select_records(m, pair_by_difficulty(true, "0-2,2-4")); });
  EXPECT_TRUE(contains(overlap, "difficulty_bins: bins '0-2' and '2-4' overlap")) << overlap;
  const std::string text =
      thrown_message<std::invalid_argument>([&] { select_records(m, pair_by_difficulty(true, "0,1-x")); });
  EXPECT_TRUE(contains(text, "got '1-x'")) << text;
  SelectionOptions everyone = pair_by_difficulty(true, "");
  everyone.judges.clear();
  const std::string none = thrown_message<std::invalid_argument>([&] { select_records(m, everyone); });
  EXPECT_TRUE(contains(none, "difficulty_from: 'others'")) << none;
  SelectionOptions ungrouped = pair_by_difficulty(false, "0,1");
  ungrouped.strata = "benchmark";
  EXPECT_TRUE(contains(thrown_message<std::invalid_argument>([&] { select_records(m, ungrouped); }),
                       "difficulty_bins: says how --by difficulty"));
}
