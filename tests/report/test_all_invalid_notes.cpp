// A judge whose records are all invalid is named above the tables by every analysis that has
// judges (issue 26, part 6; docs/statistics.md §1): cascade, profile, coverage, budget and
// budget-compare, as metrics does (tests/report/test_meaningless_numbers.cpp): a WARNING line
// first in text and md, the note first in the JSON's notes, and csv one table as before.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyses/common/judge_validity.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/coverage.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/profile.hpp"
#include "judgestat/records.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// 40 items in 40 clusters of benchmark "b", gold alternating A/B. R answers with valid
// probabilities (right on 3 items of 4); Y gives verdicts only (right on 4 of 5); P answers A with
// its probabilities written as percentages (70 / 30), so every record of P's is invalid.
std::string judges_csv(bool with_p) {
  std::ostringstream csv;
  csv << "judge,item,cluster,benchmark,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < 40; ++i) {
    const std::string row_head = "i" + std::to_string(i) + ",c" + std::to_string(i) + ",b,";
    const std::string gold = i % 2 ? "B" : "A", other = i % 2 ? "A" : "B";
    const std::string r = i % 4 ? gold : other;
    csv << "R," << row_head << gold << "," << r << "," << (r == "A" ? "0.8,0.2" : "0.3,0.7") << "\n";
    csv << "Y," << row_head << gold << "," << (i % 5 ? gold : other) << ",,\n";
    if (with_p) csv << "P," << row_head << gold << ",A,70,30\n";
  }
  return csv.str();
}

const ItemMatrix& matrix_with_p() {
  static const ItemMatrix m = load_item_matrix(write_temp("all_invalid_p.csv", judges_csv(true)));
  return m;
}

const ItemMatrix& matrix_without_p() {
  static const ItemMatrix m = load_item_matrix(write_temp("all_invalid_none.csv", judges_csv(false)));
  return m;
}

// The note as docs/statistics.md §1 words it for P (InvalidReasons names the first offending value).
const std::string kNote =
    "every record of judge P is invalid (40 of 40), most often a probability outside [0, 1] (e.g. 70): "
    "probabilities written as percentages?; its accuracy-type statistics count each as an error and it has no "
    "probability metrics";

// P is named first in text and md and in the JSON's notes, not in the csv; R and Y are not named.
template <typename Report>
void expect_p_named(const Report& report) {
  const std::string warning = "WARNING: " + kNote + "\n";
  for (const std::string format : {"text", "md"}) {
    const std::string text = tables(report, format);
    EXPECT_EQ(text.substr(0, warning.size()), warning) << format << "\n" << text;
    EXPECT_EQ(text.find("WARNING", 1), std::string::npos) << format << "\n" << text;  // once
  }
  EXPECT_FALSE(contains(tables(report, "csv"), "invalid (")) << tables(report, "csv");
  const Json json = to_json(report, ReportHead{});
  ASSERT_TRUE(json.contains("notes")) << json.dump();
  ASSERT_FALSE(json["notes"].empty());
  EXPECT_EQ(json["notes"][0], kNote);
  EXPECT_FALSE(contains(json["notes"].dump(), "judge R ")) << json["notes"].dump();
  EXPECT_FALSE(contains(json["notes"].dump(), "judge Y ")) << json["notes"].dump();
}

// Without an all-invalid judge nothing is added: no WARNING and, where the JSON had no notes
// before (coverage, budget), no `notes` key, so such outputs keep their bytes.
template <typename Report>
void expect_nothing_added(const Report& report, bool json_has_notes) {
  for (const std::string format : {"text", "md", "csv"})
    EXPECT_FALSE(contains(tables(report, format), "WARNING")) << format;
  const Json json = to_json(report, ReportHead{});
  EXPECT_EQ(json.contains("notes"), json_has_notes);
  if (json_has_notes) {
    EXPECT_FALSE(contains(json["notes"].dump(), "every record of judge"));
  }
}

TEST(AllInvalidNotes, JudgeValidityCountsEveryRecordOfTheInput) {
  const ItemMatrix& m = matrix_with_p();
  const auto validity = judge_validity(m, {m.judge_index("R"), m.judge_index("P")});
  ASSERT_EQ(validity.size(), 2u);
  EXPECT_EQ(validity[0].judge, "R");
  EXPECT_EQ(validity[0].records, 40);
  EXPECT_EQ(validity[0].invalid, 0);
  EXPECT_EQ(validity[0].invalid_reason, "");
  EXPECT_EQ(validity[1].judge, "P");
  EXPECT_EQ(validity[1].records, 40);
  EXPECT_EQ(validity[1].invalid, 40);
  EXPECT_EQ(all_invalid_notes(validity), std::vector<std::string>{kNote});
  EXPECT_EQ(all_invalid_warnings(validity, "csv"), "");
  // One valid record is enough not to be named.
  EXPECT_TRUE(all_invalid_notes({{"Q", 40, 39, "x"}}).empty());
  EXPECT_TRUE(all_invalid_notes({{"Q", 0, 0, ""}}).empty());  // no records: nothing to say
}

TEST(AllInvalidNotes, CascadeNamesTheJudge) {
  CascadeOptions options;
  options.first = "R";
  options.fallback = "P";
  options.bootstrap.replicates = 200;
  const CascadeReport report = run_cascade(matrix_with_p(), options, cpu_target(2));
  ASSERT_EQ(report.validity.size(), 2u);
  EXPECT_EQ(report.validity[1].invalid, 40);
  expect_p_named(report);
  options.fallback = "Y";
  expect_nothing_added(run_cascade(matrix_without_p(), options, cpu_target(2)), true);
}

