// metrics on records without gold (issue 28 item 1; docs/statistics.md §8.1): consistency,
// position rates and agreement are computed as usual; accuracy-type statistics use the items with
// gold only (absent when none has gold), with one note naming how many items have no gold; a judge
// with more than 5% invalid records is named above the tables with its most common invalid value.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Eight items, two orders, no gold column. J's verdicts (order 0, order 1) with the position each
// picks (order 0 shows A first, order 1 shows B first):
//   i1 A A (0,1)  i2 A B (0,0)  i3 B B (1,0)  i4 A B (0,0)
//   i5 B A (1,1)  i6 A A (0,1)  i7 A B (0,0)  i8 B B (1,0)
// cons = 4/8 (i1 i3 i6 i8); position_rate[0] = 10/16, [1] = 6/16; always_first = 3/8 (i2 i4 i7),
// always_second = 1/8 (i5). K repeats J's order-0 verdicts but says A on i5: J–K κ in order 0 has
// p_o = 7/8, p_e = (5·6 + 3·2)/64 = 36/64, κ = (56/64 − 36/64)/(28/64) = 5/7.
const char* kVerdicts[8][2] = {{"A", "A"}, {"A", "B"}, {"B", "B"}, {"A", "B"},
                               {"B", "A"}, {"A", "A"}, {"A", "B"}, {"B", "B"}};

// `gold[i]` per item ("" = none); the gold column is left out when `with_gold_column` is false.
std::string study_csv(bool with_gold_column, const std::vector<std::string>& gold) {
  std::ostringstream csv;
  csv << "judge,item," << (with_gold_column ? "gold," : "") << "order,verdict\n";
  for (const std::string judge : {"J", "K"})
    for (int i = 0; i < 8; ++i)
      for (int o = 0; o < 2; ++o) {
        if (judge == "K" && o == 1) continue;
        const std::string verdict = judge == "K" && i == 4 ? "A" : kVerdicts[i][o];
        csv << judge << ",i" << i + 1 << "," << (with_gold_column ? gold[i] + "," : "") << o << "," << verdict << "\n";
      }
  return csv.str();
}

MetricsReport metrics_of(const std::string& name, const std::string& csv, MetricsOptions options = {}) {
  options.bootstrap.replicates = 200;
  return run_metrics(load_item_matrix(write_temp(name, csv)), options, cpu_target(2));
}

// The row of `name` for `judge` (order, position, reference as given), or nothing.
std::optional<std::pair<double, int64_t>> row(const MetricsReport& report, const std::string& name,
                                              const std::string& judge, std::optional<int> order = std::nullopt,
                                              std::optional<int> position = std::nullopt,
                                              std::optional<std::string> reference = std::nullopt) {
  const auto& labels = report.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == name && labels[s].judge == judge && labels[s].order == order &&
        labels[s].position == position && labels[s].reference == reference && !labels[s].of)
      return std::make_pair(report.statistics.intervals[s].estimate, labels[s].n);
  return std::nullopt;
}

TEST(MetricsGoldFree, ConsistencyPositionAndAgreementWithoutGold) {
  const MetricsReport report = metrics_of("metrics_gold_free.csv", study_csv(false, {}));
  const auto cons = row(report, "cons", "J");
  ASSERT_TRUE(cons);
  EXPECT_DOUBLE_EQ(cons->first, 4.0 / 8);
  EXPECT_EQ(cons->second, 8);
  const auto first = row(report, "position_rate", "J", std::nullopt, 0);
  const auto second = row(report, "position_rate", "J", std::nullopt, 1);
  ASSERT_TRUE(first && second);
  EXPECT_DOUBLE_EQ(first->first, 10.0 / 16);
  EXPECT_DOUBLE_EQ(second->first, 6.0 / 16);
  ASSERT_TRUE(row(report, "always_first", "J"));
  EXPECT_DOUBLE_EQ(row(report, "always_first", "J")->first, 3.0 / 8);
  EXPECT_DOUBLE_EQ(row(report, "always_second", "J")->first, 1.0 / 8);
  const auto kappa = row(report, "kappa", "K", 0, std::nullopt, std::string("J"));
  ASSERT_TRUE(kappa);
  EXPECT_NEAR(kappa->first, 5.0 / 7, 1e-12);
  // Nothing that needs gold: no accuracy family row at all, never a 0.
  for (const std::string name : {"acc", "pa", "bc", "stable_wrong", "jb_score", "macro_f1", "oracle_acc"})
    for (const StatLabel& label : report.statistics.labels)
      EXPECT_FALSE(label.name == name || (label.name == "diff" && label.of == name)) << name;
  // One note, above the tables and first in the JSON's notes.
  const std::string note = "8 of 8 items have no gold: " + std::string(kMetricsGoldStatistics) +
                           " need gold and are left out (undefined); the other statistics are over all 8 items";
  EXPECT_EQ(all_invalid_notes(report.validity), std::vector<std::string>{note});
  const std::string text = tables(report, "text");
  EXPECT_EQ(text.substr(0, note.size() + 10), "WARNING: " + note + "\n") << text;
  EXPECT_EQ(to_json(report, ReportHead{})["notes"][0], note);
}

