#include "analyses/repeats/repeats_plan.hpp"

#include <algorithm>
#include <cmath>

#include "support/quantile.hpp"

namespace judgestat {

const char* family_name(RepeatFamily family) {
  switch (family) {
    case RepeatFamily::kRepeat:
      return "repeat";
    case RepeatFamily::kVariant:
      return "variant";
    case RepeatFamily::kRotation:
      return "rotation";
  }
  return "";
}

namespace {

// What the members of a family's groups are, for the notes.
const char* members_of(RepeatFamily family) {
  switch (family) {
    case RepeatFamily::kRepeat:
      return "repeats";
    case RepeatFamily::kVariant:
      return "variants";
    case RepeatFamily::kRotation:
      return "orders";
  }
  return "";
}

// Cell c's record in repeat r as a member with its index, when there is one. Probabilities count on
// a valid record that gives at least one (the others read as 0, as in the probability metrics, §1
// "Validity").
void add_member(const ItemMatrix& m, size_t c, int32_t r, int32_t index, std::vector<RepeatMember>& members,
                std::vector<int32_t>& indices) {
  const int16_t verdict = m.verdict_at(c, r);
  if (verdict == kAbsent) return;
  RepeatMember member{verdict, nullptr};
  if (m.has_probs && (verdict >= 0 || verdict == kTie)) {
    const double* p = m.probs_at(c, r);
    if (std::any_of(p, p + m.n_labels(), [](double x) { return std::isfinite(x); })) member.probs = p;
  }
  members.push_back(member);
  indices.push_back(index);
}

}  // namespace

void for_each_request(const ItemMatrix& m, const Selection& sel, int32_t j, int32_t i, RepeatFamily family,
                      const RepeatScope& scope, const RequestVisitor& visit) {
  if (scope.stratum >= 0 && sel.item_stratum[i] != scope.stratum) return;
  if (family == RepeatFamily::kVariant && scope.variant >= 0) return;
  const auto in_scope = [&](int32_t v) { return scope.variant < 0 || v == scope.variant; };
  std::vector<RepeatMember> members;
  std::vector<int32_t> indices;
  const auto visit_request = [&](RequestKey key) {
    visit(key, members, indices);
    members.clear();
    indices.clear();
  };
  if (family == RepeatFamily::kRepeat) {  // a request: one (order, variant), across repeats
    for (int32_t o = 0; o < m.orders; ++o)
      for (int32_t v : sel.variants) {
        if (!in_scope(v)) continue;
        for (int32_t r = 0; r < m.repeats; ++r) add_member(m, m.cell(j, i, o, v), r, r, members, indices);
        visit_request({o, v});
      }
  } else if (family == RepeatFamily::kVariant) {  // one order of repeat 0, across variants
    for (int32_t o = 0; o < m.orders; ++o) {
      for (int32_t v : sel.variants) add_member(m, m.cell(j, i, o, v), 0, v, members, indices);
      visit_request({o, -1});
    }
  } else {  // one variant of repeat 0, across orders
    for (int32_t v : sel.variants) {
      if (!in_scope(v)) continue;
      for (int32_t o = 0; o < m.orders; ++o) add_member(m, m.cell(j, i, o, v), 0, o, members, indices);
      visit_request({-1, v});
    }
  }
}

AgreementCounts item_counts(const ItemMatrix& m, const Selection& sel, int32_t j, int32_t i, RepeatFamily family,
                            const RepeatScope& scope, bool invalid_match) {
  AgreementCounts out;
  for_each_request(m, sel, j, i, family, scope,
                   [&](const RequestKey&, const std::vector<RepeatMember>& members, const std::vector<int32_t>&) {
                     out += group_counts(members, m.n_labels(), invalid_match);
                   });
  return out;
}

namespace {

// The plan step by step: units (the analysed items), scopes, then per judge × scope × family the
// six count columns and the statistics whose denominators are not all zero.
class RepeatsPlanBuilder {
 public:
  RepeatsPlanBuilder(const ItemMatrix& m, const Selection& sel, const RepeatsOptions& options)
      : m_(m), sel_(sel), options_(options) {}

  RepeatsPlan build() {
    out_.plan = plan_for(sel_);
    for (int32_t i : sel_.items) out_.plan.unit_cluster.push_back(sel_.item_cluster[i]);
    make_scopes();
    const std::vector<RepeatFamily> families = available_families();
    out_.families = families;
    for (int32_t j : sel_.judges)
      for (const RepeatScope& scope : scopes_)
        for (RepeatFamily family : families) add_family_scope(j, family, scope);
    if (options_.by == "repeat") add_repeat_matches();
    return std::move(out_);
  }

