// Error checking and owning device buffers for the CUDA backend's host code.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace judgestat::cuda_detail {

/// Throws std::runtime_error naming the failed call, its source location and CUDA's reason.
inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw std::runtime_error(std::string("CUDA backend: ") + call + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorString(status));
}

#define JS_CUDA_CHECK(call) ::judgestat::cuda_detail::check_cuda((call), #call, __FILE__, __LINE__)

/// Device array of T owned by the host object (cudaMalloc / cudaFree); empty holds no memory.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { allocate(count); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  /// Replaces the contents with `count` uninitialised elements.
  void allocate(size_t count) {
    release();
    if (count == 0) return;
    JS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    count_ = count;
  }

  /// Allocates and copies `count` host elements (synchronously: the plan is uploaded once).
  void upload(const T* host, size_t count) {
    allocate(count);
    if (count) JS_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  template <typename Vector>
  void upload(const Vector& host) {
    upload(host.data(), host.size());
  }

  T* data() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_) cudaFree(data_);  // never throws: destructors and moves call this
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace judgestat::cuda_detail
