#include "analyses/repeats/repeat_requests.hpp"

#include <cmath>
#include <string>

namespace judgestat {
namespace {

std::string verdict_text(const ItemMatrix& m, int16_t verdict) {
  if (verdict == kTie) return "tie";
  if (verdict == kInvalid) return "invalid";
  return m.labels[verdict];
}

// The member's name: a repeat or order index, or (variant family) the variant's name.
std::string member_name(const ItemMatrix& m, RepeatFamily family, int32_t index) {
  return family == RepeatFamily::kVariant ? m.variants[index] : std::to_string(index);
}

// A probability as the repeat statistics read it: one not given reads as 0 (§1 "Validity").
double given_or_zero(double p) { return std::isfinite(p) ? p : 0.0; }

RepeatRequestMember member_row(const ItemMatrix& m, RepeatFamily family, int32_t item, const RepeatMember& member,
                               int32_t index) {
  RepeatRequestMember row{index, member_name(m, family, index), verdict_text(m, member.verdict), NAN, NAN};
  if (member.probs == nullptr) return row;
  row.q = confidence(member.probs, m.n_labels());
  row.p_gold = given_or_zero(member.probs[m.has_gold(item) ? m.gold[item] : 0]);
  return row;
}

// The request's row: its members, and its summaries from the counts the statistics sum.
RepeatRequest request_row(const ItemMatrix& m, int32_t j, int32_t i, RepeatFamily family, const RequestKey& key,
                          const std::vector<RepeatMember>& members, const std::vector<int32_t>& indices,
                          bool invalid_match) {
  RepeatRequest row;
  row.judge = m.judges[j];
  row.family = family_name(family);
  row.item = m.items[i];
  if (m.has_gold(i)) row.gold = m.labels[m.gold[i]];
  row.order = key.order;
  if (key.variant >= 0) row.variant = m.variants[key.variant];
  const AgreementCounts counts = group_counts(members, m.n_labels(), invalid_match);
  row.all_agree = counts.all_agree == 1;
  double q_sum = 0;
  for (size_t k = 0; k < members.size(); ++k) {
    row.members.push_back(member_row(m, family, i, members[k], indices[k]));
    if (members[k].probs != nullptr) q_sum += row.members.back().q;
  }
  if (counts.q_groups == 1) {  // at least two members carry probabilities (so a tv pair exists)
    int64_t with_probs = 0;
    for (const RepeatMember& member : members) with_probs += member.probs != nullptr;
    row.q_mean = q_sum / static_cast<double>(with_probs);
    row.q_range = counts.q_range_sum;
    row.tv_mean = counts.tv_sum / static_cast<double>(counts.tv_pairs);
  }
  return row;
}

}  // namespace

std::vector<RepeatRequest> request_rows(const ItemMatrix& m, const Selection& sel,
                                        const std::vector<RepeatFamily>& families, bool invalid_match) {
  std::vector<RepeatRequest> rows;
  for (int32_t j : sel.judges)
    for (RepeatFamily family : families)
      for (int32_t i : sel.items)
        for_each_request(
            m, sel, j, i, family, {},
            [&](const RequestKey& key, const std::vector<RepeatMember>& members, const std::vector<int32_t>& indices) {
              if (members.size() >= 2)
                rows.push_back(request_row(m, j, i, family, key, members, indices, invalid_match));
            });
  return rows;
}

}  // namespace judgestat
