// `judgestat synth cap`: deterministic from the seed, the docs/statistics.md §1 layout, exact flag shares, and
// its planted CAP values recovered by the profile within their bootstrap CIs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "analyses/profile/profile_detail.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "sources/synth.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::kRoot;
using judgestat::testing_support::write_temp;

namespace {

std::string synth_text(const SynthOptions& options) {
  std::ostringstream out;
  write_synth_cap(out, options);
  return out.str();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The planted value a profile statistic estimates, or NaN when the generator plants none.
double planted(const std::map<std::string, std::map<std::string, double>>& truth, const ProfileStat& stat,
               const StatLabel& label) {
  if (label.judge.empty()) return NAN;  // means over judges, L1 distances
  const auto& values = truth.at(label.judge);
  std::string key;
  switch (stat.kind) {
    case ProfileStat::Kind::kCell:
    case ProfileStat::Kind::kConsistency:
    case ProfileStat::Kind::kSupportedCorrect:
    case ProfileStat::Kind::kCorrected:
      key = label.name;
      break;
    case ProfileStat::Kind::kStableWrong: {
      const std::string c = *label.of;
      return values.at(c + "_cons") - values.at(c);
    }
    case ProfileStat::Kind::kLeaveOut:
      key = "leave_out." + *label.of;
      break;
    default:
      return NAN;
  }
  const auto it = values.find(key);
  return it == values.end() ? NAN : it->second;
}

}  // namespace

TEST(SynthCap, DeterministicFromSeed) {
  SynthOptions options;
  options.items_per_type = 20;
  options.seed = 11;
  const std::string a = synth_text(options), b = synth_text(options);
  EXPECT_EQ(a, b);
  options.seed = 12;
  EXPECT_NE(a, synth_text(options));
}

TEST(SynthCap, WritesSpecLayoutWithExactFlagShares) {
  SynthOptions options;
  options.items_per_type = 50;
  options.seed = 3;
  const std::string path = write_temp("synth_layout.csv", synth_text(options));
  const ItemMatrix m = load_item_matrix(path);
  const size_t judges = default_synth_judges().size();
  EXPECT_EQ(m.n_judges(), static_cast<int32_t>(judges));
  EXPECT_EQ(m.n_items(), 200);
  EXPECT_EQ(m.variants, (std::vector<std::string>{"plain", "polished", "padded"}));
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.records, static_cast<int64_t>(judges) * 200 * 3 * 2);
  EXPECT_EQ(m.invalid, 0);
  EXPECT_TRUE(m.has_rationale);
  EXPECT_EQ(m.benchmarks, (std::vector<std::string>{"judgerEva"}));
  // round(share × 50) flagged items per type: 5, 5, 6, 24.
  std::map<std::string, int> flagged;
  for (int32_t i = 0; i < m.n_items(); ++i) flagged[m.conditions[m.item_condition[i]]] += m.item_flag[i];
  EXPECT_EQ(flagged, (std::map<std::string, int>{{"factual", 5}, {"logical", 5}, {"overclaim", 6}, {"omission", 24}}));
  // Two items per source-question cluster, of different failure types: 200 items dealt to six
  // domains (34, 34, 33, 33, 33, 33 items) make 17 clusters each.
  EXPECT_EQ(m.clusters.size(), 102u);
  for (int32_t i = 0; i + 1 < m.n_items(); ++i)
    if (m.item_cluster[i] == m.item_cluster[i + 1]) {
      EXPECT_NE(m.item_condition[i], m.item_condition[i + 1]);
    }
}

TEST(SynthCap, ShippedJudgesFileEqualsTheDefaults) {
  const std::vector<SynthJudge> parsed =
      parse_synth_judges(read_text(kRoot + "/configs/synth_judges.json"), "configs/synth_judges.json");
  const std::vector<SynthJudge> defaults = default_synth_judges();
  ASSERT_EQ(parsed.size(), defaults.size());
  for (size_t k = 0; k < parsed.size(); ++k) {
    SCOPED_TRACE(defaults[k].name);
    EXPECT_EQ(parsed[k].name, defaults[k].name);
    EXPECT_EQ(parsed[k].skill, defaults[k].skill);
    EXPECT_EQ(parsed[k].misled, defaults[k].misled);
    EXPECT_EQ(parsed[k].position_bias, defaults[k].position_bias);
    EXPECT_EQ(parsed[k].style_fooled, defaults[k].style_fooled);
    EXPECT_EQ(parsed[k].length_fooled, defaults[k].length_fooled);
    EXPECT_EQ(parsed[k].rationale, defaults[k].rationale);
  }
}

