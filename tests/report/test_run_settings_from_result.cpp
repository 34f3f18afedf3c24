// Profile and cascade reports say the run's bootstrap settings (seed, replicates, interval, level)
// once, in their results (their options are ProfileSettings / CascadeSettings, which hold no
// bootstrap): the writers read them there, and a document read back fills the results alone (a
// render state whose replicates disagree with the settings does not read back).
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "judgestat/cascade.hpp"
#include "judgestat/profile.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::cpu_target;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";

BootstrapOptions asked() {
  BootstrapOptions boot;
  boot.replicates = 120;
  boot.seed = 5;
  boot.level = 0.9;
  return boot;
}

// The settings the reports keep are the options less the bootstrap, kept once, in the results.
static_assert(std::is_same_v<decltype(ProfileReport::options), ProfileSettings>);
static_assert(std::is_same_v<decltype(CascadeReport::options), CascadeSettings>);

TEST(RunSettingsFromResult, ProfileWritersReadTheResult) {
  ProfileOptions options;
  options.config = load_profile_config(kRoot + "/configs/judgebench.json");
  options.bootstrap = asked();
  ProfileReport report = run_profile(load_item_matrix(kJudgeBench, {}), options, cpu_target(2));
  const Json json = to_json(report, ReportHead{});
  const std::string text = tables(report, "text");
  EXPECT_EQ(json["settings"]["seed"], 5);
  EXPECT_EQ(json["settings"]["replicates"], 120);
  EXPECT_EQ(json["settings"]["level"], 0.9);
  EXPECT_EQ(json["settings"]["ci"], "percentile");
  EXPECT_TRUE(contains(text, "120 replicates, percentile CI, seed 5,")) << text;
  EXPECT_TRUE(contains(text, "estimate (90% CI)")) << text;

  // Read back: the settings fill the result; a render state with other replicates does not give
  // the document's settings again, and is refused.
  const Json render = render_state(report);
  const ProfileReport read = profile_report_from_json(json, render);
  EXPECT_EQ(read.result.replicates_run, 120u);
  EXPECT_EQ(read.result.seed, 5u);
  EXPECT_EQ(read.result.level, 0.9);
  Json other = render;
  other["replicates_run"] = uint64_t{121};
  EXPECT_TRUE(contains(thrown_message<std::invalid_argument>([&] { render_from_json("profile", json, other); }),
                       "result.settings: does not read back"));
}

TEST(RunSettingsFromResult, CascadeWritersReadTheSweepsResult) {
  CascadeOptions options;
  options.first = "Skywork_Skywork-Reward-Llama-3.1-8B";
  options.fallback = "o1-mini-2024-09-12";
  options.bootstrap = asked();
  CascadeReport report = run_cascade(load_item_matrix(kJudgeBench, {}), options, cpu_target(2));
  const Json json = to_json(report, ReportHead{});
  const std::string text = tables(report, "text");
  EXPECT_EQ(json["settings"]["seed"], 5);
  EXPECT_EQ(json["settings"]["replicates"], 120);
  EXPECT_EQ(json["settings"]["level"], 0.9);
  EXPECT_EQ(json["split"]["seed"], 5);  // the selection split is seeded by the run's seed
  EXPECT_TRUE(contains(text, "120 replicates, percentile CI, seed 5,")) << text;
  EXPECT_TRUE(contains(text, "90% CI")) << text;

  const Json render = render_state(report);
  const CascadeReport read = cascade_report_from_json(json, render);
  EXPECT_EQ(read.sweep.result.seed, 5u);
  ASSERT_TRUE(read.rules && read.rules->scored());
  EXPECT_EQ(read.rules->heldout.level, 0.9);  // the held-out part ran with the sweep's settings
  Json other = render;
  other["sweep"]["replicates_run"] = uint64_t{121};
  EXPECT_TRUE(contains(thrown_message<std::invalid_argument>([&] { render_from_json("cascade", json, other); }),
                       "result.settings: does not read back"));
}

}  // namespace
}  // namespace judgestat