TEST(AllInvalidNotes, ProfileNamesTheJudge) {
  ProfileOptions options;
  options.config = parse_profile_config(R"({"benchmarks": [{"name": "b", "conditions": {}}]})", "inline");
  options.bootstrap.replicates = 200;
  const ProfileReport report = run_profile(matrix_with_p(), options, cpu_target(2));
  ASSERT_EQ(report.validity.size(), 3u);  // the plan's judges, in its order
  expect_p_named(report);
  expect_nothing_added(run_profile(matrix_without_p(), options, cpu_target(2)), true);
}

TEST(AllInvalidNotes, CoverageNamesTheJudge) {
  CoverageOptions options;
  options.judges = {"R", "P"};
  options.datasets = 4;
  options.bootstrap.replicates = 100;
  const CoverageReport report = run_coverage(matrix_with_p(), options, cpu_target(2));
  ASSERT_EQ(report.validity.size(), 2u);
  EXPECT_EQ(report.validity[1].judge, "P");
  expect_p_named(report);
  options.judges = {"R", "Y"};
  expect_nothing_added(run_coverage(matrix_without_p(), options, cpu_target(2)), false);
}

TEST(AllInvalidNotes, BudgetNamesTheJudge) {
  BudgetOptions options;
  options.first = "R";
  options.fallback = "P";
  options.ks = {10};
  options.draws = 200;
  const BudgetReport report = run_budget(matrix_with_p(), options, cpu_target(2));
  expect_p_named(report);
  options.fallback = "Y";
  expect_nothing_added(run_budget(matrix_without_p(), options, cpu_target(2)), false);
}

TEST(AllInvalidNotes, BudgetCompareNamesTheJudge) {
  BudgetCompareOptions options;
  options.a = "R";
  options.b = "P";
  options.ks = {10};
  options.draws = 200;
  const BudgetCompareReport report = run_budget_compare(matrix_with_p(), options, cpu_target(2));
  expect_p_named(report);
  options.b = "Y";
  expect_nothing_added(run_budget_compare(matrix_without_p(), options, cpu_target(2)), true);
}

// docs/statistics.md §8.1: the analyses that need gold throughout run on the items with gold,
// named in one note above their tables, and stop with a usage error when no item has gold.
std::string without_gold_csv(int from_item) {
  std::istringstream rows(judges_csv(false));
  std::string line, out;
  std::getline(rows, line);
  out = line + "\n";
  while (std::getline(rows, line)) {
    // judge,item,cluster,benchmark,gold,...: blank the gold of items i<from_item> and later.
    const size_t item = line.find(",i") + 2;
    if (std::stoi(line.substr(item)) >= from_item) {
      size_t gold = 0;
      for (int comma = 0; comma < 4; ++comma) gold = line.find(',', gold) + 1;
      line.erase(gold, line.find(',', gold) - gold);
    }
    out += line + "\n";
  }
  return out;
}

const std::string kGoldNote =
    "10 of 40 items have no gold and are left out: every statistic of this analysis needs gold, so it is over the 30 "
    "items with gold";

template <typename Report>
void expect_gold_note(const Report& report) {
  ASSERT_FALSE(report.validity.empty());
  EXPECT_EQ(report.validity.front().items, 40);
  EXPECT_EQ(report.validity.front().items_without_gold, 10);
  EXPECT_EQ(tables(report, "text").substr(0, 9 + kGoldNote.size() + 1), "WARNING: " + kGoldNote + "\n");
  EXPECT_EQ(to_json(report, ReportHead{})["notes"][0], kGoldNote);
}

TEST(AllInvalidNotes, AnalysesThatNeedGoldUseTheItemsWithGold) {
  const ItemMatrix some = load_item_matrix(write_temp("some_gold.csv", without_gold_csv(30)));
  ASSERT_EQ(some.items_without_gold, 10);
  const ItemMatrix none = load_item_matrix(write_temp("no_gold.csv", without_gold_csv(0)));
  CascadeOptions cascade;
  cascade.first = "R";
  cascade.fallback = "Y";
  cascade.bootstrap.replicates = 200;
  const CascadeReport report = run_cascade(some, cascade, cpu_target(2));
  EXPECT_EQ(report.items, 30);
  EXPECT_EQ(report.validity[0].records, 30);  // R's records on the items with gold
  expect_gold_note(report);
  EXPECT_TRUE(contains(thrown_message<UsageError>([&] { run_cascade(none, cascade, cpu_target(2)); }),
                       "cascade needs gold labels"));
  BudgetOptions budget;
  budget.first = "R";
  budget.fallback = "Y";
  budget.ks = {10};
  budget.draws = 200;
  expect_gold_note(run_budget(some, budget, cpu_target(2)));
  EXPECT_TRUE(contains(thrown_message<UsageError>([&] { run_budget(none, budget, cpu_target(2)); }),
                       "budget needs gold labels"));
  ProfileOptions profile;
  profile.config = parse_profile_config(R"({"benchmarks": [{"name": "b", "conditions": {}}]})", "inline");
  profile.bootstrap.replicates = 200;
  expect_gold_note(run_profile(some, profile, cpu_target(2)));
  EXPECT_TRUE(contains(thrown_message<UsageError>([&] { run_profile(none, profile, cpu_target(2)); }),
                       "profile needs gold labels"));
  CoverageOptions coverage;
  coverage.judges = {"R", "Y"};
  coverage.datasets = 4;
  coverage.bootstrap.replicates = 100;
  expect_gold_note(run_coverage(some, coverage, cpu_target(2)));
}

}  // namespace