TEST(SynthCap, BadJudgesNameTheJudgeAndKey) {
  auto message = [](const std::string& json) {
    try {
      SynthOptions options;
      options.judges = parse_synth_judges(json, "j.json");
      check_synth_options(options);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"judges": [{"name": "x", "skill": 0.5, "speed": 1}]})").find("(x): unknown key 'speed'"),
            std::string::npos);
  EXPECT_NE(message(R"({"judges": [{"name": "x", "skill": {"factual": 0.5}}]})").find("missing skill for 'logical'"),
            std::string::npos);
  EXPECT_NE(message(R"({"judges": [{"name": "x", "skill": 0.8, "misled": 0.3}]})").find("skill + misled <= 1"),
            std::string::npos);
  EXPECT_NE(message(R"({"judges": [{"name": "x", "skill": 0.8, "position_bias": 1.5}]})").find("judge 'x'"),
            std::string::npos);
}

// Every planted value (C1–C8, overall, the _cons counterparts and stable-but-wrong mass,
// supported-correct, bias-corrected values, leave-out shifts) lies inside its CI. The seed is
// fixed, so this is a deterministic check; at 99.9% every value must be covered, and at 95% at
// least 85% of them (the nominal rate, less room for 200-odd correlated checks).
TEST(SynthCap, PlantedValuesRecoveredWithinTheirCIs) {
  SynthOptions options;
  options.seed = 2024;
  options.items_per_type = 150;
  const std::string path = write_temp("synth_planted.csv", synth_text(options));
  const auto truth = synth_truth(options);
  const ItemMatrix m = load_item_matrix(path);
  const ProfileConfig config = load_profile_config(kRoot + "/configs/judgereva.json");
  const ProfilePlan plan = build_profile_plan(m, config, ProfileOptions{});
  auto backend = make_cpu_backend(2);
  for (double level : {0.999, 0.95}) {
    BootstrapOptions boot;
    boot.replicates = 4000;
    boot.seed = 5;
    boot.level = level;
    const BootstrapResult result = run_bootstrap(plan.plan, *backend, boot);
    int checked = 0, covered = 0;
    std::map<std::string, int> kinds;
    for (size_t s = 0; s < plan.stats.size(); ++s) {
      const double value = planted(truth, plan.stats[s], result.labels[s]);
      if (std::isnan(value)) continue;
      ++checked;
      ++kinds[result.labels[s].name];
      const Interval& ci = result.intervals[s];
      const bool inside = ci.lo <= value && value <= ci.hi;
      covered += inside;
      if (level > 0.99) {
        EXPECT_TRUE(inside) << result.labels[s].judge << " " << result.labels[s].name
                            << (result.labels[s].of ? " of " + *result.labels[s].of : "") << ": planted " << value
                            << ", estimate " << ci.estimate << " [" << ci.lo << ", " << ci.hi << "]";
      }
    }
    // 7 judges × (9 cells + 3 cons + 3 stable_wrong + supported_correct + 5 corrected + 9 leave-out).
    EXPECT_EQ(checked, 7 * 30);
    EXPECT_EQ(kinds["C5"], 7);
    EXPECT_EQ(kinds["overall_corrected"], 7);
    EXPECT_EQ(kinds["leave_out"], 7 * 9);
    if (level < 0.99) {
      EXPECT_GE(covered, 0.85 * checked) << covered << " of " << checked;
    }
  }
}

TEST(SynthCap, CommandWritesTheFileAndQuietSilencesItsSummary) {
  using judgestat::testing_support::run_cli;
  const std::string path = write_temp("synth.csv", "");
  auto r = run_cli("synth cap --out " + path + " --items-per-type 20 --seed 3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("synth cap: "), std::string::npos) << r.out;
  SynthOptions options;
  options.items_per_type = 20;
  options.seed = 3;
  options.judges = default_synth_judges();
  EXPECT_EQ(read_text(path), synth_text(options));
  r = run_cli("synth cap --out " + path + " --items-per-type 20 --seed 3 --quiet");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
}

// The generator names its own fields; the CLI says which flag that is.
TEST(SynthCap, OptionErrorsNameFieldsAndTheCliNamesFlags) {
  auto message = [](const SynthOptions& options) {
    try {
      check_synth_options(options);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  SynthOptions options;
  options.judges = default_synth_judges();
  EXPECT_EQ(message(options), "no error");
  SynthOptions few = options;
  few.items_per_type = 0;
  EXPECT_EQ(message(few), "items_per_type: need at least 1");
  SynthOptions scaled = options;
  scaled.skill_scale = 2;
  EXPECT_EQ(message(scaled), "skill_scale: expected a number in [0, 1]");
  const auto r = judgestat::testing_support::run_cli("synth cap --out - --items-per-type 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--items-per-type: need at least 1"), std::string::npos) << r.out;
}
