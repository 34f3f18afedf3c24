// docs/statistics.md §8.5: the items compared are repeat 0's; an item with records of repeats >= 1
// only is left out with a note counting its records and items (nothing dropped silently).
#include <gtest/gtest.h>

#include <string>

#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::cpu_target;
using testing_support::write_temp;

RepeatsReport repeats_of(const std::string& csv, RepeatsOptions options = {}) {
  options.bootstrap.replicates = 200;
  LoadOptions load;
  load.labels = {"A", "B"};
  const ItemMatrix m = load_item_matrix(write_temp("repeat_zero.csv", csv), load);
  return run_repeats(m, options, cpu_target(1));
}

int notes_equal(const RepeatsReport& report, const std::string& text) {
  int found = 0;
  for (const std::string& note : report.notes) found += note == text;
  return found;
}

// i1, i2 have repeat 0; i3 has repeats 1 and 2 only (2 records), i4 repeat 1 only (1 record), on
// benchmark b2 for i4.
const char* kRecords =
    "judge,item,benchmark,gold,verdict,repeat\n"
    "J,i1,b1,A,A,0\nJ,i1,b1,A,A,1\n"
    "J,i2,b1,A,B,0\nJ,i2,b1,A,A,1\n"
    "J,i3,b1,A,A,1\nJ,i3,b1,A,B,2\n"
    "J,i4,b2,A,A,1\n";

TEST(RepeatsWithoutRepeatZero, ItemsWithLaterRepeatsOnlyAreCountedInANote) {
  const RepeatsReport report = repeats_of(kRecords);
  EXPECT_EQ(notes_equal(report,
                        "3 record(s) of repeats >= 1 on 2 item(s) with no repeat-0 record are left out: the "
                        "items compared are repeat 0's"),
            1);
}

TEST(RepeatsWithoutRepeatZero, ItemsTheFiltersLeaveOutAreNotCounted) {
  RepeatsOptions options;
  options.benchmarks = {"b1"};
  const RepeatsReport report = repeats_of(kRecords, options);
  EXPECT_EQ(notes_equal(report,
                        "2 record(s) of repeats >= 1 on 1 item(s) with no repeat-0 record are left out: the "
                        "items compared are repeat 0's"),
            1);
}

TEST(RepeatsWithoutRepeatZero, NoNoteWhenEveryItemHasRepeatZero) {
  const RepeatsReport report = repeats_of(
      "judge,item,gold,verdict,repeat\n"
      "J,i1,A,A,0\nJ,i1,A,A,1\nJ,i2,A,B,0\nJ,i2,A,A,1\n");
  for (const std::string& note : report.notes) EXPECT_EQ(note.find("no repeat-0 record"), std::string::npos) << note;
}

}  // namespace
}  // namespace judgestat
