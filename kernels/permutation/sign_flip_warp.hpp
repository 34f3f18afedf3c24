// How the sign-flip kernel (sign_flip.cu) shares out its work, as __host__ __device__ pieces so
// that tests/kernels/test_kernel_emulation.cpp can drive them lane by lane on the host: one warp
// per (test, replicate) unit, its lanes taking every 32nd Philox block of clusters
// (sign_flip_sum's block stride) and adding their parts with a butterfly of shuffles.
#pragma once
#include <cstdint>

#include "judgestat/philox.hpp"  // JS_HD

namespace judgestat::cuda_detail {

inline constexpr uint32_t kSignFlipLanes = 32;     // a warp per unit
inline constexpr int kSignFlipThreads = 256;       // per block: 8 warps
inline constexpr int kSignFlipButterflySteps = 5;  // lane offsets 16, 8, 4, 2, 1

/// Unit u of a launch over `count` replicates: test-major, so a warp's units (u, u + warps, …)
/// stay on one test for long runs and it adds its count to that test's total once per run.
struct SignFlipUnit {
  uint32_t test;
  uint64_t replicate;  // offset from the launch's first replicate
};
JS_HD SignFlipUnit sign_flip_unit(uint64_t unit, uint64_t count) {
  return SignFlipUnit{static_cast<uint32_t>(unit / count), unit % count};
}

/// The lane offset of butterfly step `step` (__shfl_xor_sync): after all steps every lane holds
/// the sum of the warp's 32 parts.
JS_HD uint32_t sign_flip_butterfly_offset(int step) { return kSignFlipLanes >> (step + 1); }

}  // namespace judgestat::cuda_detail
