// What the kernels need from the CUDA runtime, in both worlds: nvcc's cuda_runtime.h, or the CPU
// runtime of kernels/emulation/ (JUDGESTAT_CUDA_EMULATION, tests/cuda_cpu/). The few constructs
// only nvcc can compile are wrapped here so that the kernels' own source is the same in both.
#pragma once
#if defined(JUDGESTAT_CUDA_EMULATION)
#include "../emulation/cuda_emulation.hpp"
#else
#include <cuda_runtime.h>
#endif

/// The block's dynamic shared memory as `type name[]`, aligned to `alignment` bytes.
#if defined(JUDGESTAT_CUDA_EMULATION)
#define JS_DYNAMIC_SHARED(type, name, alignment) \
  type* const name = reinterpret_cast<type*>(::judgestat::emulation::dynamic_shared_memory())
#else
#define JS_DYNAMIC_SHARED(type, name, alignment) \
  extern __shared__ __align__(alignment)         \
  type name[]
#endif

/// A __syncthreads that the CPU runtime's planted-race test can switch off
/// (emulation::set_planted_race), to show that a missing barrier is caught. Always a barrier
/// on a device.
#if defined(JUDGESTAT_CUDA_EMULATION)
#define JS_REMOVABLE_SYNCTHREADS()                                \
  do {                                                            \
    if (!::judgestat::emulation::planted_race()) __syncthreads(); \
  } while (0)
#else
#define JS_REMOVABLE_SYNCTHREADS() __syncthreads()
#endif
