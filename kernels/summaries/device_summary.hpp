// Summaries of replicate values kept in device memory (the KeptReplicates the CUDA backend's
// run_replicates_kept returns): the same bits as the host's (replicate_summary.hpp), with only
// a few numbers per statistic copied back instead of B × S values.
#pragma once
#include <cstdint>
#include <memory>

#include "judgestat/replicate_summary.hpp"

namespace judgestat::cuda_detail {

struct SummaryScratch;  // device_summary.cu

/// Working buffers for device summaries that outlive one store (JUDGESTAT_SUMMARY_REUSE=1:
/// no cudaMalloc / cudaFree, which synchronises the device, per summary call).
std::shared_ptr<SummaryScratch> make_summary_scratch();

class DeviceKeptReplicates : public KeptReplicates {
 public:
  /// Device memory a store of B replicates × S statistics takes, working space included.
  static uint64_t bytes_needed(uint64_t B, int32_t S);
  /// A store for B × S values on `device` (the caller fills values() before summarising).
  /// With `scratch` (make_summary_scratch), its working buffers are those, kept and reused
  /// across stores; without, each summary call allocates and frees its own. One host thread
  /// at a time may use a scratch.
  static std::unique_ptr<DeviceKeptReplicates> create(int device, uint64_t B, int32_t S,
                                                      std::shared_ptr<SummaryScratch> scratch = nullptr);
  /// Replicate-major device values: statistic s of replicate r at r·S + s.
  virtual double* values() = 0;
  /// Fills values() from B × S host values (tests give a store chosen values this way).
  virtual void copy_from_host(const double* host) = 0;
};

}  // namespace judgestat::cuda_detail
