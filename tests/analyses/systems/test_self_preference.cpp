// Self-preference (docs/statistics.md §8.4, issue 28 item 3) on data with a planted bias: J prefers
// its own family's responses whatever gold says, K follows gold.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyses/systems/systems_test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;
using namespace judgestat::systems_testing;

namespace {

// Pairwise items (A's model, B's model, gold). J (openai) picks gpt wherever gpt wrote one side, else A;
// K (anthropic) says gold.
//   p1 gpt|claude A   p2 claude|gpt A   p3 gpt|llama B   p4 llama|gpt B
//   p5 claude|llama A p6 llama|claude A p7 llama|llama A
const char* kItems[7][3] = {{"gpt", "claude", "A"}, {"claude", "gpt", "A"},   {"gpt", "llama", "B"},
                            {"llama", "gpt", "B"},  {"claude", "llama", "A"}, {"llama", "claude", "A"},
                            {"llama", "llama", "A"}};

std::string pairwise_csv(bool with_gold) {
  std::ostringstream csv;
  csv << "judge,item," << (with_gold ? "gold," : "") << "verdict,x.model_a,x.model_b\n";
  for (int k = 0; k < 7; ++k) {
    const std::string a = kItems[k][0], b = kItems[k][1], gold = kItems[k][2];
    const std::string j = a == "gpt" ? "A" : b == "gpt" ? "B" : "A";
    for (const auto& [judge, verdict] : {std::pair{"J", j}, std::pair{"K", gold}})
      csv << judge << ",p" << k + 1 << "," << (with_gold ? gold + "," : "") << verdict << "," << a << "," << b << "\n";
  }
  return csv.str();
}

SystemsOptions self_options() {
  SystemsOptions options;
  options.self = {"x.model_a", "x.model_b"};
  options.family = {{"J", "openai"}, {"K", "anthropic"}, {"gpt", "openai"}, {"claude", "anthropic"}};
  return options;
}

LoadOptions pair_labels() {
  LoadOptions load;
  load.labels = {"A", "B"};
  return load;
}

TEST(SystemsSelfPreference, PairwisePlantedBiasWithGold) {
  const SystemsReport report = systems_of("self_pairs.csv", pairwise_csv(true), self_options(), pair_labels());
  // J on p1–p4 (one gpt side each) picks gpt every time.
  EXPECT_DOUBLE_EQ(estimate(report, "self_pref", "J", std::nullopt, std::nullopt, "own"), 4.0 / 4);
  EXPECT_EQ(row(report, "self_pref", "J", std::nullopt, std::nullopt, "own")->n, 4);
  // Gold is the gpt side on p1 and p4 (J right on both), the other side on p2 and p3 (J wrong on both).
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "own"), 2.0 / 2);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "other"), 0.0 / 2);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "own-other"), 1.0);
  // K on p1, p2, p5, p6 (one claude side each): it says A, which is claude's on p2 and p5 only.
  EXPECT_DOUBLE_EQ(estimate(report, "self_pref", "K", std::nullopt, std::nullopt, "own"), 2.0 / 4);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "K", std::nullopt, std::nullopt, "own-other"), 0.0);
  EXPECT_EQ(report.judge_family.at("J"), "openai");
}

TEST(SystemsSelfPreference, PairwiseWithoutGoldGivesThePreferenceOnly) {
  const SystemsReport report = systems_of("self_free.csv", pairwise_csv(false), self_options(), pair_labels());
  EXPECT_DOUBLE_EQ(estimate(report, "self_pref", "J", std::nullopt, std::nullopt, "own"), 1.0);
  EXPECT_FALSE(row(report, "self_acc", "J", std::nullopt, std::nullopt, "own"));
}

