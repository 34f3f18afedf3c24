// The counts behind docs/statistics.md §8.5's repeat statistics: a request's verdicts compared
// across its repeats, variants or orders (its "members"), pair by pair. Plain functions of the
// verdicts, so the tests check them on hand-built members as well as through the plan.
#pragma once
#include <cstdint>
#include <vector>

namespace judgestat {

/// One present member of a compared group: its verdict code and, when the record is valid and
/// gives some probability, its probabilities (NaN where a label's is not given; else nullptr).
struct RepeatMember {
  int16_t verdict = 0;
  const double* probs = nullptr;
};

/// What a group, or a sum of groups, adds to the statistics' numerators and denominators.
struct AgreementCounts {
  int64_t units = 0;             // groups with at least two present members
  int64_t all_agree = 0;         // of those, groups whose members' verdicts all agree
  int64_t pairs = 0;             // pairs of present members
  int64_t agreeing_pairs = 0;    // of those, pairs whose verdicts agree
  int64_t tv_pairs = 0;          // pairs of members that both carry probabilities
  double tv_sum = 0;             // Σ total-variation distance over those pairs
  int64_t q_groups = 0;          // groups with at least two members that carry probabilities
  double q_range_sum = 0;        // Σ over those groups of max q − min q among those members
  std::vector<double> q_ranges;  // each such group's range, in order (for the median)
  AgreementCounts& operator+=(const AgreementCounts& other);
};

/// Whether two verdicts agree: equal codes (`tie` agrees with `tie`), and an invalid verdict agrees
/// with nothing unless `invalid_match` (then with another invalid one), as `cons` (§3.1) reads them.
bool verdicts_agree(int16_t a, int16_t b, bool invalid_match);

/// ½ Σ_k |p_k − q_k| over n_labels labels [JEV §7.3]; a probability not given (NaN) reads as 0.
double total_variation(const double* p, const double* q, int32_t n_labels);

/// A member's confidence q: its largest probability (the probability of the label it would choose;
/// a probability not given reads as 0) [JEV §4: q = max_k p_k].
double confidence(const double* p, int32_t n_labels);

/// The counts of one group's present members (nothing for fewer than two).
AgreementCounts group_counts(const std::vector<RepeatMember>& members, int32_t n_labels, bool invalid_match);

}  // namespace judgestat
