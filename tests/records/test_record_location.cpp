// record_location (issue 29): a matrix line turned back into the FILE:LINE of the record's own
// file when several files load as one, and the mixed-covariate error of item_levels naming both
// records' files.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;
using testing_support::write_temp;

TEST(RecordLocation, NamesEachRecordsOwnFileAndLine) {
  const std::string f1 = write_temp("location_f1.csv", "judge,item,gold,verdict,x.len\na,i1,A,A,10\na,i2,B,A,7\n");
  const std::string f2 = write_temp("location_f2.csv", "judge,item,gold,verdict,x.len\nb,i2,B,B,7\nb,i1,A,B,12\n");
  const ItemMatrix one = load_item_matrix(f1);
  EXPECT_EQ(record_location(one, one.line[one.cell(0, 1, 0, 0)]), f1 + ":3");
  const ItemMatrix both = load_item_matrix(std::vector<std::string>{f1, f2}, {});
  // Judge b's record of i1 is f2's line 3, of i2 f2's line 2; a's of i2 f1's line 3.
  EXPECT_EQ(record_location(both, both.line[both.cell(1, 0, 0, 0)]), f2 + ":3");
  EXPECT_EQ(record_location(both, both.line[both.cell(1, 1, 0, 0)]), f2 + ":2");
  EXPECT_EQ(record_location(both, both.line[both.cell(0, 1, 0, 0)]), f1 + ":3");
  const ItemMatrix gold = items_with_gold(both, "test");
  EXPECT_EQ(record_location(gold, gold.line[gold.cell(1, 0, 0, 0)]), f2 + ":3");
}

TEST(RecordLocation, MixedCovariateNamesBothFiles) {
  const std::string f1 = write_temp("mixed_f1.csv", "judge,item,gold,verdict,x.len\na,i1,A,A,10\na,i2,B,A,7\n");
  const std::string f2 = write_temp("mixed_f2.csv", "judge,item,gold,verdict,x.len\nb,i2,B,B,7\nb,i1,A,B,12\n");
  const ItemMatrix both = load_item_matrix(std::vector<std::string>{f1, f2}, {});
  EXPECT_EQ(thrown_message<InputError>([&] { both.item_levels("len", "--length"); }),
            f2 + ":3: column 'x.len': item \"i1\" has \"12\" here but \"10\" on line 2 of " + f1 +
                "; --length needs one value per item, so give every record of the item the same x.len");
  // One file: its own lines, as before.
  const std::string f3 = write_temp("mixed_f3.csv", "judge,item,gold,verdict,x.len\na,i1,A,A,10\nb,i1,A,B,12\n");
  EXPECT_EQ(thrown_message<InputError>([&] { load_item_matrix(f3).item_levels("len", "--length"); }),
            f3 + ":3: column 'x.len': item \"i1\" has \"12\" here but \"10\" on line 2; --length needs one value "
                 "per item, so give every record of the item the same x.len");
}

}  // namespace
}  // namespace judgestat
