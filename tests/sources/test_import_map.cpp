// Import maps (docs/import.md): the map's errors name its key path, a row's name file:line and the
// path; two games swap back to canonical labels; joins, regexes, lengths; the built-in JudgeBench
// map writes the converter's bytes.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "sources/import.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::temp_path;
using testing_support::thrown_message;
using testing_support::write_temp;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  if (start < text.size()) parts.push_back(text.substr(start));
  return parts;
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
  const std::string log = write_temp("log.jsonl", kGames);
  const std::string map = write_temp("map.json", kGamesMap);
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
      write_temp("gold.jsonl", "{\"id\": \"q1\", \"label\": \"A\"}\n{\"id\": \"q2\", \"label\": \"B\"}\n");
  const std::string map = write_temp("map.json", R"m({"input": "csv", "fields": {
      "judge": {"path": "run", "regex": "^judge=([a-z0-9]+)"}, "item": "q", "verdict": "v",
      "gold": {"join": {"file": ")m" + gold + R"m(", "key": "id", "value": "label"}, "on": "q"},
      "fee_usd": "cost"}})m");
  const std::string log = write_temp("log.csv", "run,q,v,cost\njudge=m1;t=0,q2,B,0.5\njudge=m2,q1,B,\n");
  EXPECT_EQ(mapped_records_csv(map, {log}), "judge,item,gold,verdict,fee_usd\nm1,q2,B,B,0.5\nm2,q1,A,B,\n");

  const std::string missing = write_temp("missing.csv", "run,q,v,cost\njudge=m1,q3,B,1\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {missing}); }),
            missing + ":2: fields.gold (path \"q\"): key \"q3\" is not in the joined file " + gold);
  const std::string unmatched = write_temp("unmatched.csv", "run,q,v,cost\nJUDGE,q1,B,1\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {unmatched}); }),
            unmatched + ":2: fields.judge (path \"run\"): regex \"^judge=([a-z0-9]+)\" does not match \"JUDGE\"");
}

TEST(ImportMap, FormatCompareAndLinear) {
  const std::string map = write_temp("map.json", R"({"input": "csv", "fields": {"judge": {"const": "j"},
      "item": {"format": "{q}/{{{t}}}"}, "verdict": {"compare": ["sa", "sb"], "greater": "A", "less": "B", "equal": "tie"},
      "p.A": {"linear": "pref", "scale": -1, "offset": 2}}})");
  const std::string log = write_temp("log.csv", "q,t,sa,sb,pref\nq1,1,0.5,0.25,1.25\nq1,2,1,1.0,1.5\nq2,1,-3,2,2\n");
  // p.A = 2 - pref: 0.75, 0.5, 0, each the shortest text of its double.
  EXPECT_EQ(mapped_records_csv(map, {log}),
            "judge,item,verdict,p.A\nj,q1/{1},A,0.75\nj,q1/{2},tie,0.5\nj,q2/{1},B,0\n");
}

TEST(ImportMap, NumbersKeepEveryDigitUnlessTheMapGivesDigits) {
  const std::string map = write_temp("map.json", R"({"input": "csv", "fields": {"judge": {"const": "j"}, "item": "q",
      "verdict": {"const": "A"}, "p.A": {"sigmoid_margin": ["a", "b"]}, "p.B": {"sigmoid_margin": ["b", "a"], "digits": 6},
      "x.third": {"linear": "a", "scale": 0.1}}})");
  // A reward margin of 20: %.6f wrote 1.000000 and 0.000000, which tie with every confident item.
  const std::string log = write_temp("log.csv", "q,a,b\nq1,20,0\n");
  const std::vector<std::string> row = split(mapped_records_csv(map, {log}), '\n');
  ASSERT_EQ(row.size(), 2u);
  EXPECT_EQ(row[0], "judge,item,verdict,p.A,p.B,x.third");
  const std::vector<std::string> cells = split(row[1], ',');
  ASSERT_EQ(cells.size(), 6u) << row[1];
  EXPECT_EQ(std::stod(cells[3]), 1 / (1 + std::exp(-20.0)));  // bit for bit
  EXPECT_NE(cells[3], "1.000000");
  EXPECT_EQ(cells[4], "0.000000");  // "digits": 6
  EXPECT_EQ(cells[5], "2");         // 0.1 * 20 is 2 exactly in doubles
  const std::string bad = write_temp("bad.json", R"({"input": "csv", "fields": {"judge": "j", "item": "q",
      "verdict": {"path": "v", "digits": 3}}})");
  EXPECT_TRUE(contains(thrown_message<InputError>([&] { mapped_records_csv(bad, {log}); }),
                       ": fields.verdict.digits: only a linear or sigmoid_margin has digits"));
}

