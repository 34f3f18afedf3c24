// Self-preference (docs/statistics.md §8.4) asks whether gold is there among the selection's items,
// not the whole file's: a benchmark without gold gives the no-gold note even when another has gold.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyses/systems/systems_test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;
using namespace judgestat::systems_testing;

namespace {

// Pointwise: benchmark b1 with gold, b2 without; authors alternate gpt / claude.
std::string two_benchmarks_csv() {
  std::ostringstream csv;
  csv << "judge,item,benchmark,gold,verdict,x.author\n";
  for (int k = 0; k < 8; ++k) {
    const bool with_gold = k < 4;
    csv << "J,r" << k << "," << (with_gold ? "b1" : "b2") << "," << (with_gold ? "good" : "") << ",good,"
        << (k % 2 ? "claude" : "gpt") << "\n";
  }
  return csv.str();
}

SystemsOptions pointwise_options() {
  SystemsOptions options;
  options.self = {"x.author"};
  options.family = {{"J", "openai"}, {"gpt", "openai"}, {"claude", "anthropic"}};
  return options;
}

LoadOptions good_bad() {
  LoadOptions load;
  load.labels = {"good", "bad"};
  return load;
}

}  // namespace

TEST(SystemsSelfPreferenceSelection, ABenchmarkWithoutGoldGivesTheNoGoldNote) {
  SystemsOptions options = pointwise_options();
  options.benchmarks = {"b2"};
  // self_acc is the only statistic asked for, so its note is why nothing is left to compute.
  const std::string message =
      thrown_message<UsageError>([&] { systems_of("self_b2.csv", two_benchmarks_csv(), options, good_bad()); });
  EXPECT_TRUE(contains(message, "(self_acc of J is left out: no item has gold")) << message;
}

TEST(SystemsSelfPreferenceSelection, TheBenchmarkWithGoldKeepsSelfAcc) {
  SystemsOptions options = pointwise_options();
  options.benchmarks = {"b1"};
  const SystemsReport report = systems_of("self_b1.csv", two_benchmarks_csv(), options, good_bad());
  // J says good on r0–r3, gold good: right on both gpt (own) and both claude (other) responses.
  EXPECT_DOUBLE_EQ(estimate(report, "self_acc", "J", std::nullopt, std::nullopt, "own"), 1.0);
  EXPECT_EQ(row(report, "self_acc", "J", std::nullopt, std::nullopt, "own-other")->n, 4);
}
