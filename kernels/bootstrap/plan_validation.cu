// Validation half of the CUDA backend's dispatch (kernels/bootstrap/cuda_backend.cu): the checks a
// compiled plan passes before it is uploaded, and its content hash for the upload cache.
// Host code only (detail/plan_validation.hpp).
#include "detail/plan_validation.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace judgestat::cuda_detail {

namespace {

[[noreturn]] void reject_plan(const std::string& why) {
  throw std::invalid_argument("CUDA backend: malformed compiled plan: " + why);
}

}  // namespace

void validate_plan(const CompiledPlan& plan) {
  if (plan.n_columns < 0 || plan.n_statistics < 0 || plan.n_normals < 0 || plan.n_rank_terms < 0)
    reject_plan("negative column, statistic, normal or rank-term count");
  if (plan.stratum_offset.size() < 2 || plan.stratum_offset.front() != 0 ||
      plan.stratum_offset.back() != plan.n_clusters)
    reject_plan("stratum_offset must run from 0 to n_clusters");
  for (size_t h = 1; h < plan.stratum_offset.size(); ++h)
    if (plan.stratum_offset[h] < plan.stratum_offset[h - 1])
      reject_plan("stratum_offset decreases at stratum " + std::to_string(h - 1));
  // Draws and clusters are numbered in uint32 on the device (Philox counter words are 32 bits).
  if (plan.n_clusters >= (int64_t(1) << 31))
    reject_plan("more than 2^31 - 1 clusters (" + std::to_string(plan.n_clusters) + ")");
  if (plan.cluster_sums.size() != size_t(plan.n_clusters) * size_t(plan.n_columns))
    reject_plan("cluster_sums is not n_clusters x n_columns");
  if (plan.column_unscale.size() != size_t(plan.n_columns))
    reject_plan("column_unscale does not have n_columns entries");
  const size_t n_entries = plan.rank_cluster.size();
  if (plan.rank_offset.size() != size_t(plan.n_rank_terms) + 1 || plan.rank_offset.front() != 0 ||
      plan.rank_offset.back() != int64_t(n_entries) || plan.rank_positive.size() != n_entries ||
      plan.rank_tie_start.size() != n_entries)
    reject_plan("rank_offset must run from 0 to the entry count over n_rank_terms + 1 entries");
  for (int32_t t = 0; t < plan.n_rank_terms; ++t)
    if (plan.rank_offset[t + 1] < plan.rank_offset[t])
      reject_plan("rank_offset decreases at term " + std::to_string(t));
  for (int32_t c : plan.rank_cluster)
    if (c < 0 || c >= plan.n_clusters) reject_plan("a rank entry names cluster " + std::to_string(c));
  if (plan.op_offset.size() != size_t(plan.n_statistics) + 1 || plan.op_offset.front() != 0 ||
      plan.op_offset.back() != int64_t(plan.ops.size()))
    reject_plan("op_offset must run from 0 to ops.size() over n_statistics + 1 entries");
  for (int32_t s = 0; s < plan.n_statistics; ++s) {
    if (plan.op_offset[s + 1] < plan.op_offset[s]) reject_plan("op_offset decreases at statistic " + std::to_string(s));
    // The stack discipline evaluate() relies on: no underflow, no overflow past kMaxStack.
    int depth = 0;
    for (int32_t i = plan.op_offset[s]; i < plan.op_offset[s + 1]; ++i) {
      const Op& op = plan.ops[i];
      switch (op.code) {
        case OpCode::kColumn:
          if (op.arg < 0 || op.arg >= plan.n_columns)
            reject_plan("statistic " + std::to_string(s) + " reads column " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kNormal:
          if (op.arg < 0 || op.arg >= plan.n_normals)
            reject_plan("statistic " + std::to_string(s) + " reads normal draw " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kRank:  // extras[n_normals + t] holds rank term t's 2U
          if (op.arg < plan.n_normals || op.arg >= plan.n_normals + plan.n_rank_terms)
            reject_plan("statistic " + std::to_string(s) + " reads rank extra " + std::to_string(op.arg));
          ++depth;
          break;
        case OpCode::kConstant:
          ++depth;
          break;
        case OpCode::kAbs:
        case OpCode::kSqrt:
          if (depth < 1) reject_plan("statistic " + std::to_string(s) + ": abs or sqrt of nothing");
          break;
        default:
          if (depth < 2) reject_plan("statistic " + std::to_string(s) + ": binary op on a short stack");
          --depth;
      }
      if (depth > kMaxStack) reject_plan("statistic " + std::to_string(s) + " needs more than kMaxStack slots");
    }
  }
}

namespace {

class ContentHash {
 public:
  void add(uint64_t word) {
    // Four interleaved multiply-xorshift lanes keep long arrays near memory speed.
    uint64_t& lane = lanes_[count_++ & 3];
    lane = (lane ^ word) * 0x9E3779B97F4A7C15ull;
    lane ^= lane >> 29;
  }
  template <typename T>
  void add_all(const std::vector<T>& values) {
    add(values.size());
    for (const T& v : values) add(static_cast<uint64_t>(v));
  }
  void add_all(const std::vector<double>& values) {
    add(values.size());
    for (double v : values) {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      add(bits);
    }
  }
  uint64_t value() const {
    uint64_t h = count_;
    for (uint64_t lane : lanes_) h = (h ^ lane) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
    return h;
  }

 private:
  uint64_t lanes_[4] = {1, 2, 3, 4};
  uint64_t count_ = 0;
};

}  // namespace

uint64_t plan_fingerprint(const CompiledPlan& plan) {
  ContentHash hash;
  hash.add(uint64_t(plan.n_clusters));
  hash.add(uint64_t(uint32_t(plan.n_columns)) << 32 | uint32_t(plan.n_statistics));
  hash.add(uint64_t(uint32_t(plan.n_normals)) << 1 | (plan.fits_int32 ? 1u : 0u));
  hash.add(uint64_t(uint32_t(plan.n_rank_terms)));
  hash.add_all(plan.rank_offset);
  hash.add_all(plan.rank_cluster);
  hash.add_all(plan.rank_positive);
  hash.add_all(plan.rank_tie_start);
  hash.add_all(plan.stratum_offset);
  hash.add_all(plan.cluster_sums);
  hash.add_all(plan.column_unscale);
  hash.add_all(plan.op_offset);
  hash.add(plan.ops.size());
  for (const Op& op : plan.ops) {
    uint64_t value_bits;
    std::memcpy(&value_bits, &op.value, sizeof value_bits);
    hash.add(uint64_t(op.code) << 32 | uint32_t(op.arg));
    hash.add(value_bits);
  }
  return hash.value();
}

}  // namespace judgestat::cuda_detail
