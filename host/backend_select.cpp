// Backend choice by name; CPU-only builds say why the CUDA backend is missing.
#include <stdexcept>

#include "judgestat/backend.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

#ifndef JUDGESTAT_HAVE_CUDA
bool cuda_available(std::string* why) {
  if (why) *why = "this build has no CUDA backend (nvcc was not found or -DJUDGESTAT_CUDA=OFF)";
  return false;
}
std::unique_ptr<Backend> make_cuda_backend(int, uint64_t) {
  std::string why;
  cuda_available(&why);
  throw UsageError("--backend cuda: " + why);
}
#endif

std::unique_ptr<Backend> make_backend(const std::string& name, int threads, uint64_t max_chunk) {
  if (name == "cpu") return make_cpu_backend(threads, max_chunk);
  if (name == "cuda") return make_cuda_backend(0, max_chunk);
  if (name == "auto")
    return cuda_available() ? make_cuda_backend(0, max_chunk) : make_cpu_backend(threads, max_chunk);
  throw UsageError("--backend: expected auto, cpu or cuda, got '" + name + "'");
}

}  // namespace judgestat
