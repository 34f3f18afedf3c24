// Philox known answers (Random123 / docs/statistics.md §2), the stream layout, and the SIMD block generators
// (every wide path gives the scalar path's bits).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/philox_simd.hpp"
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
  const Words4 w = philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0);
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

TEST(Philox, SixteenWideBlocksEqualScalar) {
  if (!philox_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512; philox_blocks16 is not used";
  uint32_t words[64];
  for (uint64_t seed : {0ull, 0xDEADBEEF12345678ull, 0xFFFFFFFFFFFFFFFFull})
    for (uint32_t replicate : {0u, 77u, 0xFFFFFFFFu})
      for (uint32_t stream : {0u, 5u, kBudgetStream, normal_stream(3)})
        for (uint32_t first : {0u, 16u, 1000u, 0xFFFFFFF0u, 0xFFFFFFF8u}) {  // last two wrap
          const PhiloxKey key(seed);
          philox_blocks16(key, first, replicate, stream, words);
          for (uint32_t b = 0; b < 16; ++b) {
            const Words4 want = draw_block(key, first + b, replicate, stream);
            for (int t = 0; t < 4; ++t)
              ASSERT_EQ(words[4 * b + t], want.w[t]) << "seed " << seed << " r " << replicate << " s " << stream
                                                     << " first " << first << " block " << b << " word " << t;
          }
        }
}

// The scalar count of docs/statistics.md §2's draws: ++m[(u · n) >> 32] for every word.
template <typename Count>
std::vector<Count> counted_by_scalar(PhiloxKey key, uint32_t first, uint32_t blocks, uint32_t replicate,
                                     uint32_t stream, uint32_t n, size_t slots) {
  std::vector<Count> m(slots, 0);
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t word : draw_block(key, first + b, replicate, stream).w) ++m[scale_to(word, n)];
  return m;
}

template <typename Count>
void expect_groups_count_like_scalar() {
  // Sizes: one slot (every draw lands on it), small, W1's 5000 and int16's limit.
  for (uint32_t n : {1u, 7u, 5000u, 32767u})
    for (uint32_t groups : {0u, 1u, 3u, 10u})
      for (uint32_t first : {0u, 16u, 1000u, 0xFFFFFFF0u})  // the last wraps past 2^32
        for (uint32_t replicate : {0u, 77u, 0xFFFFFFFFu}) {
          const PhiloxKey key(0xDEADBEEF12345678ull + n);
          std::vector<Count> got(n, 0);
          count_draw_groups(key, first, groups, replicate, 5, n, got.data());
          ASSERT_EQ(got, counted_by_scalar<Count>(key, first, 16 * groups, replicate, 5, n, n))
              << "n " << n << " groups " << groups << " first " << first << " replicate " << replicate;
        }
}

TEST(Philox, DrawGroupsCountTheScalarDraws) {
  if (!philox_avx2_supported()) GTEST_SKIP() << "this CPU has no AVX2; count_draw_groups is not used";
  expect_groups_count_like_scalar<int16_t>();
  expect_groups_count_like_scalar<int32_t>();
  // A range past 2^21, where the products' high words use every bit (the gather path's strata).
  const PhiloxKey key(7);
  const uint32_t n = 3000017;
  std::vector<int32_t> got(n, 0);
  count_draw_groups(key, 12, 40, 3, 0, n, got.data());
  EXPECT_EQ(got, counted_by_scalar<int32_t>(key, 12, 640, 3, 0, n, n));
}

TEST(Philox, DrawGroupsCountIntoTheirSlotsOnly) {
  // Counting adds to the slots drawn and nothing else: a second call adds the same counts again,
  // and slots past n stay untouched.
  if (!philox_avx2_supported()) GTEST_SKIP() << "this CPU has no AVX2; count_draw_groups is not used";
  const PhiloxKey key(42);
  std::vector<int32_t> m(1100, 0);
  count_draw_groups(key, 3, 5, 9, bootstrap_stream(2), 1000, m.data());
  count_draw_groups(key, 3, 5, 9, bootstrap_stream(2), 1000, m.data());
  std::vector<int32_t> want = counted_by_scalar<int32_t>(key, 3, 80, 9, bootstrap_stream(2), 1000, 1100);
  for (auto& v : want) v *= 2;
  EXPECT_EQ(m, want);
  int64_t total = 0;
  for (int32_t v : m) total += v;
  EXPECT_EQ(total, 2 * 80 * 4);
}
