// CPU backend: replicates split into contiguous per-thread ranges; each replicate is computed by
// one thread from SPEC §2's stream, so results do not depend on threads or chunking.
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "judgestat/backend.hpp"

namespace judgestat {
namespace {

// Adds `row` into `sums`; the fixed width lets the compiler vectorise the common small widths.
template <typename Sum>
inline void add_row(Sum* __restrict sums, const Sum* __restrict row, int32_t n_columns) {
  for (int32_t k = 0; k < n_columns; ++k) sums[k] += row[k];
}

// Column sums of one replicate: every stratum draws its clusters with replacement.
template <typename Sum>
void replicate_sums(const CompiledPlan& plan, const Sum* cluster_sums, PhiloxKey key,
                    uint32_t replicate, Sum* sums) {
  const int32_t K = plan.n_columns;
  std::fill(sums, sums + K, Sum{0});
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    const int64_t offset = plan.stratum_offset[h];
    const auto size = static_cast<uint32_t>(plan.stratum_offset[h + 1] - offset);
    const Sum* base = cluster_sums + offset * K;
    uint32_t d = 0;
    for (; d + 4 <= size; d += 4) {
      const Words4 w = draw_block(key, d >> 2, replicate, bootstrap_stream(h));
      for (int t = 0; t < 4; ++t) add_row(sums, base + int64_t(scale_to(w.w[t], size)) * K, K);
    }
    if (d < size) {
      const Words4 w = draw_block(key, d >> 2, replicate, bootstrap_stream(h));
      for (int t = 0; d + t < size; ++t)
        add_row(sums, base + int64_t(scale_to(w.w[t], size)) * K, K);
    }
  }
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, uint64_t max_chunk)
      : threads_(threads > 0 ? threads
                             : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
        max_chunk_(max_chunk) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override {
    return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads");
  }

  uint64_t max_chunk(const CompiledPlan& plan) const override {
    // Output buffer of ~64 MiB per chunk keeps progress responsive and memory bounded.
    const uint64_t per_replicate = std::max<uint64_t>(1, plan.n_statistics) * sizeof(double);
    uint64_t chunk = std::max<uint64_t>(1, (64ull << 20) / per_replicate);
    if (max_chunk_) chunk = std::min(chunk, max_chunk_);
    return chunk;
  }

  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count,
                      double* out) override {
    if (plan.fits_int32) {
      // Narrow rows halve the memory traffic; the copy costs one pass over the clusters.
      const std::vector<int32_t> narrow(plan.cluster_sums.begin(), plan.cluster_sums.end());
      run<int32_t>(plan, narrow.data(), seed, first, count, out);
    } else {
      run<int64_t>(plan, plan.cluster_sums.data(), seed, first, count, out);
    }
  }

 private:
  template <typename Sum>
  void run(const CompiledPlan& plan, const Sum* cluster_sums, uint64_t seed, uint64_t first,
           uint64_t count, double* out) {
    const PhiloxKey key(seed);
    const int32_t S = plan.n_statistics;
    auto work = [&](uint64_t begin, uint64_t end) {
      std::vector<Sum> sums(plan.n_columns);
      std::vector<double> normals(plan.n_normals);
      for (uint64_t i = begin; i < end; ++i) {
        const auto r = static_cast<uint32_t>(first + i);
        replicate_sums(plan, cluster_sums, key, r, sums.data());
        for (int32_t k = 0; k < plan.n_normals; ++k) normals[k] = normal_draw(key, r, k);
        for (int32_t s = 0; s < S; ++s)
          out[i * S + s] = evaluate(plan.ops.data() + plan.op_offset[s],
                                    plan.op_offset[s + 1] - plan.op_offset[s], sums.data(),
                                    plan.column_unscale.data(), normals.data());
      }
    };
    const uint64_t n_threads = std::min<uint64_t>(threads_, count);
    if (n_threads <= 1) {
      work(0, count);
      return;
    }
    std::vector<std::thread> pool;
    for (uint64_t t = 0; t < n_threads; ++t)
      pool.emplace_back(work, count * t / n_threads, count * (t + 1) / n_threads);
    for (auto& thread : pool) thread.join();
  }

  int threads_;
  uint64_t max_chunk_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads, uint64_t max_chunk) {
  return std::make_unique<CpuBackend>(threads, max_chunk);
}

}  // namespace judgestat
