// The loader's new shapes of judge data (issue 28 items 2–4; docs/statistics.md §8.2, §8.3, §8.5):
// covariate columns x.NAME, the repeat column, and score judges on --scale. Every expected value
// below is read off the hand-written file above it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "judgestat/record_fields.hpp"
#include "judgestat/records.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

TEST(Covariates, CsvColumnsGiveLevelsPerCellAndItem) {
  const ItemMatrix m = load_item_matrix(write_temp("shapes_cov.csv",
                                                   "judge,item,gold,verdict,order,x.len,x.model\n"
                                                   "J,i1,A,A,0,120,gpt\n"
                                                   "J,i1,A,B,1,120,\n"
                                                   "J,i2,B,B,0,98.5,llama\n"
                                                   "K,i2,B,A,0,98.5,llama\n"));
  ASSERT_EQ(m.covariates.size(), 2u);
  const Covariate& len = m.covariate("x.len");
  EXPECT_EQ(len.name, "len");
  EXPECT_EQ(len.levels, (std::vector<std::string>{"120", "98.5"}));
  EXPECT_EQ(len.numbers, (std::vector<double>{120.0, 98.5}));
  EXPECT_TRUE(len.numeric);
  EXPECT_EQ(len.item_level, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(len.cell_level[m.cell(0, 0, 1, 0)], 0);
  EXPECT_EQ(len.cell_level[m.cell(1, 0, 0, 0)], kNoLevel);  // K has no record for i1
  const Covariate& model = m.covariate("model");
  EXPECT_FALSE(model.numeric);
  EXPECT_TRUE(std::isnan(model.numbers[0]));
  EXPECT_EQ(model.cell_level[m.cell(0, 0, 1, 0)], kNoLevel);  // an empty field is no value
  EXPECT_EQ(model.item_level, (std::vector<int32_t>{0, 1}));  // and no disagreement
  EXPECT_EQ(m.item_levels("x.len", "--length"), len.item_level);
}

TEST(Covariates, JsonlKeysAndMissingKeys) {
  const ItemMatrix m =
      load_item_matrix(write_temp("shapes_cov.jsonl",
                                  "{\"judge\":\"J\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\"}\n"
                                  "{\"judge\":\"J\",\"item\":\"i2\",\"gold\":\"A\",\"verdict\":\"A\","
                                  "\"x.len\":300}\n"
                                  "{\"judge\":\"J\",\"item\":\"i3\",\"gold\":\"A\",\"verdict\":\"B\","
                                  "\"x.len\":null}\n"));
  const Covariate& len = m.covariate("len");
  EXPECT_EQ(len.levels, (std::vector<std::string>{"300"}));
  EXPECT_EQ(len.item_level, (std::vector<int32_t>{kNoLevel, 0, kNoLevel}));
}

TEST(Covariates, ItemValuesThatDifferAreNamedWhenOneIsNeeded) {
  const std::string path =
      write_temp("shapes_cov_mixed.csv", "judge,item,gold,verdict,x.len\nJ,i1,A,A,120\nK,i1,A,A,98\nJ,i2,A,A,5\n");
  const ItemMatrix m = load_item_matrix(path);
  EXPECT_EQ(m.covariate("len").item_level, (std::vector<int32_t>{kMixedLevels, 2}));
  EXPECT_EQ(thrown_message([&] { m.item_levels("x.len", "--length"); }),
            path +
                ":3: column 'x.len': item \"i1\" has \"98\" here but \"120\" on line 2; --length needs one value "
                "per item, so give every record of the item the same x.len");
  EXPECT_TRUE(contains(thrown_message([&] { m.covariate("x.size"); }),
                       "no covariate column 'x.size' in " + path + " (it has x.len)"));
}

TEST(Covariates, RecordColumnsFromMemory) {
  const RecordColumn judge("judge"), item("item"), verdict("verdict"), len("x.len");
  Record record = default_record(1);
  judge.set(record, "J", "frame");
  item.set(record, "i1", "frame");
  verdict.set(record, "A", "frame");
  len.set(record, " 42 ", "frame");
  const ItemMatrix m = build_item_matrix({record}, "frame");
  EXPECT_EQ(m.covariate("len").numbers, (std::vector<double>{42.0}));
}

TEST(Repeats, RepeatCellsBesideRepeatZero) {
  const ItemMatrix m = load_item_matrix(write_temp("shapes_repeat.csv",
                                                   "judge,item,gold,verdict,repeat,p.A,p.B\n"
                                                   "J,i1,A,A,0,0.9,0.1\n"
                                                   "J,i1,A,B,1,0.4,0.6\n"
                                                   "J,i1,A,A,2,0.8,0.2\n"
                                                   "J,i2,B,B,,0.3,0.7\n"
                                                   "J,i2,B,C,1,,\n"));
  EXPECT_EQ(m.repeats, 3);
  EXPECT_EQ(m.repeat_records, 3);
  EXPECT_EQ(m.records, 5);
  const size_t i1 = m.cell(0, 0, 0, 0), i2 = m.cell(0, 1, 0, 0);
  EXPECT_EQ(m.verdict_at(i1, 0), 0);
  EXPECT_EQ(m.verdict_at(i1, 1), 1);
  EXPECT_EQ(m.verdict_at(i1, 2), 0);
  EXPECT_EQ(m.verdict_at(i2, 0), 1);
  EXPECT_EQ(m.verdict_at(i2, 1), kInvalid);
  EXPECT_EQ(m.verdict_at(i2, 2), kAbsent);
  EXPECT_DOUBLE_EQ(m.probs_at(i1, 1)[1], 0.6);
  EXPECT_DOUBLE_EQ(m.probs_at(i1, 2)[0], 0.8);
  EXPECT_EQ(m.invalid, 0);  // repeat 0's records only: the other analyses read those
}

TEST(Repeats, SameRepeatTwiceAndBadRepeatAreErrors) {
  const std::string twice =
      write_temp("shapes_repeat_twice.csv", "judge,item,gold,verdict,repeat\nJ,i1,A,A,1\nJ,i1,A,B,1\n");
  EXPECT_TRUE(contains(thrown_message([&] { load_item_matrix(twice); }),
                       twice + ":3: columns 'judge','item','order','variant','repeat': judge \"J\", item \"i1\", order "
                               "0, variant \"plain\", repeat 1 already occurs on line 2"));
  const std::string bad = write_temp("shapes_repeat_bad.csv", "judge,item,gold,verdict,repeat\nJ,i1,A,A,-1\n");
  EXPECT_EQ(thrown_message([&] { load_item_matrix(bad); }),
            bad + ":2: column 'repeat': expected a repeat index, an integer from 0 to 1023, got \"-1\"");
}

TEST(Repeats, AStrayHighRepeatIsRefusedNamingItsLine) {
  // 8,000 items of one judge and one record of repeat 1023: 8,000 x 1,024 cells, almost all empty.
  std::string text = "judge,item,gold,verdict,repeat\n";
  for (int i = 0; i < 8000; ++i) text += "J,i" + std::to_string(i) + ",A,A,0\n";
  text += "J,i7,A,B,1023\n";
  const std::string path = write_temp("shapes_repeat_stray.csv", text);
  const std::string message = thrown_message([&] { load_item_matrix(path); });
  EXPECT_TRUE(contains(message, "1 judges x 8000 items x 1 orders x 1 variants x 1024 repeats")) << message;
  EXPECT_TRUE(contains(message, "the repeat column (the largest, 1023, is on line 8002)")) << message;
}

TEST(Scores, LabelsAreTheDistinctScoresAscending) {
  LoadOptions options;
  options.scale = ScoreScale{1, 10};
  const ItemMatrix m = load_item_matrix(write_temp("shapes_scores.csv",
                                                   "judge,item,gold,verdict\n"
                                                   "J,i1,7.0,7\n"
                                                   "J,i2,2,10\n"
                                                   "J,i3,,3.5\n"
                                                   "J,i4,10,\n"),
                                        options);
  EXPECT_TRUE(m.scored);
  EXPECT_EQ(m.labels, (std::vector<std::string>{"2", "3.5", "7", "10"}));
  EXPECT_EQ(m.label_score, (std::vector<double>{2, 3.5, 7, 10}));
  EXPECT_EQ(m.gold, (std::vector<int32_t>{2, 0, kNoGold, 3}));
  EXPECT_EQ(m.verdict[m.cell(0, 0, 0, 0)], 2);  // "7" = gold "7.0": exact agreement
  EXPECT_EQ(m.verdict[m.cell(0, 1, 0, 0)], 3);
  EXPECT_EQ(m.verdict[m.cell(0, 3, 0, 0)], kInvalid);  // no verdict
  EXPECT_TRUE(m.correct(m.cell(0, 0, 0, 0), 0));
}

TEST(Scores, ScoresOffTheScaleOrNotNumbersAreErrors) {
  LoadOptions options;
  options.scale = ScoreScale{1, 5};
  const std::string high = write_temp("shapes_scores_high.csv", "judge,item,gold,verdict\nJ,i1,3,4\nJ,i2,3,6\n");
  EXPECT_EQ(thrown_message([&] { load_item_matrix(high, options); }),
            high + ":3: column 'verdict': expected a score from 1 to 5 (--scale 1:5) or an empty field, got \"6\"");
  const std::string text = write_temp("shapes_scores_text.csv", "judge,item,gold,verdict\nJ,i1,good,4\n");
  EXPECT_EQ(thrown_message([&] { load_item_matrix(text, options); }),
            text + ":2: column 'gold': expected a score from 1 to 5 (--scale 1:5) or an empty field, got \"good\"");
  options.labels = {"A", "B"};
  EXPECT_TRUE(contains(thrown_message([&] { load_item_matrix(high, options); }), "give one of the two"));
}

TEST(Scores, ItemsWithGoldKeepsScoresCovariatesAndRepeats) {
  LoadOptions options;
  options.scale = ScoreScale{1, 5};
  const ItemMatrix m = load_item_matrix(write_temp("shapes_subset.csv",
                                                   "judge,item,gold,verdict,repeat,x.len\n"
                                                   "J,i1,,4,0,10\n"
                                                   "J,i2,3,5,0,20\n"
                                                   "J,i2,3,1,1,20\n"),
                                        options);
  const ItemMatrix kept = items_with_gold(m, "test");
  EXPECT_EQ(kept.items, (std::vector<std::string>{"i2"}));
  EXPECT_TRUE(kept.scored);
  EXPECT_EQ(kept.label_score, m.label_score);
  EXPECT_EQ(kept.covariate("len").item_level, (std::vector<int32_t>{1}));
  EXPECT_EQ(kept.covariate("len").cell_level, (std::vector<int32_t>{1}));
  EXPECT_EQ(kept.repeats, 2);
  EXPECT_EQ(kept.repeat_records, 1);
  EXPECT_EQ(kept.label_score[kept.verdict_at(0, 1)], 1.0);
}

}  // namespace
