// The gather agent's walk over a warp's drawn clusters (gather_agent.cuh), as plain bit
// arithmetic for host and device, so tests/kernels/test_kernel_emulation.cpp can run it lane by lane.
// No CUDA headers: this compiles in CPU-only builds too.
#pragma once
#include <cstdint>

#include "judgestat/philox.hpp"  // JS_HD

namespace judgestat::cuda_detail {

/// Rows loaded together per warp when JUDGESTAT_GATHER_ROWS=1: the loads of several drawn
/// clusters' rows are issued before any of them is added, so a warp has that many rows in
/// flight instead of one.
constexpr int kGatherRowsInFlight = 4;

/// Takes the lowest up to R set bits of `pending` (lanes whose draw is still to be added) into
/// source[0 .. n), lowest first, clears them, and returns n; source[n ..) are set to lane 0 so
/// that every lane can still take part in the shuffles. Lanes are visited in the order the
/// one-at-a-time walk visits them.
template <int R>
JS_HD int take_lowest_lanes(uint32_t& pending, int (&source)[R]) {
  int n = 0;
  for (int r = 0; r < R; ++r) {
    if (pending == 0) {
      source[r] = 0;
      continue;
    }
#if defined(__CUDA_ARCH__)
    source[r] = __ffs(pending) - 1;
#else
    source[r] = __builtin_ctz(pending);
#endif
    pending &= pending - 1;
    ++n;
  }
  return n;
}

}  // namespace judgestat::cuda_detail
