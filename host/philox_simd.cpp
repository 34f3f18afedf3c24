#include "philox_simd.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace judgestat {

#if defined(__x86_64__)
bool philox_avx2_supported() {
  static const bool supported = __builtin_cpu_supports("avx2");  // asked once per process
  return supported;
}

namespace {

// hi and lo 32 bits of the eight products m * x.
__attribute__((target("avx2"))) inline void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_mullo_epi32(x, m);
}

}  // namespace

__attribute__((target("avx2"))) void philox_blocks8(PhiloxKey key, uint32_t first,
                                                    uint32_t replicate, uint32_t stream,
                                                    uint32_t* out) {
  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first)),
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i c1 = _mm256_set1_epi32(static_cast<int>(replicate));
  __m256i c2 = _mm256_set1_epi32(static_cast<int>(stream));
  __m256i c3 = _mm256_setzero_si256();
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int round = 0; round < 10; ++round) {
    __m256i hi0, lo0, hi1, lo1;
    mul_hi_lo(c0, m0, hi0, lo0);
    mul_hi_lo(c2, m1, hi1, lo1);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
    c1 = lo1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  // Transpose the four word vectors into block-major order.
  alignas(32) uint32_t w[4][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[0]), c0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[1]), c1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[2]), c2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[3]), c3);
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 4; ++t) out[4 * b + t] = w[t][b];
}

namespace {

__attribute__((target("avx2"))) inline int32_t horizontal_sum(__m256i v) {
  __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
  return _mm_cvtsi128_si32(x);
}

// Four columns per pass so each multiplicity vector is loaded once for four multiply-adds.
__attribute__((target("avx2"))) void column_dots_avx2(const int16_t* m, const int16_t* t,
                                                      int64_t stride, int32_t n_columns,
                                                      int32_t* sums) {
  int32_t k = 0;
  for (; k + 4 <= n_columns; k += 4) {
    const int16_t* a = t + k * stride;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t c = 0; c < stride; c += 16) {
      const __m256i mv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + c));
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + c))));
      s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + stride + c))));
      s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 2 * stride + c))));
      s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 3 * stride + c))));
    }
    sums[k] = horizontal_sum(s0);
    sums[k + 1] = horizontal_sum(s1);
    sums[k + 2] = horizontal_sum(s2);
    sums[k + 3] = horizontal_sum(s3);
  }
  for (; k < n_columns; ++k) {
    const int16_t* a = t + k * stride;
    __m256i s0 = _mm256_setzero_si256();
    for (int64_t c = 0; c < stride; c += 16)
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + c)),
                                                  _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + c))));
    sums[k] = horizontal_sum(s0);
  }
}

}  // namespace
#else
bool philox_avx2_supported() { return false; }
void philox_blocks8(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream,
                    uint32_t* out) {
  for (uint32_t b = 0; b < 8; ++b) {
    const Words4 w = draw_block(key, first + b, replicate, stream);
    for (int t = 0; t < 4; ++t) out[4 * b + t] = w.w[t];
  }
}
#endif

void column_dots(const int16_t* m, const int16_t* t, int64_t stride, int32_t n_columns,
                 int32_t* sums) {
#if defined(__x86_64__)
  if (philox_avx2_supported()) {
    column_dots_avx2(m, t, stride, n_columns, sums);
    return;
  }
#endif
  for (int32_t k = 0; k < n_columns; ++k) {
    const int16_t* a = t + k * stride;
    int32_t sum = 0;
    for (int64_t c = 0; c < stride; ++c) sum += int32_t(m[c]) * a[c];
    sums[k] = sum;
  }
}

}  // namespace judgestat
