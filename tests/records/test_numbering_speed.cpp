// The loader's fast paths give what the general ones gave: the decimal fast path of parse_double
// (against strtod, correctly rounded) and the hash table of Numbering (against first appearance).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "records/fields.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {
namespace {

// Bitwise, so that -0.0 and 0.0 differ.
void expect_same_as_strtod(const std::string& text) {
  double ours = -1.0;
  ASSERT_TRUE(parse_double(text, ours)) << text;
  const double reference = std::strtod(text.c_str(), nullptr);
  EXPECT_EQ(std::memcmp(&ours, &reference, sizeof ours), 0) << text << ": " << ours << " vs " << reference;
}

TEST(LoaderFastPaths, DecimalsMatchStrtodBitwise) {
  // The fast path's edges: 2^53 and 2^53 + 1 (which it leaves to from_chars), 19 and 20 digits,
  // leading zeros, a trailing or leading point, and the shapes of probabilities.
  for (const char* text : {"0.2028",
                           "0.7972",
                           "1",
                           "0",
                           "00",
                           "007",
                           "1.",
                           ".5",
                           "0.1",
                           "0.3",
                           "9007199254740992",
                           "9007199254740993",
                           "0.9007199254740993",
                           "1234567890123456789",
                           "12345678901234567890",
                           "0.000000000000000001",
                           "0.0000000000000000001",
                           "+0.25",
                           "-0.25",
                           " 0.5 ",
                           "1e-3"}) {
    expect_same_as_strtod(text);
  }
  std::mt19937_64 random(26);
  for (int k = 0; k < 200000; ++k) {
    std::string text = std::to_string(random() % 1000);
    if (k % 3 != 0) text += "." + std::to_string(random() >> (random() % 64));
    expect_same_as_strtod(text);
  }
}

TEST(LoaderFastPaths, DecimalFastPathRefusesWhatFromCharsRefuses) {
  double out = 0;
  for (const char* text : {".", "1.2.3", "1,5", "0x1p-1", "--1", "", "  ", "+"}) {
    EXPECT_FALSE(parse_double(text, out)) << text;
  }
}

TEST(LoaderFastPaths, NumberingKeepsFirstAppearanceThroughGrowth) {
  // Enough names to grow the table several times; every name again, in another order.
  Numbering numbering;
  std::vector<std::string> names;
  for (int k = 0; k < 5000; ++k) names.push_back("item-" + std::to_string(k * 7919 % 100003));
  names.push_back(std::string(20000, 'x'));  // longer than a block's quarter: a block of its own
  names.push_back("");
  for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(numbering.id(names[k]), static_cast<int32_t>(k));
  for (size_t k = names.size(); k-- > 0;) EXPECT_EQ(numbering.id(names[k]), static_cast<int32_t>(k));
  ASSERT_EQ(numbering.size(), names.size());
  EXPECT_EQ(numbering.names(), names);
  Numbering moved = std::move(numbering);  // the names' views survive a move
  EXPECT_EQ(moved.name(4999), names[4999]);
  EXPECT_EQ(moved.id("item-new"), static_cast<int32_t>(names.size()));
}

}  // namespace
}  // namespace judgestat::loading
