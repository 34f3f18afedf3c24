// The check every new statistic gets (rules of the house): the same seed gives bit-identical
// replicates on one thread and on three threads with a small chunk (or on two runs' thread counts).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"

namespace judgestat::testing_support {

inline void expect_replicates_identical_across_threads(Plan plan) {
  const CompiledPlan compiled = compile(std::move(plan));
  const int B = 64;
  std::vector<double> one(static_cast<size_t>(B) * compiled.n_statistics), three(one.size());
  make_cpu_backend(1)->run_replicates(compiled, 7, 0, B, one.data());
  make_cpu_backend(3, 5)->run_replicates(compiled, 7, 0, B, three.data());
  EXPECT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(double)));
}

/// The same check on two whole runs: their kept replicates (keep_replicates) are equal, bit for bit.
inline void expect_same_replicates(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double)));
}

}  // namespace judgestat::testing_support
