// The CPU runtime itself (kernels/emulation/): warp operations with CUDA's semantics, errors for
// the divergence a device would not forgive (a named lane that exits, waits at __syncthreads or
// at another operation), mismatched __syncthreads, mma.sync against a direct product, the
// intrinsics' bit arithmetic. (The planted race is in test_bootstrap_kernels.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_cpu_support.hpp"

namespace judgestat::cuda_cpu {
namespace {

using emulation::launch;
using emulation::LaunchConfig;

LaunchConfig one_block(unsigned threads, Schedule schedule = Schedule::kForward, size_t shared = 0) {
  return {dim3(1), dim3(threads), shared, schedule};
}

__global__ void shuffles_kernel(int* out) {
  const int lane = int(threadIdx.x % 32), warp = int(threadIdx.x / 32);
  int* row = out + threadIdx.x * 8;
  row[0] = __shfl_sync(0xFFFFFFFFu, 100 * warp + lane, 5);
  row[1] = __shfl_up_sync(0xFFFFFFFFu, lane, 3);
  row[2] = __shfl_down_sync(0xFFFFFFFFu, lane, 4);
  row[3] = __shfl_xor_sync(0xFFFFFFFFu, lane, 9);
  row[4] = static_cast<int>(__ballot_sync(0xFFFFFFFFu, lane % 3 == 0));
  row[5] = __any_sync(0xFFFFFFFFu, lane == 31) + 2 * __all_sync(0xFFFFFFFFu, lane < 31);
  row[6] = __shfl_sync(0xFFFFFFFFu, lane, 3, 8);  // lane 3 of each group of 8
  // Half-warp masks: two groups meet separately at the same line.
  const unsigned half = lane < 16 ? 0x0000FFFFu : 0xFFFF0000u;
  row[7] = static_cast<int>(__ballot_sync(half, lane % 2 == 0));
}

TEST(CudaCpuRuntime, WarpOperationsFollowCuda) {
  for (Schedule schedule : {Schedule::kForward, Schedule::kReverse}) {
    std::vector<int> out(64 * 8, -1);
    launch(one_block(64, schedule), shuffles_kernel, out.data());
    uint32_t every_third = 0;
    for (int l = 0; l < 32; l += 3) every_third |= 1u << l;
    for (int t = 0; t < 64; ++t) {
      const int lane = t % 32, warp = t / 32;
      const int* row = out.data() + t * 8;
      EXPECT_EQ(row[0], 100 * warp + 5);
      EXPECT_EQ(row[1], lane < 3 ? lane : lane - 3);  // below the delta: the lane's own value
      EXPECT_EQ(row[2], lane + 4 > 31 ? lane : lane + 4);
      EXPECT_EQ(row[3], lane ^ 9);
      EXPECT_EQ(uint32_t(row[4]), every_third);
      EXPECT_EQ(row[5], 1);  // any: lane 31 is true; all: lane 31 is not < 31
      EXPECT_EQ(row[6], lane / 8 * 8 + 3);
      EXPECT_EQ(uint32_t(row[7]), lane < 16 ? 0x00005555u : 0x55550000u);
    }
  }
}

__global__ void lane_exits_before_shuffle_kernel(int* out) {
  if (threadIdx.x == 7) return;
  out[threadIdx.x] = __shfl_sync(0xFFFFFFFFu, int(threadIdx.x), 0);
}
__global__ void lanes_at_different_shuffles_kernel(int* out) {
  if (threadIdx.x % 2)
    out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, int(threadIdx.x), 1);
  else
    out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, int(threadIdx.x), 1);
}
__global__ void lane_at_barrier_kernel(int* out) {
  if (threadIdx.x == 3) {
    __syncthreads();
  } else {
    out[threadIdx.x] = __any_sync(0xFFFFFFFFu, 1);
    __syncthreads();
  }
}
__global__ void different_barriers_kernel(int* out) {
  out[threadIdx.x] = 1;
  if (threadIdx.x < 32)
    __syncthreads();
  else
    __syncthreads();
}

