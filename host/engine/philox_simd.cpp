#include "engine/philox_simd.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
// GCC 12.0-12.2's AVX-512 intrinsics self-initialise their undefined operands and so draw false
// (-Wmaybe-)uninitialized warnings when inlined (GCC PR 105593); silenced for that header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace judgestat {

namespace {

constexpr const char* kPathNames[] = {"scalar", "avx2", "avx512", "avx512_vnni"};

SimdPath detect_best() {
#if defined(__x86_64__)
  // libgcc's checks include the OS's XSAVE support (XCR0) for the AVX and AVX-512 states.
  if (!__builtin_cpu_supports("avx2")) return SimdPath::scalar;
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) return SimdPath::avx2;
  if (!__builtin_cpu_supports("avx512vnni")) return SimdPath::avx512;
  return SimdPath::avx512_vnni;
#else
  return SimdPath::scalar;
#endif
}

// JUDGESTAT_SIMD caps the path; unknown values are reported once and ignored.
SimdPath path_from_environment(SimdPath best) {
  const char* value = std::getenv("JUDGESTAT_SIMD");
  if (value == nullptr || *value == '\0' || std::strcmp(value, "auto") == 0) return best;
  for (int p = 0; p < 4; ++p)
    if (std::strcmp(value, kPathNames[p]) == 0) return static_cast<SimdPath>(std::min(p, static_cast<int>(best)));
  std::fprintf(stderr,
               "judgestat: JUDGESTAT_SIMD=%s is not one of auto, scalar, avx2, avx512, "
               "avx512_vnni; ignored\n",
               value);
  return best;
}

std::atomic<int>& chosen_path() {
  static std::atomic<int> path{static_cast<int>(path_from_environment(simd_best_supported()))};
  return path;
}

}  // namespace

SimdPath simd_best_supported() {
  static const SimdPath best = detect_best();  // asked once per process
  return best;
}

SimdPath simd_path() { return static_cast<SimdPath>(chosen_path().load(std::memory_order_relaxed)); }

const char* simd_path_name(SimdPath path) { return kPathNames[static_cast<int>(path)]; }

void set_simd_path_for_testing(SimdPath path) {
  chosen_path().store(std::min(static_cast<int>(path), static_cast<int>(simd_best_supported())),
                      std::memory_order_relaxed);
}

bool philox_avx2_supported() { return simd_best_supported() >= SimdPath::avx2; }
bool philox_avx512_supported() { return simd_best_supported() >= SimdPath::avx512; }

#if defined(__x86_64__)
namespace {

// hi and lo 32 bits of the eight products m * x (m the same in every lane). Both halves come
// from the two 64-bit multiplies: a shift and a blend are cheaper than vpmulld on x86 cores.
__attribute__((target("avx2"))) inline void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// Philox state of eight counters: lane b holds block first + b's words c0..c3.
struct Philox8 {
  __m256i c0, c1, c2, c3;
};

__attribute__((target("avx2"))) inline Philox8 philox8_counters(uint32_t first, uint32_t replicate, uint32_t stream) {
  return {_mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
          _mm256_set1_epi32(static_cast<int>(replicate)), _mm256_set1_epi32(static_cast<int>(stream)),
          _mm256_setzero_si256()};
}

__attribute__((target("avx2"))) inline void philox8_round(Philox8& s, __m256i k0, __m256i k1) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  __m256i hi0, lo0, hi1, lo1;
  mul_hi_lo(s.c0, m0, hi0, lo0);
  mul_hi_lo(s.c2, m1, hi1, lo1);
  s.c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, s.c1), k0);
  s.c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, s.c3), k1);
  s.c1 = lo1;
  s.c3 = lo0;
}

// (u * n) >> 32 in each lane: scale_to on eight words.
__attribute__((target("avx2"))) inline __m256i scale_to8(__m256i u, __m256i n) {
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(u, n), 32);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(u, 32), n);
  return _mm256_blend_epi32(even, odd, 0xAA);
}

}  // namespace

