// report/repeats_from_json.hpp and systems_from_json.hpp: a repeats or systems report read back
// from its JSON renders the same bytes as the run (tables in text, csv and md, every figure), on
// the bundled examples run as a study runs them; a field missing or of the wrong type is refused,
// naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "render_support.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using render_support::expect_renders_the_run;
using render_support::run_on;
using render_support::stored;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kRepeats = kRoot + "/data/examples/repeats.csv";
const std::string kWinRates = kRoot + "/data/examples/win_rates.csv";
const std::string kScores = kRoot + "/data/examples/score_judges.csv";

AnalysisResult systems_run(std::vector<std::string> args) {
  args.insert(args.end(), {"--replicates", "200", "--seed", "7"});
  return run_on(kWinRates, {"systems", args});
}

TEST(RepeatsSystemsFromJson, RepeatsRendersTheSameBytesAsTheRun) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"--by", "repeat"},
                                             {"--by", "variant", "--invalid-match"},
                                             {"--judges", "calm", "--ci", "studentized"},
                                             {"--requests"},
                                             {"--requests", "--by", "variant", "--variant", "plain,para"}}) {
    std::vector<std::string> with = args;
    with.insert(with.end(), {"--replicates", "200", "--seed", "3"});
    SCOPED_TRACE(testing::PrintToString(with));
    expect_renders_the_run("repeats", run_on(kRepeats, {"repeats", with}));
  }
}

TEST(RepeatsSystemsFromJson, ARequestsFieldMissingOrOfTheWrongTypeIsRefusedNamingIt) {
  const AnalysisResult run = run_on(kRepeats, {"repeats", {"--requests", "--replicates", "50"}});
  const auto refusal = [&](const Json& json) {
    return thrown_message<std::invalid_argument>([&] { render_from_json("repeats", json, stored(run.render)); });
  };
  Json json = stored(run.json);
  json["requests"][3]["members"][1]["q"] = "0.5";
  EXPECT_EQ(refusal(json), "result.requests[3].members[1].q: expected a number or null");
  json = stored(run.json);
  json["requests"][0].erase("all_agree");
  EXPECT_EQ(refusal(json), "result.requests[0].all_agree: missing");
  EXPECT_EQ(stored(run.json)["requests"].size(), 2u * (60 + 30 + 30));  // two judges: repeat, variant, rotation
}

TEST(RepeatsSystemsFromJson, SystemsRendersTheSameBytesAndFiguresAsTheRun) {
  const std::vector<std::vector<std::string>> cases{
      {"--systems", "x.model_a,x.model_b"},
      {"--systems", "x.model_a,x.model_b", "--baseline", "mistral-7b", "--ci", "studentized"},
      {"--self", "x.model_a,x.model_b", "--family",
       "gpt-judge=openai,claude-judge=anthropic,gpt-4o=openai,claude-3=anthropic"}};
  for (const std::vector<std::string>& args : cases) {
    SCOPED_TRACE(testing::PrintToString(args));
    const AnalysisResult run = systems_run(args);
    expect_renders_the_run("systems", run);
    EXPECT_EQ(run.plots.size(), args[0] == "--systems" ? 2u : 0u);  // win rates and, with gold, system level
  }
}

TEST(RepeatsSystemsFromJson, AFieldMissingOrOfTheWrongTypeIsRefusedNamingIt) {
  const AnalysisResult run = systems_run({"--systems", "x.model_a,x.model_b"});
  const auto refusal = [&](Json json, Json render) {
    return thrown_message<std::invalid_argument>([&] { render_from_json("systems", json, render); });
  };
  Json json = stored(run.json);
  json["statistics"][2]["estimate"] = "0.5";
  EXPECT_EQ(refusal(json, stored(run.render)), "result.statistics[2].estimate: expected a number or null");
  json = stored(run.json);
  json["settings"]["baseline"] = 3;
  EXPECT_EQ(refusal(json, stored(run.render)), "result.settings.baseline: expected a string");
  json = stored(run.json);
  json["validity"][1].erase("invalid");
  EXPECT_EQ(refusal(json, stored(run.render)), "result.validity[1].invalid: missing");
  Json render = stored(run.render);
  render.erase("n_clusters");
  EXPECT_EQ(refusal(stored(run.json), render), "render.n_clusters: missing");
  // Well-typed, but not what the writer gives: a p on a win_rate row (only differences have one).
  json = stored(run.json);
  ASSERT_EQ(json["statistics"][0]["name"], "win_rate");
  json["statistics"][0]["p"] = 0.5;
  EXPECT_EQ(refusal(json, stored(run.render)),
            "result.statistics: does not read back as the report's own (a value its writer does not give)");

  const AnalysisResult repeats = run_on(kRepeats, {"repeats", {"--replicates", "100"}});
  json = stored(repeats.json);
  json["settings"]["repeats"] = 0;
  EXPECT_EQ(thrown_message<std::invalid_argument>([&] { render_from_json("repeats", json, stored(repeats.render)); }),
            "result.settings.repeats: out of range");
}

}  // namespace
}  // namespace judgestat
