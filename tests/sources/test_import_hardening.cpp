// Issue #19's importer defects, each reproduced: nesting deep enough to overflow the stack,
// numbers past a double's range, records the loader would reject (empty judge, a pair twice).
#include <string>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "sources/import.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;

using testing_support::contains;

std::string pair_line(const std::string& pair_id, const std::string& judge, const std::string& extra = "") {
  return "{\"pair_id\":\"" + pair_id +
         "\",\"source\":\"mmlu-pro-math\",\"label\":\"A>B\",\"judgments\":[{\"judgment\":" + "{\"judge_model\":\"" +
         judge + "\"" + extra + "},\"decision\":\"A>B\"}]}\n";
}

TEST(ImportHardening, DeeplyNestedJudgeBenchLineIsRefusedWithFileLineAndLimit) {
  const std::string text =
      pair_line("p1", "m") + "{\"pair_id\":" + std::string(67000, '[') + std::string(67000, ']') + "}\n";
  const std::string message = thrown_message<InputError>([&] { convert_judgebench_text(text, "out.jsonl"); });
  // Level 257 is the 256th '[', after the 11 characters of {"pair_id":.
  EXPECT_EQ(message.rfind("out.jsonl:2: column 267: JSON nested deeper than 256 levels", 0), 0u) << message;
}

TEST(ImportHardening, DeeplyNestedLlmBarFileIsRefused) {
  const std::string text = std::string(67000, '[') + std::string(67000, ']');
  const std::string message =
      thrown_message<InputError>([&] { convert_llmbar_text(text, "e/s", "LLMBar", "Natural", "result.json"); });
  EXPECT_EQ(message.rfind("result.json:1: column 257: JSON nested deeper than 256 levels", 0), 0u) << message;
}

TEST(ImportHardening, NumberPastDoubleRangeNamesFileAndLine) {
  const std::string text = pair_line("p1", "m") + pair_line("p2", "m", ",\"scores\":[2e308,1]");
  const std::string message = thrown_message<InputError>([&] { convert_judgebench_text(text, "out.jsonl"); });
  EXPECT_EQ(message.rfind("out.jsonl:2: a number does not fit a double", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "within ±1.7e308")) << message;
}

TEST(ImportHardening, EmptyJudgeIsRefusedAtImport) {
  const std::string message =
      thrown_message<InputError>([&] { convert_judgebench_text(pair_line("p1", ""), "out.jsonl"); });
  EXPECT_EQ(message,
            "out.jsonl:1: judgments[0]: field 'judge': empty judge name; every judgment must name its judge model");
}

TEST(ImportHardening, RepeatedPairIsRefusedAtImportNamingBothLines) {
  const std::string text = pair_line("p1", "m") + pair_line("p2", "m") + pair_line("p1", "m");
  const std::string message = thrown_message<InputError>([&] { convert_judgebench_text(text, "out.jsonl"); });
  EXPECT_EQ(message,
            "out.jsonl:3: judgments[0]: judge \"m\", item \"p1\", order 0 is already imported from "
            "out.jsonl:1: judgments[0]; each pair may occur once per judge, so remove the repeated entry or file");
}

TEST(ImportHardening, ItemWhoseGoldDiffersBetweenFilesIsRefused) {
  std::vector<ImportedRecord> records = convert_judgebench_text(pair_line("p1", "m"), "a.jsonl");
  std::vector<ImportedRecord> other = convert_judgebench_text(pair_line("p1", "n"), "b.jsonl");
  other[0].gold = "B";
  records.push_back(other[0]);
  const std::string message = thrown_message<InputError>([&] { check_importable(records); });
  EXPECT_TRUE(contains(message,
                       "b.jsonl:1: judgments[0]: field 'gold': item \"p1\" has gold \"B\" here but \"A\" in "
                       "a.jsonl:1: judgments[0]"))
      << message;
}

}  // namespace
}  // namespace judgestat
