// docs/statistics.md §1 validity: the probability sum's tolerance (decimal sums at the edge are
// valid) and the reasons tallied for invalid records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "records/validity.hpp"

using namespace judgestat;

namespace {

const double kNotGiven = std::numeric_limits<double>::quiet_NaN();

// A probability as the loader reads it: the decimal text through strtod.
double from_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return std::strtod(text, nullptr);
}

int16_t code_of(double p_a, double p_b) {
  const loading::NumberedRecord record{};
  const std::vector<int32_t> slots{0, 1};
  const loading::VerdictMeaning a{0, false};
  const double probs[] = {p_a, p_b};
  return loading::verdict_code(record, probs, slots, &a, 2);
}

}  // namespace

TEST(ValiditySum, DecimalSumsAtTheToleranceAreValid) {
  // 0.975 read from text is 0.97499999999999997780, |0.975 − 1| = 0.025000000000000022 in
  // doubles: past 0.025 by 2.2e-17, within the 1e-9 slack.
  EXPECT_GT(std::fabs(0.975 - 1.0), 0.025);
  EXPECT_EQ(code_of(0.975, kNotGiven), 0);
  EXPECT_EQ(code_of(0.6, 0.375), 0);
  EXPECT_EQ(code_of(0.6, 0.425), 0);  // 1.025
  EXPECT_EQ(code_of(1.0, 0.025), 0);
  // One thousandth further is invalid on both sides.
  EXPECT_EQ(code_of(0.6, 0.374), kInvalid);  // 0.974
  EXPECT_EQ(code_of(0.6, 0.426), kInvalid);  // 1.026
  EXPECT_EQ(code_of(0.6, 0.35), kInvalid);   // docs' example: 0.95
  // Every split of 0.975 and of 1.025 into two thousandths with A on top: all valid (with a
  // strict 0.025 most of them were invalid: their binary sums land just past it).
  int strict_invalid = 0, n = 0;
  for (int k = 488; k <= 975; ++k) {
    const double p = from_text(k / 1000.0), q = from_text((975 - k) / 1000.0);
    if (q > p) continue;
    ++n;
    strict_invalid += std::fabs((p + q) - 1.0) > 0.025;
    EXPECT_EQ(code_of(p, q), 0) << p << " + " << q;
    const double r = from_text((1025 - k) / 1000.0);
    if (r <= p) EXPECT_EQ(code_of(p, r), 0) << p << " + " << r;
  }
  EXPECT_EQ(n, 488);
  EXPECT_GT(strict_invalid, n / 2);  // what the tolerance fixes
  EXPECT_TRUE(loading::probability_sum_ok(0.975 - 9e-10));
  EXPECT_FALSE(loading::probability_sum_ok(0.975 - 2e-9));
}

TEST(InvalidReasons, MostCommonWithItsFirstValue) {
  loading::InvalidReasons none;
  EXPECT_EQ(none.most_common(), "");

  // Probabilities written as percentages: 70 and 30 are outside [0, 1].
  loading::InvalidReasons percent;
  const double p70[] = {70, 30}, p55[] = {55, 45}, off[] = {0.6, 0.3};
  percent.add(p70, 2);
  percent.add(off, 2);
  percent.add(p55, 2);
  EXPECT_EQ(percent.most_common(), "a probability outside [0, 1] (e.g. 70): probabilities written as percentages?");

  // Sums off 1 win when they are the most common; the example is the first sum seen.
  loading::InvalidReasons sums;
  const double negative[] = {-0.5, kNotGiven}, half[] = {0.5, kNotGiven};
  sums.add(off, 2);
  sums.add(half, 2);
  sums.add(negative, 2);
  EXPECT_EQ(sums.most_common(), "probabilities that do not sum to 1 within 0.025 (e.g. a sum of 0.9)");

  // A record whose probabilities are fine was invalid for its verdict; a tie goes to the earlier
  // rule (outside [0, 1] before the verdict).
  loading::InvalidReasons verdicts;
  const double fine[] = {0.7, 0.3}, missing[] = {kNotGiven, kNotGiven};
  verdicts.add(fine, 2);
  verdicts.add(missing, 2);
  verdicts.add(negative, 2);
  EXPECT_EQ(verdicts.most_common(),
            "a verdict that is missing, outside the label set, or not a highest-probability label");
  verdicts.add(negative, 2);
  EXPECT_EQ(verdicts.most_common(), "a probability outside [0, 1] (e.g. -0.5)");
}
