// CPU backend: replicates split into contiguous per-thread ranges; each replicate is computed by
// one thread from docs/statistics.md §2's stream, so results do not depend on threads or chunking.
#include <algorithm>
#include <cmath>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine/philox_simd.hpp"
#include "judgestat/backend.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

// Adds `row` into `sums`; the fixed width lets the compiler vectorise the common small widths.
template <typename Sum>
inline void add_row(Sum* __restrict sums, const Sum* __restrict row, int32_t n_columns) {
  for (int32_t k = 0; k < n_columns; ++k) sums[k] += row[k];
}

// Column sums of one replicate: every stratum draws its clusters with replacement.
template <typename Sum>
void replicate_sums(const CompiledPlan& plan, const Sum* cluster_sums, PhiloxKey key, uint32_t replicate, Sum* sums) {
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
      for (int t = 0; d + t < size; ++t) add_row(sums, base + int64_t(scale_to(w.w[t], size)) * K, K);
    }
  }
}

// How often each cluster is drawn in one replicate (the multiplicity form's first step).
template <typename Count>
void count_draws(const CompiledPlan& plan, PhiloxKey key, uint32_t replicate, SimdPath path, Count* multiplicity) {
  std::fill(multiplicity, multiplicity + plan.n_clusters, Count{0});
  for (int32_t h = 0; h < plan.n_strata(); ++h) {
    const int64_t offset = plan.stratum_offset[h];
    const auto size = static_cast<uint32_t>(plan.stratum_offset[h + 1] - offset);
    Count* m = multiplicity + offset;
    uint32_t d = 0;
    // 64 words at a time (AVX-512: in stream order; AVX2: pipelined, in lane order), then at most
    // one AVX2 pass of 32, then one block at a time: the histogram needs only their multiset.
    if (path >= SimdPath::avx512) {
      uint32_t words[64];
      for (; d + 64 <= size; d += 64) {
        philox_blocks16(key, d >> 2, replicate, bootstrap_stream(h), words);
        for (uint32_t word : words) ++m[scale_to(word, size)];
      }
    }
    if (path >= SimdPath::avx2) {
      const uint32_t groups = (size - d) / 64;
      count_draw_groups(key, d >> 2, groups, replicate, bootstrap_stream(h), size, m);
      d += 64 * groups;
      uint32_t words[32];
      for (; d + 32 <= size; d += 32) {
        philox_blocks8(key, d >> 2, replicate, bootstrap_stream(h), words);
        for (uint32_t word : words) ++m[scale_to(word, size)];
      }
    }
    for (; d + 4 <= size; d += 4) {
      const Words4 w = draw_block(key, d >> 2, replicate, bootstrap_stream(h));
      ++m[scale_to(w.w[0], size)];
      ++m[scale_to(w.w[1], size)];
      ++m[scale_to(w.w[2], size)];
      ++m[scale_to(w.w[3], size)];
    }
    if (d < size) {
      const Words4 w = draw_block(key, d >> 2, replicate, bootstrap_stream(h));
      for (int t = 0; d + t < size; ++t) ++m[scale_to(w.w[t], size)];
    }
  }
}

// Rank terms' 2U of R replicates (multiplicities m[0..R)) into extras[j·E + n_normals + t], in
// one scan per term (rank_terms_2u).
template <int R, typename Count>
void rank_sums_of_batch(const CompiledPlan& plan, const Count* const* m, double* extras, int64_t E) {
  for (int32_t t = 0; t < plan.n_rank_terms; ++t) {
    int64_t twice_u[R];
    rank_terms_2u<R>(plan.rank_offset.data(), plan.rank_cluster.data(), plan.rank_positive.data(),
                     plan.rank_tie_start.data(), t, m, twice_u);
    for (int j = 0; j < R; ++j) extras[j * E + plan.n_normals + t] = static_cast<double>(twice_u[j]);
  }
}

void rank_sums_batch(const CompiledPlan& plan, const int16_t* const* m, int n, double* extras, int64_t E) {
  switch (n) {
    case 4:
      return rank_sums_of_batch<4>(plan, m, extras, E);
    case 3:
      return rank_sums_of_batch<3>(plan, m, extras, E);
    case 2:
      return rank_sums_of_batch<2>(plan, m, extras, E);
    default:
      return rank_sums_of_batch<1>(plan, m, extras, E);
  }
}

// Multiplicities are int16: every stratum must have fewer than 2^15 clusters.
bool multiplicities_fit_int16(const CompiledPlan& plan) {
  for (int32_t h = 0; h < plan.n_strata(); ++h)
    if (plan.stratum_offset[h + 1] - plan.stratum_offset[h] > 32767) return false;
  return true;
}

