// Import maps (docs/import.md): the map's errors name its key path, a row's name file:line and the
// path; two games swap back to canonical labels; joins, regexes, lengths; the built-in JudgeBench
// map writes the converter's bytes.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "sources/import.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::temp_path;
using testing_support::thrown_message;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Two questions judged in two games each, the second game presented swapped.
const char* const kGames =
    R"({"question_id": "q1", "judge": "j", "games": [{"score": "A>B"}, {"score": "B>>A"}], "answer_a": "Paris is the capital."})"
    "\n"
    R"({"question_id": "q2", "judge": "j", "games": [{"score": "B>A"}, {"score": "A=B"}], "answer_a": "né  à Paris"})"
    "\n";

const char* const kGamesMap = R"({
  "input": "jsonl",
  "each": "games",
  "fields": {
    "judge": "judge", "item": "question_id", "order": "$index",
    "verdict": {"path": "@.score", "values": {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}},
    "x.tokens_a": {"length": "answer_a", "unit": "tokens"},
    "x.chars_a": {"length": "answer_a", "unit": "chars"}
  },
  "swap": {"when": {"path": "$index", "equals": 1}, "labels": {"A": "B", "B": "A"}}
})";

TEST(ImportMap, TwoGamesAreOrdersZeroAndOneSwappedBack) {
  const std::string log = write_file("log.jsonl", kGames);
  const std::string map = write_file("map.json", kGamesMap);
  // Game 2 of q1 says B>>A of the swapped pair: the canonical A won. q2's tie stays a tie.
  // "Paris is the capital." is 4 tokens and 21 characters; "né  à Paris" 3 tokens, 11 code points.
  EXPECT_EQ(mapped_records_csv(map, {log}),
            "judge,item,order,verdict,x.chars_a,x.tokens_a\n"
            "j,q1,0,A,21,4\n"
            "j,q1,1,A,21,4\n"
            "j,q2,0,B,11,3\n"
            "j,q2,1,tie,11,3\n");
}

TEST(ImportMap, JoinTakesGoldFromASecondFileAndRegexCaptures) {
  const std::string gold =
      write_file("gold.jsonl", "{\"id\": \"q1\", \"label\": \"A\"}\n{\"id\": \"q2\", \"label\": \"B\"}\n");
  const std::string map = write_file("map.json", R"m({"input": "csv", "fields": {
      "judge": {"path": "run", "regex": "^judge=([a-z0-9]+)"}, "item": "q", "verdict": "v",
      "gold": {"join": {"file": ")m" + gold + R"m(", "key": "id", "value": "label"}, "on": "q"},
      "fee_usd": "cost"}})m");
  const std::string log = write_file("log.csv", "run,q,v,cost\njudge=m1;t=0,q2,B,0.5\njudge=m2,q1,B,\n");
  EXPECT_EQ(mapped_records_csv(map, {log}), "judge,item,gold,verdict,fee_usd\nm1,q2,B,B,0.5\nm2,q1,A,B,\n");

  const std::string missing = write_file("missing.csv", "run,q,v,cost\njudge=m1,q3,B,1\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {missing}); }),
            missing + ":2: fields.gold (path \"q\"): key \"q3\" is not in the joined file " + gold);
  const std::string unmatched = write_file("unmatched.csv", "run,q,v,cost\nJUDGE,q1,B,1\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {unmatched}); }),
            unmatched + ":2: fields.judge (path \"run\"): regex \"^judge=([a-z0-9]+)\" does not match \"JUDGE\"");
}

TEST(ImportMap, FormatCompareAndLinear) {
  const std::string map = write_file("map.json", R"({"input": "csv", "fields": {"judge": {"const": "j"},
      "item": {"format": "{q}/{{{t}}}"}, "verdict": {"compare": ["sa", "sb"], "greater": "A", "less": "B", "equal": "tie"},
      "p.A": {"linear": "pref", "scale": -1, "offset": 2}}})");
  const std::string log = write_file("log.csv", "q,t,sa,sb,pref\nq1,1,0.5,0.25,1.25\nq1,2,1,1.0,1.5\nq2,1,-3,2,2\n");
  // p.A = 2 - pref: 0.75, 0.5, 0.
  EXPECT_EQ(mapped_records_csv(map, {log}),
            "judge,item,verdict,p.A\nj,q1/{1},A,0.750000\nj,q1/{2},tie,0.500000\nj,q2/{1},B,0.000000\n");
}

