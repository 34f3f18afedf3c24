// Backend choice by name and device; CPU-only builds say why the CUDA backend is missing.
// Several devices in one process run as one split backend (make_split_backend).
#include <algorithm>
#include <exception>
#include <future>
#include <limits>
#include <stdexcept>

#ifdef JUDGESTAT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "distributed/distributed.hpp"
#include "engine/split_range.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/budget_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "support/parallel.hpp"

namespace judgestat {

#ifndef JUDGESTAT_HAVE_CUDA
bool cuda_available(std::string* why) {
  if (why) *why = "this build has no CUDA backend (nvcc was not found or -DJUDGESTAT_CUDA=OFF)";
  return false;
}
std::unique_ptr<Backend> make_cuda_backend(int, uint64_t, const CudaTuning&) {
  std::string why;
  cuda_available(&why);
  throw std::invalid_argument("cuda: " + why);
}

// No CUDA budget engine either (kernels/budget/cuda_budget_engine.cu implements it in CUDA builds).
std::unique_ptr<BudgetEngine> make_cuda_budget_engine(const BudgetProblem&, int, const CudaTuning&) {
  throw std::runtime_error("this judgestat was built without CUDA (use --backend cpu)");
}
#endif

SplitRange split_range(uint64_t count, uint64_t part, uint64_t parts) {
  // count · part fits in 64 bits for every count the engines split (replicates, draws < 2^40).
  return SplitRange{count * part / parts, count * (part + 1) / parts};
}

int cuda_device_count() {
#ifdef JUDGESTAT_HAVE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return devices;
#else
  return 0;
#endif
}

int default_cuda_device() {
  const int devices = cuda_device_count();
  return devices > 0 ? distributed::node_rank() % devices : 0;
}

std::string split_device_name(const std::vector<std::string>& part_devices) {
  if (part_devices.empty()) return "";
  if (std::all_of(part_devices.begin(), part_devices.end(),
                  [&](const std::string& device) { return device == part_devices.front(); }))
    return std::to_string(part_devices.size()) + " × " + part_devices.front();
  std::string joined;
  for (const std::string& device : part_devices) joined += (joined.empty() ? "" : " + ") + device;
  return joined;
}

namespace {

class SplitBackend final : public Backend {
 public:
  explicit SplitBackend(std::vector<std::unique_ptr<Backend>> parts) : parts_(std::move(parts)) {
    if (parts_.empty()) throw std::invalid_argument("make_split_backend: no backends");
    for (const auto& part : parts_)
      if (part->name() != parts_.front()->name())
        throw std::invalid_argument("make_split_backend: backends " + parts_.front()->name() + " and " + part->name() +
                                    " mixed");
  }

  std::string name() const override { return parts_.front()->name(); }

  std::string device() const override { return split_device_name_of(parts_); }

  // Every part takes at most an even share of a call, so the smallest part bounds the whole.
  uint64_t max_chunk(const CompiledPlan& plan) const override {
    uint64_t smallest = std::numeric_limits<uint64_t>::max();
    for (const auto& part : parts_) smallest = std::min(smallest, part->max_chunk(plan));
    const uint64_t n = parts_.size();
    return smallest > std::numeric_limits<uint64_t>::max() / n ? std::numeric_limits<uint64_t>::max() : smallest * n;
  }

  void run_replicates(const CompiledPlan& plan, uint64_t seed, uint64_t first, uint64_t count, double* out) override {
    const uint64_t n = parts_.size(), S = static_cast<uint64_t>(plan.n_statistics);
    std::vector<std::future<void>> running;
    for (uint64_t p = 0; p < n; ++p) {
      const SplitRange range = split_range(count, p, n);
      if (range.empty()) continue;
      const uint64_t begin = range.begin, end = range.end;
      Backend* part = parts_[p].get();
      running.push_back(std::async(std::launch::async, [=, &plan] {
        part->run_replicates(plan, seed, first + begin, end - begin, out + begin * S);
      }));
    }
    wait_all_then_rethrow(running);  // the parts write into `out`
  }

  // Each part counts its contiguous share of the range; integer counts add exactly.
  std::vector<uint64_t> count_sign_flip_exceedances(const CompiledPlan& plan, uint64_t seed, uint64_t first,
                                                    uint64_t count) override {
    const uint64_t n = parts_.size();
    std::vector<std::vector<uint64_t>> counts(n);
    std::vector<std::future<void>> running;
    for (uint64_t p = 0; p < n; ++p) {
      const SplitRange range = split_range(count, p, n);
      if (range.empty()) continue;
      Backend* part = parts_[p].get();
      running.push_back(std::async(std::launch::async, [=, &plan, &counts] {
        counts[p] = part->count_sign_flip_exceedances(plan, seed, first + range.begin, range.size());
      }));
    }
    wait_all_then_rethrow(running);
    std::vector<uint64_t> exceed(plan.sign_flip_tests.size(), 0);
    for (const std::vector<uint64_t>& part_counts : counts)
      for (size_t t = 0; t < part_counts.size() && t < exceed.size(); ++t) exceed[t] += part_counts[t];
    return exceed;
  }

 private:
  std::vector<std::unique_ptr<Backend>> parts_;
};

}  // namespace

std::unique_ptr<Backend> make_split_backend(std::vector<std::unique_ptr<Backend>> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<SplitBackend>(std::move(parts));
}

double* Backend::replicate_buffer(size_t n) {
  if (n > buffer_size_) {
    buffer_.reset();               // release the old one first: the pair may not fit together
    buffer_.reset(new double[n]);  // not value-initialised: run_replicates writes every entry
    buffer_size_ = n;
  }
  return buffer_.get();
}

}  // namespace judgestat
