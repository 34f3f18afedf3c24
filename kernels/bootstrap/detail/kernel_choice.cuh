// Which kernel of each bootstrap path runs under a CudaTuning (the switches of the execution
// target, include/judgestat/exec_target.hpp). In a header so that the dispatch
// (../cuda_backend.cu) and the CPU runtime's tests (tests/cuda_cpu/) pick through the same code.
#pragma once
#include <cstdint>

#include "gather_agent.cuh"
#include "judgestat/exec_target.hpp"
#include "multiplicity_tile_agent.cuh"

namespace judgestat::cuda_detail {

// One kernel per combination of a path's switches (bench/NOTES.md): separate instantiations, so
// that the default's registers and code stay as they were.
using TileKernel = void (*)(TilePlanView, uint64_t, uint64_t, uint64_t, double*);
template <typename Word>
using GatherKernel = void (*)(GatherPlanView<Word>, uint64_t, uint64_t, uint64_t, double*);

/// The tile kernel's options: kTilePrefetch from the tuning, kTileSharedProgram from the tuning
/// where the statistics' tables fit in shared memory beside the histograms (`program_fits`).
inline int tile_kernel_options(const CudaTuning& tuning, bool program_fits) {
  return (tuning.tile_prefetch ? kTilePrefetch : 0) |
         (tuning.tile_shared_program && program_fits ? kTileSharedProgram : 0);
}

inline TileKernel tile_kernel(int options) {
  static const TileKernel kernels[kTileOptionCount] = {multiplicity_tile_kernel<0>, multiplicity_tile_kernel<1>,
                                                       multiplicity_tile_kernel<2>, multiplicity_tile_kernel<3>};
  return kernels[options];
}

template <typename Word>
GatherKernel<Word> gather_kernel_for(bool rows_in_flight) {
  return rows_in_flight ? gather_kernel<Word, true> : gather_kernel<Word, false>;
}

}  // namespace judgestat::cuda_detail
