// A plan is what every analysis compiles to (docs/statistics.md §2 "Statistics of a replicate"): units in
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
  kDiv,        // x / y; y == 0 makes the statistic undefined for this replicate
  kDivOrZero,  // x / y, or 0 when y == 0 (e.g. F1 of a label absent from a replicate)
  kAbs,
  kNormal,  // push extras[arg] * value: normal draw `arg` of this replicate (stream 2^31 + arg)
  kRank,    // push extras[arg]: a rank term's 2U (bilinear statistic, e.g. AUROC); compile()
            // turns the builder's term index into n_normals + term
  kSqrt,    // √x, NaN for x < 0 (correlations, RMSE; IEEE sqrt is correctly rounded on host and
            // device alike, so replicates stay bit-identical)
};

struct Op {
  OpCode code;
  int32_t arg = 0;
  double value = 0.0;
};

inline constexpr int kMaxStack = 16;

/// Statistic's identity in reports (docs/statistics.md §4 field names).
struct StatLabel {
  std::string name;  // acc, pa, bc, ...
  std::string judge;
  std::optional<std::string> reference, benchmark, condition, variant, threshold;
  std::optional<std::string> of;     // the statistic a `diff` row differences (acc, pa, brier, …)
  std::optional<std::string> label;  // per-label statistics (precision, recall, f1)
  std::optional<int> order;
  std::optional<int> position;  // position_rate: the position shown (docs/statistics.md §7.1)
  int64_t n = 0;                // units entering the statistic on the original data
};

struct StatisticDef {
  StatLabel label;
  std::vector<Op> program;
};

/// A bilinear (rank) term over units: on a replicate with cluster multiplicities m,
/// 2U = Σ_{i positive, j negative} m_i m_j (2·[s_i > s_j] + [s_i = s_j]) — the Mann–Whitney
/// count behind AUROC, ties counted ½, exact in integers.
struct RankTerm {
  std::vector<int32_t> units;  // plan unit indices
  std::vector<double> scores;
  std::vector<uint8_t> positive;
};

/// docs/statistics.md §7.3's cluster sign-flip permutation test of one statistic (a paired
/// difference): `column` holds the per-unit paired differences whose per-cluster sums d_c the
/// signs flip (for a diff of two ratio statistics with equal per-unit denominators: numerator_j −
/// numerator_ref per unit). Its p-value fills that statistic's Interval::perm_p.
struct SignFlipTest {
  int32_t statistic = 0;
  int32_t column = 0;
};

/// A column compiled ahead of its plan (Plan::fold_column): the per-cluster fixed-point sums compile() would make
/// of its values, which compile() then takes as they are. A column of fractions on units that outnumber the clusters
/// is smaller so (issue 26 part 7: metrics' probability columns at a double per unit were most of its plan).
struct FoldedSums {
  std::vector<int64_t> sums;            // per cluster: Σ round(value · 2^shift) over its units
  std::vector<int64_t> stratum_offset;  // the plan's strata and clusters when it was folded
  int shift = 0;
  bool fits_int32 = false;  // every replicate sum fits in int32
  uint64_t value_hash = 0;  // compile()'s hash of the values (less their count), by which it finds equal columns
};

/// One plan column: a value per unit. Most columns are 0/1 indicators, small counts or paired
/// differences of them (−1, 0, 1), stored one signed byte per unit; a column widens to doubles at
/// its first other value (a fraction, −0, outside −128…127, non-finite). Reading gives back exactly the double written,
/// so a plan compiles to the same CompiledPlan whatever its columns' kinds (issue 26 part 7: the columns were most of a
/// command's memory at one double per unit).
class PlanColumn {
 public:
  enum class Kind : uint8_t { kByte, kDouble, kFolded };

  PlanColumn() = default;
  /// n zeros, as bytes.
  explicit PlanColumn(size_t n) : bytes_(n, 0) {}
  /// The values, in the narrowest kind that holds every one exactly.
  PlanColumn(const std::vector<double>& values) { *this = values; }  // NOLINT: a column is its values
  PlanColumn& operator=(const std::vector<double>& values);

  size_t size() const {
    return kind_ == Kind::kByte ? bytes_.size() : kind_ == Kind::kDouble ? doubles_.size() : folded_units_;
  }
  Kind kind() const { return kind_; }
  /// Value u; a folded column has no values to read (a logic_error).
  double operator[](size_t u) const {
    return kind_ == Kind::kByte ? bytes_[u] : kind_ == Kind::kDouble ? doubles_[u] : folded_value();
  }
  /// Value u of a column being written: reads as the double, and assigning stores through set().
  class Ref {
   public:
    Ref(PlanColumn& column, size_t u) : column_(column), u_(u) {}
    operator double() const { return static_cast<const PlanColumn&>(column_)[u_]; }  // NOLINT: reads as its value
    Ref& operator=(double v) {
      column_.set(u_, v);
      return *this;
    }
    Ref& operator=(const Ref& other) { return *this = static_cast<double>(other); }
    Ref& operator+=(double v) {
      column_.add(u_, v);
      return *this;
    }

