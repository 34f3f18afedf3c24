// SIMD kernels of the CPU backend's hot loop: Philox4x32-10 for eight consecutive counters at
// once (the same words as judgestat::draw_block, checked by the tests) and the multiplicity ×
// cluster-sum dot products.
#pragma once
#include <cstdint>

#include "judgestat/philox.hpp"

namespace judgestat {

/// True when this CPU runs the AVX2 path.
bool philox_avx2_supported();

/// Blocks first..first+7 of (replicate, stream): out[4*b + t] = word t of block first + b.
void philox_blocks8(PhiloxKey key, uint32_t first, uint32_t replicate, uint32_t stream,
                    uint32_t* out);

/// sums[k] = Σ_c multiplicity[c] · transposed[k·stride + c] for c < stride (stride a multiple
/// of 16, padding zero), exact in int32 (the caller guarantees no overflow). AVX2 when present.
void column_dots(const int16_t* multiplicity, const int16_t* transposed, int64_t stride,
                 int32_t n_columns, int32_t* sums);

}  // namespace judgestat
