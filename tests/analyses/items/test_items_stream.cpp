// stream_items (judgestat/items.hpp): the table streamed a block of units at a time is run_items's
// table, and ItemsTextWriter writes exactly items_csv / items_jsonl of it, in pieces. The table
// here spans several blocks (10,001 items), and every row's values are known from how the
// records were written.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "judgestat/items.hpp"
#include "judgestat/records.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

constexpr int kItems = 10001;

// Two judges, one order, gold A: J1 always says A (right); J2 says B (wrong) on every third item.
ItemMatrix many_items() {
  std::string csv = "judge,item,cluster,order,gold,verdict\n";
  for (int i = 0; i < kItems; ++i) {
    const std::string item = "i" + std::to_string(i), cluster = "c" + std::to_string(i / 2);
    csv += "J1," + item + "," + cluster + ",0,A,A\n";
    csv += "J2," + item + "," + cluster + ",0,A," + (i % 3 == 0 ? "B" : "A") + "\n";
  }
  LoadOptions load;
  load.labels = {"A", "B"};  // gold is always A: B is a label only when the label set says so
  return load_item_matrix(write_temp("many_items.csv", csv), load);
}

bool wrong_j2(int i) { return i % 3 == 0; }

TEST(ItemsStream, RowsAcrossBlocksAreTheKnownValues) {
  const ItemMatrix matrix = many_items();
  const ItemsReport report = run_items(matrix, {});
  ASSERT_EQ(report.columns,
            (std::vector<std::string>{"item", "cluster", "benchmark", "condition", "gold", "J1.verdict0", "J1.correct0",
                                      "J1.pa", "J2.verdict0", "J2.correct0", "J2.pa", "wrong0"}));
  ASSERT_EQ(report.rows.size(), static_cast<size_t>(kItems));
  int disagreeing = 0;
  for (int i = 0; i < kItems; ++i) {
    const std::vector<ItemsValue>& row = report.rows[i];
    ASSERT_EQ(row.size(), report.columns.size());
    EXPECT_EQ(std::get<std::string>(row[0]), "i" + std::to_string(i));
    EXPECT_EQ(std::get<std::string>(row[1]), "c" + std::to_string(i / 2));
    EXPECT_EQ(std::get<std::string>(row[8]), wrong_j2(i) ? "B" : "A");
    EXPECT_EQ(std::get<double>(row[9]), wrong_j2(i) ? 0.0 : 1.0);
    EXPECT_EQ(std::get<double>(row[10]), wrong_j2(i) ? 0.0 : 1.0);
    EXPECT_EQ(std::get<double>(row[11]), wrong_j2(i) ? 1.0 : 0.0) << i;
    disagreeing += wrong_j2(i);
  }
  EXPECT_EQ(disagreeing, 3334);
  EXPECT_EQ(report.disagreeing, disagreeing);
}

TEST(ItemsStream, TextWriterWritesTheTablesTextInPieces) {
  const ItemMatrix matrix = many_items();
  for (const bool disagree : {false, true}) {
    ItemsOptions options;
    options.disagree = disagree;
    const ItemsReport report = run_items(matrix, options);
    for (const bool jsonl : {false, true}) {
      std::string text;
      int pieces = 0;
      ItemsTextWriter writer(jsonl, [&](std::string_view piece) {
        text.append(piece);
        ++pieces;
      });
      EXPECT_EQ(stream_items(matrix, options, writer), 3334);
      writer.flush();
      EXPECT_EQ(text, jsonl ? items_jsonl(report) : items_csv(report)) << jsonl << disagree;
      EXPECT_EQ(writer.rows(), static_cast<int64_t>(report.rows.size()));
      // 1 MiB pieces: the JSONL of all 10,001 rows (about 2 MB) comes in more than one.
      if (jsonl && !disagree) {
        EXPECT_GE(pieces, 2) << text.size();
      }
    }
  }
}

TEST(ItemsStream, ErrorsComeBeforeAnyText) {
  const ItemMatrix matrix = many_items();
  ItemsOptions options;
  options.judges = {"J1"};
  options.disagree = true;
  std::string text;
  ItemsTextWriter writer(false, [&](std::string_view piece) { text.append(piece); });
  EXPECT_THROW(stream_items(matrix, options, writer), std::invalid_argument);
  writer.flush();
  EXPECT_EQ(text, "");
}

}  // namespace
