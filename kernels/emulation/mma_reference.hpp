// mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 of one warp, D += A B, written from the PTX
// ISA's description of the fragment layouts ("Matrix Fragments for mma.m16n8k32", integer
// types), not from the kernel's own reading of them, so that a wrong reading in
// kernels/bootstrap/detail/multiplicity_tile_agent.cuh shows up as wrong sums. Plain C++: the
// CPU runtime (cuda_emulation.cpp) and the host tests of tests/kernels/ share this one copy.
//
// groupID = lane >> 2, threadID_in_group = lane % 4. A (16 x 32, .u8), 4 registers of 4
// elements a0..a15, element i in byte i % 4 of register i / 4:
//   row = groupID for a_i with i < 4 or 8 <= i < 12, else groupID + 8;
//   col = threadID_in_group * 4 + (i & 3) for i < 8, else threadID_in_group * 4 + (i & 3) + 16.
// B (32 x 8, .u8), 2 registers, elements b0..b7:
//   row = threadID_in_group * 4 + (i & 3) for i < 4, else threadID_in_group * 4 + (i & 3) + 16;
//   col = groupID.
// C and D (16 x 8, .s32), 4 registers c0..c3:
//   row = groupID for i < 2, else groupID + 8;  col = threadID_in_group * 2 + (i & 1).
#pragma once
#include <cstdint>

namespace judgestat::emulation {

/// d[lane][0..3] += (A B) at the lane's D elements; a[lane] its four A registers, b[lane] its
/// two B registers. Products of bytes summed over k = 32 fit int32 exactly.
inline void mma_m16n8k32_u8_warp(int32_t (&d)[32][4], const uint32_t (&a)[32][4], const uint32_t (&b)[32][2]) {
  uint32_t A[16][32] = {}, B[32][8] = {};
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t group = lane >> 2, in_group = lane % 4;
    for (uint32_t i = 0; i < 16; ++i) {
      const uint32_t row = (i < 4 || (i >= 8 && i < 12)) ? group : group + 8;
      const uint32_t col = in_group * 4 + (i & 3) + (i < 8 ? 0 : 16);
      A[row][col] = (a[lane][i / 4] >> (8 * (i % 4))) & 0xFFu;
    }
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t row = in_group * 4 + (i & 3) + (i < 4 ? 0 : 16);
      B[row][group] = (b[lane][i / 4] >> (8 * (i % 4))) & 0xFFu;
    }
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t group = lane >> 2, in_group = lane % 4;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = i < 2 ? group : group + 8;
      const uint32_t col = in_group * 2 + (i & 1);
      int32_t sum = 0;
      for (uint32_t k = 0; k < 32; ++k) sum += static_cast<int32_t>(A[row][k] * B[k][col]);
      d[lane][i] += sum;
    }
  }
}

}  // namespace judgestat::emulation
