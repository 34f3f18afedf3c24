// One execution target for every engine (include/judgestat/exec_target.hpp).
#include "judgestat/exec_target.hpp"

#include <stdexcept>

namespace judgestat {

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
  for (int device : devices_of(target)) parts.push_back(make_cuda_backend(device, target.chunk));
  return make_split_backend(std::move(parts));
}

std::unique_ptr<BudgetEngine> make_budget_engine(const BudgetProblem& problem, const ExecTarget& target) {
  if (!exec_target_uses_cuda(target)) return make_cpu_budget_engine(problem, target.threads);
  std::vector<std::unique_ptr<BudgetEngine>> parts;
  for (int device : devices_of(target)) parts.push_back(make_cuda_budget_engine(problem, device));
  return make_split_budget_engine(problem, std::move(parts));
}

}  // namespace judgestat
