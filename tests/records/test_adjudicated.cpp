// Human adjudication (docs/statistics.md §7.2): the `adjudicated` column in CSV and JSONL, its
// item-level checks, and `--gold adjudicated` label substitution.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"

namespace judgestat {
namespace {

std::string write_temp(const std::string& content, const std::string& extension) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path =
      ::testing::TempDir() + "judgestat_" + test->test_suite_name() + "_" + test->name() + extension;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

/// The InputError message of loading `content` (a failure when none is thrown).
std::string load_error(const std::string& path) {
  try {
    load_item_matrix(path);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected InputError for " << path;
  return "";
}

bool has(const std::string& message, const std::string& words) { return message.find(words) != std::string::npos; }

// Items i1..i5: adjudicated B (gold A), indecisive, empty, A (= gold), "null" (not adjudicated).
// Two judges, so every item has two records that must agree.
const char* kCsv =
    "judge,item,gold,verdict,adjudicated\n"
    "j1,i1,A,A,B\n"
    "j1,i2,A,B,indecisive\n"
    "j1,i3,B,B,\n"
    "j1,i4,A,A,A\n"
    "j1,i5,B,A,null\n"
    "j2,i1,A,B,B\n"
    "j2,i2,A,A,indecisive\n"
    "j2,i3,B,A,\n"
    "j2,i4,A,B,A\n"
    "j2,i5,B,B,null\n";

const char* kJsonl =
    "{\"judge\":\"j1\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":\"B\"}\n"
    "{\"judge\":\"j1\",\"item\":\"i2\",\"gold\":\"A\",\"verdict\":\"B\",\"adjudicated\":\"indecisive\"}\n"
    "{\"judge\":\"j1\",\"item\":\"i3\",\"gold\":\"B\",\"verdict\":\"B\",\"adjudicated\":\"\"}\n"
    "{\"judge\":\"j1\",\"item\":\"i4\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":\"A\"}\n"
    "{\"judge\":\"j1\",\"item\":\"i5\",\"gold\":\"B\",\"verdict\":\"A\",\"adjudicated\":null}\n"
    "{\"judge\":\"j2\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"B\",\"adjudicated\":\"B\"}\n"
    "{\"judge\":\"j2\",\"item\":\"i2\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":\"indecisive\"}\n"
    "{\"judge\":\"j2\",\"item\":\"i3\",\"gold\":\"B\",\"verdict\":\"A\"}\n"
    "{\"judge\":\"j2\",\"item\":\"i4\",\"gold\":\"A\",\"verdict\":\"B\",\"adjudicated\":\"A\"}\n"
    "{\"judge\":\"j2\",\"item\":\"i5\",\"gold\":\"B\",\"verdict\":\"B\"}\n";

TEST(Adjudicated, CsvAndJsonlReadLabelsIndecisiveAndEmpty) {
  for (const auto& [content, extension] :
       {std::pair<const char*, const char*>{kCsv, ".csv"}, std::pair<const char*, const char*>{kJsonl, ".jsonl"}}) {
    SCOPED_TRACE(extension);
    const ItemMatrix m = load_item_matrix(write_temp(content, extension));
    ASSERT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
    EXPECT_TRUE(m.has_adjudicated);
    EXPECT_EQ(m.item_adjudicated, (std::vector<int32_t>{1, kIndecisive, kNotAdjudicated, 0, kNotAdjudicated}));
    EXPECT_EQ(m.gold, (std::vector<int32_t>{0, 0, 1, 0, 1}));  // loading leaves gold alone
  }
  // read_records keeps the text as written ("null" read as not adjudicated) for build_item_matrix.
  const std::string path = write_temp(kCsv, ".csv");
  const std::vector<Record> records = read_records(path);
  EXPECT_EQ(records[1].adjudicated, "indecisive");
  EXPECT_EQ(records[4].adjudicated, "");
  EXPECT_TRUE(records[4].adjudicated_given);
  EXPECT_EQ(build_item_matrix(records, path).item_adjudicated, load_item_matrix(path).item_adjudicated);
}

TEST(Adjudicated, AbsentColumnLeavesItEmpty) {
  const ItemMatrix m = load_item_matrix(write_temp("judge,item,gold,verdict\nj,i1,A,A\nj,i2,B,A\n", ".csv"));
  EXPECT_FALSE(m.has_adjudicated);
  EXPECT_TRUE(m.item_adjudicated.empty());
  // A column present but empty everywhere is still a column: nothing adjudicated.
  const ItemMatrix blank = load_item_matrix(write_temp("judge,item,gold,verdict,adjudicated\nj,i1,A,A,\n", ".csv"));
  EXPECT_TRUE(blank.has_adjudicated);
  EXPECT_EQ(blank.item_adjudicated, (std::vector<int32_t>{kNotAdjudicated}));
}

TEST(Adjudicated, DisagreementBetweenRecordsNamesLineColumnAndBothValues) {
  const std::string csv = write_temp("judge,item,gold,verdict,adjudicated\nj1,i1,A,A,A\nj2,i1,A,B,B\n", ".csv");
  const std::string message = load_error(csv);
  EXPECT_TRUE(has(message, csv + ":3: column 'adjudicated':")) << message;
  EXPECT_TRUE(has(message, "\"B\" here but \"A\" on line 2")) << message;
  // JSONL: a record without the key is not adjudicated, which disagrees with "indecisive".
  const std::string jsonl = write_temp(
      "{\"judge\":\"j1\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":\"indecisive\"}\n"
      "{\"judge\":\"j2\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\"}\n",
      ".jsonl");
  const std::string jsonl_message = load_error(jsonl);
  EXPECT_TRUE(has(jsonl_message, jsonl + ":2: column 'adjudicated':")) << jsonl_message;
  EXPECT_TRUE(has(jsonl_message, "\"\" here but \"indecisive\" on line 1")) << jsonl_message;
}

TEST(Adjudicated, LabelOutsideTheSetNamesLineColumnValueAndSet) {
  const std::string csv = write_temp("judge,item,gold,verdict,adjudicated\nj1,i1,A,A,\nj1,i2,B,A,C\n", ".csv");
  const std::string message = load_error(csv);
  EXPECT_TRUE(has(message, csv + ":3: column 'adjudicated':")) << message;
  EXPECT_TRUE(has(message, "got \"C\"")) << message;
  EXPECT_TRUE(has(message, "(A,B)")) << message;
  EXPECT_TRUE(has(message, "'indecisive'")) << message;
  const std::string jsonl = write_temp(
      "{\"judge\":\"j1\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":\"Indecisive\"}\n", ".jsonl");
  const std::string jsonl_message = load_error(jsonl);
  EXPECT_TRUE(has(jsonl_message, jsonl + ":1: column 'adjudicated':")) << jsonl_message;
  EXPECT_TRUE(has(jsonl_message, "got \"Indecisive\"")) << jsonl_message;
  EXPECT_TRUE(has(jsonl_message, "(A)")) << jsonl_message;
  // JSON true is not a label.
  const std::string boolean = write_temp(
      "{\"judge\":\"j1\",\"item\":\"i1\",\"gold\":\"A\",\"verdict\":\"A\",\"adjudicated\":true}\n", ".jsonl");
  EXPECT_TRUE(has(load_error(boolean), boolean + ":1: column 'adjudicated':"));
}

TEST(Adjudicated, GoldSubstitutionCountsChangedItems) {
  ItemMatrix m = load_item_matrix(write_temp(kCsv, ".csv"));
  // Only i1 changes: its decisive B replaces gold A; i4's A equals its gold; i2 (indecisive),
  // i3 and i5 (not adjudicated) keep theirs.
  EXPECT_EQ(use_adjudicated_gold(m), 1);
  EXPECT_EQ(m.gold, (std::vector<int32_t>{1, 0, 1, 0, 1}));
  // Correctness follows the new gold: j1 said A on i1 (now wrong), j2 said B (now right).
  EXPECT_FALSE(m.correct(m.cell(0, 0, 0, 0), 0));
  EXPECT_TRUE(m.correct(m.cell(1, 0, 0, 0), 0));
  EXPECT_EQ(use_adjudicated_gold(m), 0);  // applying it again changes nothing

  ItemMatrix three = load_item_matrix(
      write_temp("judge,item,gold,verdict,adjudicated\nj,i1,A,A,B\nj,i2,B,B,A\nj,i3,C,A,C\nj,i4,C,A,B\n", ".csv"));
  EXPECT_EQ(use_adjudicated_gold(three), 3);
  EXPECT_EQ(three.gold, (std::vector<int32_t>{1, 0, 2, 1}));
}

TEST(Adjudicated, GoldSubstitutionNeedsTheColumn) {
  ItemMatrix m = load_item_matrix(write_temp("judge,item,gold,verdict\nj,i1,A,A\n", ".csv"));
  try {
    use_adjudicated_gold(m);
    ADD_FAILURE() << "expected UsageError";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--gold adjudicated: the file has no adjudicated column");
  }
  EXPECT_EQ(m.gold, (std::vector<int32_t>{0}));
}

}  // namespace
}  // namespace judgestat
