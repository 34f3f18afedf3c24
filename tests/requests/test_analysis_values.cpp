// judgestat/analysis.hpp's AnalysisValues: the CLI's options as typed values (what a study file
// and Python's keyword arguments give) read by each analysis's own reader, so that they give the
// options the same flags give, the CLI's defaults where nothing is given, and an error naming the
// flag for a value of the wrong type.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "requests/values_support.hpp"

namespace judgestat {
namespace {

using namespace testing_support;

// The fields both forms set, each asserted against the values the test gave.
void expect_metrics(const TypedAnalysisRequest& request) {
  const MetricsOptions& m = std::get<MetricsOptions>(request.options);
  EXPECT_EQ(m.judges, (Words{"a", "b"}));
  EXPECT_EQ(m.by, "benchmark");
  EXPECT_EQ(m.diff, (Words{"acc", "pa"}));
  EXPECT_EQ(m.raters, (Words{"a", "b", "c"}));
  EXPECT_EQ(m.agreement_order, 1);
  EXPECT_TRUE(m.hard_only);
  EXPECT_FALSE(m.invalid_match);
  EXPECT_EQ(m.fee, (std::map<std::string, double>{{"a", 0.5}, {"b", 0.0076}}));
  EXPECT_EQ(m.bootstrap.replicates, 300u);
  EXPECT_EQ(m.bootstrap.seed, 7u);
  EXPECT_EQ(m.bootstrap.ci, CiMethod::kBca);
  EXPECT_EQ(m.bootstrap.level, 0.9);
  EXPECT_EQ(request.load.labels, (Words{"A", "B"}));
}

TEST(AnalysisValues, MetricsValuesAreTheFlagsOptions) {
  const Json values = {{"judges", {"a", "b"}},
                       {"by", "benchmark"},
                       {"diff", "acc, pa"},
                       {"raters", {"a", "b", "c"}},
                       {"order", 1},
                       {"hard", true},
                       {"invalid_match", false},
                       {"fee", {{"a", 0.5}, {"b", 0.0076}}},
                       {"replicates", 300},
                       {"seed", 7},
                       {"ci", "bca"},
                       {"level", 0.9},
                       {"labels", {"A", "B"}}};
  expect_metrics(from_values("metrics", values));
  expect_metrics(from_flags(
      "metrics", {"--judges", "a,b",    "--by",  "benchmark", "--diff", "acc, pa",  "--raters",     "a,b,c", "--order",
                  "1",        "--hard", "--fee", "a=0.5",     "--fee",  "b=0.0076", "--replicates", "300",   "--seed",
                  "7",        "--ci",   "bca",   "--level",   "0.9",    "--labels", "A,B"}));
}

// Nothing given but what is required: the defaults `judgestat cascade --help` states.
TEST(AnalysisValues, WhatIsNotGivenIsTheCliDefault) {
  for (const TypedAnalysisRequest& request : {from_values("cascade", {{"first", "f"}, {"fallback", "s"}}),
                                              from_flags("cascade", {"--first", "f", "--fallback", "s"})}) {
    const CascadeOptions& o = std::get<CascadeOptions>(request.options);
    EXPECT_EQ(o.grid.labels, (Words{"0.5", "0.6", "0.7", "0.8", "0.85", "0.9", "0.95", "0.99", "1"}));
    EXPECT_EQ(o.select, 0.4);
    EXPECT_EQ(o.tol, 0.02);
    EXPECT_EQ(o.z, 1.645);
    EXPECT_EQ(o.gate_orders, 0);  // present
    EXPECT_EQ(o.temperature, "pooled");
    EXPECT_EQ(o.strata, "benchmark");
    EXPECT_EQ(o.bootstrap.replicates, 10000u);
    EXPECT_EQ(o.bootstrap.seed, 1u);
    EXPECT_EQ(o.bootstrap.level, 0.95);
    EXPECT_EQ(o.bootstrap.ci, CiMethod::kPercentile);
  }
}

TEST(AnalysisValues, ListsNumbersAndTauReadAsTheirFlags) {
  const TypedAnalysisRequest typed = from_values(
      "cascade", {{"first", "f"}, {"fallback", "s"}, {"grid", {0.6, 0.85, 1}}, {"gate_orders", 2}, {"tau", 0.9}});
  const TypedAnalysisRequest flags = from_flags(
      "cascade", {"--first", "f", "--fallback", "s", "--grid", "0.6,0.85,1", "--gate-orders", "2", "--tau", "0.9"});
  for (const TypedAnalysisRequest* request : {&typed, &flags}) {
    const CascadeOptions& o = std::get<CascadeOptions>(request->options);
    EXPECT_EQ(o.grid.labels, (Words{"0.6", "0.85", "1"}));
    EXPECT_EQ(o.gate_orders, 2);
    EXPECT_EQ(o.select, 0);  // a frozen threshold without a selection flag: the live test
  }
  const BudgetOptions budget = std::get<BudgetOptions>(
      from_values("budget", {{"first", "f"}, {"fallback", "s"}, {"k", {48, 96}}, {"draws", 500}, {"per-stratum", true}})
          .options);
  EXPECT_EQ(budget.ks, (std::vector<uint32_t>{48, 96}));
  EXPECT_EQ(budget.draws, 500u);
  EXPECT_TRUE(budget.per_stratum);
  const BudgetCompareOptions compare =
      std::get<BudgetCompareOptions>(from_values("budget", {{"compare", {"a", "b"}}}).options);
  EXPECT_EQ(compare.a, "a");
  EXPECT_EQ(compare.b, "b");
  EXPECT_EQ(analysis_values_target({"metrics", {{"backend", "cpu"}, {"threads", 3}, {"chunk", 64}}}).threads, 3);
  EXPECT_EQ(analysis_values_target({"metrics", {{"devices", {0, 2}}}}).devices, (std::vector<int>{0, 2}));
}

struct WrongValue {
  const char* command;
  Json values;
  const char* message;  // the whole message
};

TEST(AnalysisValues, AWrongTypeOrValueNamesTheFlag) {
  const WrongValue cases[] = {
      {"metrics",
       {{"replicates", "10"}},
       "--replicates: expected a whole number from 0 to 18446744073709551615, got string \"10\""},
      {"metrics",
       {{"replicates", -1}},
       "--replicates: expected a whole number from 0 to 18446744073709551615, "
       "got number -1"},
      {"metrics", {{"level", "0.9"}}, "--level: expected a number, got string \"0.9\""},
      {"metrics", {{"level", 2}}, "--level: expected 0 < level < 1"},
      {"metrics", {{"hard", 1}}, "--hard: expected true or false (a switch), got number 1"},
      {"metrics", {{"by", nullptr}}, "--by: expected a string, got null"},
      {"metrics",
       {{"judges", {"a", 1}}},
       "--judges: expected a list of strings (or one comma-separated string), got array [\"a\",1]"},
      {"metrics", {{"fee", {{"a", "1"}}}}, "--fee: expected a number for judge 'a', got string \"1\""},
      {"metrics", {{"fee", {{"a", -2}}}}, "--fee: '-2' for a is not a non-negative number"},
      {"metrics", {{"order", 0.5}}, "--order: expected a whole number, got number 0.5"},
      {"metrics", {{"strata", "all"}}, "--strata: expected by or none, got 'all'"},
      {"budget",
       {{"first", "f"}, {"fallback", "s"}, {"k", {48, 0}}},
       "--k: '0' is not a positive whole number of labelled items (e.g. --k 48,96)"},
      {"budget", {{"compare", {"a"}}}, "--compare: expected two judges A,B (d = B − A), got '[\"a\"]'"},
      {"cascade",
       {{"first", "f"}, {"fallback", "s"}, {"fee", {{"x", 1}}}},
       "--fee: judge 'x' is neither the first stage (f) nor the fallback (s)"},
      {"metrics", {{"replicatez", 10}}, "--replicatez: not an option of metrics (see judgestat metrics --help)"},
      {"metrics",
       {{"json", "x.json"}},
       "--json: an output flag; typed options write nothing (the result holds every output)"},
      {"metrics", {{"per_stratum", true}}, "--per-stratum: not an option of metrics (see judgestat metrics --help)"},
  };
  for (const WrongValue& c : cases) EXPECT_EQ(values_error(c.command, c.values), c.message) << c.values.dump();
  // One option under both spellings is said once.
  EXPECT_EQ(values_error("metrics", {{"invalid_match", true}, {"invalid-match", true}}),
            "--invalid-match: given twice ('invalid-match' and its other spelling)");
  EXPECT_EQ(values_error("metrics", Json::array()), "metrics: the options must be an object of NAME: value");
}

TEST(AnalysisValues, ProfileReadsItsConfigAndChecksItsBounds) {
  const std::string config = kRoot + "/configs/judgebench.json";
  const ProfileOptions profile =
      std::get<ProfileOptions>(from_values("profile", {{"config", config}, {"exact_max_n", 4}}).options);
  EXPECT_EQ(profile.exact_max_n, 4);
  EXPECT_FALSE(profile.config.benchmarks.empty());
  EXPECT_EQ(values_error("profile", {{"config", config}, {"exact_max_n", 11}}), "--exact-max-n: expected 0 … 10");
  EXPECT_EQ(values_error("profile", Json::object()), "profile: --config FILE is required (see configs/*.json)");
}

}  // namespace
}  // namespace judgestat