   private:
    PlanColumn& column_;
    size_t u_;
  };
  Ref operator[](size_t u) { return {*this, u}; }
  /// Value u becomes v (widening the column when a byte cannot hold v).
  void set(size_t u, double v) {
    if (kind_ == Kind::kByte && holds_as_byte(v))
      bytes_[u] = static_cast<int8_t>(v);
    else
      set_wide(u, v);
  }
  void add(size_t u, double v) { set(u, static_cast<const PlanColumn&>(*this)[u] + v); }
  /// Every value becomes v.
  void fill(double v) { *this = std::vector<double>(size(), v); }
  /// n values; new ones are 0 (a folded column's sums do not change: its new units read 0).
  void resize(size_t n);
  /// Every value as a double (a copy).
  std::vector<double> values() const;
  /// Stores doubles from now on (for tests and for writers that set mostly fractions).
  void widen();
  /// Value for value, as std::vector<double>'s == (−0 equals +0, NaN equals nothing); not for folded columns.
  bool operator==(const PlanColumn& other) const;
  bool operator!=(const PlanColumn& other) const { return !(*this == other); }

  /// Whether a signed byte holds v exactly: an integer −128…127, and not −0.
  static bool holds_as_byte(double v) {
    return v >= -128.0 && v <= 127.0 && v == static_cast<double>(static_cast<int8_t>(v)) &&
           !(v == 0.0 && std::signbit(v));
  }

  /// The column's compiled sums in place of its values (Plan::fold_column), or nullptr while it has values.
  const FoldedSums* folded() const { return kind_ == Kind::kFolded ? &folded_ : nullptr; }
  /// The column becomes `sums`, of its size() units; its values are freed.
  void fold(FoldedSums sums);

 private:
  void set_wide(size_t u, double v);
  [[noreturn]] static double folded_value();
  Kind kind_ = Kind::kByte;
  std::vector<int8_t> bytes_;    // kByte
  std::vector<double> doubles_;  // kDouble
  FoldedSums folded_;            // kFolded
  size_t folded_units_ = 0;      // kFolded
};

/// Builder-side plan: units with clusters, named value columns, statistics.
struct Plan {
  // Clusters are numbered stratum-major: stratum h owns clusters
  // [stratum_offset[h], stratum_offset[h+1]), in first-appearance order within the stratum.
  std::vector<int64_t> stratum_offset{0, 0};
  std::vector<std::string> stratum_names{"all"};
  std::vector<std::string> cluster_names;  // for messages
  std::vector<int32_t> unit_cluster;       // per unit
  std::vector<PlanColumn> columns;         // columns[k][unit]
  std::vector<std::string> column_names;
  std::vector<StatisticDef> statistics;
  std::vector<RankTerm> rank_terms;           // referenced by {OpCode::kRank, term}
  std::vector<SignFlipTest> sign_flip_tests;  // at most one per statistic

  int64_t n_clusters() const { return stratum_offset.back(); }
  int32_t n_strata() const { return static_cast<int32_t>(stratum_offset.size()) - 1; }
  int64_t n_units() const { return static_cast<int64_t>(unit_cluster.size()); }

  /// Adds a column (one value per unit, zero-filled) and returns its index.
  int32_t add_column(const std::string& name);
  /// Compiles column k ahead of the plan when its per-cluster sums are smaller than its values (a column of
  /// fractions, on more units than clusters) and returns whether it did: the values are freed and compile() takes
  /// the sums as they are, so the plan compiles to the same CompiledPlan. For a builder done writing a column that
  /// nothing reads again (reading a folded column's values is a logic_error). The units' clusters and the strata must
  /// be final (compile() checks the strata); units appended later read 0 in it.
  bool fold_column(int32_t k);
  /// Adds a rank term and returns its index for {OpCode::kRank, index}.
  int32_t add_rank_term(const std::vector<int32_t>& units, const std::vector<double>& scores,
                        const std::vector<uint8_t>& positive);
};

