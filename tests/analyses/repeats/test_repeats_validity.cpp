// docs/statistics.md §8.5 and §1 "Validity": repeats reads every repeat, so its validity counts
// every record of a judge (an invalid repeat-1 record included); systems reads repeat 0 and its
// validity line says so. Counted by hand on a seven-record file.
#include <string>

#include <gtest/gtest.h>

#include "judgestat/repeats.hpp"
#include "judgestat/systems.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::cpu_target;
using testing_support::write_temp;

// J: repeat 0 on i1..i4 (i3 without a verdict: invalid), repeat 1 on i1..i3 (i1 and i3 invalid).
// Every repeat: 7 records, 3 invalid, all "no verdict"; repeat 0: 4 records, 1 invalid.
const char* const kRecords =
    "judge,item,gold,verdict,repeat,x.a,x.b\n"
    "J,i1,A,A,0,m1,m2\n"
    "J,i1,A,,1,m1,m2\n"
    "J,i2,B,B,0,m2,m3\n"
    "J,i2,B,B,1,m2,m3\n"
    "J,i3,A,,0,m1,m3\n"
    "J,i3,A,,1,m1,m3\n"
    "J,i4,B,A,0,m3,m1\n";

TEST(RepeatsValidity, CountsEveryRecordOfEveryRepeat) {
  const ItemMatrix m = load_item_matrix(write_temp("repeat_validity.csv", kRecords));
  RepeatsOptions options;
  options.bootstrap.replicates = 100;
  const RepeatsReport report = run_repeats(m, options, cpu_target(1));
  ASSERT_EQ(report.validity.size(), 1u);
  EXPECT_EQ(report.validity[0].records, 7);
  EXPECT_EQ(report.validity[0].invalid, 3);
  EXPECT_EQ(report.validity[0].common_invalid_value, "no verdict");
  EXPECT_EQ(report.validity[0].common_invalid_count, 3);
  const std::string text = tables(report, "text");
  EXPECT_TRUE(contains(text, "validity: J: 3 invalid of 7 records, every repeat\n")) << text;
  EXPECT_TRUE(contains(text, "WARNING: J: 3 of 7 records invalid (43%), most often no verdict (3)\n")) << text;
  const Json json = to_json(report, ReportHead{});
  EXPECT_EQ(json["validity"], Json::parse(R"([{"judge": "J", "records": 7, "invalid": 3}])"));
}

TEST(RepeatsValidity, SystemsCountsRepeatZeroAndSaysSo) {
  const ItemMatrix m = load_item_matrix(write_temp("repeat_validity_systems.csv", kRecords));
  SystemsOptions options;
  options.systems = {"x.a", "x.b"};
  options.bootstrap.replicates = 100;
  const SystemsReport report = run_systems(m, options, cpu_target(1));
  ASSERT_EQ(report.validity.size(), 1u);
  EXPECT_EQ(report.validity[0].records, 4);
  EXPECT_EQ(report.validity[0].invalid, 1);
  EXPECT_TRUE(contains(tables(report, "text"), "validity: J: 1 invalid of 4 records of repeat 0\n"))
      << tables(report, "text");
}

TEST(RepeatsValidity, BothRenderAgainFromTheirJson) {
  const std::string path = write_temp("repeat_validity_render.csv", kRecords);
  render_support::expect_renders_the_run("repeats", render_support::run_on(path, {"repeats", {"--replicates", "100"}}));
  render_support::expect_renders_the_run(
      "systems", render_support::run_on(path, {"systems", {"--systems", "x.a,x.b", "--replicates", "100"}}));
}

}  // namespace
}  // namespace judgestat
