// `--assoc x.NAME` on items without a value of NAME (docs/statistics.md §8.3): point_biserial,
// assoc_rho and assoc_acc leave them out, and a note per judge says how many of its items with gold
// that is (the review's item 5: 5 of 80 items went without a word, only n said 75).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Ten items; i2 and i7 have no x.sz, i9 has no gold (and no x.sz: it enters nothing anyway). K has
// no verdict on i7. By hand: J has 9 items with gold, 2 without a value; K has 8, 1 without.
std::string sized_file() {
  std::string csv = "judge,item,gold,verdict,x.sz\n";
  for (int i = 0; i < 10; ++i) {
    const std::string item = "i" + std::to_string(i), gold = i == 9 ? "" : "A";
    const std::string size = i == 2 || i == 7 || i == 9 ? "" : std::to_string(i * 3 % 7);
    csv += "J," + item + "," + gold + "," + (i % 3 ? "A" : "B") + "," + size + "\n";
    if (i != 7) csv += "K," + item + "," + gold + "," + (i % 4 ? "A" : "B") + "," + size + "\n";
  }
  return write_temp("assoc_missing_values.csv", csv);
}

MetricsOptions assoc_options() {
  MetricsOptions options;
  options.covariates.assoc = "x.sz";
  options.covariates.assoc_bins = "1";
  return options;
}

int64_t n_of(const Plan& plan, const std::string& name, const std::string& judge) {
  for (const StatisticDef& stat : plan.statistics)
    if (stat.label.name == name && stat.label.judge == judge) return stat.label.n;
  ADD_FAILURE() << "no " << name << " of " << judge;
  return -1;
}

}  // namespace

TEST(AssocMissingValues, EachJudgeGetsANoteCountingItsItemsWithoutAValue) {
  const ItemMatrix m = load_item_matrix(sized_file());
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  std::vector<std::string> assoc_notes;
  for (const std::string& note : built.notes)
    if (contains(note, "no value of x.sz")) assoc_notes.push_back(note);
  ASSERT_EQ(assoc_notes.size(), 2u);
  EXPECT_EQ(assoc_notes[0],
            "point_biserial, assoc_rho and assoc_acc of J leave out 2 of its 9 items with gold: they have no value "
            "of x.sz");
  EXPECT_EQ(assoc_notes[1],
            "point_biserial, assoc_rho and assoc_acc of K leave out 1 of its 8 items with gold: they have no value "
            "of x.sz");
  // The rows' n is what the notes leave: 9 − 2 and 8 − 1.
  EXPECT_EQ(n_of(built.plan, "point_biserial", "J"), 7);
  EXPECT_EQ(n_of(built.plan, "assoc_rho", "J"), 7);
  EXPECT_EQ(n_of(built.plan, "point_biserial", "K"), 7);
  EXPECT_EQ(n_of(built.plan, "assoc_acc", "K"), 7);
}

TEST(AssocMissingValues, NoNoteWhenEveryItemWithGoldHasAValue) {
  const ItemMatrix m = load_item_matrix(
      write_temp("assoc_all_values.csv", "judge,item,gold,verdict,x.sz\nJ,a,A,A,1\nJ,b,A,B,2\nJ,c,A,A,3\nJ,d,,A,\n"));
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), assoc_options());
  for (const std::string& note : built.notes) EXPECT_FALSE(contains(note, "no value of")) << note;
}
