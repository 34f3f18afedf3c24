// Importers: the trimmed raw samples under tests/data/raw convert to exactly the rows of the
// bundled converted files (data/judgebench, data/llmbar) for the same judges and items.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "sources/import.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

const std::string kSource = judgestat::testing_support::kRoot;
const std::string kRaw = kSource + "/tests/data/raw";
const std::string kArenaHard = kRaw +
                               "/judgebench/dataset=judgebench,response_model=gpt-4o-2024-05-13,"
                               "judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl";
const std::string kRewardModel = kRaw +
                                 "/judgebench/dataset=judgebench,response_model=gpt-4o-2024-05-13,"
                                 "judge_name=reward_model,judge_model=Skywork_Skywork-Reward-Llama-3.1-8B.jsonl";

using Row = std::vector<std::string>;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// All rows of a CSV text, header first.
std::vector<Row> csv_rows(const std::string& text) {
  CsvReader reader(text, "csv");
  std::vector<Row> rows;
  std::vector<std::string_view> fields;
  int64_t line = 0;
  while (reader.next_row(fields, line)) rows.emplace_back(fields.begin(), fields.end());
  return rows;
}

/// The bundled rows whose (judge, item) occur in `converted`, sorted; the converted rows, sorted.
std::pair<std::vector<Row>, std::vector<Row>> matching_rows(const std::string& bundled_path,
                                                            const std::vector<Row>& converted) {
  std::set<std::pair<std::string, std::string>> judge_items;
  for (size_t r = 1; r < converted.size(); ++r) judge_items.emplace(converted[r][0], converted[r][1]);
  const std::vector<Row> bundled = csv_rows(read_file(bundled_path));
  EXPECT_EQ(bundled.front(), converted.front()) << "headers differ";
  std::vector<Row> expected;
  for (size_t r = 1; r < bundled.size(); ++r) {
    if (judge_items.count({bundled[r][0], bundled[r][1]})) expected.push_back(bundled[r]);
  }
  std::vector<Row> actual(converted.begin() + 1, converted.end());
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  return {expected, actual};
}

TEST(ImportJudgeBench, TrimmedSamplesReproduceBundledRows) {
  std::vector<ImportedRecord> records = convert_judgebench_file(kArenaHard);
  const std::vector<ImportedRecord> reward = convert_judgebench_file(kRewardModel);
  records.insert(records.end(), reward.begin(), reward.end());
  ASSERT_EQ(records.size(), 2u * 2 * 13);  // two files, 13 pairs each, two orders

  const std::vector<Row> converted = csv_rows(imported_csv(records));
  const auto [expected, actual] = matching_rows(kSource + "/data/judgebench/gpt4o_split.csv", converted);
  EXPECT_EQ(actual.size(), 52u);
  EXPECT_EQ(actual, expected);
}

TEST(ImportJudgeBench, SwappedOrderFlipsBackToCanonicalTerms) {
  const nlohmann::json pair = nlohmann::json::parse(R"({
    "pair_id": "p1", "original_id": null, "source": "livebench-math", "label": "B>A",
    "judgments": [
      {"judgment": {"judge_model": "org/rm", "scores": [1.0, 3.0]}, "decision": "B>A"},
      {"judgment": {"judge_model": "org/rm", "scores": [3.0, 1.0]}, "decision": "A=B"}]})");
  const std::vector<ImportedRecord> records = convert_judgebench_pair(pair, "test:1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].judge, "org_rm");
  EXPECT_EQ(records[0].cluster, "");
  EXPECT_EQ(records[0].benchmark, "livebench");
  EXPECT_EQ(records[0].condition, "livebench-math");
  EXPECT_EQ(records[0].gold, "B");
  EXPECT_EQ(records[0].verdict, "B");
  EXPECT_EQ(records[1].verdict, "tie");
  // Canonical scores are (1, 3) in both orders: p.A = sigmoid(-2).
  EXPECT_EQ(records[0].p_a, "0.119203");
  EXPECT_EQ(records[1].p_a, "0.119203");
  EXPECT_EQ(records[1].p_b, "0.880797");

  nlohmann::json swapped = pair;
  swapped["judgments"][1]["decision"] = "A>B";
  swapped["original_id"] = 42;
  const std::vector<ImportedRecord> flipped = convert_judgebench_pair(swapped, "test:1");
  EXPECT_EQ(flipped[1].verdict, "B");
  EXPECT_EQ(flipped[1].cluster, "42");

  swapped["judgments"][0]["decision"] = nullptr;
  EXPECT_EQ(convert_judgebench_pair(swapped, "test:1")[0].verdict, "");
}

TEST(ImportJudgeBench, BadPairNamesFileLineAndField) {
  const nlohmann::json pair =
      nlohmann::json::parse(R"({"pair_id": "p", "source": "mmlu-pro-law", "label": "A=B", "judgments": []})");
  try {
    convert_judgebench_pair(pair, "outputs.jsonl:4");
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("outputs.jsonl:4: field 'label'"), std::string::npos) << message;
  }
}

TEST(ImportJudgeBench, RewardProbabilityText) {
  EXPECT_EQ(probability_text(reward_probability(5.625, 14.625)), "0.000123");
  EXPECT_EQ(probability_text(reward_probability(2.0, 2.0)), "0.500000");
}

