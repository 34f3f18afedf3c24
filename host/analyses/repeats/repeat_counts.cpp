#include "analyses/repeats/repeat_counts.hpp"

#include <algorithm>
#include <cmath>

#include "judgestat/records.hpp"

namespace judgestat {

AgreementCounts& AgreementCounts::operator+=(const AgreementCounts& other) {
  units += other.units;
  all_agree += other.all_agree;
  pairs += other.pairs;
  agreeing_pairs += other.agreeing_pairs;
  tv_pairs += other.tv_pairs;
  tv_sum += other.tv_sum;
  q_groups += other.q_groups;
  q_range_sum += other.q_range_sum;
  q_ranges.insert(q_ranges.end(), other.q_ranges.begin(), other.q_ranges.end());
  return *this;
}

bool verdicts_agree(int16_t a, int16_t b, bool invalid_match) {
  if (a == kInvalid || b == kInvalid) return invalid_match && a == b;
  return a == b;
}

double total_variation(const double* p, const double* q, int32_t n_labels) {
  double sum = 0;
  const auto given = [](double x) { return std::isfinite(x) ? x : 0.0; };  // not given: 0 (§1 "Validity")
  for (int32_t k = 0; k < n_labels; ++k) sum += std::fabs(given(p[k]) - given(q[k]));
  return 0.5 * sum;
}

double confidence(const double* p, int32_t n_labels) {
  double q = 0;
  for (int32_t k = 0; k < n_labels; ++k)
    if (std::isfinite(p[k])) q = std::max(q, p[k]);
  return q;
}

AgreementCounts group_counts(const std::vector<RepeatMember>& members, int32_t n_labels, bool invalid_match) {
  AgreementCounts out;
  if (members.size() < 2) return out;
  out.units = 1;
  for (size_t a = 0; a < members.size(); ++a)
    for (size_t b = a + 1; b < members.size(); ++b) {
      ++out.pairs;
      out.agreeing_pairs += verdicts_agree(members[a].verdict, members[b].verdict, invalid_match);
      if (members[a].probs == nullptr || members[b].probs == nullptr) continue;
      ++out.tv_pairs;
      out.tv_sum += total_variation(members[a].probs, members[b].probs, n_labels);
    }
  // The confidence's range across the members that carry probabilities [JEV §7.3: "its confidence
  // varies across rotations by 0.10 on average"; two orders: "moves by 0.045 on average"].
  double q_min = 1, q_max = 0;
  int32_t with_probs = 0;
  for (const RepeatMember& member : members) {
    if (member.probs == nullptr) continue;
    const double q = confidence(member.probs, n_labels);
    q_min = std::min(q_min, q);
    q_max = std::max(q_max, q);
    ++with_probs;
  }
  if (with_probs >= 2) {
    out.q_groups = 1;
    out.q_range_sum = q_max - q_min;
    out.q_ranges.push_back(q_max - q_min);
  }
  // Agreement is not transitive when invalid verdicts never agree: all agree iff every pair does.
  out.all_agree = out.agreeing_pairs == out.pairs;
  return out;
}

}  // namespace judgestat
