// A CPU execution runtime for judgestat's CUDA kernels: the real kernel source, compiled by the
// host compiler, launched over its grid on the host (tests/cuda_cpu/, ctest label cuda-cpu).
// Built with JUDGESTAT_CUDA_EMULATION and __CUDA_ARCH__=900 and this header force-included
// (-include), as nvcc includes cuda_runtime.h, so the kernels take their device branches (__ldg,
// __byte_perm, __ffs, __umulhi) and no copy of a kernel body exists anywhere.
//
// Model: blocks run one after another (in reverse order under Schedule::kReverse); within a
// block every CUDA thread is a cooperative fiber (ucontext) that runs until it reaches a sync
// point. Warps are run one at a time to quiescence, so a missing __syncthreads lets one warp
// read what others have not yet written, and the forward and reverse schedules then disagree.
//   * __syncthreads: a block barrier; every non-exited thread must reach the same one (same
//     source line), else the launch fails with a message.
//   * warp operations (__shfl*_sync, __ballot/__any/__all_sync, __syncwarp, mma.sync) meet the
//     lanes their mask names: every named lane must reach the same operation (kind, mask, line);
//     a named lane that exits, waits at __syncthreads or at another operation is an error, never
//     a silent barrier. mma.sync is computed by mma_reference.hpp from the PTX ISA's layout.
//   * atomics are __atomic builtins; dynamic shared memory is a fresh buffer per block, filled
//     with 0xA5 (real shared memory starts undefined); static __shared__ is not supported (no
//     kernel uses it).
// Under ThreadSanitizer the fibers are TSan fibers that switch without synchronising; barriers
// and warp operations publish happens-before edges, so TSan sees the kernels' real races.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#if !defined(JUDGESTAT_CUDA_EMULATION)
#error "cuda_emulation.hpp is the CPU runtime's stand-in for cuda_runtime.h: build with JUDGESTAT_CUDA_EMULATION"
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

namespace judgestat::emulation {

/// Where the calling CUDA thread is (what threadIdx and friends read).
struct ThreadPosition {
  uint3 thread_idx, block_idx;
  dim3 block_dim, grid_dim;
};
const ThreadPosition& current_position();  // aborts outside a kernel
unsigned char* dynamic_shared_memory();

enum class WarpOpKind : uint8_t { kShfl, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kSyncWarp, kMma };

constexpr int kMaxWarpOpWords = 10;  // mma: four A, two B and four C registers

/// Posts this lane's part of a warp operation and waits for every lane its mask names; returns
/// the lane's result words (shuffles: the value's two words; votes: one; mma: the four D).
struct WarpOpResult {
  uint32_t word[4];
};
WarpOpResult warp_op(WarpOpKind kind, unsigned mask, const uint32_t* in, int n_in, int arg, int width, const char* file,
                     int line);
void block_barrier(const char* file, int line);

/// Test-only switch: when on, JS_REMOVABLE_SYNCTHREADS() does nothing (the planted race).
bool planted_race();
void set_planted_race(bool on);

template <typename T>
void to_words(const T& value, uint32_t (&words)[2]) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "shuffles move up to 64 bits");
  words[0] = words[1] = 0;
  std::memcpy(words, &value, sizeof(T));
}
template <typename T>
T from_words(const uint32_t* words) {
  T value;
  std::memcpy(&value, words, sizeof(T));
  return value;
}
template <typename T>
T shuffle(WarpOpKind kind, unsigned mask, T var, int arg, int width, const char* file, int line) {
  uint32_t words[2];
  to_words(var, words);
  return from_words<T>(warp_op(kind, mask, words, 2, arg, width, file, line).word);
}

// ---- Launch -------------------------------------------------------------------------------

/// Forward: blocks, warps and lanes in increasing order; reverse: all three decreasing. A
/// kernel without races gives the same bytes under both.
enum class Schedule { kForward, kReverse };

struct LaunchConfig {
  dim3 grid, block;
  size_t dynamic_shared_bytes = 0;
  Schedule schedule = Schedule::kForward;
};

/// Runs `thread_body` as every thread of the grid; throws std::runtime_error naming the block,
/// thread and source line when a barrier or warp operation is misused (nothing is left running).
void run_grid(const LaunchConfig& config, const std::function<void()>& thread_body);

