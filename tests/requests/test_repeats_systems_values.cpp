// repeats and systems in the request layer (judgestat/analysis.hpp) and --scale as the loading
// option of every analysis that reads a scored matrix: their typed values give the options their
// flags give, a wrong type names the flag, and run_analysis gives what run_repeats / run_systems
// give on the same matrix (the CLI commands are thin clients of this path).
#include <cmath>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "requests/values_support.hpp"

namespace judgestat {
namespace {

using namespace testing_support;

TEST(RepeatsSystemsValues, RepeatsValuesAreTheFlagsOptions) {
  const Json values = {{"judges", {"calm", "jumpy"}}, {"by", "variant"}, {"invalid_match", true},
                       {"replicates", 300},           {"seed", 5},       {"variant", "plain"}};
  const Words flags{"--judges", "calm,jumpy", "--by",      "variant", "--invalid-match", "--replicates", "300",
                    "--seed",   "5",          "--variant", "plain"};
  for (const TypedAnalysisRequest& request : {from_values("repeats", values), from_flags("repeats", flags)}) {
    const RepeatsOptions& r = std::get<RepeatsOptions>(request.options);
    EXPECT_EQ(r.judges, (Words{"calm", "jumpy"}));
    EXPECT_EQ(r.by, "variant");
    EXPECT_TRUE(r.invalid_match);
    EXPECT_EQ(r.variants, (Words{"plain"}));
    EXPECT_EQ(r.bootstrap.replicates, 300u);
    EXPECT_EQ(r.bootstrap.seed, 5u);
    EXPECT_FALSE(request.load.scale.has_value());
  }
  EXPECT_EQ(analysis_command(from_values("repeats", Json::object()).options), "repeats");
}

TEST(RepeatsSystemsValues, SystemsValuesAreTheFlagsOptions) {
  const Json values = {{"systems", {"x.model_a", "x.model_b"}},
                       {"baseline", "mistral-7b"},
                       {"self", "x.model_a,x.model_b"},
                       {"family", {"gpt-judge=openai", "gpt-4o=openai"}}};
  const Words flags{"--systems", "x.model_a,x.model_b", "--baseline", "mistral-7b",
                    "--self",    "x.model_a,x.model_b", "--family",   "gpt-judge=openai,gpt-4o=openai"};
  for (const TypedAnalysisRequest& request : {from_values("systems", values), from_flags("systems", flags)}) {
    const SystemsOptions& s = std::get<SystemsOptions>(request.options);
    EXPECT_EQ(s.systems, (Words{"x.model_a", "x.model_b"}));
    EXPECT_EQ(s.baseline, "mistral-7b");
    EXPECT_EQ(s.self, (Words{"x.model_a", "x.model_b"}));
    EXPECT_EQ(s.family, (std::map<std::string, std::string>{{"gpt-judge", "openai"}, {"gpt-4o", "openai"}}));
    EXPECT_EQ(s.family_column, "");
  }
  const SystemsOptions column = std::get<SystemsOptions>(from_values("systems", {{"family", "x.fam"}}).options);
  EXPECT_EQ(column.family_column, "x.fam");
  EXPECT_TRUE(column.family.empty());
  EXPECT_EQ(values_error("systems", {{"family", "gpt-judge"}}),
            "--family: expected NAME=FAMILY entries (or x.NAME, a record column), got 'gpt-judge'");
}

TEST(RepeatsSystemsValues, ScaleIsALoadingOptionOfTheScoredAnalyses) {
  for (const char* command : {"metrics", "systems", "repeats"}) {
    const TypedAnalysisRequest values = from_values(command, {{"scale", "1:10"}});
    const TypedAnalysisRequest flags = from_flags(command, {"--scale", "1:10"});
    for (const TypedAnalysisRequest* request : {&values, &flags}) {
      ASSERT_TRUE(request->load.scale.has_value()) << command;
      EXPECT_EQ(request->load.scale->low, 1.0) << command;
      EXPECT_EQ(request->load.scale->high, 10.0) << command;
    }
    EXPECT_EQ(values_error(command, {{"scale", "10:1"}}),
              "--scale: expected LOW:HIGH with LOW < HIGH, e.g. 1:10, got '10:1'");
    EXPECT_EQ(values_error(command, {{"scale", 10}}), "--scale: expected a string, got number 10");
    EXPECT_EQ(values_error(command, {{"scale", "1:10"}, {"labels", "A,B"}}),
              "--scale: the labels of a scored file are its scores; leave out --labels");
  }
  // Analyses that never read scores do not take it.
  EXPECT_NE(values_error("cascade", {{"scale", "1:10"}, {"first", "a"}, {"fallback", "b"}}).find("scale"),
            std::string::npos);
}

TEST(RepeatsSystemsValues, AWrongTypeNamesTheFlag) {
  EXPECT_EQ(values_error("repeats", {{"invalid_match", "yes"}}),
            "--invalid-match: expected true or false (a switch), got string \"yes\"");
  EXPECT_EQ(values_error("systems", {{"baseline", 3}}), "--baseline: expected a string, got number 3");
  EXPECT_EQ(values_error("repeats", {{"plots", "dir"}}).rfind("--plots", 0), 0u);  // not a flag of repeats
}

// run_analysis on the typed request gives the report run_X gives on the same matrix and options.
TEST(RepeatsSystemsValues, RunAnalysisIsTheAnalysisRun) {
  {
    const auto [result, direct] =
        expect_run_analysis_is<RepeatsOptions>(from_values("repeats", {{"replicates", 200}, {"seed", 3}}),
                                               kRoot + "/data/examples/repeats.csv", "text", run_repeats);
    ASSERT_TRUE(result.bootstrap);
    ASSERT_EQ(result.bootstrap->intervals.size(), direct.statistics.intervals.size());
    for (size_t s = 0; s < direct.statistics.intervals.size(); ++s)
      EXPECT_TRUE(same_number(result.bootstrap->intervals[s].estimate, direct.statistics.intervals[s].estimate));
  }
  {
    const auto [result, direct] = expect_run_analysis_is<SystemsOptions>(
        from_values("systems", {{"systems", "x.model_a,x.model_b"}, {"replicates", 200}, {"seed", 3}}),
        kRoot + "/data/examples/win_rates.csv", "md", run_systems);
    ASSERT_TRUE(result.bootstrap);
    // The saved replicates name each column's system and opponent, as --save-replicates did.
    ASSERT_EQ(result.bootstrap->labels.size(), direct.keys.size());
    for (size_t s = 0; s < direct.keys.size(); ++s) EXPECT_EQ(result.bootstrap->labels[s].label, direct.keys[s].system);
  }
}

}  // namespace
}  // namespace judgestat
