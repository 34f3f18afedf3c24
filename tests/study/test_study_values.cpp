// A study file's options reach the analyses as typed values (judgestat/study.hpp study_values):
// a value of the wrong JSON type fails load_study naming the key as the file writes it, the
// settings join the analyses that take them and do not set them, and the recorded command line
// (study_request) says the same options.
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "judgestat/study.hpp"
#include "study/study_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using study_testing::fresh_dir;
using study_testing::write_all;
using testing_support::kRoot;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";

// The study file with these analyses over the bundled JudgeBench split, and its path.
std::string study_file(const std::string& name, const std::string& analyses, const std::string& settings = "{}") {
  const std::string path = fresh_dir(name) + "/study.json";
  write_all(path, R"({"settings": )" + settings + R"(, "inputs": {"jb": ")" + kJudgeBench + R"("}, "analyses": )" +
                      analyses + "}");
  return path;
}

struct WrongType {
  const char* name;
  const char* analyses;
  const char* expected;  // after "STUDY: "
};

TEST(StudyValues, AnOptionOfTheWrongJsonTypeNamesItsKey) {
  const WrongType cases[] = {
      {"replicates_text", R"([{"analysis": "metrics", "input": "jb", "replicates": "300"}])",
       "analyses[0] (metrics_jb): key 'replicates': expected a whole number from 0 to 18446744073709551615, got "
       "string \"300\""},
      {"level_text", R"([{"analysis": "metrics", "input": "jb", "level": "0.9"}])",
       "analyses[0] (metrics_jb): key 'level': expected a number, got string \"0.9\""},
      {"column_number",
       R"([{"analysis": "cascade", "input": "jb", "first": "a", "fallback": "b", "select_column": 5}])",
       "analyses[0] (cascade_jb): key 'select_column': expected a string, got number 5"},
      {"switch_text",
       R"([{"analysis": "cascade", "input": "jb", "first": "a", "fallback": "b", "per_stratum": "yes"}])",
       "analyses[0] (cascade_jb): key 'per_stratum': expected true or false (a switch), got string \"yes\""},
      {"k_floats", R"([{"analysis": "budget", "input": "jb", "first": "a", "fallback": "b", "k": [48.5]}])",
       "analyses[0] (budget_jb): key 'k': expected a list of whole numbers ≥ 0 (or one comma-separated string), got "
       "array [48.5]"},
      {"fee_text", R"([{"analysis": "metrics", "input": "jb", "fee": {"a": "0.1"}}])",
       "analyses[0] (metrics_jb): key 'fee': expected a number for judge 'a', got string \"0.1\""},
      {"both_spellings", R"([{"analysis": "metrics", "input": "jb", "invalid_match": true, "invalid-match": true}])",
       "analyses[0] (metrics_jb): key 'invalid-match': given twice (also as 'invalid_match'); say it once"},
  };
  for (const WrongType& c : cases) {
    const std::string path = study_file(c.name, c.analyses);
    EXPECT_EQ(thrown_message<UsageError>([&] { load_study(path); }), path + ": " + c.expected) << c.name;
  }
}

TEST(StudyValues, SettingsJoinTheAnalysesThatTakeThemAndDoNotSetThem) {
  const std::string path = study_file("settings",
                                      R"([{"analysis": "metrics", "input": "jb", "seed": 9, "level": 0.9},
                                          {"analysis": "budget", "input": "jb", "compare": ["a", "b"], "k": [50]}])",
                                      R"({"seed": 7, "replicates": 300, "draws": 400, "level": 0.8})");
  const Study study = load_study(path);
  const MetricsOptions metrics =
      std::get<MetricsOptions>(parse_analysis_values(study_values(study.analyses[0], study.settings)).options);
  EXPECT_EQ(metrics.bootstrap.seed, 9u);  // its own
  EXPECT_EQ(metrics.bootstrap.replicates, 300u);
  EXPECT_EQ(metrics.bootstrap.level, 0.9);
  const BudgetCompareOptions compare =
      std::get<BudgetCompareOptions>(parse_analysis_values(study_values(study.analyses[1], study.settings)).options);
  EXPECT_EQ(compare.seed, 7u);
  EXPECT_EQ(compare.draws, 400u);
  EXPECT_EQ(compare.level, 0.8);  // budget --compare's own --level takes the setting too
  EXPECT_EQ(compare.a, "a");
  EXPECT_EQ(compare.b, "b");
  // budget has no --replicates: the setting does not join it.
  EXPECT_FALSE(study_values(study.analyses[1], study.settings).values.contains("replicates"));
  // The recorded command line is the same options, parsed as the CLI would.
  const TypedAnalysisRequest recorded = parse_analysis(study_request(study.analyses[0], study.settings));
  EXPECT_EQ(study_request(study.analyses[0], study.settings).args,
            (std::vector<std::string>{"--seed=9", "--level=0.9", "--replicates=300"}));
  EXPECT_EQ(std::get<MetricsOptions>(recorded.options).bootstrap.level, 0.9);
  EXPECT_EQ(std::get<MetricsOptions>(recorded.options).bootstrap.replicates, 300u);
}

TEST(StudyValues, FilesAreResolvedAgainstTheStudysFolder) {
  const std::string dir = fresh_dir("files");
  write_all(
      dir + "/study.json",
      R"({"inputs": {"jb": ")" + kJudgeBench +
          R"("}, "analyses": [{"analysis": "profile", "input": "jb", "config": "../judgestat_study_values_cfg.json"}]})");
  write_all(dir + "/../judgestat_study_values_cfg.json", study_testing::read_all(kRoot + "/configs/judgebench.json"));
  const Study study = load_study(dir + "/study.json");
  const std::string expected =
      std::filesystem::path(dir + "/../judgestat_study_values_cfg.json").lexically_normal().string();
  EXPECT_EQ(study.analyses[0].options["config"], expected);
  EXPECT_EQ(study.analyses[0].request.args, std::vector<std::string>{"--config=" + expected});
}

}  // namespace
}  // namespace judgestat
