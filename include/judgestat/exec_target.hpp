// Where an analysis runs: one execution target for the bootstrap and the label-budget engines.
// Parsed once by a client (the CLI's --backend/--devices/--threads/--chunk, a Python keyword);
// the engines are made from it, so every analysis chooses its hardware the same way.
// The CUDA engines' performance switches (environment variables, bench/NOTES.md) are read into
// the target's CudaTuning when the target is built; the dispatch code takes the struct and reads
// no environment.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/budget_engine.hpp"

namespace judgestat {

/// The CUDA dispatch's switches; the defaults are the kernels every result was checked with.
/// Each comes from an environment variable (cuda_tuning_from_environment). None changes a
/// result: they choose between kernels that compute the same bits, for the GPU session to time.
struct CudaTuning {
  bool tile_prefetch = false;        // JUDGESTAT_TILE_PREFETCH=1: tile kernel loads 4 k steps ahead
  bool tile_shared_program = false;  // JUDGESTAT_TILE_SHARED_PROGRAM=1: statistics' tables in shared memory
  bool gather_rows = false;          // JUDGESTAT_GATHER_ROWS=1: gather kernel keeps 4 rows in flight
  bool summary_reuse = false;        // JUDGESTAT_SUMMARY_REUSE=1: device summaries reuse their buffers
  bool device_summaries = true;      // JUDGESTAT_DEVICE_SUMMARIES=0: summarise replicates on the host
  int budget_kernel = 1;             // JUDGESTAT_BUDGET_KERNEL=1|2: the label-budget kernel's variant
  /// A malformed bootstrap switch (JUDGESTAT_TILE_PREFETCH, JUDGESTAT_TILE_SHARED_PROGRAM,
  /// JUDGESTAT_GATHER_ROWS, JUDGESTAT_SUMMARY_REUSE: anything but 0 or 1), or "". Kept, not
  /// thrown, so that a CPU run is not refused over a CUDA setting: making a CUDA backend throws it.
  std::string bootstrap_error;
  /// A malformed JUDGESTAT_BUDGET_KERNEL (anything but 1 or 2), or "": making a CUDA budget
  /// engine throws it.
  std::string budget_error;
};

/// A getenv-like lookup: the variable's value, or nullptr when it is not set.
using EnvironmentLookup = std::function<const char*(const char*)>;
/// The switches as `lookup` gives them (an empty value counts as unset).
CudaTuning cuda_tuning_from(const EnvironmentLookup& lookup);
/// The switches of this process's environment.
CudaTuning cuda_tuning_from_environment();

struct ExecTarget {
  enum class Kind { kAuto, kCpu, kCuda };
  Kind kind = Kind::kAuto;  // auto: CUDA when a device is usable, else the CPU
  /// CUDA devices to split the work between; empty = default_cuda_device() (under MPI, the
  /// node's devices round-robin by rank). Only with kAuto (then CUDA is required) or kCuda.
  std::vector<int> devices;
  int threads = 0;     // CPU threads, 0 = every hardware thread
  uint64_t chunk = 0;  // at most this many replicates per backend call, 0 = sized from memory
  /// The CUDA engines' switches, read from the environment when the target is built (the one
  /// place the dispatch's environment is read); a client may set them instead.
  CudaTuning cuda_tuning = cuda_tuning_from_environment();
};

/// "auto", "cpu" or "cuda".
std::string to_string(ExecTarget::Kind kind);
/// "auto", "cpu" or "cuda"; std::invalid_argument naming `kind` otherwise.
ExecTarget::Kind parse_exec_kind(const std::string& text);

/// Throws std::invalid_argument when the target is inconsistent (devices with the CPU,
/// negative threads or device numbers).
void check_exec_target(const ExecTarget& target);
/// Whether `target` runs on CUDA on this machine (kAuto: when CUDA is available or devices
/// are named). std::invalid_argument ("kind: …" or "devices: …") when CUDA is asked for and
/// unavailable, saying why.
bool exec_target_uses_cuda(const ExecTarget& target);

/// The bootstrap backend of `target` (several devices: one split backend).
std::unique_ptr<Backend> make_backend(const ExecTarget& target);
/// The label-budget engine of `target` over `problem` (which must outlive it).
std::unique_ptr<BudgetEngine> make_budget_engine(const BudgetProblem& problem, const ExecTarget& target);

/// make_cuda_backend with the given switches (throws tuning.bootstrap_error when it is set).
/// The forms without a tuning (backend.hpp, budget_engine.hpp) read the environment.
std::unique_ptr<Backend> make_cuda_backend(int device, uint64_t max_chunk, const CudaTuning& tuning);
/// make_cuda_budget_engine with the given switches (throws tuning.budget_error when it is set).
std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem& problem, int device,
                                                      const CudaTuning& tuning);

}  // namespace judgestat
