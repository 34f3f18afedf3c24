// docs/statistics.md §7.3's sign-flip permutation counts on host threads: Backend's default and
// the CPU backend's (the CUDA backend runs the same sign_flip_sum in kernels/permutation/).
#include <algorithm>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/philox_simd.hpp"
#include "engine/split_range.hpp"
#include "judgestat/backend.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

// Every test's d_c, made for T_r = Σ_c ±d_c = T_obs − 2·Σ_{c: minus} d_c: as int32 padded to
// 8 clusters for sum_where_bits_set when every test has Σ_c |d_c| < 2^31 (counts: always, in
// practice), else sign_flip_sum itself. Both are exact, so T_r is the same integer.
struct SignFlipDifferences {
  int64_t clusters = 0, stride = 0;
  std::vector<int64_t> d;       // test-major: t · clusters + c
  std::vector<int32_t> narrow;  // t · stride + c, zero padded; empty when some sum is too wide

  explicit SignFlipDifferences(const CompiledPlan& plan)
      : clusters(plan.n_clusters), stride((plan.n_clusters + 7) / 8 * 8), d(sign_flip_differences(plan)) {
    const size_t n_tests = plan.sign_flip_tests.size();
    bool fits = true;
    for (size_t t = 0; t < n_tests; ++t) {
      int64_t magnitude = 0;
      for (int64_t c = 0; c < clusters; ++c) magnitude += std::abs(d[t * clusters + c]);
      fits = fits && magnitude < (int64_t{1} << 31);
    }
    if (!fits) return;
    narrow.assign(n_tests * stride, 0);
    for (size_t t = 0; t < n_tests; ++t)
      for (int64_t c = 0; c < clusters; ++c) narrow[t * stride + c] = static_cast<int32_t>(d[t * clusters + c]);
  }

  // T_r of test t, whose T_obs = Σ_c d_c is `observed`; `words` are replicate r's sign words
  // (block-major, cluster c's bit in words[c div 32]; drawn only for the int32 sums).
  int64_t replicate_statistic(PhiloxKey key, uint32_t r, const uint32_t* words, size_t t, int64_t observed) const {
    if (narrow.empty()) return sign_flip_sum(key, r, d.data() + t * clusters, clusters);
    return observed - 2 * static_cast<int64_t>(sum_where_bits_set(words, narrow.data() + t * stride, stride));
  }
};

/// Exceedances of every test over replicates [begin, end): each replicate's Philox words are
/// drawn once for all tests (the signs depend on r and c only).
std::vector<uint64_t> count_range(const CompiledPlan& plan, const SignFlipDifferences& d, PhiloxKey key, uint64_t begin,
                                  uint64_t end) {
  const size_t n_tests = plan.sign_flip_tests.size();
  const auto n_blocks = static_cast<uint32_t>((d.clusters + kSignFlipClustersPerBlock - 1) / kSignFlipClustersPerBlock);
  std::vector<uint32_t> words(4 * size_t{n_blocks});  // block-major: cluster c's bit is in words[c div 32]
  std::vector<uint64_t> exceed(n_tests, 0);
  for (uint64_t r = begin; r < end; ++r) {
    for (uint32_t b = 0; b < n_blocks && !d.narrow.empty(); ++b) {
      const Words4 w = draw_block(key, b, static_cast<uint32_t>(r), kSignFlipStream);
      std::copy(w.w, w.w + 4, words.begin() + 4 * size_t{b});
    }
    for (size_t t = 0; t < n_tests; ++t) {
      const int64_t observed = plan.totals[plan.sign_flip_tests[t].column];
      exceed[t] +=
          sign_flip_exceeds(d.replicate_statistic(key, static_cast<uint32_t>(r), words.data(), t, observed), observed);
    }
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
  const SignFlipDifferences d(plan);
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
