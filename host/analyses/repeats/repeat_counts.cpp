#include "analyses/repeats/repeat_counts.hpp"

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
  // Agreement is not transitive when invalid verdicts never agree: all agree iff every pair does.
  out.all_agree = out.agreeing_pairs == out.pairs;
  return out;
}

}  // namespace judgestat
