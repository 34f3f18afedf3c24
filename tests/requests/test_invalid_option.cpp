// `--invalid wrong|exclude`, the flag every analysis shares (docs/statistics.md §1 "Validity"):
// CAP's rule drops failed calls from n (CAP App. L Table 20), JEV's counts them as errors; the
// outputs say which ran and how many records it excluded.
#include <gtest/gtest.h>

#include <string>

#include "judgestat/analysis.hpp"
#include "requests/invalid_option.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// X answers a right, b invalid (no verdict), c wrong; Y answers all three right.
const char* kRecords = "judge,item,gold,verdict\nX,a,A,A\nX,b,B,\nX,c,A,B\nY,a,A,A\nY,b,B,B\nY,c,A,A\n";

// acc of `judge` as the analysis reports it, with its n.
std::pair<double, int64_t> accuracy_of(const AnalysisResult& result, const std::string& judge) {
  const BootstrapResult& b = *result.bootstrap;
  for (size_t s = 0; s < b.labels.size(); ++s)
    if (b.labels[s].name == "acc" && b.labels[s].judge == judge && !b.labels[s].benchmark)
      return {b.intervals[s].estimate, b.labels[s].n};
  ADD_FAILURE() << "no acc of " << judge;
  return {NAN, 0};
}

AnalysisResult metrics_with(const ItemMatrix& m, const std::string& rule) {
  return run_analysis(AnalysisRequest{"metrics", {"--invalid", rule, "--replicates", "50", "--threads", "1"}}, m,
                      cpu_target(1), ReportHead{});
}

}  // namespace

TEST(InvalidOption, ExcludeLeavesFailedCallsOutOfN) {
  const ItemMatrix m = load_item_matrix(write_temp("invalid_option.csv", kRecords));
  // JEV's rule (the default): X right on 1 of 3.
  const AnalysisResult wrong = metrics_with(m, "wrong");
  EXPECT_EQ(accuracy_of(wrong, "X"), (std::pair<double, int64_t>{1.0 / 3, 3}));
  EXPECT_FALSE(wrong.json["settings"].contains("invalid_excluded"));
  // CAP's: b leaves X's n, so X is right on 1 of 2; Y keeps all 3.
  const AnalysisResult excluded = metrics_with(m, "exclude");
  EXPECT_EQ(accuracy_of(excluded, "X"), (std::pair<double, int64_t>{0.5, 2}));
  EXPECT_EQ(accuracy_of(excluded, "Y"), (std::pair<double, int64_t>{1.0, 3}));
  EXPECT_EQ(excluded.json["settings"]["invalid"], "exclude");
  EXPECT_EQ(excluded.json["settings"]["invalid_excluded"]["X"], 1);
  EXPECT_EQ(excluded.json["settings"]["invalid_excluded"]["Y"], 0);
  EXPECT_EQ(excluded.text.rfind("invalid: excluded (--invalid exclude, CAP's rule): 1 invalid records", 0), 0u)
      << excluded.text;
  EXPECT_TRUE(contains(excluded.text, "X 1, Y 0"));
}

TEST(InvalidOption, TakeUndoesTheNote) {
  const ItemMatrix m = load_item_matrix(write_temp("invalid_option.csv", kRecords));
  const AnalysisResult plain = metrics_with(m, "wrong");
  AnalysisResult noted = plain;
  note_invalid_exclusion(noted, InvalidExclusion{{"X", "Y"}, {1, 0}});
  const InvalidExclusion back = take_invalid_exclusion(noted.json);
  EXPECT_EQ(back.judges, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(back.excluded, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(dump_json(noted.json), dump_json(plain.json));
}

TEST(InvalidOption, AnUnknownRuleNamesTheFlag) {
  const ItemMatrix m = load_item_matrix(write_temp("invalid_option.csv", kRecords));
  const std::string message = thrown_message<UsageError>([&] { metrics_with(m, "drop"); });
  EXPECT_TRUE(contains(message, "--invalid: expected wrong")) << message;
  EXPECT_TRUE(contains(message, "got 'drop'")) << message;
}
