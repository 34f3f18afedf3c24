// Philox known answers (Random123 / SPEC §2), the stream layout, quantiles, normal quantiles.
#include <gtest/gtest.h>

#include <cmath>

#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"

using namespace judgestat;

TEST(Philox, Random123KnownAnswerZero) {
  const Words4 w = philox4x32_10(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(w.w[0], 0x6627e8d5u);
  EXPECT_EQ(w.w[1], 0xe169c58du);
  EXPECT_EQ(w.w[2], 0xbc57ac4cu);
  EXPECT_EQ(w.w[3], 0x9b00dbd8u);
}

TEST(Philox, Random123KnownAnswerPi) {
  const Words4 w = philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
                                 0x299f31d0);
  EXPECT_EQ(w.w[0], 0xd16cfe09u);
  EXPECT_EQ(w.w[1], 0x94fdccebu);
  EXPECT_EQ(w.w[2], 0x5001e420u);
  EXPECT_EQ(w.w[3], 0x24126ea1u);
}

TEST(Philox, StreamLayoutFollowsSpec) {
  // Draw d of (replicate r, stream s) is word d mod 4 of counter (d div 4, r, s, 0); the key is
  // (seed mod 2^32, seed div 2^32).
  const uint64_t seed = 0x0000000500000007ull;
  const PhiloxKey key(seed);
  EXPECT_EQ(key.k0, 7u);
  EXPECT_EQ(key.k1, 5u);
  for (uint64_t d : {0ull, 3ull, 4ull, 13ull}) {
    const Words4 expected = philox4x32_10(static_cast<uint32_t>(d / 4), 9, 2, 0, 7, 5);
    EXPECT_EQ(draw_word(key, d, 9, 2), expected.w[d % 4]);
  }
  EXPECT_EQ(scale_to(0xFFFFFFFFu, 10), 9u);
  EXPECT_EQ(scale_to(0x80000000u, 10), 5u);
  EXPECT_EQ(scale_to(0, 10), 0u);
  EXPECT_EQ(normal_stream(3), 0x80000003u);
  EXPECT_EQ(kBudgetStream, 0x40000000u);
}

TEST(Intervals, QuantileType7MatchesNumpy) {
  // numpy.percentile([1, 2, 4, 8, 16], [2.5, 50, 97.5]) = [1.1, 4.0, 15.2]
  const std::vector<double> sorted{1, 2, 4, 8, 16};
  EXPECT_NEAR(quantile_type7(sorted, 0.025), 1.1, 1e-15);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.5), 4.0);
  EXPECT_NEAR(quantile_type7(sorted, 0.975), 15.2, 1e-14);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 1.0), 16.0);
}

TEST(Intervals, NormalQuantileAgreesWithScipy) {
  // scipy.special.ndtri(0.975) = 1.959963984540054, ndtri(0.001) = -3.090232306167813
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_cdf(normal_quantile(0.3)), 0.3, 1e-15);
}

#include "philox_simd.hpp"

TEST(Philox, EightWideBlocksEqualScalar) {
  if (!philox_avx2_supported()) GTEST_SKIP() << "this CPU has no AVX2; the scalar path is used";
  const PhiloxKey key(0xDEADBEEF12345678ull);
  uint32_t words[32];
  for (uint32_t first : {0u, 8u, 1000u, 0xFFFFFFF8u}) {
    philox_blocks8(key, first, 77, 5, words);
    for (uint32_t b = 0; b < 8; ++b)
      for (int t = 0; t < 4; ++t) EXPECT_EQ(words[4 * b + t], draw_block(key, first + b, 77, 5).w[t]);
  }
}
