// Backends execute compiled plans: replicate r of every statistic, by docs/statistics.md §2's stream.
// `cpu` (host/, threads) and `cuda` (kernels/) give bit-identical values for the same seed.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"

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
  virtual void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) = 0;
  /// A host buffer of at least n values for run_replicates to fill, kept and reused by later
  /// calls, so a repeated run pays the allocation and the pages' first touch once (at B·S of a
  /// million by 31 that first touch alone outlasted the GPU's resampling). The CUDA backend's
  /// is page-locked, so its copies run at bus speed and overlap the kernels. Valid until the
  /// next call or the backend's end; contents are not kept across a growth.
  virtual double* replicate_buffer(size_t n);
  /// Replicates [0, count) run and kept where they are made, to be summarised there (the CUDA
  /// backend keeps them in device memory: only a few numbers per statistic cross the bus).
  /// nullptr when this backend keeps nothing (cpu, split) or the values would not fit; the
  /// caller then runs chunks into replicate_buffer() and summarises on the host. Either way
  /// the summaries are the same bits (replicate_summary.hpp). `progress(done)` is called as
  /// parts of the run finish.
  virtual std::unique_ptr<KeptReplicates> run_replicates_kept(const CompiledPlan& plan, uint64_t seed, uint64_t count,
                                                              const std::function<void(uint64_t)>& progress = {}) {
    (void)plan, (void)seed, (void)count, (void)progress;
    return nullptr;
  }
  /// docs/statistics.md §7.3's sign-flip tests (plan.sign_flip_tests) over replicates [first,
  /// first + count): entry t = #{r : |T_r| ≥ |T_obs|} of test t. Integer counts, so parts of a
  /// range counted anywhere add up to the same numbers. The default counts on host threads
  /// (count_sign_flip_exceedances_on_host over every hardware thread); the CPU backend uses its
  /// own threads, the split backend splits the range over its parts, the CUDA backend a kernel.
  virtual std::vector<uint64_t> count_sign_flip_exceedances(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                            uint64_t count);

 private:
  std::unique_ptr<double[]> buffer_;
  size_t buffer_size_ = 0;
};

/// threads = 0: every hardware thread.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, uint64_t max_chunk = 0);

/// Backend::count_sign_flip_exceedances on `threads` host threads (0: every hardware thread),
/// each taking a contiguous part of the range and every test of its replicates.
std::vector<uint64_t> count_sign_flip_exceedances_on_host(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                          uint64_t count, int threads = 0);

/// True when this build has CUDA and a device is usable; `why` says otherwise.
bool cuda_available(std::string* why = nullptr);
/// Throws std::runtime_error when CUDA is unavailable (message from cuda_available).
std::unique_ptr<Backend> make_cuda_backend(int device = 0, uint64_t max_chunk = 0);

/// CUDA devices this process sees (0 in a build without CUDA or on a machine without one).
int cuda_device_count();
/// The device a process uses when none is named: under MPI its rank among the ranks on its
/// node, round-robin over the visible devices; device 0 in a single process.
int default_cuda_device();

/// The device() of a split backend or engine: "2 × NVIDIA H200" when the parts' devices are
/// alike, else their names joined with " + ".
std::string split_device_name(const std::vector<std::string>& part_devices);
/// The same for a list of parts (backends or budget engines) that each name their device.
template <typename Parts>
std::string split_device_name_of(const Parts& parts) {
  std::vector<std::string> devices;
  for (const auto& part : parts) devices.push_back(part->device());
  return split_device_name(devices);
}

/// One backend over several (one per device): each call splits its replicate range into
/// contiguous parts, one per backend, run at once on host threads. Replicate values depend on
/// the replicate number only (docs/statistics.md §2), so they equal any single backend's.
/// std::invalid_argument for an empty list or parts of different names (cpu and cuda).
std::unique_ptr<Backend> make_split_backend(std::vector<std::unique_ptr<Backend>> parts);

}  // namespace judgestat