__attribute__((target("avx2"))) void philox_blocks8(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream,
                                                    uint32_t* out) {
  Philox8 s = philox8_counters(first, replicate, stream);
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int round = 0; round < 10; ++round) {
    philox8_round(s, _mm256_set1_epi32(static_cast<int>(k0)), _mm256_set1_epi32(static_cast<int>(k1)));
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  // Transpose the four word vectors into block-major order.
  alignas(32) uint32_t w[4][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[0]), s.c0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[1]), s.c1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[2]), s.c2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[3]), s.c3);
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 4; ++t) out[4 * b + t] = w[t][b];
}

template <typename Count>
__attribute__((target("avx2"))) static void count_groups_of_16_blocks(PhiloxKey key, uint32_t first, uint32_t groups,
                                                                      uint32_t replicate, uint32_t stream, uint32_t n,
                                                                      Count* m) {
  // Two interleaved 8-lane states (one state's chain of dependent multiplies leaves most vector
  // ports idle), software pipelined: group g's 64 indices are counted between group g + 1's
  // rounds, so the scalar increments (load and store ports) run beside the multiplies (vector
  // ports) instead of after them. Counting needs only the multiset of indices: lane order is kept.
  alignas(32) uint32_t pending[64];
  const __m256i nv = _mm256_set1_epi32(static_cast<int>(n));
  for (uint32_t g = 0; g <= groups; ++g) {
    const bool more = g < groups;
    Philox8 a = philox8_counters(first + 16 * g, replicate, stream);
    Philox8 b = philox8_counters(first + 16 * g + 8, replicate, stream);
    uint32_t k0 = key.k0, k1 = key.k1;
    for (int round = 0; round < 10; ++round) {
      if (more) {
        const __m256i k0v = _mm256_set1_epi32(static_cast<int>(k0)), k1v = _mm256_set1_epi32(static_cast<int>(k1));
        philox8_round(a, k0v, k1v);
        philox8_round(b, k0v, k1v);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      if (g > 0 && round < 8)
        for (int j = 0; j < 8; ++j) ++m[pending[8 * round + j]];
    }
    if (!more) break;
    const __m256i words[8] = {a.c0, a.c1, a.c2, a.c3, b.c0, b.c1, b.c2, b.c3};
    for (int v = 0; v < 8; ++v)
      _mm256_store_si256(reinterpret_cast<__m256i*>(pending + 8 * v), scale_to8(words[v], nv));
  }
}

namespace {

// hi and lo 32 bits of the sixteen products m * x: _mm512_mul_epu32 multiplies the even lanes
// into 64-bit products, so the odd lanes are shifted down for a second multiply; each half is
// then moved into its lane with one masked in-pair swap (no 32-bit mullo needed).
__attribute__((target("avx512f"))) inline void mul_hi_lo16(__m512i x, __m512i m, __m512i& hi, __m512i& lo) {
  const __m512i even = _mm512_mul_epu32(x, m);
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), m);
  hi = _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_CDAB);
  lo = _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
}

}  // namespace

