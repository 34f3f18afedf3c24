// Gold is optional (issue 28 item 1; docs/statistics.md §8.1): records may leave `gold` empty or
// omit the column; such items get kNoGold, are not invalid, and the label set then takes the
// verdicts' labels too. Invalid records keep what made them invalid (§1 "Validity").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

TEST(GoldFree, ColumnOmittedInCsv) {
  const ItemMatrix m = load_item_matrix(write_temp("gold_free_omitted.csv",
                                                   "judge,item,order,verdict\n"
                                                   "J,i1,0,B\nJ,i1,1,tie\nJ,i2,0,A\nJ,i2,1,A\n"));
  EXPECT_EQ(m.labels, (std::vector<std::string>{"B", "A"}));  // verdicts by first appearance, no "tie"
  EXPECT_EQ(m.gold, (std::vector<int32_t>{kNoGold, kNoGold}));
  EXPECT_EQ(m.items_without_gold, 2);
  EXPECT_EQ(m.invalid, 0);  // no gold is not invalid; tie is valid on two labels
  EXPECT_EQ(m.verdict[m.cell(0, 0, 1, 0)], kTie);
  EXPECT_FALSE(m.has_gold(0));
  // correct() is false without gold, for present and absent cells alike.
  EXPECT_FALSE(m.correct(m.cell(0, 0, 0, 0), 0));
  EXPECT_FALSE(m.correct(m.cell(0, 1, 0, 0), 1));
}

TEST(GoldFree, LabelsFromProbabilitiesGoldThenVerdicts) {
  const ItemMatrix m = load_item_matrix(write_temp("gold_free_labels.csv",
                                                   "judge,item,gold,verdict,p.B\n"
                                                   "J,i1,A,A,\nJ,i2,,C,\nJ,i3,,D,\nK,i3,,A,\n"));
  EXPECT_EQ(m.labels, (std::vector<std::string>{"B", "A", "C", "D"}));
  EXPECT_EQ(m.gold, (std::vector<int32_t>{1, kNoGold, kNoGold}));
  EXPECT_EQ(m.items_without_gold, 2);
  EXPECT_EQ(m.invalid, 0);
}

TEST(GoldFree, FilesWithGoldKeepTheirLabelSet) {
  // Every item has gold: verdicts add no label, so 'C' stays invalid (unchanged behaviour).
  const ItemMatrix m =
      load_item_matrix(write_temp("gold_everywhere.csv", "judge,item,gold,verdict\nJ,i1,A,C\nJ,i2,B,A\n"));
  EXPECT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(m.items_without_gold, 0);
  EXPECT_EQ(m.invalid, 1);
  ASSERT_EQ(m.invalid_values, std::vector<std::string>{"verdict 'C'"});
  EXPECT_EQ(m.invalid_value_of(m.cell(0, 0, 0, 0)), 0);
  EXPECT_EQ(m.invalid_value_of(m.cell(0, 1, 0, 0)), -1);  // valid
}

TEST(GoldFree, ExplicitLabelsMakeOtherVerdictsInvalid) {
  LoadOptions options;
  options.labels = {"A", "B"};
  const ItemMatrix m = load_item_matrix(write_temp("gold_free_explicit.csv",
                                                   "judge,item,verdict,p.A,p.B\n"
                                                   "J,i1,C,,\nJ,i2,,,\nJ,i3,C,,\nJ,i4,A,0.7,0.2\nJ,i5,B,0.6,0.4\n"
                                                   "J,i6,A,,\n"),
                                        options);
  EXPECT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(m.items_without_gold, 6);
  EXPECT_EQ(m.invalid, 5);
  // Each invalid cell keeps the first rule it breaks (§1 validity order).
  auto value = [&](int32_t item) { return m.invalid_values[m.invalid_value_of(m.cell(0, item, 0, 0))]; };
  EXPECT_EQ(value(0), "verdict 'C'");
  EXPECT_EQ(value(1), "no verdict");
  EXPECT_EQ(value(2), "verdict 'C'");
  EXPECT_EQ(value(3), "probabilities not summing to 1");
  EXPECT_EQ(value(4), "verdict 'B' below the top probability");
  EXPECT_EQ(m.invalid_value_of(m.cell(0, 5, 0, 0)), -1);
  EXPECT_EQ(m.invalid_values.size(), 4u);  // distinct texts, first appearance
}