TEST(SystemsSelfPreference, PointwiseAccuracyOnOwnAndOtherResponses) {
  // Eight responses, gold good/bad alternating; J (openai) right on every gpt response and on the
  // first two claude ones only; K (anthropic) always right.
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.author\n";
  for (int k = 0; k < 8; ++k) {
    const std::string author = k < 4 ? "gpt" : "claude", gold = k % 2 ? "bad" : "good";
    const std::string wrong = gold == "good" ? "bad" : "good";
    csv << "J,r" << k << "," << gold << "," << (k < 6 ? gold : wrong) << "," << author << "\n";
    csv << "K,r" << k << "," << gold << "," << gold << "," << author << "\n";
  }
  SystemsOptions options;
  options.self = {"x.author"};
  options.family = {{"J", "openai"}, {"K", "anthropic"}, {"gpt", "openai"}, {"claude", "anthropic"}};
  const SystemsReport report = systems_of("self_point.csv", csv.str(), options);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "own"), 4.0 / 4);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "other"), 2.0 / 4);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "own-other"), 0.5);
  EXPECT_EQ(row(report, "self_acc", "J", std::nullopt, std::nullopt, "own-other")->n, 8);
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "K", std::nullopt, std::nullopt, "own-other"), 0.0);
}

TEST(SystemsSelfPreference, ScoreJudgeScoresItsOwnFamilyHigher) {
  // Six responses on 1..10 with gold scores; J (openai) adds 2 points to gpt's responses, 0 to claude's.
  const int gold[6] = {5, 7, 3, 6, 8, 4};
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,x.author\n";
  double own = 0, other = 0, own_error = 0, other_error = 0;
  for (int k = 0; k < 6; ++k) {
    const bool gpt = k % 2 == 0;
    const int score = gold[k] + (gpt ? 2 : 0);
    csv << "J,r" << k << "," << gold[k] << "," << score << "," << (gpt ? "gpt" : "claude") << "\n";
    (gpt ? own : other) += score / 3.0;
    (gpt ? own_error : other_error) += (score - gold[k]) / 3.0;
  }
  SystemsOptions options;
  options.self = {"x.author"};
  options.family = {{"J", "openai"}, {"gpt", "openai"}};
  LoadOptions load;
  load.scale = ScoreScale{1, 10};
  const SystemsReport report = systems_of("self_scores.csv", csv.str(), options, load);
  EXPECT_NEAR(estimate(report, "self_score", "J", std::nullopt, std::nullopt, "own"), own, 1e-14);
  EXPECT_NEAR(estimate(report, "self_score", "J", std::nullopt, std::nullopt, "other"), other, 1e-14);
  EXPECT_NEAR(estimate(report, "self_error", "J", std::nullopt, std::nullopt, "own"), own_error, 1e-14);
  EXPECT_NEAR(estimate(report, "self_error", "J", std::nullopt, std::nullopt, "own-other"), 2.0, 1e-14);
}

TEST(SystemsSelfPreference, AJudgeWithoutAFamilyIsAnErrorNamingTheFlagAndJudge) {
  SystemsOptions options = self_options();
  options.family.erase("K");
  const std::string message =
      thrown_message<UsageError>([&] { systems_of("no_family.csv", pairwise_csv(true), options, pair_labels()); });
  EXPECT_TRUE(contains(message, "--family: no family for judge 'K'")) << message;
}

TEST(SystemsSelfPreference, FamiliesFromARecordColumn) {
  std::string csv = "judge,item,gold,verdict,x.model_a,x.model_b,x.family\n";
  std::istringstream lines(pairwise_csv(true));
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) csv += line + "," + (line[0] == 'J' ? "openai" : "anthropic") + "\n";
  SystemsOptions options = self_options();
  options.family.erase("J");
  options.family.erase("K");
  options.family_column = "x.family";
  const SystemsReport report = systems_of("family_column.csv", csv, options, pair_labels());
  EXPECT_DOUBLE_EQ(estimate(report, "self_pref", "J", std::nullopt, std::nullopt, "own"), 1.0);
  EXPECT_EQ(report.judge_family.at("K"), "anthropic");
  // A judge whose records give two families: file, line and column.
  const size_t last = csv.rfind("anthropic");
  csv.replace(last, 9, "openai");
  const std::string message =
      thrown_message<InputError>([&] { systems_of("two_families.csv", csv, options, pair_labels()); });
  EXPECT_TRUE(contains(message, ":15:")) << message;  // K's last record, line 15 of the file
  EXPECT_TRUE(contains(message, "x.family")) << message;
}

}  // namespace