__attribute__((target("avx512f"))) void philox_blocks16(PhiloxKey key, uint32_t first, uint32_t replicate,
                                                        uint32_t stream, uint32_t* out) {
  __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first)),
                                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  __m512i c1 = _mm512_set1_epi32(static_cast<int>(replicate));
  __m512i c2 = _mm512_set1_epi32(static_cast<int>(stream));
  __m512i c3 = _mm512_setzero_si512();
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(0xCD9E8D57u));
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int round = 0; round < 10; ++round) {
    __m512i hi0, lo0, hi1, lo1;
    mul_hi_lo16(c0, m0, hi0, lo0);
    mul_hi_lo16(c2, m1, hi1, lo1);
    // 0x96: three-way xor.
    c0 = _mm512_ternarylogic_epi32(hi1, c1, _mm512_set1_epi32(static_cast<int>(k0)), 0x96);
    c2 = _mm512_ternarylogic_epi32(hi0, c3, _mm512_set1_epi32(static_cast<int>(k1)), 0x96);
    c1 = lo1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  // Transpose the four word vectors (lane b = block b) into block-major order. Within each
  // 128-bit lane j, the unpacks give u_i = block 4j + i's four words; the lane shuffles then
  // gather blocks 4q..4q+3 (lane q of u0..u3) into output vector q.
  const __m512i t0 = _mm512_unpacklo_epi32(c0, c1), t1 = _mm512_unpackhi_epi32(c0, c1);
  const __m512i t2 = _mm512_unpacklo_epi32(c2, c3), t3 = _mm512_unpackhi_epi32(c2, c3);
  const __m512i u0 = _mm512_unpacklo_epi64(t0, t2), u1 = _mm512_unpackhi_epi64(t0, t2);
  const __m512i u2 = _mm512_unpacklo_epi64(t1, t3), u3 = _mm512_unpackhi_epi64(t1, t3);
  const __m512i v0 = _mm512_shuffle_i32x4(u0, u1, 0x44), v1 = _mm512_shuffle_i32x4(u0, u1, 0xEE);
  const __m512i v2 = _mm512_shuffle_i32x4(u2, u3, 0x44), v3 = _mm512_shuffle_i32x4(u2, u3, 0xEE);
  _mm512_storeu_si512(out, _mm512_shuffle_i32x4(v0, v2, 0x88));
  _mm512_storeu_si512(out + 16, _mm512_shuffle_i32x4(v0, v2, 0xDD));
  _mm512_storeu_si512(out + 32, _mm512_shuffle_i32x4(v1, v3, 0x88));
  _mm512_storeu_si512(out + 48, _mm512_shuffle_i32x4(v1, v3, 0xDD));
}

namespace {

__attribute__((target("avx2"))) inline int32_t horizontal_sum(__m256i v) {
  __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
  return _mm_cvtsi128_si32(x);
}

// Four columns per pass so each multiplicity vector is loaded once for four multiply-adds.
__attribute__((target("avx2"))) void column_dots_avx2(const int16_t* m, const int16_t* t, int64_t stride,
                                                      int32_t n_columns, int32_t* sums) {
  int32_t k = 0;
  for (; k + 4 <= n_columns; k += 4) {
    const int16_t* a = t + k * stride;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t c = 0; c < stride; c += 16) {
      const __m256i mv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + c));
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + c))));
      s1 = _mm256_add_epi32(
          s1, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + stride + c))));
      s2 = _mm256_add_epi32(
          s2, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 2 * stride + c))));
      s3 = _mm256_add_epi32(
          s3, _mm256_madd_epi16(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 3 * stride + c))));
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

__attribute__((target("avx2"))) inline __m256i load_int16x16(const int16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
__attribute__((target("avx2"))) inline __m256i add_madd(__m256i s, __m256i m, __m256i a) {
  return _mm256_add_epi32(s, _mm256_madd_epi16(m, a));
}

// Columns k .. k + P − 1 of R replicates: each digit vector is loaded once for the R
// multiplicities.
template <int R, int P>
__attribute__((target("avx2"))) inline void batch_dots(const int16_t* const* m, const int16_t* a, int64_t stride,
                                                       int32_t* const* sums, int32_t k) {
  __m256i s[R][P];
  for (auto& row : s)
    for (auto& v : row) v = _mm256_setzero_si256();
  for (int64_t c = 0; c < stride; c += 16) {
    __m256i x[R];
    for (int j = 0; j < R; ++j) x[j] = load_int16x16(m[j] + c);
    for (int p = 0; p < P; ++p) {
      const __m256i d = load_int16x16(a + p * stride + c);
      for (int j = 0; j < R; ++j) s[j][p] = add_madd(s[j][p], x[j], d);
    }
  }
  for (int j = 0; j < R; ++j)
    for (int p = 0; p < P; ++p) sums[j][k + p] = horizontal_sum(s[j][p]);
}

// R replicates' multiplicities against the same digits: the digits outgrow L1 (and, with a
// hundred columns, L2), so each digit vector is loaded once for all R; 8 / R columns × R
// replicates of accumulators. (Tiles of 1,024 or 4,096 clusters, to keep the multiplicities in
// L1, measured slower: bench/NOTES.md.)
template <int R>
__attribute__((target("avx2"))) void column_dots_batch_avx2(const int16_t* const* m, const int16_t* t, int64_t stride,
                                                            int32_t n_columns, int32_t* const* sums) {
  constexpr int P = 8 / R;
  int32_t k = 0;
  for (; k + P <= n_columns; k += P) batch_dots<R, P>(m, t + k * stride, stride, sums, k);
  for (; k < n_columns; ++k) batch_dots<R, 1>(m, t + k * stride, stride, sums, k);
}

// Eight clusters a step: their byte of the sign word spread over the lanes as all-ones masks.
__attribute__((target("avx2"))) int32_t sum_where_bits_set_avx2(const uint32_t* words, const int32_t* d, int64_t n) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  __m256i sum = _mm256_setzero_si256();
  for (int64_t c = 0; c < n; c += 8) {
    const auto byte = static_cast<int>((words[c >> 5] >> (c & 31)) & 0xFFu);
    const __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(byte), lane_bit), lane_bit);
    sum = _mm256_add_epi32(sum, _mm256_and_si256(set, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + c))));
  }
  return horizontal_sum(sum);
}

