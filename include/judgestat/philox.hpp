// Philox4x32-10 counter-based generator (Salmon et al. 2011) and docs/statistics.md §2's stream layout.
// One definition serves host and device, so both backends draw the same numbers.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define JS_HD __host__ __device__ __forceinline__
#else
#define JS_HD inline
#endif

namespace judgestat {

struct Words4 {
  uint32_t w[4];
};

JS_HD uint32_t mulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

/// Philox4x32 with 10 rounds: counter (c0..c3), key (k0, k1) -> four 32-bit words.
JS_HD Words4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    const uint32_t hi0 = mulhi32(M0, c0), lo0 = M0 * c0;
    const uint32_t hi1 = mulhi32(M1, c2), lo1 = M1 * c2;
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += W0;
    k1 += W1;
  }
  return Words4{{c0, c1, c2, c3}};
}

/// Stream numbers of docs/statistics.md §2 (and §7.3's sign flips).
constexpr uint32_t kBudgetStream = 1u << 30;
/// Sign-flip permutation test (docs/statistics.md §7.3): cluster c's sign in replicate r is bit
/// c mod 32 of word (c div 32) mod 4 of Philox(counter = (c div 128, r, kSignFlipStream, 0)).
constexpr uint32_t kSignFlipStream = 1u << 29;
JS_HD constexpr uint32_t bootstrap_stream(uint32_t stratum) { return stratum; }
JS_HD constexpr uint32_t normal_stream(uint32_t k) { return (1u << 31) + k; }

/// The seed's key: (seed mod 2^32, seed div 2^32).
struct PhiloxKey {
  uint32_t k0, k1;
  JS_HD explicit PhiloxKey(uint64_t seed) : k0(static_cast<uint32_t>(seed)), k1(static_cast<uint32_t>(seed >> 32)) {}
};

/// The block of four words holding draws 4*block .. 4*block+3 of (replicate, stream).
JS_HD Words4 draw_block(PhiloxKey key, uint32_t block, uint32_t replicate, uint32_t stream) {
  return philox4x32_10(block, replicate, stream, 0u, key.k0, key.k1);
}

/// Draw d of (replicate, stream): word d mod 4 of Philox(counter = (d div 4, r, s, 0)).
JS_HD uint32_t draw_word(PhiloxKey key, uint64_t d, uint32_t replicate, uint32_t stream) {
  return draw_block(key, static_cast<uint32_t>(d >> 2), replicate, stream).w[d & 3];
}

/// Uniform index in [0, n) from one 32-bit word: (u * n) >> 32.
JS_HD uint32_t scale_to(uint32_t u, uint32_t n) { return static_cast<uint32_t>((static_cast<uint64_t>(u) * n) >> 32); }

}  // namespace judgestat
