// Plan compilation: per-column fixed point, per-cluster sums, concatenated programs.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "judgestat/plan.hpp"
#include "judgestat/replicate_summary.hpp"  // order_key
#include "support/parallel.hpp"

namespace judgestat {

PlanColumn& PlanColumn::operator=(const std::vector<double>& values) {
  if (std::all_of(values.begin(), values.end(), holds_as_byte)) {
    kind_ = Kind::kByte;
    bytes_.assign(values.begin(), values.end());
    doubles_.clear();
    doubles_.shrink_to_fit();
  } else {
    kind_ = Kind::kDouble;
    doubles_ = values;
    bytes_.clear();
    bytes_.shrink_to_fit();
  }
  return *this;
}

void PlanColumn::resize(size_t n) {
  if (kind_ == Kind::kByte)
    bytes_.resize(n, 0);
  else if (kind_ == Kind::kDouble)
    doubles_.resize(n, 0.0);
  else
    folded_units_ = n;  // zeros on the new units: every cluster's sum stays
}

std::vector<double> PlanColumn::values() const {
  if (kind_ == Kind::kFolded) folded_value();
  if (kind_ == Kind::kDouble) return doubles_;
  return std::vector<double>(bytes_.begin(), bytes_.end());
}

double PlanColumn::folded_value() {
  throw std::logic_error("plan: a folded column's values were read (it holds only its cluster sums)");
}

void PlanColumn::fold(FoldedSums sums) {
  folded_units_ = size();
  folded_ = std::move(sums);
  kind_ = Kind::kFolded;
  bytes_ = std::vector<int8_t>();
  doubles_ = std::vector<double>();
}

void PlanColumn::widen() {
  if (kind_ == Kind::kFolded) folded_value();
  if (kind_ == Kind::kDouble) return;
  doubles_.assign(bytes_.begin(), bytes_.end());
  bytes_.clear();
  bytes_.shrink_to_fit();
  kind_ = Kind::kDouble;
}

void PlanColumn::set_wide(size_t u, double v) {
  widen();
  doubles_[u] = v;
}

bool PlanColumn::operator==(const PlanColumn& other) const {
  if (kind_ == Kind::kFolded || other.kind_ == Kind::kFolded)
    throw std::logic_error("plan: folded columns are compared by compile(), not value for value");
  if (kind_ == Kind::kByte && other.kind_ == Kind::kByte) return bytes_ == other.bytes_;
  if (size() != other.size()) return false;
  for (size_t u = 0; u < size(); ++u)
    if (!((*this)[u] == other[u])) return false;
  return true;
}

int32_t Plan::add_column(const std::string& name) {
  columns.emplace_back(unit_cluster.size());
  column_names.push_back(name);
  return static_cast<int32_t>(columns.size()) - 1;
}

int32_t Plan::add_rank_term(const std::vector<int32_t>& units, const std::vector<double>& scores,
                            const std::vector<uint8_t>& positive) {
  if (units.size() != scores.size() || units.size() != positive.size())
    throw std::logic_error("plan: rank term arrays differ in length");
  rank_terms.push_back({units, scores, positive});
  return static_cast<int32_t>(rank_terms.size()) - 1;
}

std::vector<double> point_extras(const CompiledPlan& plan) {
  std::vector<double> extras(plan.n_normals + plan.n_rank_terms, 0.0);
  const std::vector<int32_t> ones(plan.n_clusters, 1);
  for (int32_t t = 0; t < plan.n_rank_terms; ++t)
    extras[plan.n_normals + t] =
        static_cast<double>(rank_term_2u(plan.rank_offset.data(), plan.rank_cluster.data(), plan.rank_positive.data(),
                                         plan.rank_tie_start.data(), t, ones.data()));
  return extras;
}

std::vector<int64_t> sign_flip_differences(const CompiledPlan& plan) {
  const int64_t C = plan.n_clusters;
  if (plan.cluster_sums.size() != static_cast<size_t>(C) * plan.n_columns)
    throw std::logic_error("plan: cluster_sums is not n_clusters x n_columns");
  for (const SignFlipTest& test : plan.sign_flip_tests)
    if (test.column < 0 || test.column >= plan.n_columns || test.statistic < 0 || test.statistic >= plan.n_statistics)
      throw std::logic_error("plan: a sign-flip test names compiled column " + std::to_string(test.column) + " of " +
                             std::to_string(plan.n_columns) + " and statistic " + std::to_string(test.statistic) +
                             " of " + std::to_string(plan.n_statistics));
  std::vector<int64_t> d(plan.sign_flip_tests.size() * static_cast<size_t>(C));
  for (size_t t = 0; t < plan.sign_flip_tests.size(); ++t)
    for (int64_t c = 0; c < C; ++c)
      d[t * C + c] = plan.cluster_sums[static_cast<size_t>(c) * plan.n_columns + plan.sign_flip_tests[t].column];
  return d;
}

namespace {

// Counts and halves (and quarters…) are exact at a small power of two: a column whose values
// times 2^shift are integers of at most kMaxExactValue, for some shift up to kMaxExactShift, is
// stored exactly at the smallest such shift.
constexpr int kMaxExactShift = 4;
constexpr double kMaxExactScale = 1 << kMaxExactShift;
constexpr double kMaxExactValue = 1e15;

/// What one pass over a column learns: whether every value is finite and what its exact shift
/// depends on.
struct ColumnScan {
  bool finite = true;
  // Whether every |value| ≤ kMaxExactValue and every value · 2^kMaxExactShift is an integer; if
  // so, the OR of those integers (two's complement) and the largest |value|.
  bool exact_at_max_shift = true;
  uint64_t low_bits = 0;
  double max_abs = 0;