// int32 lanes += pairwise int16 products: one VNNI instruction, or madd + add. Both wrap
// modulo 2^32 like the scalar sum, so every path gives the same integers.
__attribute__((target("avx512f,avx512bw"))) inline __m512i dot_step_madd(__m512i s, __m512i m, __m512i a) {
  return _mm512_add_epi32(s, _mm512_madd_epi16(m, a));
}
__attribute__((target("avx512f,avx512bw,avx512vnni"))) inline __m512i dot_step_vnni(__m512i s, __m512i m, __m512i a) {
  return _mm512_dpwssd_epi32(s, m, a);
}

// 32 int16 per step, four columns per pass as in the AVX2 kernel. A stride that is an odd
// multiple of 16 ends with one masked (zero-filled) half step. The body is shared by the two
// variants through a macro: a target attribute cannot depend on a template parameter.
#define JUDGESTAT_COLUMN_DOTS_512(STEP)                                                                          \
  const int64_t full = stride & ~int64_t{31};                                                                    \
  const __mmask32 half = 0xFFFF;                                                                                 \
  int32_t k = 0;                                                                                                 \
  for (; k + 4 <= n_columns; k += 4) {                                                                           \
    const int16_t* a = t + k * stride;                                                                           \
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;                                              \
    int64_t c = 0;                                                                                               \
    for (; c < full; c += 32) {                                                                                  \
      const __m512i mv = _mm512_loadu_si512(m + c);                                                              \
      s0 = STEP(s0, mv, _mm512_loadu_si512(a + c));                                                              \
      s1 = STEP(s1, mv, _mm512_loadu_si512(a + stride + c));                                                     \
      s2 = STEP(s2, mv, _mm512_loadu_si512(a + 2 * stride + c));                                                 \
      s3 = STEP(s3, mv, _mm512_loadu_si512(a + 3 * stride + c));                                                 \
    }                                                                                                            \
    if (c < stride) {                                                                                            \
      const __m512i mv = _mm512_maskz_loadu_epi16(half, m + c);                                                  \
      s0 = STEP(s0, mv, _mm512_maskz_loadu_epi16(half, a + c));                                                  \
      s1 = STEP(s1, mv, _mm512_maskz_loadu_epi16(half, a + stride + c));                                         \
      s2 = STEP(s2, mv, _mm512_maskz_loadu_epi16(half, a + 2 * stride + c));                                     \
      s3 = STEP(s3, mv, _mm512_maskz_loadu_epi16(half, a + 3 * stride + c));                                     \
    }                                                                                                            \
    sums[k] = _mm512_reduce_add_epi32(s0);                                                                       \
    sums[k + 1] = _mm512_reduce_add_epi32(s1);                                                                   \
    sums[k + 2] = _mm512_reduce_add_epi32(s2);                                                                   \
    sums[k + 3] = _mm512_reduce_add_epi32(s3);                                                                   \
  }                                                                                                              \
  for (; k < n_columns; ++k) {                                                                                   \
    const int16_t* a = t + k * stride;                                                                           \
    __m512i s0 = _mm512_setzero_si512();                                                                         \
    int64_t c = 0;                                                                                               \
    for (; c < full; c += 32) s0 = STEP(s0, _mm512_loadu_si512(m + c), _mm512_loadu_si512(a + c));               \
    if (c < stride) s0 = STEP(s0, _mm512_maskz_loadu_epi16(half, m + c), _mm512_maskz_loadu_epi16(half, a + c)); \
    sums[k] = _mm512_reduce_add_epi32(s0);                                                                       \
  }