/// kernel<<<config.grid, config.block, config.dynamic_shared_bytes>>>(args...): each CUDA
/// thread gets its own copy of the arguments, converted to the kernel's parameter types.
template <typename... Params, typename... Args>
void launch(const LaunchConfig& config, void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "a kernel argument per parameter");
  const std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  run_grid(config, [&] { std::apply(kernel, params); });
}

}  // namespace judgestat::emulation

#define threadIdx (::judgestat::emulation::current_position().thread_idx)
#define blockIdx (::judgestat::emulation::current_position().block_idx)
#define blockDim (::judgestat::emulation::current_position().block_dim)
#define gridDim (::judgestat::emulation::current_position().grid_dim)

// ---- Intrinsics (CUDA C++ Programming Guide semantics) ----------------------------------------
// The source line of each sync point comes from __builtin_FILE / __builtin_LINE defaults, so a
// divergence report names the lines the lanes stopped at.

inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  judgestat::emulation::block_barrier(file, line);
}
inline void __syncwarp(unsigned mask = 0xFFFFFFFFu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  judgestat::emulation::warp_op(judgestat::emulation::WarpOpKind::kSyncWarp, mask, nullptr, 0, 0, 32, file, line);
}
template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) {
  return judgestat::emulation::shuffle(judgestat::emulation::WarpOpKind::kShfl, mask, var, src_lane, width, file, line);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  return judgestat::emulation::shuffle(judgestat::emulation::WarpOpKind::kShflUp, mask, var, int(delta), width, file,
                                       line);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                   int line = __builtin_LINE()) {
  return judgestat::emulation::shuffle(judgestat::emulation::WarpOpKind::kShflDown, mask, var, int(delta), width, file,
                                       line);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  return judgestat::emulation::shuffle(judgestat::emulation::WarpOpKind::kShflXor, mask, var, lane_mask, width, file,
                                       line);
}
inline unsigned __ballot_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  const uint32_t word = predicate != 0;
  return judgestat::emulation::warp_op(judgestat::emulation::WarpOpKind::kBallot, mask, &word, 1, 0, 32, file, line)
      .word[0];
}
inline int __any_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  const uint32_t word = predicate != 0;
  return int(
      judgestat::emulation::warp_op(judgestat::emulation::WarpOpKind::kAny, mask, &word, 1, 0, 32, file, line).word[0]);
}
inline int __all_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  const uint32_t word = predicate != 0;
  return int(
      judgestat::emulation::warp_op(judgestat::emulation::WarpOpKind::kAll, mask, &word, 1, 0, 32, file, line).word[0]);
}

namespace judgestat::emulation {
/// mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {d}, {a}, {b0, b1}, {d}: a whole-warp
/// operation (every lane must take part).
inline void mma_sync_m16n8k32_u8(int32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
                                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  uint32_t in[kMaxWarpOpWords] = {a[0], a[1], a[2], a[3], b0, b1};
  for (int i = 0; i < 4; ++i) in[6 + i] = static_cast<uint32_t>(d[i]);
  const WarpOpResult out = warp_op(WarpOpKind::kMma, 0xFFFFFFFFu, in, kMaxWarpOpWords, 0, 32, file, line);
  for (int i = 0; i < 4; ++i) d[i] = static_cast<int32_t>(out.word[i]);
}
}  // namespace judgestat::emulation

template <typename T>
T __ldg(const T* p) {
  return *p;
}
template <typename T>
T __ldcg(const T* p) {
  return *p;
}
inline int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz(static_cast<unsigned>(x)) + 1; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((uint64_t(a) * b) >> 32); }
/// Byte i of the result is byte (s >> 4i) & 7 of the eight bytes {y:x} (x bytes 0-3, y 4-7).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const uint64_t bytes = uint64_t(y) << 32 | x;
  unsigned result = 0;
  for (int i = 0; i < 4; ++i) result |= unsigned((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return result;
}

template <typename T>
T atomicAdd(T* address, T value) {
  static_assert(std::is_integral<T>::value, "integer atomics only (as the kernels use)");
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
template <typename T>
T atomicMax(T* address, T value) {
  static_assert(std::is_integral<T>::value, "integer atomics only");
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (old < value && !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// Device min / max of two values of one type, as CUDA's math API overloads them.
template <typename T>
T min(T a, T b) {
  return b < a ? b : a;
}
template <typename T>
T max(T a, T b) {
  return a < b ? b : a;
}
using std::isnan;
