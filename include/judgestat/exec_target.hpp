// Where an analysis runs: one execution target for the bootstrap and the label-budget engines.
// Parsed once by a client (the CLI's --backend/--devices/--threads/--chunk, a Python keyword);
// the engines are made from it, so every analysis chooses its hardware the same way.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/budget.hpp"

namespace judgestat {

struct ExecTarget {
  enum class Kind { kAuto, kCpu, kCuda };
  Kind kind = Kind::kAuto;  // auto: CUDA when a device is usable, else the CPU
  /// CUDA devices to split the work between; empty = default_cuda_device() (under MPI, the
  /// node's devices round-robin by rank). Only with kAuto (then CUDA is required) or kCuda.
  std::vector<int> devices;
  int threads = 0;     // CPU threads, 0 = every hardware thread
  uint64_t chunk = 0;  // at most this many replicates per backend call, 0 = sized from memory
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

}  // namespace judgestat
