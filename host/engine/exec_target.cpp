// One execution target for every engine (include/judgestat/exec_target.hpp).
#include "judgestat/exec_target.hpp"

#include <cstdlib>
#include <stdexcept>

namespace judgestat {

namespace {

/// A bootstrap switch: unset, empty or 0 is off, 1 is on; anything else is an error, so that a
/// mistyped session setting cannot silently time the default twice.
bool read_switch(const EnvironmentLookup& lookup, const char* name, std::string& error) {
  const char* value = lookup(name);
  if (!value || !*value || std::string(value) == "0") return false;
  if (std::string(value) == "1") return true;
  if (error.empty()) error = std::string(name) + ": expected 0 or 1, got '" + value + "'";
  return false;
}

}  // namespace

CudaTuning cuda_tuning_from(const EnvironmentLookup& lookup) {
  CudaTuning tuning;
  tuning.tile_prefetch = read_switch(lookup, "JUDGESTAT_TILE_PREFETCH", tuning.bootstrap_error);
  tuning.tile_shared_program = read_switch(lookup, "JUDGESTAT_TILE_SHARED_PROGRAM", tuning.bootstrap_error);
  tuning.gather_rows = read_switch(lookup, "JUDGESTAT_GATHER_ROWS", tuning.bootstrap_error);
  tuning.summary_reuse = read_switch(lookup, "JUDGESTAT_SUMMARY_REUSE", tuning.bootstrap_error);
  // Only 0 turns device summaries off (as before the switch moved here): any other value keeps them.
  const char* summaries = lookup("JUDGESTAT_DEVICE_SUMMARIES");
  tuning.device_summaries = !(summaries && std::string(summaries) == "0");
  if (const char* variant = lookup("JUDGESTAT_BUDGET_KERNEL"); variant && *variant) {
    const std::string text = variant;
    if (text == "1" || text == "2")
      tuning.budget_kernel = text == "2" ? 2 : 1;
    else
      tuning.budget_error = "JUDGESTAT_BUDGET_KERNEL: expected 1 or 2, got '" + text + "'";
  }
  return tuning;
}

CudaTuning cuda_tuning_from_environment() {
  return cuda_tuning_from([](const char* name) -> const char* { return std::getenv(name); });
}

std::string to_string(ExecTarget::Kind kind) {
  switch (kind) {
    case ExecTarget::Kind::kCpu:
      return "cpu";
    case ExecTarget::Kind::kCuda:
      return "cuda";
    default:
      return "auto";
  }
}

ExecTarget::Kind parse_exec_kind(const std::string& text) {
  if (text == "auto") return ExecTarget::Kind::kAuto;
  if (text == "cpu") return ExecTarget::Kind::kCpu;
  if (text == "cuda") return ExecTarget::Kind::kCuda;
  throw std::invalid_argument("kind: expected auto, cpu or cuda, got '" + text + "'");
}

void check_exec_target(const ExecTarget& target) {
  if (target.threads < 0) throw std::invalid_argument("threads: expected 0 (all) or a positive count");
  if (!target.devices.empty() && target.kind == ExecTarget::Kind::kCpu)
    throw std::invalid_argument("devices: selects CUDA devices, so it goes with kind cuda or auto, not 'cpu'");
  for (int device : target.devices)
    if (device < 0) throw std::invalid_argument("devices: device numbers are non-negative");
}

bool exec_target_uses_cuda(const ExecTarget& target) {
  check_exec_target(target);
  if (target.kind == ExecTarget::Kind::kCpu) return false;
  const bool required = target.kind == ExecTarget::Kind::kCuda || !target.devices.empty();
  std::string why;
  if (cuda_available(&why)) return true;
  if (required) throw std::invalid_argument((target.devices.empty() ? "kind: " : "devices: ") + why);
  return false;
}

namespace {

std::vector<int> devices_of(const ExecTarget& target) {
  return target.devices.empty() ? std::vector<int>{default_cuda_device()} : target.devices;
}

}  // namespace

std::unique_ptr<Backend> make_backend(const ExecTarget& target) {
  if (!exec_target_uses_cuda(target)) return make_cpu_backend(target.threads, target.chunk);
  std::vector<std::unique_ptr<Backend>> parts;
  for (int device : devices_of(target)) parts.push_back(make_cuda_backend(device, target.chunk, target.cuda_tuning));
  return make_split_backend(std::move(parts));
}

std::unique_ptr<BudgetEngine> make_budget_engine(const BudgetProblem& problem, const ExecTarget& target) {
  if (!exec_target_uses_cuda(target)) return make_cpu_budget_engine(problem, target.threads);
  std::vector<std::unique_ptr<BudgetEngine>> parts;
  for (int device : devices_of(target)) parts.push_back(make_cuda_budget_engine(problem, device, target.cuda_tuning));
  return make_split_budget_engine(problem, std::move(parts));
}

// The forms without a target are edges too: they read the environment when called.
std::unique_ptr<Backend> make_cuda_backend(int device, uint64_t max_chunk) {
  return make_cuda_backend(device, max_chunk, cuda_tuning_from_environment());
}

std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem& problem, int device) {
  return make_cuda_budget_engine(problem, device, cuda_tuning_from_environment());
}

}  // namespace judgestat
