// A plan is what every analysis compiles to (SPEC §2 "Statistics of a replicate"): units in
// clusters (and strata), per-unit value columns, and per statistic a finishing rule over the
// replicate's column sums. Backends see only the compiled form: per-cluster column sums in
// fixed point, so every backend adds the same integers and gets bit-identical replicates.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/philox.hpp"

namespace judgestat {

/// Finishing rule: a short postfix program over column sums, evaluated per replicate.
enum class OpCode : uint8_t {
  kColumn,    // push column sum `arg`
  kConstant,  // push `value`
  kAdd,
  kSub,
  kMul,
  kDiv,       // x / y; y == 0 makes the statistic undefined for this replicate
  kDivOrZero, // x / y, or 0 when y == 0 (e.g. F1 of a label absent from a replicate)
  kAbs,
  kNormal,    // push normal draw number `arg` of this replicate (stream 2^31 + arg), times value
};

struct Op {
  OpCode code;
  int32_t arg = 0;
  double value = 0.0;
};

inline constexpr int kMaxStack = 16;

/// Statistic's identity in reports (SPEC §4 field names).
struct StatLabel {
  std::string name;                     // acc, pa, bc, ...
  std::string judge;
  std::optional<std::string> reference, benchmark, condition, variant, threshold;
  std::optional<std::string> of;       // the statistic a `diff` row differences (acc, pa, bc)
  std::optional<int> order;
  int64_t n = 0;                        // units entering the statistic on the original data
};

struct StatisticDef {
  StatLabel label;
  std::vector<Op> program;
};

/// Builder-side plan: units with clusters, named value columns, statistics.
struct Plan {
  // Clusters are numbered stratum-major: stratum h owns clusters
  // [stratum_offset[h], stratum_offset[h+1]), in first-appearance order within the stratum.
  std::vector<int64_t> stratum_offset{0, 0};
  std::vector<std::string> stratum_names{"all"};
  std::vector<std::string> cluster_names;     // for messages
  std::vector<int32_t> unit_cluster;          // per unit
  std::vector<std::vector<double>> columns;   // columns[k][unit]
  std::vector<std::string> column_names;
  std::vector<StatisticDef> statistics;

  int64_t n_clusters() const { return stratum_offset.back(); }
  int32_t n_strata() const { return static_cast<int32_t>(stratum_offset.size()) - 1; }
  int64_t n_units() const { return static_cast<int64_t>(unit_cluster.size()); }

  /// Adds a column (one value per unit, zero-filled) and returns its index.
  int32_t add_column(const std::string& name);
};

/// Fixed-point, per-cluster form a backend executes.
struct CompiledPlan {
  int64_t n_clusters = 0;
  int32_t n_columns = 0;
  int32_t n_statistics = 0;
  std::vector<int64_t> stratum_offset;        // H + 1 entries
  std::vector<int64_t> cluster_sums;          // n_clusters x n_columns, row-major, fixed point
  std::vector<double> column_unscale;         // 2^-shift per column: sum * unscale = real sum
  std::vector<int64_t> totals;                // column sums of the original data
  bool fits_int32 = false;                    // every replicate sum fits in int32
  std::vector<Op> ops;                        // all statistics' programs, concatenated
  std::vector<int32_t> op_offset;             // n_statistics + 1
  int32_t n_normals = 0;                      // normal draws per replicate (kNormal args)

  int32_t n_strata() const { return static_cast<int32_t>(stratum_offset.size()) - 1; }
};

/// Quantises columns to per-column power-of-two fixed point (exact for counts and halves;
/// 2^-k resolution otherwise, chosen so no replicate sum can overflow), sums per cluster.
CompiledPlan compile(const Plan& plan);

/// Evaluates statistic `s` on column sums `sums` (fixed point); NaN when undefined.
/// `normals` holds the replicate's normal draws (kNormal).
template <typename Sum>
JS_HD double evaluate(const Op* ops, int32_t n_ops, const Sum* sums, const double* unscale,
                      const double* normals) {
  double stack[kMaxStack];
  int top = 0;
  for (int32_t i = 0; i < n_ops; ++i) {
    const Op op = ops[i];
    switch (op.code) {
      case OpCode::kColumn:
        stack[top++] = static_cast<double>(sums[op.arg]) * unscale[op.arg];
        break;
      case OpCode::kConstant:
        stack[top++] = op.value;
        break;
      case OpCode::kNormal:
        stack[top++] = normals[op.arg] * op.value;
        break;
      case OpCode::kAbs:
        stack[top - 1] = std::fabs(stack[top - 1]);
        break;
      default: {
        const double y = stack[--top];
        double& x = stack[top - 1];
        switch (op.code) {
          case OpCode::kAdd: x = x + y; break;
          case OpCode::kSub: x = x - y; break;
          case OpCode::kMul: x = x * y; break;
          case OpCode::kDiv: x = (y == 0.0) ? NAN : x / y; break;
          case OpCode::kDivOrZero: x = (y == 0.0) ? 0.0 : x / y; break;
          default: break;
        }
      }
    }
  }
  return top == 1 ? stack[0] : NAN;
}

/// SPEC §2's normal draws: normal k of replicate r is Box–Muller on words 0 and 1 of stream
/// 2^31 + k (counter (0, r, 2^31 + k, 0)). log/cos differ in the last bit between host and
/// device, so statistics using them agree to 1e-12 relative rather than bit for bit.
JS_HD double normal_draw(PhiloxKey key, uint32_t replicate, uint32_t k) {
  const Words4 w = draw_block(key, 0u, replicate, normal_stream(k));
  // (0, 1] and [0, 1) uniforms from 32-bit words; 2^-32 steps.
  const double u1 = (static_cast<double>(w.w[0]) + 1.0) * 2.3283064365386963e-10;
  const double u2 = static_cast<double>(w.w[1]) * 2.3283064365386963e-10;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

// Small helpers for plan builders.
inline std::vector<Op> ratio_program(int32_t num, int32_t den) {
  return {{OpCode::kColumn, num}, {OpCode::kColumn, den}, {OpCode::kDiv}};
}
inline std::vector<Op> difference_program(const std::vector<Op>& a, const std::vector<Op>& b) {
  std::vector<Op> out = a;
  out.insert(out.end(), b.begin(), b.end());
  out.push_back({OpCode::kSub});
  return out;
}

}  // namespace judgestat