// Cluster sums split into 15-bit digits ("planes") for the int16 dot products:
// A = Σ_{p<P-1} d_p·2^(15p) + d_{P-1}·2^(15(P-1)), low digits in [0, 2^15), the top one signed
// int16 (floor shifts, so negative sums split exactly too). Row r of `digits` is plane
// row_shift[r] / 15 of column row_column[r], over `stride` clusters (zero padding; a multiple
// of 32 so that column_dots' AVX-512 loop needs no tail).
struct ClusterSumPlanes {
  int64_t stride = 0;
  std::vector<int16_t> digits;
  std::vector<int32_t> row_column, row_shift;
  bool one_plane_each = true;  // every column is a single int16 plane

  explicit ClusterSumPlanes(const CompiledPlan& plan) : stride((plan.n_clusters + 31) / 32 * 32) {
    const int64_t C = plan.n_clusters;
    const int32_t K = plan.n_columns;
    for (int32_t k = 0; k < K; ++k) {
      int64_t lo = 0, hi = 0;
      for (int64_t c = 0; c < C; ++c) {
        lo = std::min(lo, plan.cluster_sums[c * K + k]);
        hi = std::max(hi, plan.cluster_sums[c * K + k]);
      }
      int shift = 0;  // of the top digit
      while ((lo >> shift) < -32768 || (hi >> shift) > 32767) shift += 15;
      one_plane_each = one_plane_each && shift == 0;
      for (int s = 0; s <= shift; s += 15) {
        row_column.push_back(k);
        row_shift.push_back(s);
        digits.resize(digits.size() + stride, 0);
        int16_t* row = digits.data() + digits.size() - stride;
        for (int64_t c = 0; c < C; ++c) {
          const int64_t v = plan.cluster_sums[c * K + k] >> s;
          row[c] = static_cast<int16_t>(s == shift ? v : (v & 0x7fff));
        }
      }
    }
  }
  int32_t n_rows() const { return static_cast<int32_t>(row_column.size()); }

  // Column sums from one replicate's dots: Σ_planes dot · 2^shift, exact in int64.
  void recombine(const int32_t* dots, int32_t n_columns, int64_t* sums) const {
    std::fill(sums, sums + n_columns, int64_t{0});
    for (int32_t row = 0; row < n_rows(); ++row)
      sums[row_column[row]] += static_cast<int64_t>(dots[row]) * (int64_t{1} << row_shift[row]);
  }
};

// Replicates computed together: on AVX2 the dot products of a batch share their loads of the digits.
constexpr int kBatch = 4;

// Per replicate: the normal draws, the rank terms' 2U and one spare slot.
int64_t extras_per_replicate(const CompiledPlan& plan) { return plan.n_normals + plan.n_rank_terms + 1; }

class CpuBackend final : public Backend {
 public:
  CpuBackend(int threads, uint64_t max_chunk) : threads_(capped_threads(threads)), max_chunk_(max_chunk) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override { return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads"); }

  uint64_t max_chunk(const CompiledPlan& plan) const override {
    // Output buffer of ~64 MiB per chunk keeps progress responsive and memory bounded.
    const uint64_t per_replicate = std::max<uint64_t>(1, plan.n_statistics) * sizeof(double);
    uint64_t chunk = std::max<uint64_t>(1, (64ull << 20) / per_replicate);
    if (max_chunk_) chunk = std::min(chunk, max_chunk_);
    return chunk;
  }

  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) override {
    // Multiplicity form (docs/statistics.md §2: stat = Σ_c m_c A_c): count how often each cluster is drawn,
    // then int16 dot products of the counts with the cluster sums' planes (column_dots).
    if (multiplicities_fit_int16(plan)) {
      const SimdPath path = simd_path();
      const ClusterSumPlanes planes(plan);
      const int32_t rows = planes.n_rows();
      // n (≤ kBatch) consecutive replicates' sums: the draws counted, then a dot per plane (on
      // AVX2 the batch shares the digits' loads). Into int32 sums the dots are the sums (one plane per
      // column); into int64 sums the planes recombine exactly, the gather path's integers.
      const auto multiplicity_sums = [&](PhiloxKey key, uint32_t r, int n, auto* sums, double* extras) {
        using Sum = std::remove_pointer_t<decltype(sums)>;
        thread_local std::vector<int16_t> multiplicity;
        thread_local std::vector<int32_t> dots;
        multiplicity.resize(kBatch * planes.stride);
        dots.resize(kBatch * rows);
        const int16_t* m[kBatch];
        int32_t* dot_out[kBatch];  // where each replicate's dots go
        for (int j = 0; j < n; ++j) {
          int16_t* counts = multiplicity.data() + j * planes.stride;
          count_draws(plan, key, r + j, path, counts);
          m[j] = counts;
          if constexpr (std::is_same_v<Sum, int32_t>)
            dot_out[j] = sums + j * plan.n_columns;
          else
            dot_out[j] = dots.data() + j * rows;
        }
        column_dots_batch(m, n, planes.digits.data(), planes.stride, rows, dot_out);
        if constexpr (std::is_same_v<Sum, int64_t>)
          for (int j = 0; j < n; ++j) planes.recombine(dot_out[j], plan.n_columns, sums + j * plan.n_columns);
        rank_sums_batch(plan, m, n, extras, extras_per_replicate(plan));
      };
      // A plane's dot is exact in int32 when every column is one plane and the plan's replicate
      // sums fit int32, or else below 2^16 clusters (at most Σ_c m_c·2^15 = C·2^15).
      if (planes.one_plane_each && plan.fits_int32) {
        run<int32_t>(plan, seed, first, count, out, multiplicity_sums);
        return;
      }
      if (plan.n_clusters < 65536) {
        run<int64_t>(plan, seed, first, count, out, multiplicity_sums);
        return;
      }
    }
    if (plan.fits_int32) {
      // Narrow rows halve the memory traffic; the copy costs one pass over the clusters.
      const std::vector<int32_t> narrow(plan.cluster_sums.begin(), plan.cluster_sums.end());
      run<int32_t>(plan, seed, first, count, out, [&](PhiloxKey key, uint32_t r, int n, int32_t* sums, double* extras) {
        gather_sums(plan, narrow.data(), key, r, n, sums, extras);
      });
    } else {
      run<int64_t>(plan, seed, first, count, out, [&](PhiloxKey key, uint32_t r, int n, int64_t* sums, double* extras) {
        gather_sums(plan, plan.cluster_sums.data(), key, r, n, sums, extras);
      });
    }
  }

