// Win rates between the systems behind candidates A and B (docs/statistics.md §8.4, issue 28 item
// 5): per judge, per pair of systems and per system against all opponents or the baseline, and the
// paired differences of two systems' win rates. Gold-free; ties count half.
#include <map>
#include <stdexcept>

#include "analyses/systems/systems_plan.hpp"

namespace judgestat {

namespace {

// A ratio statistic's columns and units on the original data.
struct Ratio {
  std::vector<Op> program;
  std::vector<uint8_t> in;  // per unit: counted in the denominator
  int64_t n = 0;
};

// One judge's win rates from its share for candidate A on each unit.
class WinRateBuilder {
 public:
  WinRateBuilder(const SystemUnits& su, const std::string& judge, const std::vector<double>& share, int32_t baseline,
                 SystemsPlan& out)
      : su_(su), judge_(judge), share_(share), baseline_(baseline), out_(out) {}

  void build() {
    const auto S = static_cast<int32_t>(su_.systems.size());
    overall_.resize(S);  // against all opponents: without a baseline only
    if (baseline_ < 0)
      for (int32_t s = 0; s < S; ++s) overall_[s] = ratio_of([&](size_t u) { return side(u, s); }, "all", s);
    else
      for (int32_t s = 0; s < S; ++s)
        if (s != baseline_) {
          Ratio r = pair_ratio(s, baseline_);
          if (r.n > 0) against_baseline_[s] = std::move(r);
        }
    for (int32_t s = 0; s < S; ++s) {
      const Ratio* r = baseline_ >= 0 ? found(s) : &overall_[s];
      if (r && r->n > 0) add(row(s, baseline_ >= 0 ? su_.systems[baseline_] : "all"), *r);
    }
    if (baseline_ < 0)
      for (int32_t s = 0; s < S; ++s)
        for (int32_t t = s + 1; t < S; ++t) {
          const Ratio r = pair_ratio(s, t);
          if (r.n > 0) add(row(s, su_.systems[t]), r);
        }
    add_differences();
  }

 private:
  // The share of unit u that goes to system s: 1 when s is A and A is chosen, … ; -1 when s does not
  // take part or the judge gave no valid verdict.
  double side(size_t u, int32_t s) const {
    const int32_t a = su_.system_a[u], b = su_.system_b[u];
    if (share_[u] < 0 || a < 0 || b < 0 || a == b) return -1;
    return a == s ? share_[u] : b == s ? 1.0 - share_[u] : -1;
  }

  template <typename Side>
  Ratio ratio_of(Side&& side_of, const std::string& tag, int32_t s) {
    const size_t U = su_.units.size();
    std::vector<double> wins(U, 0.0), in(U, 0.0);
    Ratio r;
    r.in.assign(U, 0);
    for (size_t u = 0; u < U; ++u) {
      const double share = side_of(u);
      if (share < 0) continue;
      wins[u] = share;
      in[u] = 1;
      r.in[u] = 1;
      ++r.n;
    }
    if (r.n == 0) return r;
    const std::string name = judge_ + "/" + su_.systems[s] + "/" + tag;
    r.program = ratio_program(add_values(out_.plan, name + "/wins", wins), add_values(out_.plan, name + "/n", in));
    return r;
  }

  // System s's win rate in its comparisons with t.
  Ratio pair_ratio(int32_t s, int32_t t) {
    return ratio_of(
        [&](size_t u) {
          const int32_t a = su_.system_a[u], b = su_.system_b[u];
          return (a == s && b == t) || (a == t && b == s) ? side(u, s) : -1.0;
        },
        su_.systems[t], s);
  }

  // W_s − W_t for s < t: against the baseline when there is one, else over all opponents.
  void add_differences() {
    const auto S = static_cast<int32_t>(su_.systems.size());
    for (int32_t s = 0; s < S; ++s)
      for (int32_t t = s + 1; t < S; ++t) {
        if (s == baseline_ || t == baseline_) continue;
        const Ratio* a = baseline_ >= 0 ? found(s) : &overall_[s];
        const Ratio* b = baseline_ >= 0 ? found(t) : &overall_[t];
        if (!a || !b || a->n == 0 || b->n == 0) continue;
        int64_t n = 0;
        for (size_t u = 0; u < su_.units.size(); ++u) n += a->in[u] || b->in[u];
        const SystemsRowKey key = row(s, su_.systems[t]);
        StatLabel label{"win_rate_diff", judge_};
        label.of = "win_rate";
        label.n = n;
        out_.plan.statistics.push_back({label, difference_program(a->program, b->program)});
        out_.keys.push_back(key);
      }
  }

  const Ratio* found(int32_t s) const {
    const auto it = against_baseline_.find(s);
    return it == against_baseline_.end() ? nullptr : &it->second;
  }

  SystemsRowKey row(int32_t s, const std::string& opponent) const {
    return {"win_rates", su_.systems[s], opponent, std::nullopt};
  }

  void add(const SystemsRowKey& key, const Ratio& r) {
    StatLabel label{"win_rate", judge_};
    label.n = r.n;
    out_.plan.statistics.push_back({label, r.program});
    out_.keys.push_back(key);
  }

  const SystemUnits& su_;
  const std::string& judge_;
  const std::vector<double>& share_;
  int32_t baseline_;
  SystemsPlan& out_;
  std::vector<Ratio> overall_;
  std::map<int32_t, Ratio> against_baseline_;
};

// Units left out of every judge's win rates: a system missing, or the same system on both sides.
void note_unpaired_units(const SystemUnits& su, SystemsPlan& out) {
  int64_t missing = 0, same = 0;
  for (size_t u = 0; u < su.units.size(); ++u) {
    if (su.system_a[u] < 0 || su.system_b[u] < 0)
      ++missing;
    else
      same += su.system_a[u] == su.system_b[u];
  }
  if (missing > 0)
    out.notes.push_back("win rates: " + std::to_string(missing) +
                        " units name no system for A or B (an empty --systems field) and are left out");
  if (same > 0)
    out.notes.push_back("win rates: " + std::to_string(same) + " units compare a system with itself and are left out");
}

}  // namespace

void add_win_rates(const ItemMatrix& m, const Selection& sel, const SystemUnits& su, const SystemsOptions& options,
                   SystemsPlan& out) {
  const auto ab = pair_labels(m, "systems");
  int32_t baseline = -1;
  if (!options.baseline.empty()) {
    for (size_t s = 0; s < su.systems.size(); ++s)
      if (su.systems[s] == options.baseline) baseline = static_cast<int32_t>(s);
    if (baseline < 0) {
      std::string names;
      for (const std::string& name : su.systems) names += (names.empty() ? "" : ", ") + name;
      throw std::invalid_argument("baseline: no system '" + options.baseline + "' in the --systems columns (" + names +
                                  ")");
    }
  }
  note_unpaired_units(su, out);
  for (int32_t j : sel.judges) {
    const std::vector<double> share = judge_share_a(m, j, su.units, ab);
    int64_t without = 0;
    for (double x : share) without += x < 0;
    if (without > 0)
      out.notes.push_back("win rates of " + m.judges[j] + ": " + std::to_string(without) +
                          " units without a valid verdict of the judge (absent or invalid) are left out");
    WinRateBuilder(su, m.judges[j], share, baseline, out).build();
  }
}

}  // namespace judgestat
