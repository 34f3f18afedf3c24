// judgestat/option_table.hpp: each analysis's options as a table (the Python module's signatures
// are built from it). The names are analysis_flags' own; each type is what the analysis's reader
// asks for, so a typed value of that type is accepted and another refused.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "judgestat/option_table.hpp"
#include "judgestat/records.hpp"

namespace judgestat {
namespace {

std::map<std::string, AnalysisOption> by_name(const std::string& command) {
  std::map<std::string, AnalysisOption> options;
  for (const AnalysisOption& option : analysis_option_table(command)) options[option.name] = option;
  return options;
}

TEST(OptionTable, NamesAreTheFlagsInOrder) {
  for (const std::string& command : analysis_commands()) {
    std::vector<std::string> names;
    for (const AnalysisOption& option : analysis_option_table(command)) names.push_back(option.name);
    EXPECT_EQ(names, analysis_flags(command)) << command;
  }
}

TEST(OptionTable, TypesAreWhatTheReadersReadAndDefaultsTheClis) {
  const auto metrics = by_name("metrics");
  EXPECT_EQ(metrics.at("replicates").type, OptionType::kWhole);
  EXPECT_EQ(metrics.at("replicates").default_value, "10000");
  EXPECT_EQ(metrics.at("level").type, OptionType::kNumber);
  EXPECT_EQ(metrics.at("order").type, OptionType::kInteger);
  EXPECT_EQ(metrics.at("judges").type, OptionType::kWords);
  EXPECT_EQ(metrics.at("fee").type, OptionType::kPerJudge);
  EXPECT_EQ(metrics.at("hard").type, OptionType::kSwitch);
  EXPECT_EQ(metrics.at("bins").type, OptionType::kTextOrNumber);
  EXPECT_TRUE(metrics.at("json").output);
  EXPECT_FALSE(metrics.at("judges").output);
  const auto cascade = by_name("cascade");
  EXPECT_EQ(cascade.at("grid").type, OptionType::kNumbers);
  EXPECT_EQ(cascade.at("tau").type, OptionType::kNumbersOrWords);
  const auto budget = by_name("budget");  // both readers: the cascade's pool and --compare
  EXPECT_EQ(budget.at("k").type, OptionType::kWholeNumbers);
  EXPECT_EQ(budget.at("statistic").type, OptionType::kText);
  EXPECT_EQ(budget.at("draws").type, OptionType::kWhole);  // read only when given: the flag's parse
  const auto profile = by_name("profile");                 // read after --config is loaded: as metrics' --judges
  EXPECT_EQ(profile.at("judges").type, OptionType::kWords);
  EXPECT_EQ(profile.at("config").type, OptionType::kText);
}

// A value of the table's type passes the reader; a string for a whole number does not.
TEST(OptionTable, AValueOfTheTablesTypeIsAccepted) {
  EXPECT_NO_THROW(check_analysis_values({"metrics", Json{{"replicates", 10}, {"judges", Json::array({"a"})}}}));
  EXPECT_THROW(check_analysis_values({"metrics", Json{{"replicates", "10"}}}), UsageError);
  EXPECT_STREQ(option_type_name(OptionType::kPerJudge), "per_judge");
  EXPECT_STREQ(option_type_name(OptionType::kSwitch), "switch");
}

}  // namespace
}  // namespace judgestat
