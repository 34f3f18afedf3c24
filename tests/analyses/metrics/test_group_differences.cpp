// `metrics --by G --group-diff A,B` (docs/statistics.md §7.3; JEV §6 and App. E: RM-Bench's
// within-prompt style effect, hard − normal, and JEV's effect minus GPT-6's): each judge's statistic on
// group A minus on group B on the same replicates, and that difference between judges. Checked against
// counts by hand and, replicate by replicate, against the groups' own rows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analyses/metrics/replicates_identical.hpp"
#include "judgestat/metrics.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Six prompts (clusters), each judged in a normal and a hard style. J: right on 5 normal, 2 hard;
// R: right on 4 normal, 4 hard.
std::string style_csv() {
  std::string csv = "judge,item,cluster,condition,gold,verdict\n";
  const char* j_normal = "AAAAAB";  // verdicts; gold is A everywhere
  const char* j_hard = "AABBBB";
  const char* r_normal = "AAAABB";
  const char* r_hard = "BAAAAB";
  for (int p = 0; p < 6; ++p) {
    const std::string prompt = "p" + std::to_string(p);
    csv += "J," + prompt + "n," + prompt + ",normal,A," + j_normal[p] + "\n";
    csv += "J," + prompt + "h," + prompt + ",hard,A," + j_hard[p] + "\n";
    csv += "R," + prompt + "n," + prompt + ",normal,A," + r_normal[p] + "\n";
    csv += "R," + prompt + "h," + prompt + ",hard,A," + r_hard[p] + "\n";
  }
  return csv;
}

MetricsReport run_on(MetricsOptions options, int threads = 1) {
  options.by = "condition";
  if (options.group_diff.empty()) options.group_diff = {"hard", "normal"};
  options.diff = {"acc"};
  options.reference = "R";
  options.bootstrap.replicates = 400;
  return run_metrics(load_item_matrix(write_temp("group_diff.csv", style_csv())), options, cpu_target(threads));
}

// The row `name` of judge `judge` on group `group` (nullopt: any) with reference `reference` ("" none).
size_t row_of(const MetricsReport& r, const std::string& name, const std::string& judge, const std::string& group,
              const std::string& reference = "") {
  for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
    const StatLabel& l = r.statistics.labels[s];
    if (l.name == name && l.judge == judge && l.condition.value_or("") == group &&
        l.reference.value_or("") == reference && (name != "acc" || l.order == 0))
      return s;
  }
  ADD_FAILURE() << "no row " << name << " " << judge << " " << group << " " << reference;
  return 0;
}

}  // namespace

TEST(GroupDifferences, WithinJudgeAndDifferenceOfDifferencesMatchCounts) {
  MetricsOptions options;
  options.bootstrap.keep_replicates = true;
  const MetricsReport r = run_on(options);
  const size_t gd_j = row_of(r, "group_diff", "J", "hard − normal"),
               gd_r = row_of(r, "group_diff", "R", "hard − normal");
  const size_t did = row_of(r, "group_diff", "J", "hard − normal", "R");
  EXPECT_DOUBLE_EQ(r.statistics.intervals[gd_j].estimate, 2.0 / 6 - 5.0 / 6);  // J: −3/6
  EXPECT_DOUBLE_EQ(r.statistics.intervals[gd_r].estimate, 4.0 / 6 - 4.0 / 6);  // R: 0
  EXPECT_DOUBLE_EQ(r.statistics.intervals[did].estimate, (2.0 / 6 - 5.0 / 6) - 0.0);
  EXPECT_EQ(*r.statistics.labels[gd_j].of, "acc");
  EXPECT_EQ(r.statistics.labels[gd_j].n, 6);
  // On every replicate: the groups' own rows, differenced (the same clusters drawn for both groups).
  const size_t S = r.statistics.labels.size(), B = r.statistics.replicates.size() / S;
  const size_t hard_j = row_of(r, "acc", "J", "hard"), normal_j = row_of(r, "acc", "J", "normal");
  const size_t hard_r = row_of(r, "acc", "R", "hard"), normal_r = row_of(r, "acc", "R", "normal");
  for (size_t b = 0; b < B; ++b) {
    const double* v = r.statistics.replicates.data() + b * S;
    if (std::isnan(v[gd_j]) || std::isnan(v[gd_r])) continue;
    EXPECT_EQ(v[gd_j], v[hard_j] - v[normal_j]);
    EXPECT_EQ(v[gd_r], v[hard_r] - v[normal_r]);
    EXPECT_EQ(v[did], v[gd_j] - v[gd_r]);
  }
  // Each prompt sits in both groups: J's style effect cannot be −1/2 on every replicate, and its
  // interval is the paired one (the two groups' rows move together).
  EXPECT_LT(r.statistics.intervals[gd_j].lo, r.statistics.intervals[gd_j].estimate);
  EXPECT_GT(r.statistics.intervals[gd_j].hi, r.statistics.intervals[gd_j].estimate);
}

TEST(GroupDifferences, SameSeedSameReplicatesOnAnyThreadCount) {
  MetricsOptions options;
  options.bootstrap.seed = 3;
  options.bootstrap.keep_replicates = true;
  const MetricsReport one = run_on(options, 1), two = run_on(options, 2);
  expect_same_replicates(one.statistics.replicates, two.statistics.replicates);
}

TEST(GroupDifferences, BadGroupsNameTheFlag) {
  MetricsOptions unknown;
  unknown.group_diff = {"hard", "easy"};
  const std::string message = thrown_message([&] { run_on(unknown); });
  EXPECT_TRUE(contains(message, "--group-diff: 'easy' is not a group of --by condition (groups: ")) << message;
  MetricsOptions one;
  one.group_diff = {"hard"};
  EXPECT_TRUE(contains(thrown_message([&] { run_on(one); }), "--group-diff: expected two groups"));
  MetricsOptions no_groups;
  no_groups.group_diff = {"hard", "normal"};
  const ItemMatrix m = load_item_matrix(write_temp("group_diff_plain.csv", style_csv()));
  EXPECT_TRUE(contains(thrown_message([&] { run_metrics(m, no_groups, cpu_target(1)); }), "--group-diff: give --by"));
}

TEST(GroupDifferences, TheReportRendersAgainFromItsJson) {
  const AnalysisResult run = render_support::run_on(
      write_temp("group_diff_render.csv", style_csv()),
      {"metrics", {"--by", "condition", "--group-diff", "hard,normal", "--reference", "R", "--replicates", "200"}});
  EXPECT_TRUE(contains(run.text, "group_diff acc [order 0] − R")) << run.text;
  EXPECT_TRUE(contains(run.text, "hard − normal")) << run.text;
  render_support::expect_renders_the_run("metrics", run);
}