TEST(ImportMap, MapErrorsNameTheKeyPathBeforeAnyRowIsRead) {
  const std::string log = write_file("log.jsonl", kGames);
  auto error_of = [&](const std::string& map_text) {
    const std::string map = write_file("map.json", map_text);
    return thrown_message<InputError>([&] { mapped_records_csv(map, {"/nonexistent/never-read.jsonl"}); });
  };
  const std::string base = R"("input": "jsonl", "fields": {"judge": "judge", "item": "question_id", )";
  EXPECT_EQ(error_of("{" + base + R"("verdict": {"path": "x", "valuez": {}}}})"),
            temp_path("map.json") +
                ": fields.verdict.valuez: unknown key; expected one of path, const, join, length, sigmoid_margin, "
                "format, compare, linear, on, unit, greater, less, equal, scale, offset, default, replace, regex, "
                "values");
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdict": "v"}, "swapp": {}})"), ": swapp: unknown key"));
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdikt": "v"}})"), ": fields.verdikt: not a record field"));
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdict": {"path": "v", "regex": "("}}})"),
                       ": fields.verdict.regex: does not compile"));
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdict": {"path": "v", "values": {"A>B": 1}}}})"),
                       ": fields.verdict.values.\"A>B\": expected a string, got 1"));
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdict": "v"}, "swap": {"when": {"path": "$index", "equals": 1},
                       "labels": {"A": "C"}}})"),
                       ": swap.labels: not a permutation"));
  EXPECT_TRUE(contains(error_of(R"({"input": "jsonl", "fields": {"judge": "j", "verdict": "v"}})"),
                       ": fields: missing \"item\""));
  EXPECT_TRUE(contains(error_of("{" + base + R"("verdict": {"path": "v", "const": "A"}}})"),
                       ": fields.verdict: expected exactly one of path, const"));
}

TEST(ImportMap, RowErrorsNameFileLineFieldAndPath) {
  const std::string map = write_file("map.json", kGamesMap);
  const std::string unlisted = write_file(
      "unlisted.jsonl",
      R"({"question_id": "q1", "judge": "j", "games": [{"score": "A>B"}, {"score": "A>>>B"}], "answer_a": ""})"
      "\n");
  EXPECT_EQ(
      thrown_message<InputError>([&] { mapped_records_csv(map, {unlisted}); }),
      unlisted +
          ":1: fields.verdict (path \"@.score\"): \"A>>>B\" has no entry in fields.verdict.values (and no \"*\")");
  const std::string no_path =
      write_file("nopath.jsonl",
                 "\n"
                 R"({"question_id": "q1", "judge": "j", "games": [{"verdict": "A"}], "answer_a": ""})"
                 "\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {no_path}); }),
            no_path + ":2: fields.verdict (path \"@.score\"): matches nothing");
  const std::string no_games = write_file("nogames.jsonl", R"({"question_id": "q1", "judge": "j"})"
                                                           "\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {no_games}); }),
            no_games + ":1: each (path \"games\"): matches nothing");
}

TEST(ImportMap, BuiltInJudgeBenchMapWritesTheConvertersBytes) {
  const std::string raw = testing_support::kRoot + "/tests/data/raw/judgebench/";
  const std::vector<std::string> files = {
      raw +
          "dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12."
          "jsonl",
      raw +
          "dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=reward_model,"
          "judge_model=Skywork_Skywork-Reward-Llama-3.1-8B.jsonl"};
  std::vector<ImportedRecord> records = convert_judgebench_file(files[0]);
  const std::vector<ImportedRecord> reward = convert_judgebench_file(files[1]);
  records.insert(records.end(), reward.begin(), reward.end());
  EXPECT_EQ(mapped_records_csv("judgebench", files), imported_csv(records));
}

TEST(ImportMap, LoaderReadsFilesThroughTheMap) {
  const std::string log = write_file("log.jsonl", kGames);
  LoadOptions load;
  load.map = write_file("map.json", kGamesMap);
  const ItemMatrix m = load_item_matrix(log, load);
  EXPECT_EQ(m.records, 4);
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.n_items(), 2);
  // A record the loader refuses names the input's line: q1 twice in one file.
  const std::string twice = write_file("twice.jsonl", std::string(kGames) + kGames);
  EXPECT_TRUE(contains(thrown_message<InputError>([&] { load_item_matrix(twice, load); }), twice + ":"));
}

TEST(ImportMap, UnknownBuiltInNameIsAUsageError) {
  const std::string message = thrown_message<UsageError>([] { mapped_records_csv("no_such_format", {"x.jsonl"}); });
  EXPECT_EQ(message.rfind("map 'no_such_format': not a built-in map (", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "judgebench")) << message;  // the built-in names are listed
}

}  // namespace
}  // namespace judgestat