/// The message of the std::runtime_error `run` throws, or "" when it throws none.
template <typename Run>
std::string error_of(Run run) {
  try {
    run();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(CudaCpuRuntime, DivergenceAtWarpOperationsAndBarriersIsAnError) {
  std::vector<int> out(64, 0);
  std::string e = error_of([&] { launch(one_block(32), lane_exits_before_shuffle_kernel, out.data()); });
  EXPECT_NE(e.find("warp divergence"), std::string::npos) << e;
  EXPECT_NE(e.find("lane 7"), std::string::npos) << e;
  EXPECT_NE(e.find("has exited"), std::string::npos) << e;

  e = error_of([&] { launch(one_block(32), lanes_at_different_shuffles_kernel, out.data()); });
  EXPECT_NE(e.find("same operation"), std::string::npos) << e;
  EXPECT_NE(e.find("test_runtime.cpp:"), std::string::npos) << e;  // names the lines

  e = error_of([&] { launch(one_block(32, Schedule::kReverse), lane_at_barrier_kernel, out.data()); });
  EXPECT_NE(e.find("__syncthreads"), std::string::npos) << e;
  EXPECT_NE(e.find("__any_sync"), std::string::npos) << e;

  e = error_of([&] { launch(one_block(64), different_barriers_kernel, out.data()); });
  EXPECT_NE(e.find("different __syncthreads"), std::string::npos) << e;

  // The runtime is usable again after an error.
  std::vector<int> rows(64 * 8, -1);
  launch(one_block(64), shuffles_kernel, rows.data());
  EXPECT_EQ(rows[8 * 33 + 3], 1 ^ 9);
}

__global__ void mma_kernel(const uint32_t* a, const uint32_t* b, int32_t* d) {
  const unsigned lane = threadIdx.x;
  int32_t acc[4] = {1, 2, 3, 4};  // D = A B + C
  const uint32_t fragment[4] = {a[4 * lane], a[4 * lane + 1], a[4 * lane + 2], a[4 * lane + 3]};
  emulation::mma_sync_m16n8k32_u8(acc, fragment, b[2 * lane], b[2 * lane + 1]);
  for (int i = 0; i < 4; ++i) d[4 * lane + i] = acc[i];
}

// mma.sync on the runtime: D = A B + C for random bytes, against the
// product of the matrices placed as the PTX ISA's fragment tables say, with the layout written
// out here a third time in its plainest form (lane l = 4 g + t).
TEST(CudaCpuRuntime, MmaSyncMatchesTheDirectProduct) {
  std::mt19937 random(7);
  uint8_t A[16][32], B[32][8];
  for (auto& row : A)
    for (uint8_t& x : row) x = uint8_t(random());
  for (auto& row : B)
    for (uint8_t& x : row) x = uint8_t(random());
  std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t g = lane / 4, t = lane % 4;
    for (uint32_t i = 0; i < 4; ++i) {
      a[4 * lane + 0] |= uint32_t(A[g][4 * t + i]) << (8 * i);
      a[4 * lane + 1] |= uint32_t(A[g + 8][4 * t + i]) << (8 * i);
      a[4 * lane + 2] |= uint32_t(A[g][16 + 4 * t + i]) << (8 * i);
      a[4 * lane + 3] |= uint32_t(A[g + 8][16 + 4 * t + i]) << (8 * i);
      b[2 * lane + 0] |= uint32_t(B[4 * t + i][g]) << (8 * i);
      b[2 * lane + 1] |= uint32_t(B[16 + 4 * t + i][g]) << (8 * i);
    }
  }
  std::vector<int32_t> d(32 * 4, 0);
  launch(one_block(32), mma_kernel, a.data(), b.data(), d.data());
  auto product = [&](uint32_t r, uint32_t n) {
    int32_t sum = 0;
    for (uint32_t k = 0; k < 32; ++k) sum += int32_t(A[r][k]) * int32_t(B[k][n]);
    return sum;
  };
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t g = lane / 4, t = lane % 4;
    EXPECT_EQ(d[4 * lane + 0], product(g, 2 * t) + 1);
    EXPECT_EQ(d[4 * lane + 1], product(g, 2 * t + 1) + 2);
    EXPECT_EQ(d[4 * lane + 2], product(g + 8, 2 * t) + 3);
    EXPECT_EQ(d[4 * lane + 3], product(g + 8, 2 * t + 1) + 4);
  }
}

TEST(CudaCpuRuntime, IntrinsicsFollowTheProgrammingGuide) {
  // __byte_perm(x, y, s): result byte i = byte s_i of {y, x} (x bytes 0-3).
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x6420u), 0x66442200u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x7531u), 0x77553311u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x0123u), 0x00112233u);
  EXPECT_EQ(__ffs(0), 0);
  EXPECT_EQ(__ffs(1), 1);
  EXPECT_EQ(__ffs(int(0x80000000u)), 32);
  EXPECT_EQ(__umulhi(0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFEu);
  EXPECT_EQ(__popc(0xF0F0u), 8);
  EXPECT_EQ(__clz(1), 31);
}

}  // namespace
}  // namespace judgestat::cuda_cpu