TEST(GoldFree, JsonlNullOrMissingGold) {
  const ItemMatrix m =
      load_item_matrix(write_temp("gold_free.jsonl",
                                  "{\"judge\": \"J\", \"item\": \"i1\", \"verdict\": \"A\"}\n"
                                  "{\"judge\": \"J\", \"item\": \"i2\", \"gold\": null, \"verdict\": \"B\"}\n"
                                  "{\"judge\": \"J\", \"item\": \"i3\", \"gold\": \"B\", \"verdict\": \"B\"}\n"));
  EXPECT_EQ(m.labels, (std::vector<std::string>{"B", "A"}));  // gold B first, then verdicts
  EXPECT_EQ(m.gold, (std::vector<int32_t>{kNoGold, kNoGold, 0}));
  EXPECT_EQ(m.items_without_gold, 2);
}

TEST(GoldFree, JsonlStillNeedsJudgeItemAndVerdict) {
  const std::string path = write_temp("gold_free_no_verdict.jsonl", "{\"judge\": \"J\", \"item\": \"i1\"}\n");
  const std::string message = thrown_message([&] { load_item_matrix(path); });
  EXPECT_TRUE(contains(message, path + ":1: column 'verdict': required field is missing")) << message;
}

TEST(GoldFree, NoGoldBesideGoldOnOneItemIsAnError) {
  const std::string path = write_temp("gold_free_disagree.csv", "judge,item,gold,verdict\nJ,i1,A,A\nK,i1,,B\n");
  const std::string message = thrown_message([&] { load_item_matrix(path); });
  EXPECT_EQ(message, path +
                         ":3: column 'gold': item \"i1\" has no gold here but gold \"A\" on line 2; every record of "
                         "an item must carry the same gold, so correct one of the two lines");
  const std::string reversed = write_temp("gold_free_disagree2.csv", "judge,item,gold,verdict\nJ,i1,,A\nK,i1,B,B\n");
  EXPECT_TRUE(contains(thrown_message([&] { load_item_matrix(reversed); }),
                       ":3: column 'gold': item \"i1\" has gold \"B\" here but no gold on line 2"));
}

TEST(GoldFree, ItemsWithGoldKeepsTheirCells) {
  const ItemMatrix m = load_item_matrix(write_temp("gold_free_subset.csv",
                                                   "judge,item,gold,order,verdict\n"
                                                   "J,i1,,0,A\nJ,i1,,1,B\nJ,i2,B,0,B\nJ,i2,B,1,C\nK,i2,B,0,A\n"
                                                   "J,i3,A,0,A\n"));
  const ItemMatrix g = items_with_gold(m, "cascade");
  EXPECT_EQ(g.items, (std::vector<std::string>{"i2", "i3"}));
  EXPECT_EQ(g.gold, (std::vector<int32_t>{m.gold[1], m.gold[2]}));
  EXPECT_EQ(g.items_without_gold, 0);
  EXPECT_EQ(g.records, 4);  // i2: J×2, K×1; i3: J×1
  for (int32_t j = 0; j < 2; ++j)
    for (int32_t i = 0; i < 2; ++i)
      for (int o = 0; o < 2; ++o) EXPECT_EQ(g.verdict[g.cell(j, i, o, 0)], m.verdict[m.cell(j, i + 1, o, 0)]);
  EXPECT_EQ(g.line[g.cell(0, 0, 1, 0)], 5);
  const std::string none = write_temp("gold_free_none.csv", "judge,item,verdict\nJ,i1,A\n");
  const std::string message = thrown_message([&] { items_with_gold(load_item_matrix(none), "cascade"); });
  EXPECT_TRUE(contains(message, "cascade needs gold labels, and no item of " + none + " has one")) << message;
}

TEST(GoldFree, AdjudicationGivesGold) {
  ItemMatrix m = load_item_matrix(
      write_temp("gold_free_adjudicated.csv", "judge,item,gold,verdict,adjudicated\nJ,i1,,A,B\nJ,i2,,B,\n"));
  EXPECT_EQ(m.items_without_gold, 2);
  EXPECT_EQ(use_adjudicated_gold(m), 1);
  EXPECT_EQ(m.items_without_gold, 1);
  EXPECT_TRUE(m.has_gold(0));
}

}  // namespace
