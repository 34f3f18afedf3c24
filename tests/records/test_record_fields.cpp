// judgestat/record_fields.hpp: records from values in memory read by the loader's own field
// parsers: the same fields, defaults and messages as a CSV file with the same text gives.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/record_fields.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;

TEST(RecordFields, ColumnsReadAsTheLoaderReadsThem) {
  EXPECT_EQ(required_record_columns(), (std::vector<std::string>{"judge", "item", "verdict"}));
  const RecordColumn probability("p.B"), ignored("comment"), order("order");
  EXPECT_TRUE(probability.is_probability());
  EXPECT_EQ(probability.probability_label(), "B");
  EXPECT_TRUE(ignored.is_ignored());
  EXPECT_FALSE(order.is_ignored() || order.is_probability());
  EXPECT_EQ(order.probability_label(), "");

  Record record = default_record(3);
  EXPECT_EQ(record.benchmark, "default");  // docs/statistics.md §1's defaults
  EXPECT_EQ(record.variant, "plain");
  EXPECT_EQ(record.line, 3);
  RecordColumn("judge").set(record, "j1", "frame");
  RecordColumn("verdict").set(record, "null", "frame");  // given, but invalid
  order.set(record, " 1 ", "frame");
  ignored.set(record, "anything", "frame");  // nothing to store
  EXPECT_EQ(record.judge, "j1");
  EXPECT_FALSE(record.verdict_given);
  EXPECT_EQ(record.order, 1);
  EXPECT_DOUBLE_EQ(probability.probability("0.25", "frame", record), 0.25);
  EXPECT_FALSE(record.nan_probability);
  EXPECT_TRUE(std::isnan(probability.probability("nan", "frame", record)));
  EXPECT_TRUE(record.nan_probability);
}

TEST(RecordFields, BadValuesFailAsInAFileNamingSourceLineAndColumn) {
  Record record = default_record(7);
  EXPECT_EQ(thrown_message<InputError>([&] { RecordColumn("order").set(record, "-2", "frame"); }),
            "frame:7: column 'order': expected a non-negative integer, got \"-2\"");
  // The same text in a CSV file fails the loader with the same words after its own line number.
  const std::string path = ::testing::TempDir() + "judgestat_record_fields.csv";
  std::ofstream(path) << "judge,item,gold,verdict,order\nj,i,A,A,-2\n";
  const std::string loaded = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_NE(loaded.find(":2: column 'order': expected a non-negative integer, got \"-2\""), std::string::npos)
      << loaded;
  EXPECT_NE(thrown_message<InputError>([&] {
              RecordColumn("judge").set(record, "", "frame");
            }).find("frame:7: column 'judge'"),
            std::string::npos);
}

}  // namespace
}  // namespace judgestat
