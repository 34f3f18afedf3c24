// SIMD kernels of the CPU backend's hot loop: Philox4x32-10 for eight (AVX2) or sixteen
// (AVX-512) consecutive counters at once (the same words as judgestat::draw_block, checked by
// the tests) and the multiplicity × cluster-sum dot products. Every path gives the same bits.
#pragma once
#include <cstdint>

#include "judgestat/philox.hpp"

namespace judgestat {

/// Instruction-set paths, ordered: each needs the CPU features of the ones below it.
enum class SimdPath : int { scalar = 0, avx2 = 1, avx512 = 2, avx512_vnni = 3 };

/// The path the CPU backend takes: the best this CPU supports (AVX-512 needs F and BW, the
/// VNNI variant also AVX512_VNNI), capped by the environment variable JUDGESTAT_SIMD =
/// scalar | avx2 | avx512 | avx512_vnni (read once per process; unset or "auto": no cap).
SimdPath simd_path();
/// The best path this CPU supports, ignoring JUDGESTAT_SIMD.
SimdPath simd_best_supported();
const char* simd_path_name(SimdPath path);
/// Tests only: makes simd_path() return min(path, simd_best_supported()) from now on.
void set_simd_path_for_testing(SimdPath path);

/// True when this CPU has AVX2 (philox_blocks8 may be called).
bool philox_avx2_supported();
/// True when this CPU has AVX-512 F and BW (philox_blocks16 may be called).
bool philox_avx512_supported();

/// Blocks first..first+7 of (replicate, stream): out[4*b + t] = word t of block first + b.
void philox_blocks8(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream, uint32_t* out);
/// Blocks first..first+15, same layout (out holds 64 words). Needs philox_avx512_supported().
void philox_blocks16(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream, uint32_t* out);

/// Counts the draws of blocks first .. first + 16·groups − 1 of (replicate, stream) drawn from
/// n: ++m[scale_to(word, n)] for each of their words (the caller keeps the counts in range). Needs
/// philox_avx2_supported() (elsewhere the scalar generator counts the same draws).
void count_draw_groups(PhiloxKey key, uint32_t first, uint32_t groups, uint32_t replicate, uint32_t stream, uint32_t n,
                       int16_t* m);
void count_draw_groups(PhiloxKey key, uint32_t first, uint32_t groups, uint32_t replicate, uint32_t stream, uint32_t n,
                       int32_t* m);

/// sums[k] = Σ_c multiplicity[c] · transposed[k·stride + c] for c < stride, exact in int32 (the
/// caller guarantees no overflow), on simd_path(). stride must be a multiple of 16 with zero
/// padding; a multiple of 32 (as the CPU backend pads) spares the AVX-512 loop a masked tail.
void column_dots(const int16_t* multiplicity, const int16_t* transposed, int64_t stride, int32_t n_columns,
                 int32_t* sums);

/// column_dots for n ≤ 4 multiplicity vectors m[0..n) at once into sums[0..n): the same
/// integers as n calls; on AVX2 each digit vector is read once for all n.
void column_dots_batch(const int16_t* const* multiplicities, int n, const int16_t* transposed, int64_t stride,
                       int32_t n_columns, int32_t* const* sums);

/// Σ d[c] over the c < n whose bit c mod 32 of words[c div 32] is set (the sign-flip test's
/// minus signs), exact: the caller guarantees Σ_c |d[c]| < 2^31. n is a multiple of 8 (pad d with
/// zeros; words must cover the padding).
int32_t sum_where_bits_set(const uint32_t* words, const int32_t* d, int64_t n);

}  // namespace judgestat