TEST(MetricsGoldFree, AccuracyOverTheItemsWithGold) {
  // Gold on i1–i4 only (A A B B): J's order 0 says A A B A → acc[0] = 3/4; order 1 A B B B →
  // acc[1] = 3/4; bc = 2/4 (i1, i3); pa = (1 + ½ + 1 + ½)/4; cons stays over all 8 items.
  const MetricsReport report =
      metrics_of("metrics_some_gold.csv", study_csv(true, {"A", "A", "B", "B", "", "", "", ""}));
  ASSERT_TRUE(row(report, "acc", "J", 0));
  EXPECT_DOUBLE_EQ(row(report, "acc", "J", 0)->first, 3.0 / 4);
  EXPECT_EQ(row(report, "acc", "J", 0)->second, 4);
  EXPECT_DOUBLE_EQ(row(report, "acc", "J", 1)->first, 3.0 / 4);
  EXPECT_DOUBLE_EQ(row(report, "bc", "J")->first, 2.0 / 4);
  EXPECT_EQ(row(report, "bc", "J")->second, 4);
  EXPECT_DOUBLE_EQ(row(report, "pa", "J")->first, 3.0 / 4);
  // stable_wrong over the complete units with gold: cons there (i1, i3) − bc (i1, i3) = 0.
  EXPECT_DOUBLE_EQ(row(report, "stable_wrong", "J")->first, 0.0);
  EXPECT_DOUBLE_EQ(row(report, "cons", "J")->first, 4.0 / 8);
  EXPECT_EQ(row(report, "cons", "J")->second, 8);
  // K on the gold items in order 0: A A B A → 3/4; the oracle over the same 4 items: 3/4.
  EXPECT_DOUBLE_EQ(row(report, "acc", "K", 0)->first, 3.0 / 4);
  const auto oracle = row(report, "oracle_acc", "K", 0, std::nullopt, std::string("J"));
  ASSERT_TRUE(oracle);
  EXPECT_EQ(oracle->second, 4);
  const std::string note = "4 of 8 items have no gold: " + std::string(kMetricsGoldStatistics) +
                           " are over the 4 items with gold; the other statistics over all 8";
  EXPECT_EQ(all_invalid_notes(report.validity), std::vector<std::string>{note});
}

TEST(MetricsGoldFree, FilesWithGoldGetNoNote) {
  const MetricsReport report =
      metrics_of("metrics_all_gold.csv", study_csv(true, {"A", "A", "B", "B", "A", "A", "B", "B"}));
  EXPECT_TRUE(all_invalid_notes(report.validity).empty());
  EXPECT_EQ(row(report, "acc", "J", 0)->second, 8);
  EXPECT_EQ(to_json(report, ReportHead{})["notes"].dump().find("no gold"), std::string::npos);
}

TEST(MetricsGoldFree, ManyInvalidRecordsNamedWithTheirMostCommonValue) {
  // W answers like J but says C on two records and nothing on one: with --labels A,B, 3 of its
  // 16 records are invalid (18.75% > 5%), most often verdict 'C'.
  std::string csv = study_csv(false, {});
  for (int i = 0; i < 8; ++i)
    for (int o = 0; o < 2; ++o) {
      const std::string verdict = i == 1 && o == 0   ? "C"
                                  : i == 5 && o == 1 ? "C"
                                  : i == 7 && o == 0 ? ""
                                                     : kVerdicts[i][o];
      csv += "W,i" + std::to_string(i + 1) + "," + std::to_string(o) + "," + verdict + "\n";
    }
  LoadOptions load;
  load.labels = {"A", "B"};
  MetricsOptions options;
  options.bootstrap.replicates = 200;
  const MetricsReport report =
      run_metrics(load_item_matrix(write_temp("metrics_many_invalid.csv", csv), load), options, cpu_target(2));
  ASSERT_EQ(report.validity.size(), 3u);
  EXPECT_EQ(report.validity[2].common_invalid_value, "verdict 'C'");
  EXPECT_EQ(report.validity[2].common_invalid_count, 2);
  const std::string note = "W: 3 of 16 records invalid (19%), most often verdict 'C' (2)";
  const std::vector<std::string> notes = all_invalid_notes(report.validity);
  ASSERT_EQ(notes.size(), 2u);  // W's, then the items without gold
  EXPECT_EQ(notes[0], note);
  EXPECT_TRUE(contains(tables(report, "text"), "WARNING: " + note + "\n"));
  // 1 invalid of 16 (6.25%) is named, with one decimal; 1 of 20 (5%) is not.
  JudgeValidity v{"V", 16, 1, "x", "no verdict", 1};
  EXPECT_EQ(many_invalid_note(v),
            std::optional<std::string>("V: 1 of 16 records invalid (6.2%), most often no verdict (1)"));
  v.records = 20;
  EXPECT_FALSE(many_invalid_note(v));
}

}  // namespace