// A JSONL line whose answer_a holds `answer`, through a map that cuts answer_a at its first '-'.
std::string regex_error(const std::string& pattern, const std::string& answer) {
  const std::string map = write_temp("rx.json", R"({"input": "jsonl", "fields": {"judge": "judge", "item": "id",
      "verdict": "v", "x.model_a": {"path": "answer_a", "regex": ")" +
                                                    pattern + R"("}}})");
  const std::string log =
      write_temp("rx.jsonl", R"({"judge": "j", "id": "1", "v": "A", "answer_a": ")" + answer + "\"}\n");
  try {
    mapped_records_csv(map, {log});
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(ImportMap, RegexRefusesLongTextAndQuotesTheStartOfWhatItDoesNotMatch) {
  // 100,000 characters crashed std::regex (a recursion per character) before the bound.
  const std::string log = temp_path("rx.jsonl");
  EXPECT_EQ(regex_error("^([^-]*)", std::string(100000, 'a')),
            log +
                ":1: fields.x.model_a (path \"answer_a\"): the text is 100000 bytes long; regex reads at most 16384 "
                "bytes (\"" +
                std::string(80, 'a') + "…\")");
  EXPECT_EQ(
      regex_error("^b", std::string(200, 'a')),
      log + ":1: fields.x.model_a (path \"answer_a\"): regex \"^b\" does not match \"" + std::string(80, 'a') + "…\"");
#ifdef __GLIBCXX__
  // At the bound, six nested groups under a repetition (the recursive executor overflowed the
  // stack at 3,600 characters) match the whole text.
  EXPECT_EQ(regex_error("^((((((a))))))*b", std::string(16384, 'a')),
            log + ":1: fields.x.model_a (path \"answer_a\"): regex \"^((((((a))))))*b\" does not match \"" +
                std::string(80, 'a') + "…\"");
#endif
}

TEST(ImportCommand, RefusesAnOutThatIsNotCsvBeforeReadingInputs) {
  const std::string out = temp_path("records.jsonl");
  std::remove(out.c_str());
  // Not a JudgeBench pair: reading it would be an InputError, not the usage error.
  const std::string raw = write_temp("raw.jsonl", "{\"pair_id\": 7}\n");
  std::vector<std::string> args = {"judgestat import", "judgebench", raw, "--out", out};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  EXPECT_EQ(
      thrown_message<UsageError>([&] { command_import(static_cast<int>(argv.size()), argv.data()); }),
      "import: --out '" + out + "': import writes CSV records; give a file name ending in .csv, or '-' for stdout");
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(ImportMap, MapErrorsNameTheKeyPathBeforeAnyRowIsRead) {
  const std::string log = write_temp("log.jsonl", kGames);
  auto error_of = [&](const std::string& map_text) {
    const std::string map = write_temp("map.json", map_text);
    return thrown_message<InputError>([&] { mapped_records_csv(map, {"/nonexistent/never-read.jsonl"}); });
  };
  const std::string base = R"("input": "jsonl", "fields": {"judge": "judge", "item": "question_id", )";
  EXPECT_EQ(error_of("{" + base + R"("verdict": {"path": "x", "valuez": {}}}})"),
            temp_path("map.json") +
                ": fields.verdict.valuez: unknown key; expected one of path, const, join, length, sigmoid_margin, "
                "format, compare, linear, on, unit, greater, less, equal, scale, offset, digits, default, replace, "
                "regex, template, values");
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
  const std::string map = write_temp("map.json", kGamesMap);
  const std::string unlisted = write_temp(
      "unlisted.jsonl",
      R"({"question_id": "q1", "judge": "j", "games": [{"score": "A>B"}, {"score": "A>>>B"}], "answer_a": ""})"
      "\n");
  EXPECT_EQ(
      thrown_message<InputError>([&] { mapped_records_csv(map, {unlisted}); }),
      unlisted +
          ":1: fields.verdict (path \"@.score\"): \"A>>>B\" has no entry in fields.verdict.values (and no \"*\")");
  const std::string no_path =
      write_temp("nopath.jsonl",
                 "\n"
                 R"({"question_id": "q1", "judge": "j", "games": [{"verdict": "A"}], "answer_a": ""})"
                 "\n");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {no_path}); }),
            no_path + ":2: fields.verdict (path \"@.score\"): matches nothing");
  const std::string no_games = write_temp("nogames.jsonl", R"({"question_id": "q1", "judge": "j"})"
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
  const std::string log = write_temp("log.jsonl", kGames);
  LoadOptions load;
  load.map = write_temp("map.json", kGamesMap);
  const ItemMatrix m = load_item_matrix(log, load);
  EXPECT_EQ(m.records, 4);
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.n_items(), 2);
  // A record the loader refuses names the input's line: q1 twice in one file.
  const std::string twice = write_temp("twice.jsonl", std::string(kGames) + kGames);
  EXPECT_TRUE(contains(thrown_message<InputError>([&] { load_item_matrix(twice, load); }), twice + ":"));
}

TEST(ImportMap, UnknownBuiltInNameIsAUsageError) {
  const std::string message = thrown_message<UsageError>([] { mapped_records_csv("no_such_format", {"x.jsonl"}); });
  EXPECT_EQ(message.rfind("map 'no_such_format': not a built-in map (", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "judgebench")) << message;  // the built-in names are listed
}

}  // namespace
}  // namespace judgestat