/// Fixed-point, per-cluster form a backend executes.
struct CompiledPlan {
  int64_t n_clusters = 0;
  int32_t n_columns = 0;
  int32_t n_statistics = 0;
  std::vector<int64_t> stratum_offset;  // H + 1 entries
  std::vector<int64_t> cluster_sums;    // n_clusters x n_columns, row-major, fixed point
  std::vector<double> column_unscale;   // 2^-shift per column: sum * unscale = real sum
  std::vector<int64_t> totals;          // column sums of the original data
  bool fits_int32 = false;              // every replicate sum fits in int32
  std::vector<Op> ops;                  // all statistics' programs, concatenated
  std::vector<int32_t> op_offset;       // n_statistics + 1
  int32_t n_normals = 0;                // normal draws per replicate (kNormal args)
  // Rank terms, each sorted by ascending score: entries [rank_offset[t], rank_offset[t+1]).
  // Per replicate the backends fill extras[n_normals + t] = 2U of term t (rank_term_2u).
  int32_t n_rank_terms = 0;
  std::vector<int64_t> rank_offset{0};
  std::vector<int32_t> rank_cluster;    // the entry's cluster
  std::vector<uint8_t> rank_positive;   // 1 = positive (e.g. an error)
  std::vector<uint8_t> rank_tie_start;  // 1 = first entry of a group of equal scores
  // The plan's sign-flip tests with `column` a compiled column: d_c = cluster_sums[c·n_columns +
  // column] (fixed point), T_obs = totals[column].
  std::vector<SignFlipTest> sign_flip_tests;

  int32_t n_strata() const { return static_cast<int32_t>(stratum_offset.size()) - 1; }
};

/// Quantises columns to per-column power-of-two fixed point (exact for counts and halves;
/// 2^-k resolution otherwise, chosen so no replicate sum can overflow), sums per cluster.
CompiledPlan compile(const Plan& plan);
/// The same, freeing each column and rank term of `plan` as soon as it is compiled (the plan is
/// left empty): the compiled sums grow as the columns go, so the two are never held in full beside
/// each other (cluster_sums is filled a column at a time, then transposed in place).
CompiledPlan compile(Plan&& plan);

/// Evaluates a statistic's program on column sums `sums` (fixed point); NaN when undefined.
/// `extras` holds the replicate's normal draws (kNormal), then its rank terms' 2U (kRank).
template <typename Sum>
JS_HD double evaluate(const Op* ops, int32_t n_ops, const Sum* sums, const double* unscale, const double* extras) {
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
        stack[top++] = extras[op.arg] * op.value;
        break;
      case OpCode::kRank:
        stack[top++] = extras[op.arg];
        break;
      case OpCode::kAbs:
        stack[top - 1] = std::fabs(stack[top - 1]);
        break;
      case OpCode::kSqrt:
        stack[top - 1] = stack[top - 1] < 0.0 ? NAN : sqrt(stack[top - 1]);
        break;
      default: {
        const double y = stack[--top];
        double& x = stack[top - 1];
        switch (op.code) {
          case OpCode::kAdd:
            x = x + y;
            break;
          case OpCode::kSub:
            x = x - y;
            break;
          case OpCode::kMul:
            x = x * y;
            break;
          case OpCode::kDiv:
            x = (y == 0.0) ? NAN : x / y;
            break;
          case OpCode::kDivOrZero:
            x = (y == 0.0) ? 0.0 : x / y;
            break;
          default:
            break;
        }
      }
    }
  }
  return top == 1 ? stack[0] : NAN;
}

