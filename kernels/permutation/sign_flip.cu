// docs/statistics.md §7.3's cluster sign-flip permutation test on a GPU: per (test, replicate)
// unit a warp computes T_r with the host's sign_flip_sum (include/judgestat/plan.hpp), its lanes
// taking every 32nd Philox block of clusters, adds the lanes' parts with shuffles and counts
// |T_r| ≥ |T_obs|. Every sum and count is an integer, so the order of additions (lanes, warps,
// atomics) cannot change the result: the counts equal the CPU backend's bit for bit. Simple
// rather than fast: plans with fewer than 4,096 clusters leave lanes idle. The kernel itself is in
// sign_flip_kernel.cuh (the CPU runtime of tests/cuda_cpu/ runs it too).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../detail/cuda_check.cuh"
#include "judgestat/plan.hpp"
#include "sign_flip.hpp"
#include "sign_flip_kernel.cuh"

namespace judgestat::cuda_detail {

std::vector<uint64_t> count_sign_flip_exceedances_on_device(int device, const CompiledPlan& plan, uint64_t seed,
                                                            uint64_t first, uint64_t count) {
  const size_t n_tests = plan.sign_flip_tests.size();
  std::vector<uint64_t> exceed(n_tests, 0);
  if (n_tests == 0 || count == 0) return exceed;
  if (first + count > (uint64_t{1} << 32) || first + count < first)
    throw std::invalid_argument("CUDA backend: sign flips of replicates beyond 2^32 (replicate numbers are 32-bit)");
  if (plan.n_clusters <= 0 || plan.n_clusters >= (int64_t(1) << 31))
    throw std::invalid_argument("CUDA backend: malformed compiled plan: sign flips need 1 to 2^31 - 1 clusters");
  const std::vector<int64_t> d = sign_flip_differences(plan);  // checks the tests' columns
  std::vector<int64_t> observed(n_tests);
  for (size_t t = 0; t < n_tests; ++t) observed[t] = plan.totals.at(plan.sign_flip_tests[t].column);

  JS_CUDA_CHECK(cudaSetDevice(device));
  DeviceBuffer<int64_t> device_d, device_observed;
  device_d.upload(d);
  device_observed.upload(observed);
  DeviceBuffer<unsigned long long> device_exceed(n_tests);
  JS_CUDA_CHECK(cudaMemset(device_exceed.data(), 0, device_exceed.bytes()));

  int blocks_per_sm = 0, sms = 0;
  JS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sign_flip_kernel, kSignFlipThreads, 0));
  JS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const uint64_t warps_per_block = kSignFlipThreads / kSignFlipLanes;
  const uint64_t units = count * n_tests;
  const uint64_t wanted = (units + warps_per_block - 1) / warps_per_block;
  const auto grid = static_cast<unsigned>(
      std::max<uint64_t>(1, std::min<uint64_t>(wanted, uint64_t(std::max(1, blocks_per_sm)) * sms)));
  sign_flip_kernel<<<grid, kSignFlipThreads>>>(device_d.data(), device_observed.data(), plan.n_clusters,
                                               static_cast<uint32_t>(n_tests), seed, first, count,
                                               device_exceed.data());
  JS_CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned long long> counts(n_tests);
  JS_CUDA_CHECK(cudaMemcpy(counts.data(), device_exceed.data(), device_exceed.bytes(), cudaMemcpyDeviceToHost));
  std::copy(counts.begin(), counts.end(), exceed.begin());
  return exceed;
}

}  // namespace judgestat::cuda_detail