 private:
  void make_scopes() {
    scopes_.push_back({});
    if (!sel_.strata.empty())
      for (int32_t h = 0; h < sel_.n_strata(); ++h) scopes_.push_back({sel_.stratum_names[h], h, -1});
    if (options_.by == "variant")
      for (int32_t v : sel_.variants) scopes_.push_back({std::nullopt, -1, v});
  }

  std::vector<RepeatFamily> available_families();
  void add_family_scope(int32_t j, RepeatFamily family, const RepeatScope& scope);
  void add_repeat_matches();
  void add_repeat_match(int32_t j, int32_t r);
  int32_t add_count_column(const std::string& name, const std::vector<AgreementCounts>& counts,
                           double (*value)(const AgreementCounts&));
  StatLabel scope_label(int32_t j, const RepeatScope& scope) const;
  std::string scope_words(int32_t j, const RepeatScope& scope) const;

  const ItemMatrix& m_;
  const Selection& sel_;
  const RepeatsOptions& options_;
  RepeatsPlan out_;
  std::vector<RepeatScope> scopes_;
};

std::vector<RepeatFamily> RepeatsPlanBuilder::available_families() {
  std::vector<RepeatFamily> families;
  if (m_.repeats >= 2)
    families.push_back(RepeatFamily::kRepeat);
  else
    out_.notes.push_back(
        "repeat_agree, repeat_flip and repeat_tv are left out: no record has repeat >= 1 (the same "
        "request run again)");
  if (sel_.variants.size() >= 2)
    families.push_back(RepeatFamily::kVariant);
  else
    out_.notes.push_back(
        "variant_agree, variant_flip and variant_tv are left out: the analysed records have one "
        "variant");
  if (sel_.orders >= 2)
    families.push_back(RepeatFamily::kRotation);
  else
    out_.notes.push_back(
        "rotation_agree, rotation_pair_agree and rotation_tv are left out: the analysed records have "
        "one presentation order");
  if (!m_.has_probs && !families.empty())
    out_.notes.push_back(
        "the probability statistics (<family>_tv, <family>_q_range) are left out: the records carry no "
        "probabilities");
  return families;
}

int32_t RepeatsPlanBuilder::add_count_column(const std::string& name, const std::vector<AgreementCounts>& counts,
                                             double (*value)(const AgreementCounts&)) {
  const int32_t k = out_.plan.add_column(name);
  PlanColumn& column = out_.plan.columns[k];
  for (size_t u = 0; u < counts.size(); ++u) column.set(u, value(counts[u]));
  return k;
}

StatLabel RepeatsPlanBuilder::scope_label(int32_t j, const RepeatScope& scope) const {
  StatLabel label;
  label.judge = m_.judges[j];
  if (scope.group && sel_.strata == "benchmark") label.benchmark = scope.group;
  if (scope.group && sel_.strata == "condition") label.condition = scope.group;
  if (scope.variant >= 0) label.variant = m_.variants[scope.variant];
  return label;
}

std::string RepeatsPlanBuilder::scope_words(int32_t j, const RepeatScope& scope) const {
  std::string words = m_.judges[j];
  if (scope.group) words += " (" + sel_.strata + " " + *scope.group + ")";
  if (scope.variant >= 0) words += " (variant " + m_.variants[scope.variant] + ")";
  return words;
}

void RepeatsPlanBuilder::add_family_scope(int32_t j, RepeatFamily family, const RepeatScope& scope) {
  if (family == RepeatFamily::kVariant && scope.variant >= 0) return;  // across variants: no variant scope
  std::vector<AgreementCounts> counts;
  AgreementCounts total;
  for (int32_t i : sel_.items) {
    counts.push_back(item_counts(m_, sel_, j, i, family, scope, options_.invalid_match));
    total += counts.back();
  }
  const std::string name = family_name(family);
  if (total.units == 0) {
    out_.notes.push_back(name + "_* of " + scope_words(j, scope) + " are left out: no request has two present " +
                         members_of(family));
    return;
  }
  const std::string tag = name + ":" + std::to_string(out_.plan.statistics.size());
  const bool flips = family != RepeatFamily::kRotation;  // rotations report agreeing pairs [JEV Table 26]
  const int32_t units =
      add_count_column(tag + ":units", counts, [](const AgreementCounts& c) { return double(c.units); });
  const int32_t agree =
      add_count_column(tag + ":agree", counts, [](const AgreementCounts& c) { return double(c.all_agree); });
  const int32_t pairs =
      add_count_column(tag + ":pairs", counts, [](const AgreementCounts& c) { return double(c.pairs); });
  const int32_t pairwise = add_count_column(
      tag + ":pairwise", counts,
      flips ? +[](const AgreementCounts& c) { return double(c.pairs - c.agreeing_pairs); }
            : +[](const AgreementCounts& c) { return double(c.agreeing_pairs); });
  StatLabel label = scope_label(j, scope);
  auto add = [&](const std::string& stat, int32_t num, int32_t den, int64_t n) {
    label.name = name + "_" + stat;
    label.n = n;
    out_.plan.statistics.push_back({label, ratio_program(num, den)});
  };
  add("agree", agree, units, total.units);
  add(flips ? "flip" : "pair_agree", pairwise, pairs, total.pairs);
  if (total.tv_pairs > 0) {
    const int32_t tv_pairs =
        add_count_column(tag + ":tv_pairs", counts, [](const AgreementCounts& c) { return double(c.tv_pairs); });
    const int32_t tv_sum = add_count_column(tag + ":tv_sum", counts, [](const AgreementCounts& c) { return c.tv_sum; });
    add("tv", tv_sum, tv_pairs, total.tv_pairs);
    // Groups with two members carrying probabilities are exactly those with a tv pair.
    const int32_t q_groups =
        add_count_column(tag + ":q_groups", counts, [](const AgreementCounts& c) { return double(c.q_groups); });
    const int32_t q_range_sum =
        add_count_column(tag + ":q_range_sum", counts, [](const AgreementCounts& c) { return c.q_range_sum; });
    add("q_range", q_range_sum, q_groups, total.q_groups);
    label.name = name + "_q_range_median";
    label.n = total.q_groups;
    std::vector<double> ranges = total.q_ranges;  // the type-7 median reorders them
    out_.point_statistics.push_back({label, quantile_type7_unsorted(ranges, 0.5)});
  } else if (m_.has_probs) {
    out_.notes.push_back(name + "_tv and " + name + "_q_range of " + scope_words(j, scope) + " are left out: no two " +
                         members_of(family) + " of one request both carry probabilities");
  }
}

// `--by repeat`: per judge and repeat r >= 1, the share of its requests (item, order, variant)
// with both repeat 0 and repeat r present whose two verdicts agree [JEV: "reproduces 99 of 100"].
void RepeatsPlanBuilder::add_repeat_matches() {
  if (m_.repeats < 2) {
    out_.notes.push_back("repeat_match (--by repeat) is left out: no record has repeat >= 1");
    return;
  }
  for (int32_t j : sel_.judges)
    for (int32_t r = 1; r < m_.repeats; ++r) add_repeat_match(j, r);
}

void RepeatsPlanBuilder::add_repeat_match(int32_t j, int32_t r) {
  std::vector<AgreementCounts> counts;
  AgreementCounts total;
  for (int32_t i : sel_.items) {
    AgreementCounts item;
    for (int32_t o = 0; o < m_.orders; ++o)
      for (int32_t v : sel_.variants) {
        const size_t c = m_.cell(j, i, o, v);
        const int16_t first = m_.verdict_at(c, 0), again = m_.verdict_at(c, r);
        if (first == kAbsent || again == kAbsent) continue;
        ++item.units;
        item.all_agree += verdicts_agree(first, again, options_.invalid_match);
      }
    counts.push_back(item);
    total += item;
  }
  if (total.units == 0) {
    out_.notes.push_back("repeat_match of " + m_.judges[j] + " at repeat " + std::to_string(r) +
                         " is left out: no request has both repeat 0 and repeat " + std::to_string(r));
    return;
  }
  const std::string tag = "repeat_match:" + std::to_string(out_.plan.statistics.size());
  const int32_t units =
      add_count_column(tag + ":units", counts, [](const AgreementCounts& c) { return double(c.units); });
  const int32_t agree =
      add_count_column(tag + ":agree", counts, [](const AgreementCounts& c) { return double(c.all_agree); });
  StatLabel label = scope_label(j, {});
  label.name = "repeat_match";
  label.label = std::to_string(r);
  label.n = total.units;
  out_.plan.statistics.push_back({label, ratio_program(agree, units)});
}

}  // namespace

RepeatsPlan build_repeats_plan(const ItemMatrix& m, const Selection& sel, const RepeatsOptions& options) {
  return RepeatsPlanBuilder(m, sel, options).build();
}

}  // namespace judgestat