/// docs/statistics.md §2's normal draws: normal k of replicate r is Box–Muller on words 0 and 1 of stream
/// 2^31 + k (counter (0, r, 2^31 + k, 0)). log/cos differ in the last bit between host and
/// device, so statistics using them agree to 1e-12 relative rather than bit for bit.
JS_HD double normal_draw(PhiloxKey key, uint32_t replicate, uint32_t k) {
  const Words4 w = draw_block(key, 0u, replicate, normal_stream(k));
  // (0, 1] and [0, 1) uniforms from 32-bit words; 2^-32 steps.
  const double u1 = (static_cast<double>(w.w[0]) + 1.0) * 2.3283064365386963e-10;
  const double u2 = static_cast<double>(w.w[1]) * 2.3283064365386963e-10;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/// 2U of rank term t for multiplicities m (per cluster): Σ over positive entries of
/// weight · (negatives below its tie group + negatives up to the end of it), i.e. ties count
/// half. One scan in ascending score: compile() puts each tie group's negatives before its
/// positives, so at a positive entry the running negative weight is the group's end value and
/// the value saved at the group's first entry is its start value. Integer arithmetic, exact on
/// every backend; branch-free (tie starts and positive flags are unpredictable).
/// rank_terms_2u scans once for R replicates' multiplicities m[0..R) into twice_u[0..R): the
/// entries are read once and the R independent chains of running sums interleave (one chain is
/// bound by their latency); rank_term_2u is the one-replicate case.
template <int R, typename Count>
JS_HD void rank_terms_2u(const int64_t* rank_offset, const int32_t* rank_cluster, const uint8_t* rank_positive,
                         const uint8_t* rank_tie_start, int32_t t, const Count* const* m, int64_t* twice_u) {
  int64_t negatives[R] = {}, at_group_start[R] = {};
  for (int j = 0; j < R; ++j) twice_u[j] = 0;
  for (int64_t e = rank_offset[t]; e < rank_offset[t + 1]; ++e) {
    const int64_t starts = -static_cast<int64_t>(rank_tie_start[e]);  // all ones at a new group
    const int32_t cluster = rank_cluster[e];
    const int64_t positive = rank_positive[e];
    for (int j = 0; j < R; ++j) {
      at_group_start[j] += (negatives[j] - at_group_start[j]) & starts;
      const int64_t weight = static_cast<int64_t>(m[j][cluster]);
      twice_u[j] += weight * positive * (negatives[j] + at_group_start[j]);
      negatives[j] += weight * (1 - positive);
    }
  }
}

template <typename Count>
JS_HD int64_t rank_term_2u(const int64_t* rank_offset, const int32_t* rank_cluster, const uint8_t* rank_positive,
                           const uint8_t* rank_tie_start, int32_t t, const Count* m) {
  int64_t twice_u = 0;
  rank_terms_2u<1>(rank_offset, rank_cluster, rank_positive, rank_tie_start, t, &m, &twice_u);
  return twice_u;
}

/// Clusters that one Philox block signs in the sign-flip test: four words of 32 bits.
inline constexpr uint32_t kSignFlipClustersPerBlock = 128;

/// docs/statistics.md §7.3's sign-flip statistic of replicate r restricted to the sign blocks
/// first_block, first_block + block_step, … (every block with the defaults: T_r = Σ_c s_c d_c).
/// Block b signs clusters 128b … 128b + 127 from Philox(counter = (b, r, kSignFlipStream, 0)):
/// cluster c's sign is −1 where bit c mod 32 of word (c div 32) mod 4 is 1, +1 where it is 0.
/// `d` holds the test's per-cluster sums d_c contiguously. Integer sums, exact in any order
/// (|T_r| ≤ Σ_c |d_c|, below 2^62 by compile()'s bound), so lanes that split the blocks between
/// them and add their parts get the same T_r as one thread. The CUDA kernel calls this; the CPU
/// backend draws each replicate's words once for all tests and sums the same integers
/// (host/engine/sign_flip.cpp), falling back to this when Σ_c |d_c| ≥ 2^31.
JS_HD int64_t sign_flip_sum(PhiloxKey key, uint32_t replicate, const int64_t* d, int64_t n_clusters,
                            uint32_t first_block = 0, uint32_t block_step = 1) {
  constexpr int64_t kPerBlock = kSignFlipClustersPerBlock;
  const auto n_blocks = static_cast<uint32_t>((n_clusters + kPerBlock - 1) / kPerBlock);
  int64_t total = 0;
  for (uint32_t b = first_block; b < n_blocks; b += block_step) {
    const Words4 w = draw_block(key, b, replicate, kSignFlipStream);
    const int64_t first = static_cast<int64_t>(b) * kPerBlock;
    const auto n = static_cast<int32_t>(n_clusters - first < kPerBlock ? n_clusters - first : kPerBlock);
    for (int32_t i = 0; i < n; ++i) {
      const int64_t flip = -static_cast<int64_t>((w.w[i >> 5] >> (i & 31)) & 1u);  // all ones: sign −1
      total += (d[first + i] ^ flip) - flip;                                       // d_c or −d_c, branch-free
    }
  }
  return total;
}

/// Whether a replicate's T_r counts against the observed T: |T_r| ≥ |T_obs| (two-sided).
JS_HD bool sign_flip_exceeds(int64_t replicate_t, int64_t observed_t) {
  return (replicate_t < 0 ? -replicate_t : replicate_t) >= (observed_t < 0 ? -observed_t : observed_t);
}

/// Every sign-flip test's d_c, test-major: entry t · n_clusters + c (the columns of
/// cluster_sums the tests name, made contiguous for sign_flip_sum).
std::vector<int64_t> sign_flip_differences(const CompiledPlan& plan);

/// Extras of the original data (every multiplicity 1): zero normals, then each rank term's 2U.
std::vector<double> point_extras(const CompiledPlan& plan);

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
