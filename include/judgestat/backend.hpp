// Backends execute compiled plans: replicate r of every statistic, by SPEC §2's stream.
// `cpu` (host/, threads) and `cuda` (kernels/) give bit-identical values for the same seed.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "judgestat/plan.hpp"

namespace judgestat {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // e.g. "2 threads" or "NVIDIA H200"
  /// Largest replicate count one call may take for this plan within the memory bound.
  virtual uint64_t max_chunk(const CompiledPlan& plan) const = 0;
  /// Replicates [first, first + count): writes out[(r - first) * n_statistics + s] for every
  /// statistic s; NaN marks an undefined replicate value.
  virtual void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                              uint64_t count, double* out) = 0;
};

/// threads = 0: every hardware thread.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, uint64_t max_chunk = 0);

/// True when this build has CUDA and a device is usable; `why` says otherwise.
bool cuda_available(std::string* why = nullptr);
/// Throws std::runtime_error when CUDA is unavailable (message from cuda_available).
std::unique_ptr<Backend> make_cuda_backend(int device = 0, uint64_t max_chunk = 0);

/// "auto" picks cuda when available, else cpu.
std::unique_ptr<Backend> make_backend(const std::string& name, int threads = 0,
                                      uint64_t max_chunk = 0);

}  // namespace judgestat