TEST(ImportLlmBar, TrimmedSamplesReproduceBundledRows) {
  const std::vector<ImportedRecord> records = convert_llmbar_dir(kRaw + "/llmbar");
  // ChatGPT/CoT on Neighbor (48 entries), GPT-4/Vanilla (20) and LLaMA2/Swap (8) on Natural.
  ASSERT_EQ(records.size(), 2u * (48 + 20 + 8));
  EXPECT_EQ(records.front().judge, "GPT-4/Vanilla");  // Natural first, judges in byte order
  EXPECT_EQ(records.back().item, "Neighbor-47");

  const std::vector<Row> converted = csv_rows(imported_csv(records));
  const auto [expected, actual] = matching_rows(kSource + "/data/llmbar/natural_neighbor.csv", converted);
  EXPECT_EQ(actual.size(), records.size());
  EXPECT_EQ(actual, expected);
}

TEST(ImportLlmBar, LastRoundAndWinnerMapping) {
  const nlohmann::json results = nlohmann::json::parse(R"([
    {"label": 1, "results": [{"swap = False": {"winner": "1"}, "swap = True": {"winner": "2"}}]},
    {"label": 2, "results": [{"swap = False": {"winner": "1"}, "swap = True": {"winner": "1"}},
                             {"swap = False": {"winner": "2"}, "swap = True": {"winner": null}}]}
  ])");
  const std::vector<ImportedRecord> records =
      convert_llmbar_results(results, "M/S", "Adversarial", "Neighbor", "result.json");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].item, "Neighbor-0");
  EXPECT_EQ(records[0].cluster, "Neighbor-0");
  EXPECT_EQ(records[0].gold, "A");
  EXPECT_EQ(records[0].verdict, "A");
  EXPECT_EQ(records[1].order, 1);
  EXPECT_EQ(records[1].verdict, "B");  // LLMBar's swapped winner is already canonical
  EXPECT_EQ(records[2].gold, "B");
  EXPECT_EQ(records[2].verdict, "B");  // the last round decides
  EXPECT_EQ(records[3].verdict, "");   // no winner: an invalid output
}

// Issue 29: LLMBar as the built-in map `llmbar` over the folder's result.json files gives the
// converter's bytes, and so the bundled rows.
TEST(ImportLlmBar, BuiltInMapWritesTheConvertersBytes) {
  const std::vector<std::string> files = llmbar_result_files(kRaw + "/llmbar");
  ASSERT_EQ(files.size(), 3u);  // Natural's two judges, then Adversarial/Neighbor's one
  const std::string mapped = mapped_records_csv("llmbar", files);
  EXPECT_EQ(mapped, imported_csv(convert_llmbar_dir(kRaw + "/llmbar")));
  const auto [expected, actual] = matching_rows(kSource + "/data/llmbar/natural_neighbor.csv", csv_rows(mapped));
  EXPECT_EQ(actual.size(), 2u * (48 + 20 + 8));
  EXPECT_EQ(actual, expected);
}

// The map on a hand-built folder: judge and subset from the path, the last round's winners, an
// absent winner invalid; a subset directly in the dataset folder has benchmark LLMBar.
TEST(ImportLlmBar, MapReadsJudgeAndSubsetFromThePath) {
  namespace fs = std::filesystem;
  const fs::path root = testing_support::temp_path("llmbar_map_root");
  fs::remove_all(root);
  const fs::path neighbor = root / "Adversarial/Neighbor/evaluators/M/S";
  const fs::path natural = root / "Natural/evaluators/E/V";
  fs::create_directories(neighbor);
  fs::create_directories(natural);
  std::ofstream(neighbor / "result.json") << R"([
    {"label": 1, "results": [{"swap = False": {"winner": "1"}, "swap = True": {"winner": "2"}}]},
    {"label": 2, "results": [{"swap = False": {"winner": "1"}, "swap = True": {"winner": "1"}},
                             {"swap = False": {"winner": 2}, "swap = True": {"winner": null}}]}])";
  std::ofstream(natural / "result.json")
      << R"([{"label": "2", "results": [{"swap = False": {}, "swap = True": {"winner": "2"}}]}])";
  EXPECT_EQ(mapped_records_csv("llmbar", llmbar_result_files(root.string())),
            "judge,item,cluster,benchmark,condition,order,gold,verdict,p.A,p.B\n"
            "E/V,Natural-0,Natural-0,LLMBar,Natural,0,B,,,\n"
            "E/V,Natural-0,Natural-0,LLMBar,Natural,1,B,B,,\n"
            "M/S,Neighbor-0,Neighbor-0,Adversarial,Neighbor,0,A,A,,\n"
            "M/S,Neighbor-0,Neighbor-0,Adversarial,Neighbor,1,A,B,,\n"
            "M/S,Neighbor-1,Neighbor-1,Adversarial,Neighbor,0,B,B,,\n"
            "M/S,Neighbor-1,Neighbor-1,Adversarial,Neighbor,1,B,,,\n");
}

TEST(ImportCommand, WritesCsvThatLoads) {
  const std::string out = ::testing::TempDir() + "judgestat_import_judgebench.csv";
  std::vector<std::string> args = {"judgestat import", "judgebench", kArenaHard, kRewardModel, "--out", out};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  ASSERT_EQ(command_import(static_cast<int>(argv.size()), argv.data()), 0);

  std::vector<ImportedRecord> records = convert_judgebench_file(kArenaHard);
  const std::vector<ImportedRecord> reward = convert_judgebench_file(kRewardModel);
  records.insert(records.end(), reward.begin(), reward.end());
  EXPECT_EQ(read_file(out), imported_csv(records));

  const ItemMatrix m = load_item_matrix(out);
  EXPECT_EQ(m.records, 52);
  EXPECT_EQ(m.n_judges(), 2);
  EXPECT_EQ(m.invalid, 0);
}

TEST(ImportCommand, UnknownSourceIsUsageError) {
  std::vector<std::string> args = {"judgestat import", "mtbench", "x.json"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  EXPECT_THROW(command_import(static_cast<int>(argv.size()), argv.data()), UsageError);
}

}  // namespace
}  // namespace judgestat
