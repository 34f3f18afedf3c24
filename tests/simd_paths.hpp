// Test helpers for code with several SIMD paths: the paths this CPU can run, and a guard that
// restores the process's path.
#pragma once
#include <vector>

#include "engine/philox_simd.hpp"

namespace judgestat::testing_support {

// The paths this CPU can run, scalar first.
inline std::vector<SimdPath> available_paths() {
  std::vector<SimdPath> paths;
  for (int p = 0; p <= static_cast<int>(simd_best_supported()); ++p) paths.push_back(static_cast<SimdPath>(p));
  return paths;
}

// Restores the process's SIMD path when a test that switches it ends.
struct SimdPathRestorer {
  SimdPath saved = simd_path();
  ~SimdPathRestorer() { set_simd_path_for_testing(saved); }
};

}  // namespace judgestat::testing_support