  /// The smallest shift at which every value is an integer of at most kMaxExactValue, or -1 when
  /// there is none (general reals).
  int exact_shift() const {
    if (!exact_at_max_shift) return -1;
    // value · 2^s is an integer when 2^(kMaxExactShift − s) divides value · 2^kMaxExactShift, so
    // the column's lowest set bit decides; a larger shift only makes the magnitude worse.
    int shift = kMaxExactShift;
    while (shift > 0 && (low_bits >> (kMaxExactShift - shift) & 1) == 0) --shift;
    return std::ldexp(max_abs, shift) <= kMaxExactValue ? shift : -1;
  }
};

/// Scans a column in unit order, adding |value| to its cluster's abs_cluster (for the replicate
/// bound) and, while the column may be exact, value · 2^kMaxExactShift to its cluster's
/// sums_at_max_shift (mod 2^64): an exact column's fixed-point sums, scaled up. Both start at 0.
ColumnScan scan_column(const std::vector<double>& values, const std::vector<int32_t>& unit_cluster,
                       std::vector<double>& abs_cluster, std::vector<uint64_t>& sums_at_max_shift) {
  ColumnScan scan;
  size_t u = 0;
  // While the column may still be exact; general reals leave at their first fraction.
  for (; u < values.size(); ++u) {
    const double v = values[u], magnitude = std::fabs(v);
    // Scaling by a power of two is exact, and within kMaxExactValue the conversion is in range.
    const double scaled = v * kMaxExactScale;
    if (!(magnitude <= kMaxExactValue)) break;
    const int64_t whole = static_cast<int64_t>(scaled);
    if (static_cast<double>(whole) != scaled) break;
    abs_cluster[unit_cluster[u]] += magnitude;
    scan.max_abs = std::max(scan.max_abs, magnitude);
    scan.low_bits |= static_cast<uint64_t>(whole);
    sums_at_max_shift[unit_cluster[u]] += static_cast<uint64_t>(whole);
  }
  scan.exact_at_max_shift = u == values.size();
  for (; u < values.size(); ++u) {
    const double v = values[u];
    abs_cluster[unit_cluster[u]] += std::fabs(v);
    scan.finite &= std::isfinite(v);
  }
  return scan;
}

/// The largest |sum| a replicate can reach: every draw of stratum h hits its heaviest cluster.
double replicate_bound(const std::vector<int64_t>& stratum_offset, const std::vector<double>& abs_cluster) {
  double bound = 0;
  for (size_t h = 0; h + 1 < stratum_offset.size(); ++h) {
    double heaviest = 0;
    for (int64_t c = stratum_offset[h]; c < stratum_offset[h + 1]; ++c) heaviest = std::max(heaviest, abs_cluster[c]);
    bound += heaviest * static_cast<double>(stratum_offset[h + 1] - stratum_offset[h]);
  }
  return bound;
}

/// std::llround without the library call, for |x| < 2^63: x − trunc(x) is exact.
int64_t round_half_away(double x) {
  const int64_t whole = static_cast<int64_t>(x);
  const double fraction = x - static_cast<double>(whole);
  return whole + (fraction >= 0.5) - (fraction <= -0.5);
}

/// A column's compiled form (value_hash aside): its shift, whether its replicate sums fit int32, and its
/// per-cluster fixed-point sums. It depends only on the column's values, the units' clusters and the strata,
/// so a column folded ahead of the plan (Plan::fold_column) compiles as it would have in the plan.
FoldedSums fold_values(const std::vector<double>& values, const std::vector<int32_t>& unit_cluster,
                       const std::vector<int64_t>& stratum_offset, const std::string& name) {
  const int64_t n_clusters = stratum_offset.back();
  std::vector<double> abs_cluster(n_clusters, 0.0);
  std::vector<uint64_t> sums_at_max_shift(n_clusters, 0);
  const ColumnScan scan = scan_column(values, unit_cluster, abs_cluster, sums_at_max_shift);
  if (!scan.finite) throw std::logic_error("plan: non-finite value in a column");
  const double bound = replicate_bound(stratum_offset, abs_cluster) + 1.0;
  int shift = scan.exact_shift();
  const bool exact = shift >= 0;
  if (!exact) {
    // General reals: as many fraction bits as the bound leaves below 2^62 (rounding slack
    // included), at most 52 beyond the largest value's exponent's reach.
    shift = std::min(60, static_cast<int>(std::floor(61.0 - std::log2(bound))));
  }
  if (std::ldexp(bound, shift) >= std::ldexp(1.0, 62))
    throw std::runtime_error("plan: column '" + name + "' is too large for exact replicate sums");
  FoldedSums out;
  out.stratum_offset = stratum_offset;
  out.shift = shift;
  out.fits_int32 = std::ldexp(bound, shift) < 2147483647.0;
  out.sums.assign(n_clusters, 0);
  if (exact && std::ldexp(bound, kMaxExactShift) < std::ldexp(1.0, 62)) {
    // The scan's sums at 2^kMaxExactShift stayed within the same limit, so they did not wrap,
    // and every term is a multiple of 2^(kMaxExactShift − shift): the (arithmetic) shift down
    // is an exact division.
    for (int64_t c = 0; c < n_clusters; ++c)
      out.sums[c] = static_cast<int64_t>(sums_at_max_shift[c]) >> (kMaxExactShift - shift);
  } else {
    // Every |value · scale| is below the bound's 2^62, in round_half_away's range.
    const double scale = std::ldexp(1.0, shift);  // a power of two: the product is exact
    for (size_t u = 0; u < values.size(); ++u) out.sums[unit_cluster[u]] += round_half_away(values[u] * scale);
  }
  return out;
}

/// v's bits with −0 read as +0, so that values equal under == have equal bits (NaN aside).
uint64_t bits_zero_unsigned(double v) {
  const double zero_unsigned = v + 0.0;  // −0 + 0 = +0
  uint64_t bits;
  std::memcpy(&bits, &zero_unsigned, sizeof bits);
  return bits;
}

/// A column's values' bits weighted by position, −0 read as +0, so that columns equal value for
/// value hash alike. The weights are odd: columns differing in one value never collide.
/// The weighted sum of a column's value bits, without its length: zeros add nothing, so units appended to a column
/// (zeros) leave it as it was. A folded column keeps it as its value_hash.
uint64_t weighted_bits(const PlanColumn& values) {
  constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  uint64_t sum = 0, weight = kGolden | 1;
  for (size_t u = 0; u < values.size(); ++u) {
    sum += bits_zero_unsigned(values[u]) * weight;
    weight += 2 * kGolden;
  }
  return sum;
}

uint64_t column_hash(const PlanColumn& values) {
  const uint64_t hash =
      values.size() + (values.folded() != nullptr ? values.folded()->value_hash : weighted_bits(values));
  return hash ^ (hash >> 32);
}

/// Value for value equality (−0 equal to +0). A folded column has only its compiled form: it equals a column of
/// the same value hash (already checked by the caller) that compiles to the same sums, shift and int32 fit. Columns
/// equal value for value always do, so every merge made without folding is still made; a merge of different values
/// (a hash collision) could only join columns whose compiled forms, and so every statistic, are the same.
bool same_values(const Plan& plan, int64_t j, int64_t k) {
  const PlanColumn &a = plan.columns[j], &b = plan.columns[k];
  if (a.folded() == nullptr && b.folded() == nullptr) return a == b;
  const auto compiled = [&](const PlanColumn& column, int64_t index) {
    return column.folded() != nullptr
               ? *column.folded()
               : fold_values(column.values(), plan.unit_cluster, plan.stratum_offset, plan.column_names[index]);
  };
  const FoldedSums x = compiled(a, j), y = compiled(b, k);
  return x.shift == y.shift && x.fits_int32 == y.fits_int32 && x.sums == y.sums;
}

struct KeptColumns {
  std::vector<const PlanColumn*> values;  // per kept column
  std::vector<int32_t> first_column;      // per kept column: its plan column
  std::vector<int32_t> of_column;         // plan column -> kept column
};

/// Identical columns (a count shared by several statistics) are stored once: each column maps to
/// the first column in plan order that equals it value for value (−0 equal to +0).
KeptColumns deduplicate_columns(const Plan& plan, uint64_t max_threads) {
  const std::vector<PlanColumn>& columns = plan.columns;
  const int64_t n_columns = static_cast<int64_t>(columns.size());
  std::vector<uint64_t> hashes(n_columns);
  for_each_index(n_columns, max_threads, [&](int64_t k) { hashes[k] = column_hash(columns[k]); });
  std::unordered_map<uint64_t, std::vector<int64_t>> with_hash;  // in column order
  for (int64_t k = 0; k < n_columns; ++k) with_hash[hashes[k]].push_back(k);
  // The first column equal to k (k itself when none comes earlier). Equality is transitive, so
  // that column is kept.
  std::vector<int64_t> first_equal(n_columns);
  for_each_index(n_columns, max_threads, [&](int64_t k) {
    const std::vector<int64_t>& candidates = with_hash.at(hashes[k]);
    first_equal[k] = *std::find_if(candidates.begin(), candidates.end(),
                                   [&](int64_t j) { return j == k || same_values(plan, j, k); });
  });
  KeptColumns kept;
  kept.of_column.resize(n_columns);
  for (int64_t k = 0; k < n_columns; ++k) {
    if (first_equal[k] == k) {
      kept.of_column[k] = static_cast<int32_t>(kept.values.size());
      kept.values.push_back(&columns[k]);
      kept.first_column.push_back(static_cast<int32_t>(k));
    } else {
      kept.of_column[k] = kept.of_column[first_equal[k]];
    }
  }
  return kept;
}

// Kept columns are compiled in groups this wide, so that each cluster's row of cluster_sums is
// written a cache line at a time rather than one scattered value per column.
constexpr int32_t kColumnGroup = 8;

// Work per thread worth its start-up: column values scanned, rank entries sorted.
constexpr uint64_t kValuesPerThread = 1 << 18;
constexpr int64_t kRankEntriesPerThread = 1 << 14;

/// Compiles kept columns [first, last): per-column shift, unscale, totals and fits_int32, and
/// their entries of cluster_sums.
/// Returns the group's sums column-major (entry (k − first) · n_clusters + c); with `release`, each
/// kept column is freed once read.
std::vector<int64_t> compile_column_group(const Plan& plan, const KeptColumns& kept, int32_t first, int32_t last,
                                          CompiledPlan& out, std::vector<uint8_t>& fits_int32,
                                          std::vector<PlanColumn>* release) {
  const int64_t n_clusters = plan.n_clusters();
  std::vector<int64_t> group_sums(static_cast<size_t>(last - first) * n_clusters, 0);
  for (int32_t k = first; k < last; ++k) {
    const PlanColumn& column = *kept.values[k];
    // Widened one column at a time: the scan and the sums read doubles, as before the columns had
    // kinds, so a narrow column compiles exactly as its doubles did; a folded one was compiled so.
    FoldedSums own;
    if (column.folded() == nullptr)
      own =
          fold_values(column.values(), plan.unit_cluster, plan.stratum_offset, plan.column_names[kept.first_column[k]]);
    const FoldedSums& compiled = column.folded() != nullptr ? *column.folded() : own;
    fits_int32[k] = compiled.fits_int32;
    out.column_unscale[k] = std::ldexp(1.0, -compiled.shift);
    std::copy(compiled.sums.begin(), compiled.sums.end(),
              group_sums.begin() + static_cast<size_t>(k - first) * n_clusters);
    out.totals[k] = std::accumulate(compiled.sums.begin(), compiled.sums.end(), int64_t{0});
    if (release != nullptr) (*release)[kept.first_column[k]] = PlanColumn();
  }
  return group_sums;
}

/// Writes a group's column-major sums into cluster_sums' rows.
void scatter_group(const std::vector<int64_t>& group_sums, int32_t first, int32_t last, CompiledPlan& out) {
  const int64_t n_clusters = out.n_clusters;
  for (int64_t c = 0; c < n_clusters; ++c)
    for (int32_t k = first; k < last; ++k)
      out.cluster_sums[static_cast<size_t>(c) * out.n_columns + k] =
          group_sums[static_cast<size_t>(k - first) * n_clusters + c];
}

/// A rank entry under sorting: its score as an unsigned key in the same order, and its index.
struct RankEntry {
  uint64_t key;
  size_t index;
};

/// Sorts entries by key, equal keys keeping their order: a least-significant-digit radix sort, a
/// byte per pass. Bytes every key shares (the high bytes of scores in a narrow range) are skipped.
void stable_sort_by_key(std::vector<RankEntry>& entries) {
  constexpr int kBytes = sizeof(uint64_t);
  if (entries.empty()) return;
  std::vector<std::array<size_t, 256>> counts(kBytes, std::array<size_t, 256>{});
  for (const RankEntry& entry : entries)
    for (int b = 0; b < kBytes; ++b) ++counts[b][entry.key >> (8 * b) & 0xff];
  std::vector<RankEntry> sorted(entries.size());
  for (int b = 0; b < kBytes; ++b) {
    std::array<size_t, 256>& next_slot = counts[b];
    if (next_slot[entries[0].key >> (8 * b) & 0xff] == entries.size()) continue;
    size_t slot = 0;
    for (size_t& count : next_slot) slot += std::exchange(count, slot);
    for (const RankEntry& entry : entries) sorted[next_slot[entry.key >> (8 * b) & 0xff]++] = entry;
    entries.swap(sorted);
  }
}

/// Writes rank term `term`'s entries from `first` on in rank_term_2u's scan order: by score,
/// within a tie group negatives first, otherwise in the builder's order (a stable sort's).
void compile_rank_term(const RankTerm& term, const std::vector<int32_t>& unit_cluster, int64_t first,
                       CompiledPlan& out) {
  // Negatives, then positives, each in builder order; the stable sort by score keeps that order
  // within a tie group.
  const size_t n = term.units.size();
  const size_t n_negative = static_cast<size_t>(std::count(term.positive.begin(), term.positive.begin() + n, 0));
  std::vector<RankEntry> entries(n);
  size_t next_negative = 0, next_positive = n_negative;
  for (size_t e = 0; e < n; ++e) {
    if (!std::isfinite(term.scores[e])) throw std::logic_error("plan: non-finite rank score");
    entries[term.positive[e] != 0 ? next_positive++ : next_negative++] = {order_key(term.scores[e]),
                                                                          e};  // equal scores (−0, +0) give equal keys
  }
  stable_sort_by_key(entries);
  for (size_t e = 0; e < n; ++e) {
    const size_t index = entries[e].index;
    out.rank_cluster[first + e] = unit_cluster[term.units[index]];
    out.rank_positive[first + e] = term.positive[index] != 0;
    out.rank_tie_start[first + e] = e == 0 || entries[e].key != entries[e - 1].key;
  }
}

void check_program(const StatisticDef& stat, int32_t n_columns) {
  int depth = 0;
  for (const Op& op : stat.program) {
    switch (op.code) {
      case OpCode::kColumn:
        if (op.arg < 0 || op.arg >= n_columns)
          throw std::logic_error("plan: statistic '" + stat.label.name + "' names column " + std::to_string(op.arg) +
                                 " of " + std::to_string(n_columns));
        ++depth;
        break;
      case OpCode::kConstant:
      case OpCode::kNormal:
      case OpCode::kRank:
        ++depth;
        break;
      case OpCode::kAbs:
      case OpCode::kSqrt:
        if (depth < 1) throw std::logic_error("plan: abs or sqrt on an empty stack");
        break;
      default:
        if (depth < 2) throw std::logic_error("plan: binary op on a short stack in '" + stat.label.name + "'");
        --depth;
    }
    if (depth > kMaxStack) throw std::logic_error("plan: program deeper than kMaxStack");
  }
  if (depth != 1)
    throw std::logic_error("plan: program of '" + stat.label.name + "' leaves " + std::to_string(depth) + " values");
}

/// The plan's sign-flip tests with their columns as compiled columns; a test naming a missing
/// statistic or column, or a second test of one statistic, is a builder's bug.
std::vector<SignFlipTest> compile_sign_flip_tests(const Plan& plan, const KeptColumns& kept) {
  std::vector<SignFlipTest> tests;
  std::vector<uint8_t> tested(plan.statistics.size(), 0);
  for (const SignFlipTest& test : plan.sign_flip_tests) {
    if (test.statistic < 0 || static_cast<size_t>(test.statistic) >= plan.statistics.size())
      throw std::logic_error("plan: sign-flip test of statistic " + std::to_string(test.statistic) + " of " +
                             std::to_string(plan.statistics.size()));
    if (test.column < 0 || static_cast<size_t>(test.column) >= plan.columns.size())
      throw std::logic_error("plan: sign-flip test of '" + plan.statistics[test.statistic].label.name +
                             "' names column " + std::to_string(test.column) + " of " +
                             std::to_string(plan.columns.size()));
    if (tested[test.statistic]++)
      throw std::logic_error("plan: two sign-flip tests of statistic " + std::to_string(test.statistic));
    tests.push_back({test.statistic, kept.of_column[test.column]});
  }
  return tests;
}

/// Gives the freed columns' pages back to the system: glibc keeps freed blocks below its (dynamic) mmap
/// threshold in the heap, where the process's resident size still counts them.
void return_freed_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

/// The end of column group g: kept columns [g · kColumnGroup, group_end).
int32_t group_end(const CompiledPlan& out, int64_t g) {
  return std::min(static_cast<int32_t>(g) * kColumnGroup + kColumnGroup, out.n_columns);
}

/// Makes `a`, a rows × cols matrix stored row-major, its transpose (cols × rows, row-major) in place: each entry
/// moves once, along the cycles of the permutation r·cols + c ↦ c·rows + r, a bit per entry marking those moved (an
/// eighth of a byte per entry where a copy would take another eight).
void transpose_in_place(std::vector<int64_t>& a, int64_t rows, int64_t cols) {
  if (rows <= 1 || cols <= 1) return;  // the same layout either way
  const int64_t n = rows * cols;
  std::vector<uint64_t> moved(static_cast<size_t>(n + 63) / 64, 0);
  for (int64_t start = 0; start < n; ++start) {
    if (moved[start >> 6] >> (start & 63) & 1) continue;
    int64_t at = start, value = a[start];
    do {
      at = (at % cols) * rows + at / cols;  // where the entry held in `value` belongs
      std::swap(value, a[at]);
      moved[at >> 6] |= uint64_t{1} << (at & 63);
    } while (at != start);
  }
}

/// A given-up plan's kept columns into cluster_sums, never holding the columns and the sums in full beside each
/// other (issue 26 part 7: folded and byte columns waited beside the whole of cluster_sums, the peak of `metrics`
/// and `cascade`). cluster_sums is reserved, not written, so its pages become resident only as filled; the columns'
/// sums are appended column after column, each column freed once read, a batch of groups at a time (one per
/// thread, in order: the first failing column decides the error, as for a kept plan); then the whole is transposed
/// in place to the backends' layout, a row per cluster.
void compile_given_up_columns(const Plan& plan, const KeptColumns& kept, CompiledPlan& out,
                              std::vector<uint8_t>& fits_int32, std::vector<PlanColumn>& release, uint64_t threads) {
  out.cluster_sums.reserve(static_cast<size_t>(out.n_clusters) * out.n_columns);
  const int64_t n_groups = (out.n_columns + kColumnGroup - 1) / kColumnGroup;
  const auto batch = static_cast<int64_t>(std::max<uint64_t>(1, std::min(threads, hardware_threads())));
  for (int64_t first_group = 0; first_group < n_groups; first_group += batch) {
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(std::min(batch, n_groups - first_group)));
    for_each_index(static_cast<int64_t>(groups.size()), threads, [&](int64_t i) {
      const int64_t g = first_group + i;
      groups[i] = compile_column_group(plan, kept, static_cast<int32_t>(g) * kColumnGroup, group_end(out, g), out,
                                       fits_int32, &release);
    });
    for (std::vector<int64_t>& group : groups) {
      out.cluster_sums.insert(out.cluster_sums.end(), group.begin(), group.end());
      group = std::vector<int64_t>();
    }
    return_freed_memory();
  }
  transpose_in_place(out.cluster_sums, out.n_columns, out.n_clusters);
  return_freed_memory();
}

/// Every rank term's entries into `out`, in rank_term_2u's order; with `release`, each term is freed once compiled.
void compile_rank_terms(const Plan& plan, CompiledPlan& out, Plan* release) {
  out.n_rank_terms = static_cast<int32_t>(plan.rank_terms.size());
  for (const RankTerm& term : plan.rank_terms)
    out.rank_offset.push_back(out.rank_offset.back() + static_cast<int64_t>(term.units.size()));
  const int64_t n_entries = out.rank_offset.back();
  out.rank_cluster.resize(n_entries);
  out.rank_positive.resize(n_entries);
  out.rank_tie_start.resize(n_entries);
  for_each_index(out.n_rank_terms, n_entries / kRankEntriesPerThread + 1, [&](int64_t t) {
    compile_rank_term(plan.rank_terms[t], plan.unit_cluster, out.rank_offset[t], out);
    if (release != nullptr) release->rank_terms[t] = RankTerm();
  });
}

/// compile()'s body. With `release` (the plan itself, when the caller gives it up), each column and
/// rank term is freed as soon as it is compiled, so the columns and cluster_sums are not held in
/// full beside each other (issue 26 part 7). The result is the same either way.
CompiledPlan compile_plan(const Plan& plan, Plan* release) {
  const int64_t n_units = plan.n_units();
  const int64_t n_clusters = plan.n_clusters();
  if (n_clusters <= 0) throw std::logic_error("plan: no clusters");
  for (int64_t c : plan.unit_cluster)
    if (c < 0 || c >= n_clusters) throw std::logic_error("plan: unit cluster out of range");
  for (size_t k = 0; k < plan.columns.size(); ++k)
    if (static_cast<int64_t>(plan.columns[k].size()) != n_units)
      throw std::logic_error("plan: column '" + plan.column_names[k] + "' has the wrong length");
  for (size_t k = 0; k < plan.columns.size(); ++k)
    if (plan.columns[k].folded() != nullptr && plan.columns[k].folded()->stratum_offset != plan.stratum_offset)
      throw std::logic_error("plan: column '" + plan.column_names[k] + "' was folded on other clusters or strata");

  // The builder's freed temporaries lie between the plan's columns, where glibc keeps them resident: back to the
  // system before the rank terms' sorting allocates (issue 26 part 7).
  if (release != nullptr) return_freed_memory();
  // Columns and rank terms are compiled independently, each into its own slots, so the result
  // does not depend on the thread count. Small plans stay on the caller's thread.
  const uint64_t column_threads = static_cast<uint64_t>(n_units) * plan.columns.size() / kValuesPerThread + 1;
  const KeptColumns kept = deduplicate_columns(plan, column_threads);

  CompiledPlan out;
  // A plan given up has its rank terms compiled first: each is freed once sorted (its compiled
  // entries take half its bytes or less), before cluster_sums is allocated. Their error, if any,
  // waits for the columns', which come first as for a kept plan.
  std::exception_ptr rank_error;
  if (release != nullptr) {
    try {
      compile_rank_terms(plan, out, release);
    } catch (const std::exception&) {
      rank_error = std::current_exception();
    }
    return_freed_memory();
  }
  out.n_clusters = n_clusters;
  out.n_columns = static_cast<int32_t>(kept.values.size());
  out.stratum_offset = plan.stratum_offset;
  out.column_unscale.resize(out.n_columns);
  out.totals.assign(out.n_columns, 0);
  std::vector<uint8_t> fits_int32(out.n_columns);
  // Given up, the plan loses its duplicate columns now (they were compared already) and each kept
  // column once compiled; cluster_sums then grows as the columns go (compile_given_up_columns).
  if (release != nullptr) {
    for (size_t k = 0; k < release->columns.size(); ++k)
      if (kept.first_column[kept.of_column[k]] != static_cast<int32_t>(k)) release->columns[k] = PlanColumn();
    compile_given_up_columns(plan, kept, out, fits_int32, release->columns, column_threads);
  } else {
    out.cluster_sums.assign(static_cast<size_t>(n_clusters) * out.n_columns, 0);
    for_each_index((out.n_columns + kColumnGroup - 1) / kColumnGroup, column_threads, [&](int64_t g) {
      const int32_t first = static_cast<int32_t>(g) * kColumnGroup;
      scatter_group(compile_column_group(plan, kept, first, group_end(out, g), out, fits_int32, nullptr), first,
                    group_end(out, g), out);
    });
  }
  out.fits_int32 = std::all_of(fits_int32.begin(), fits_int32.end(), [](uint8_t f) { return f; });

  if (release == nullptr)
    compile_rank_terms(plan, out, release);
  else if (rank_error)
    std::rethrow_exception(rank_error);

  for (const StatisticDef& stat : plan.statistics)
    for (const Op& op : stat.program)
      if (op.code == OpCode::kNormal) out.n_normals = std::max(out.n_normals, op.arg + 1);
  out.op_offset.push_back(0);
  for (const StatisticDef& stat : plan.statistics) {
    check_program(stat, static_cast<int32_t>(plan.columns.size()));
    for (Op op : stat.program) {
      if (op.code == OpCode::kColumn) op.arg = kept.of_column[op.arg];
      if (op.code == OpCode::kRank) {
        if (op.arg < 0 || op.arg >= out.n_rank_terms)
          throw std::logic_error("plan: statistic '" + stat.label.name + "' names a missing rank term");
        op.arg += out.n_normals;
      }
      out.ops.push_back(op);
    }
    out.op_offset.push_back(static_cast<int32_t>(out.ops.size()));
  }
  out.n_statistics = static_cast<int32_t>(plan.statistics.size());
  out.sign_flip_tests = compile_sign_flip_tests(plan, kept);
  return out;
}

}  // namespace

bool Plan::fold_column(int32_t k) {
  PlanColumn& column = columns.at(k);
  if (column.kind() != PlanColumn::Kind::kDouble || n_clusters() >= n_units()) return false;
  if (static_cast<int64_t>(column.size()) != n_units())
    throw std::logic_error("plan: column '" + column_names[k] + "' has the wrong length");
  for (int32_t c : unit_cluster)
    if (c < 0 || c >= n_clusters()) throw std::logic_error("plan: unit cluster out of range");
  FoldedSums folded = fold_values(column.values(), unit_cluster, stratum_offset, column_names[k]);
  folded.value_hash = weighted_bits(column);
  column.fold(std::move(folded));
  // The doubles, and the builder's temporaries freed since the last fold, lie between long-lived columns where glibc
  // keeps them resident: back to the system (issue 26 part 7: some 50 MB of `metrics`' peak).
  return_freed_memory();
  return true;
}

CompiledPlan compile(const Plan& plan) { return compile_plan(plan, nullptr); }

CompiledPlan compile(Plan&& plan) {
  CompiledPlan out = compile_plan(plan, &plan);
  plan = Plan();  // what is left (names, statistics, clusters) goes too: the plan was given up
  return out;
}

}  // namespace judgestat