__attribute__((target("avx512f,avx512bw"))) void column_dots_avx512(const int16_t* m, const int16_t* t, int64_t stride,
                                                                    int32_t n_columns, int32_t* sums) {
  JUDGESTAT_COLUMN_DOTS_512(dot_step_madd)
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) void column_dots_avx512_vnni(const int16_t* m, const int16_t* t,
                                                                                    int64_t stride, int32_t n_columns,
                                                                                    int32_t* sums) {
  JUDGESTAT_COLUMN_DOTS_512(dot_step_vnni)
}

#undef JUDGESTAT_COLUMN_DOTS_512

}  // namespace
#else
void philox_blocks8(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream, uint32_t* out) {
  for (uint32_t b = 0; b < 8; ++b) {
    const Words4 w = draw_block(key, first + b, replicate, stream);
    for (int t = 0; t < 4; ++t) out[4 * b + t] = w.w[t];
  }
}
void philox_blocks16(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream, uint32_t* out) {
  philox_blocks8(key, first, replicate, stream, out);
  philox_blocks8(key, first + 8, replicate, stream, out + 32);
}
template <typename Count>
static void count_groups_of_16_blocks(PhiloxKey key, uint32_t first, uint32_t groups, uint32_t replicate,
                                      uint32_t stream, uint32_t n, Count* m) {
  for (uint32_t b = 0; b < 16 * groups; ++b) {
    const Words4 w = draw_block(key, first + b, replicate, stream);
    for (uint32_t word : w.w) ++m[scale_to(word, n)];
  }
}
#endif

void count_draw_groups(PhiloxKey key, uint32_t first, uint32_t groups, uint32_t replicate, uint32_t stream, uint32_t n,
                       int16_t* m) {
  count_groups_of_16_blocks(key, first, groups, replicate, stream, n, m);
}
void count_draw_groups(PhiloxKey key, uint32_t first, uint32_t groups, uint32_t replicate, uint32_t stream, uint32_t n,
                       int32_t* m) {
  count_groups_of_16_blocks(key, first, groups, replicate, stream, n, m);
}

int32_t sum_where_bits_set(const uint32_t* words, const int32_t* d, int64_t n) {
#if defined(__x86_64__)
  if (simd_path() >= SimdPath::avx2) return sum_where_bits_set_avx2(words, d, n);
#endif
  int32_t sum = 0;
  for (int64_t c = 0; c < n; ++c)
    if ((words[c >> 5] >> (c & 31)) & 1u) sum += d[c];
  return sum;
}

void column_dots_batch(const int16_t* const* m, int n, const int16_t* t, int64_t stride, int32_t n_columns,
                       int32_t* const* sums) {
#if defined(__x86_64__)
  if (simd_path() == SimdPath::avx2) {
    switch (n) {
      case 2:
        return column_dots_batch_avx2<2>(m, t, stride, n_columns, sums);
      case 3:
        return column_dots_batch_avx2<3>(m, t, stride, n_columns, sums);
      case 4:
        return column_dots_batch_avx2<4>(m, t, stride, n_columns, sums);
      default:
        break;
    }
  }
#endif
  for (int j = 0; j < n; ++j) column_dots(m[j], t, stride, n_columns, sums[j]);
}

void column_dots(const int16_t* m, const int16_t* t, int64_t stride, int32_t n_columns, int32_t* sums) {
#if defined(__x86_64__)
  switch (simd_path()) {
    case SimdPath::avx512_vnni:
      column_dots_avx512_vnni(m, t, stride, n_columns, sums);
      return;
    case SimdPath::avx512:
      column_dots_avx512(m, t, stride, n_columns, sums);
      return;
    case SimdPath::avx2:
      column_dots_avx2(m, t, stride, n_columns, sums);
      return;
    case SimdPath::scalar:
      break;
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
