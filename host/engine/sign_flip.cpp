// docs/statistics.md §7.3's sign-flip permutation counts on host threads: Backend's default and
// the CPU backend's (the CUDA backend runs the same sign_flip_sum in kernels/permutation/).
#include <algorithm>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/split_range.hpp"
#include "judgestat/backend.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

/// Exceedances of every test over replicates [begin, end).
std::vector<uint64_t> count_range(const CompiledPlan& plan, const std::vector<int64_t>& d, PhiloxKey key,
                                  uint64_t begin, uint64_t end) {
  const size_t n_tests = plan.sign_flip_tests.size();
  const int64_t C = plan.n_clusters;
  std::vector<uint64_t> exceed(n_tests, 0);
  for (uint64_t r = begin; r < end; ++r)
    for (size_t t = 0; t < n_tests; ++t) {
      const int64_t observed = plan.totals[plan.sign_flip_tests[t].column];
      exceed[t] += sign_flip_exceeds(sign_flip_sum(key, static_cast<uint32_t>(r), d.data() + t * C, C), observed);
    }
  return exceed;
}

}  // namespace

std::vector<uint64_t> count_sign_flip_exceedances_on_host(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                          uint64_t count, int threads) {
  std::vector<uint64_t> exceed(plan.sign_flip_tests.size(), 0);
  if (exceed.empty() || count == 0) return exceed;
  if (first + count > (uint64_t{1} << 32) || first + count < first)
    throw std::logic_error("sign flips: replicates beyond 2^32 (replicate numbers are 32-bit)");
  const std::vector<int64_t> d = sign_flip_differences(plan);
  const PhiloxKey key(seed);
  const uint64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t n_parts = std::min<uint64_t>(threads > 0 ? static_cast<uint64_t>(threads) : hardware, count);
  std::vector<std::vector<uint64_t>> parts(n_parts);
  std::vector<std::future<void>> tasks;
  for (uint64_t p = 0; p < n_parts; ++p) {
    const SplitRange range = split_range(count, p, n_parts);
    tasks.push_back(std::async(std::launch::async, [&, p, range] {
      parts[p] = count_range(plan, d, key, first + range.begin, first + range.end);
    }));
  }
  wait_all_then_rethrow(tasks);
  for (const std::vector<uint64_t>& part : parts)
    for (size_t t = 0; t < exceed.size(); ++t) exceed[t] += part[t];
  return exceed;
}

std::vector<uint64_t> Backend::count_sign_flip_exceedances(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                           uint64_t count) {
  return count_sign_flip_exceedances_on_host(plan, seed, first, count);
}

}  // namespace judgestat