  std::vector<uint64_t> count_sign_flip_exceedances(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                    uint64_t count) override {
    return count_sign_flip_exceedances_on_host(plan, seed, first, count, threads_);
  }

 private:
  // Gather paths: each replicate's rows added in draw order; they have no multiplicities, so
  // the rank terms count the same draws again.
  template <typename Sum>
  static void gather_sums(const CompiledPlan& plan, const Sum* cluster_sums, PhiloxKey key, uint32_t r, int n,
                          Sum* sums, double* extras) {
    for (int j = 0; j < n; ++j) {
      replicate_sums(plan, cluster_sums, key, r + j, sums + j * plan.n_columns);
      if (plan.n_rank_terms == 0) continue;
      thread_local std::vector<int32_t> multiplicity;
      multiplicity.resize(plan.n_clusters);
      count_draws(plan, key, r + j, simd_path(), multiplicity.data());
      const int32_t* counts = multiplicity.data();
      const int64_t E = extras_per_replicate(plan);
      rank_sums_of_batch<1>(plan, &counts, extras + j * E, E);
    }
  }

  // Runs replicates [first, first + count) over the threads; `sums_of(key, r, n, sums, extras)`
  // fills replicates r .. r + n − 1's column sums and rank terms' extras (1 ≤ n ≤ kBatch, laid
  // out one replicate after the other).
  template <typename Sum, typename SumsOf>
  void run(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out,
           const SumsOf& sums_of) {
    const PhiloxKey key(seed);
    const int32_t S = plan.n_statistics, K = plan.n_columns;
    const int64_t E = extras_per_replicate(plan);
    auto work = [&](uint64_t begin, uint64_t end) {
      std::vector<Sum> sums(kBatch * K);
      std::vector<double> extras(kBatch * E);
      for (uint64_t i = begin; i < end; i += kBatch) {
        const int n = static_cast<int>(std::min<uint64_t>(kBatch, end - i));
        const auto r = static_cast<uint32_t>(first + i);
        sums_of(key, r, n, sums.data(), extras.data());
        for (int j = 0; j < n; ++j) {
          double* x = extras.data() + j * E;
          for (int32_t k = 0; k < plan.n_normals; ++k) x[k] = normal_draw(key, r + j, k);
          for (int32_t s = 0; s < S; ++s)
            out[(i + j) * S + s] =
                evaluate(plan.ops.data() + plan.op_offset[s], plan.op_offset[s + 1] - plan.op_offset[s],
                         sums.data() + j * K, plan.column_unscale.data(), x);
        }
      }
    };
    const uint64_t n_threads = std::min<uint64_t>(threads_, count);
    if (n_threads <= 1) {
      work(0, count);
      return;
    }
    JoiningThreads pool;
    for (uint64_t t = 0; t < n_threads; ++t)
      pool.run_or_start(work, count * t / n_threads, count * (t + 1) / n_threads);
    pool.join();
  }

  int threads_;
  uint64_t max_chunk_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads, uint64_t max_chunk) {
  return std::make_unique<CpuBackend>(threads, max_chunk);
}

}  // namespace judgestat
