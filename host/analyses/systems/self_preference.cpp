// Self-preference (docs/statistics.md §8.4, issue 28 item 3): per judge, how it treats responses
// written by models of its own family against the rest. Pointwise (`--self x.MODEL`): accuracy on
// own-family and other responses (score judges: mean score, and mean score − gold with gold);
// pairwise (`--self x.A,x.B`), on the items where exactly one response is its family's: how often it
// prefers that one (gold-free), and with gold its accuracy where gold is the own response against
// where gold is the other.
#include <cmath>
#include <stdexcept>

#include "analyses/systems/systems_plan.hpp"
#include "records/fields.hpp"

namespace judgestat {

namespace {

constexpr int8_t kOther = 0, kOwn = 1, kNeither = -1;

// Sums a value over the own-family units and over the others: own, other and own − other rows.
void add_own_other(SystemsPlan& out, const std::string& name, const std::string& judge,
                   const std::vector<double>& value, const std::vector<int8_t>& side) {
  std::vector<Op> programs[2];
  int64_t n[2] = {0, 0};
  for (int8_t part : {kOwn, kOther}) {
    std::vector<double> sum(value.size(), 0.0), in(value.size(), 0.0);
    for (size_t u = 0; u < value.size(); ++u)
      if (side[u] == part && !std::isnan(value[u])) {
        sum[u] = value[u];
        in[u] = 1;
        ++n[part];
      }
    if (n[part] == 0) continue;
    const std::string tag = judge + "/" + name + (part == kOwn ? "/own" : "/other");
    programs[part] = ratio_program(add_values(out.plan, tag, sum), add_values(out.plan, tag + "/n", in));
    add_row(out, name, judge, n[part], programs[part],
            {"self_preference", std::nullopt, std::nullopt, part == kOwn ? "own" : "other"});
  }
  if (n[kOwn] == 0 || n[kOther] == 0) {
    out.notes.push_back(name + " of " + judge + ": no " + (n[kOwn] == 0 ? "own-family" : "other-family") +
                        " units, so own − other is left out");
    return;
  }
  add_row(out, name, judge, n[kOwn] + n[kOther], difference_program(programs[kOwn], programs[kOther]),
          {"self_preference", std::nullopt, std::nullopt, "own-other"});
}

// Each analysed judge's family: from --family NAME=FAMILY, or from the --family x.NAME column
// (one value over the judge's records).
std::string judge_family(const ItemMatrix& m, const SystemsOptions& options, int32_t j) {
  if (options.family_column.empty()) {
    const auto it = options.family.find(m.judges[j]);
    if (it == options.family.end())
      throw UsageError("--family: no family for judge '" + m.judges[j] +
                       "' (--self compares each judge's own family with the rest; add " + m.judges[j] +
                       "=FAMILY, or name a record column with --family x.NAME)");
    return it->second;
  }
  const Covariate& column = m.covariate(options.family_column);
  int32_t level = kNoLevel;
  int64_t first_line = 0;
  for (size_t c = m.cell(j, 0, 0, 0); c < m.cell(j + 1, 0, 0, 0); ++c) {
    const int32_t here = column.cell_level[c];
    if (here < 0) continue;
    if (level >= 0 && here != level)
      throw InputError(record_location(m, m.line[c]) + ": column 'x." + column.name + "': judge " +
                       loading::shown_text(m.judges[j]) + " has family " + loading::shown_text(column.levels[here]) +
                       " here but " + loading::shown_text(column.levels[level]) + " on " +
                       record_location(m, first_line) + "; --family x." + column.name + " needs one value per judge");
    if (level < 0) first_line = m.line[c];
    level = here;
  }
  if (level < 0)
    throw UsageError("--family x." + column.name + ": judge '" + m.judges[j] + "' has no value in that column");
  return column.levels[level];
}

std::string family_of(const SystemsOptions& options, const std::string& model) {
  const auto it = options.family.find(model);
  return it == options.family.end() ? model : it->second;
}

// Pointwise: each unit's side (own, other, or neither when the author is not named).
std::vector<int8_t> pointwise_sides(const SystemUnits& au, const SystemsOptions& options, const std::string& family) {
  std::vector<int8_t> side(au.units.size(), kNeither);
  for (size_t u = 0; u < au.units.size(); ++u)
    if (au.system_a[u] >= 0) side[u] = family_of(options, au.systems[au.system_a[u]]) == family ? kOwn : kOther;
  return side;
}

// Whether some analysed unit's item has gold: the selection's items, not the whole file's.
bool some_unit_has_gold(const ItemMatrix& m, const SystemUnits& au) {
  for (const auto& unit : au.units)
    if (m.has_gold(unit.item)) return true;
  return false;
}

void add_pointwise(const ItemMatrix& m, int32_t j, const SystemUnits& au, const std::vector<int8_t>& side,
                   SystemsPlan& out) {
  const std::string& judge = m.judges[j];
  if (!m.scored && !some_unit_has_gold(m, au)) {
    out.notes.push_back("self_acc of " + judge +
                        " is left out: no item has gold (categorical judges' self-preference "
                        "compares accuracies; score judges give self_score without gold)");
    return;
  }
  if (!m.scored) {
    add_own_other(out, "self_acc", judge, judge_correct(m, j, au.units), side);
    return;
  }
  const std::vector<double> score = judge_scores(m, j, au.units);
  add_own_other(out, "self_score", judge, score, side);
  std::vector<double> error(score.size(), NAN);
  for (size_t u = 0; u < score.size(); ++u) {
    const int32_t i = au.units[u].item;
    if (m.has_gold(i)) error[u] = score[u] - m.label_score[m.gold[i]];
  }
  add_own_other(out, "self_error", judge, error, side);
}

// Pairwise: on the units where exactly one response is the judge's family's, the judge's share for
// it (self_pref) and its accuracy where gold is the own response or the other (self_acc).
void add_pairwise(const ItemMatrix& m, int32_t j, const SystemUnits& au, const SystemsOptions& options,
                  const std::string& family, SystemsPlan& out) {
  const auto ab = pair_labels(m, "self");
  const std::vector<double> share = judge_share_a(m, j, au.units, ab);
  const std::vector<double> correct = judge_correct(m, j, au.units);
  std::vector<double> prefers(au.units.size(), NAN);
  std::vector<int8_t> gold_side(au.units.size(), kNeither);
  for (size_t u = 0; u < au.units.size(); ++u) {
    const int32_t a = au.system_a[u], b = au.system_b[u];
    if (a < 0 || b < 0) continue;
    const bool own_a = family_of(options, au.systems[a]) == family, own_b = family_of(options, au.systems[b]) == family;
    if (own_a == own_b) continue;
    if (share[u] >= 0) prefers[u] = own_a ? share[u] : 1.0 - share[u];
    const int32_t gold = m.gold[au.units[u].item];
    if (gold == ab.first || gold == ab.second) gold_side[u] = (gold == ab.first) == own_a ? kOwn : kOther;
  }
  int64_t n = 0;
  std::vector<double> sum(au.units.size(), 0.0), in(au.units.size(), 0.0);
  for (size_t u = 0; u < au.units.size(); ++u)
    if (!std::isnan(prefers[u])) {
      sum[u] = prefers[u];
      in[u] = 1;
      ++n;
    }
  if (n == 0) {
    out.notes.push_back("self_pref of " + m.judges[j] + " is left out: no item pairs a " + family +
                        " response with another family's and has a valid verdict of the judge");
    return;
  }
  const std::string tag = m.judges[j] + "/self_pref";
  add_row(out, "self_pref", m.judges[j], n,
          ratio_program(add_values(out.plan, tag, sum), add_values(out.plan, tag + "/n", in)),
          {"self_preference", std::nullopt, std::nullopt, "own"});
  if (some_unit_has_gold(m, au)) add_own_other(out, "self_acc", m.judges[j], correct, gold_side);
}

}  // namespace

void add_self_preference(const ItemMatrix& m, const Selection& sel, const SystemsOptions& options,
                         std::map<std::string, std::string>& families, SystemsPlan& out) {
  if (options.self.size() != 1 && options.self.size() != 2)
    throw std::invalid_argument("self: expected one column x.MODEL (pointwise) or two x.A,x.B (pairwise), got " +
                                std::to_string(options.self.size()));
  for (int32_t j : sel.judges) families[m.judges[j]] = judge_family(m, options, j);
  const SystemUnits au = system_units(m, sel, options.self, "--self", nullptr);
  int64_t unnamed = 0;
  for (size_t u = 0; u < au.units.size(); ++u)
    unnamed += au.system_a[u] < 0 || (options.self.size() == 2 && au.system_b[u] < 0);
  if (unnamed > 0)
    out.notes.push_back("self-preference: " + std::to_string(unnamed) +
                        " units name no model in a --self column and are left out");
  for (int32_t j : sel.judges) {
    const std::string& family = families[m.judges[j]];
    if (options.self.size() == 1)
      add_pointwise(m, j, au, pointwise_sides(au, options, family), out);
    else
      add_pairwise(m, j, au, options, family, out);
  }
}

}  // namespace judgestat
