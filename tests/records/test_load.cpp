// Loading judgment records (docs/statistics.md §1): formats, bad input, validity, label set, pivot, SHA-256.
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "records/input.hpp"
#include "records/numbering.hpp"
#include "records/sha256.hpp"
#include "records/validity.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

/// Writes `content` to a file in the test temp dir named after the running test.
std::string write_temp(const std::string& content, const std::string& extension = ".csv") {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path =
      ::testing::TempDir() + "judgestat_" + test->test_suite_name() + "_" + test->name() + extension;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The message of the InputError that loading `path` throws (a failure when none is thrown).
std::string load_error(const std::string& path, const LoadOptions& options = {}) {
  try {
    load_item_matrix(path, options);
  } catch (const InputError& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected InputError, got: " << error.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError for " << path;
  return "";
}

/// Loading `content` fails with an InputError naming the file, line and column.
void expect_bad_input(const std::string& content, int64_t line, const std::string& column,
                      const std::string& expected_words = "", const std::string& extension = ".csv",
                      const LoadOptions& options = {}) {
  const std::string path = write_temp(content, extension);
  const std::string message = load_error(path, options);
  EXPECT_NE(message.find(path + ":" + std::to_string(line) + ":"), std::string::npos)
      << "file and line " << line << " not named in: " << message;
  EXPECT_NE(message.find("column " + column), std::string::npos) << "column " << column << " not named in: " << message;
  if (!expected_words.empty()) {
    EXPECT_NE(message.find(expected_words), std::string::npos) << "'" << expected_words << "' not in: " << message;
  }
}

const char* kHeader = "judge,item,gold,verdict,p.A,p.B\n";

ItemMatrix load_text(const std::string& content, const std::string& extension = ".csv",
                     const LoadOptions& options = {}) {
  return load_item_matrix(write_temp(content, extension), options);
}

/// The verdict code of judge 0's only record on `item`, order 0, variant 0.
int16_t verdict_of(const ItemMatrix& m, int32_t item) { return m.verdict[m.cell(0, item, 0, 0)]; }

// --- SHA-256 ---------------------------------------------------------------------------------

TEST(LoadSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(LoadSha256, IncrementalUpdatesMatchOneShot) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += std::to_string(i * 7919) + ",";
  for (size_t piece : {1u, 3u, 63u, 64u, 65u, 200u}) {
    Sha256 hash;
    for (size_t at = 0; at < text.size(); at += piece) hash.update(text.substr(at, piece));
    EXPECT_EQ(hash.hex_digest(), sha256_hex(text)) << "pieces of " << piece;
  }
}

TEST(LoadSha256, CpuInstructionsEqualThePortableCode) {
  if (!sha256_cpu_instructions_supported()) GTEST_SKIP() << "this CPU has no SHA extensions";
  std::string text;
  for (int i = 0; i < 20000; ++i) text += static_cast<char>((i * 2654435761u) >> 24);
  for (size_t size : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 127u, 128u, 1000u, 20000u}) {
    Sha256 fast(true), portable(false);
    fast.update(text.substr(0, size));
    portable.update(text.substr(0, size));
    EXPECT_EQ(fast.hex_digest(), portable.hex_digest()) << size << " bytes";
  }
  Sha256 portable(false);  // the known answer through the portable code too
  portable.update("abc");
  EXPECT_EQ(portable.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(LoadSha256, MatrixCarriesDigestOfFileBytes) {
  const std::string content = std::string(kHeader) + "j,i1,A,A,0.9,0.1\r\n";
  const ItemMatrix m = load_text(content);
  EXPECT_EQ(m.sha256, sha256_hex(content));
}

// --- CSV -------------------------------------------------------------------------------------

TEST(LoadCsv, QuotingCrlfAndBom) {
  const std::string content =
      "\xEF\xBB\xBFjudge,item,gold,verdict,condition\r\n"
      "\"judge, with comma\",i1,A,A,\"say \"\"hi\"\"\"\r\n"
      "j2,\"multi\nline item\",B,A,plain\r\n"
      "j2,i3,B,B,\r\n";
  const std::string path = write_temp(content);
  const std::vector<Record> records = read_records(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].judge, "judge, with comma");
  EXPECT_EQ(records[0].condition, "say \"hi\"");
  EXPECT_EQ(records[0].line, 2);
  EXPECT_EQ(records[1].item, "multi\nline item");
  EXPECT_EQ(records[1].line, 3);
  EXPECT_EQ(records[2].line, 5);  // the quoted line break moved it down a line
  EXPECT_EQ(records[2].condition, "");
}

TEST(LoadCsv, DefaultsAndUnknownColumns) {
  const ItemMatrix m = load_text(
      "judge,item,gold,verdict,notes,cluster,benchmark,order,variant\n"
      "j,i1,A,A,whatever,,,,\n"
      "j,i1,A,B,more,,,1,\n"
      "j,i2,B,B,,c7,bench,0,padded\n");
  EXPECT_EQ(m.records, 3);
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.variants, (std::vector<std::string>{"plain", "padded"}));
  EXPECT_EQ(m.benchmarks, (std::vector<std::string>{"default", "bench"}));
  EXPECT_EQ(m.clusters, (std::vector<std::string>{"i1", "c7"}));  // empty cluster: the item
  EXPECT_EQ(m.item_cluster, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.conditions, (std::vector<std::string>{""}));
}

TEST(LoadCsv, CsvWriterRoundTrips) {
  const std::vector<std::string> fields = {"plain", "with,comma", "say \"hi\"", "two\nlines", ""};
  std::string text;
  append_csv_row(text, fields);
  CsvReader reader(text, "memory");
  std::vector<std::string_view> row;
  int64_t line = 0;
  ASSERT_TRUE(reader.next_row(row, line));
  EXPECT_EQ(std::vector<std::string>(row.begin(), row.end()), fields);
  EXPECT_FALSE(reader.next_row(row, line));
}

// --- JSONL -----------------------------------------------------------------------------------

TEST(LoadJsonl, ProbsObjectStringNumbersNullVerdictBlankLines) {
  const std::string content =
      "{\"judge\": \"j\", \"item\": \"i1\", \"gold\": \"B\", \"verdict\": \"B\", "
      "\"probs\": {\"B\": 0.7, \"A\": \"0.3\"}, \"order\": \"1\", \"extra\": [1, {\"x\": 2}]}\n"
      "\n"
      "{\"judge\": \"j\", \"item\": 17, \"gold\": \"A\", \"verdict\": null, \"fee_usd\": 0.002,"
      " \"latency_s\": \"1.5\", \"flag\": true, \"rationale_ok\": 0}\r\n";
  const std::string path = write_temp(content, ".jsonl");
  const std::vector<Record> records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].prob_labels, (std::vector<std::string>{"B", "A"}));
  EXPECT_EQ(records[0].probs, (std::vector<double>{0.7, 0.3}));
  EXPECT_EQ(records[0].order, 1);
  EXPECT_EQ(records[1].line, 3);
  EXPECT_EQ(records[1].item, "17");
  EXPECT_FALSE(records[1].verdict_given);

  const ItemMatrix m = load_item_matrix(path);
  EXPECT_EQ(m.labels, (std::vector<std::string>{"B", "A"}));  // probs keys in file order
  EXPECT_EQ(m.verdict[m.cell(0, 0, 1, 0)], 0);
  EXPECT_EQ(m.verdict[m.cell(0, 1, 0, 0)], kInvalid);
  EXPECT_EQ(m.invalid, 1);
  EXPECT_TRUE(m.has_probs && m.has_fee && m.has_latency && m.has_rationale);
  EXPECT_DOUBLE_EQ(m.fee[m.cell(0, 1, 0, 0)], 0.002);
  EXPECT_DOUBLE_EQ(m.latency[m.cell(0, 1, 0, 0)], 1.5);
  EXPECT_EQ(m.rationale_ok[m.cell(0, 1, 0, 0)], 0.0);
  EXPECT_EQ(m.item_flag, (std::vector<uint8_t>{0, 1}));
}

TEST(LoadJsonl, ProbabilityKeysAndJsonExtension) {
  const ItemMatrix m = load_text(
      "{\"judge\": \"j\", \"item\": \"i1\", \"gold\": \"A\", \"verdict\": \"A\", "
      "\"p.A\": 0.8, \"p.B\": 0.2}\n",
      ".json");
  EXPECT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_DOUBLE_EQ(m.probs_of(0)[0], 0.8);
  EXPECT_EQ(verdict_of(m, 0), 0);
}

// --- Bad input ---------------------------------------------------------------------------------

TEST(LoadBadInput, TextWhereANumberBelongs) {
  expect_bad_input("judge,item,gold,verdict,order\nj,i1,A,A,0\nj,i2,A,A,x\n", 3, "'order'",
                   "expected a non-negative integer, got \"x\"");
  expect_bad_input("judge,item,gold,verdict,order\nj,i1,A,A,-1\n", 2, "'order'", "non-negative integer");
  expect_bad_input(std::string(kHeader) + "j,i1,A,A,high,0.1\n", 2, "'p.A'", "probability");
  expect_bad_input("judge,item,gold,verdict,fee_usd\nj,i1,A,A,cheap\n", 2, "'fee_usd'", "number");
  expect_bad_input("judge,item,gold,verdict,latency_s\nj,i1,A,A,-2\n", 2, "'latency_s'");
  expect_bad_input("judge,item,gold,verdict,flag\nj,i1,A,A,yes\n", 2, "'flag'", "1 or 0");
  expect_bad_input("judge,item,gold,verdict,rationale_ok\nj,i1,A,A,2\n", 2, "'rationale_ok'");
  expect_bad_input("{\"judge\": \"j\", \"item\": \"i\", \"gold\": \"A\", \"verdict\": \"A\", \"order\": \"x\"}\n", 1,
                   "'order'", "non-negative integer", ".jsonl");
  expect_bad_input(
      "{\"judge\": \"j\", \"item\": \"i\", \"gold\": \"A\", \"verdict\": \"A\"}\n"
      "{\"judge\": \"j\", \"item\": \"k\", \"gold\": \"A\", \"verdict\": \"A\", "
      "\"probs\": {\"A\": \"most\"}}\n",
      2, "'probs.A'", "probability", ".jsonl");
  expect_bad_input(
      "{\"judge\": \"j\", \"item\": \"i\", \"gold\": \"A\", \"verdict\": \"A\", "
      "\"p.A\": true}\n",
      1, "'p.A'", "probability", ".jsonl");
}

TEST(LoadBadInput, MissingRequiredColumn) {
  // gold may be omitted (docs/statistics.md §8.1); verdict may not.
  expect_bad_input("judge,item,gold\nj,i1,A\n", 1, "'verdict'", "missing");
  expect_bad_input(
      "{\"judge\": \"j\", \"item\": \"i\", \"gold\": \"A\", \"verdict\": null}\n"
      "{\"judge\": \"j\", \"item\": \"k\", \"gold\": \"A\"}\n",
      2, "'verdict'", "missing", ".jsonl");
  expect_bad_input("judge,item,gold,verdict\nj,,A,A\n", 2, "'item'", "non-empty");
}

TEST(LoadBadInput, FieldCountDiffersFromHeader) {
  expect_bad_input(std::string(kHeader) + "j,i1,A,A,0.5,0.5\nj,i2,A,A,0.5\n", 3, "'p.B'", "expected 6 fields");
  expect_bad_input(std::string(kHeader) + "j,i1,A,A,0.5,0.5,extra\n", 2, "7", "expected 6 fields");
}

TEST(LoadBadInput, MalformedQuoting) {
  expect_bad_input("judge,item,gold,verdict\nj,\"i1,A,A\n", 2, "'item'", "unterminated");
  expect_bad_input("judge,item,gold,verdict\nj,\"i1\"x,A,A\n", 2, "'item'", "closing quote");
}

TEST(LoadBadInput, MalformedJsonLine) {
  expect_bad_input(
      "{\"judge\": \"j\", \"item\": \"i\", \"gold\": \"A\", \"verdict\": \"A\"}\n"
      "{\"judge\": \"j\", \"item\": \"k\", \"gold\": \"A\" \"verdict\": \"A\"}\n",
      2, "", "malformed JSON", ".jsonl");
  expect_bad_input("[{\"judge\": \"j\"}]\n", 1, "1", "JSON object", ".json");
  expect_bad_input("\"just a string\"\n", 1, "1", "JSON object", ".jsonl");
}

TEST(LoadBadInput, DuplicateRecordNamesBothLines) {
  const std::string path =
      write_temp("judge,item,gold,verdict,order,variant\nj,i1,A,A,0,\nj,i1,A,B,1,\nj,i1,A,B,0,plain\n");
  const std::string message = load_error(path);
  EXPECT_NE(message.find(path + ":4:"), std::string::npos) << message;
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("columns 'judge','item','order','variant'"), std::string::npos) << message;
}

TEST(LoadBadInput, ItemLevelColumnsMustAgree) {
  expect_bad_input("judge,item,gold,verdict\nj1,i1,A,A\nj2,i1,B,A\n", 3, "'gold'", "line 2");
  expect_bad_input("judge,item,gold,verdict,cluster\nj1,i1,A,A,c1\nj2,i1,A,A,c2\n", 3, "'cluster'", "line 2");
  expect_bad_input("judge,item,gold,verdict,cluster\nj1,i1,A,A,\nj2,i1,A,A,c2\n", 3, "'cluster'", "line 2");
  expect_bad_input("judge,item,gold,verdict,benchmark\nj1,i1,A,A,x\nj2,i1,A,A,y\n", 3, "'benchmark'", "line 2");
  expect_bad_input("judge,item,gold,verdict,condition\nj1,i1,A,A,x\nj2,i1,A,A,\n", 3, "'condition'", "line 2");
}

TEST(LoadBadInput, EmptyFiles) {
  expect_bad_input("", 1, "'judge'", "empty file");
  expect_bad_input("judge,item,gold,verdict\n", 2, "'judge'", "add one record");
  expect_bad_input("\n\n", 2, "'judge'", "no records", ".jsonl");
}

TEST(LoadBadInput, GoldOutsideExplicitLabels) {
  LoadOptions options;
  options.labels = {"A", "B"};
  expect_bad_input("judge,item,gold,verdict\nj,i1,A,A\nj,i2,C,A\n", 3, "'gold'", "--labels", ".csv", options);
  expect_bad_input(std::string("judge,item,gold,verdict,p.A,p.B,p.C\nj,i1,A,A,0.5,0.2,0.3\n"), 2, "'p.C'", "--labels",
                   ".csv", options);
}

TEST(LoadBadInput, HeaderAndFileProblems) {
  expect_bad_input("judge,item,gold,verdict,gold\nj,i1,A,A,A\n", 1, "'gold'", "twice");
  expect_bad_input("judge,item,gold,verdict,p.\nj,i1,A,A,1\n", 1, "'p.'", "label");

  const std::string unknown = write_temp("judge,item,gold,verdict\nj,i,A,A\n", ".txt");
  const std::string message = load_error(unknown);
  EXPECT_NE(message.find(unknown), std::string::npos) << message;
  EXPECT_NE(message.find(".csv, .jsonl or .json"), std::string::npos) << message;

  const std::string missing = ::testing::TempDir() + "judgestat_no_such_file.csv";
  EXPECT_NE(load_error(missing).find(missing), std::string::npos);
}

// --- Validity ----------------------------------------------------------------------------------

TEST(LoadValidity, ProbabilityRules) {
  const ItemMatrix m = load_text(std::string(kHeader) +
                                 "j,ok,A,A,0.7,0.3\n"
                                 "j,sum_off_0.03,A,A,0.53,0.5\n"
                                 "j,sum_off_0.02,A,A,0.52,0.5\n"
                                 "j,nan,A,A,nan,0.5\n"
                                 "j,inf,A,A,inf,0\n"
                                 "j,negative,A,B,-0.1,1.1\n"
                                 "j,not_argmax,A,A,0.4,0.6\n"
                                 "j,shared_top,A,B,0.5,0.5\n"
                                 "j,verdict_prob_missing,A,B,1,\n"
                                 "j,only_one_given,A,A,1,\n"
                                 "j,no_probs,A,B,,\n");
  auto code = [&](const std::string& item) {
    const auto at = std::find(m.items.begin(), m.items.end(), item) - m.items.begin();
    return verdict_of(m, static_cast<int32_t>(at));
  };
  EXPECT_EQ(code("ok"), 0);
  EXPECT_EQ(code("sum_off_0.03"), kInvalid);
  EXPECT_EQ(code("sum_off_0.02"), 0);
  EXPECT_EQ(code("nan"), kInvalid);
  EXPECT_EQ(code("inf"), kInvalid);
  EXPECT_EQ(code("negative"), kInvalid);
  EXPECT_EQ(code("not_argmax"), kInvalid);
  EXPECT_EQ(code("shared_top"), 1);
  EXPECT_EQ(code("verdict_prob_missing"), kInvalid);
  EXPECT_EQ(code("only_one_given"), 0);
  EXPECT_EQ(code("no_probs"), 1);
  EXPECT_EQ(m.invalid, 6);
  // Invalid records keep their probabilities; analyses skip them.
  const size_t not_argmax = m.cell(0, 6, 0, 0);
  EXPECT_DOUBLE_EQ(m.probs_of(not_argmax)[1], 0.6);
  EXPECT_TRUE(std::isnan(m.probs_of(m.cell(0, 3, 0, 0))[0]));
  EXPECT_TRUE(std::isnan(m.probs_of(m.cell(0, 10, 0, 0))[0]));
}

TEST(LoadValidity, VerdictOutsideLabelSetOrEmpty) {
  const ItemMatrix m = load_text(
      "judge,item,gold,verdict\nj,i1,A,C\nj,i2,B,\nj,i3,A,null\n"
      "j,i4,B,A\n");
  EXPECT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(verdict_of(m, 0), kInvalid);
  EXPECT_EQ(verdict_of(m, 1), kInvalid);
  EXPECT_EQ(verdict_of(m, 2), kInvalid);
  EXPECT_EQ(verdict_of(m, 3), 0);
  EXPECT_FALSE(m.correct(m.cell(0, 3, 0, 0), 3));
  EXPECT_EQ(m.invalid, 3);
}

TEST(LoadValidity, TieOnTwoLabels) {
  const ItemMatrix m = load_text(std::string(kHeader) +
                                 "j,no_probs,A,tie,,\n"
                                 "j,shared,A,tie,0.5,0.5\n"
                                 "j,not_shared,B,tie,0.6,0.4\n");
  EXPECT_EQ(verdict_of(m, 0), kTie);
  EXPECT_TRUE(m.valid(m.cell(0, 0, 0, 0)));
  EXPECT_EQ(verdict_of(m, 1), kTie);
  EXPECT_EQ(verdict_of(m, 2), kInvalid);

  const ItemMatrix three = load_text("judge,item,gold,verdict\nj,i1,A,tie\nj,i2,B,B\nj,i3,C,C\n");
  EXPECT_EQ(three.n_labels(), 3);
  EXPECT_EQ(verdict_of(three, 0), kInvalid);
}

// --- Label set -------------------------------------------------------------------------------

TEST(LoadLabels, ProbabilityColumnsThenGoldByFirstAppearance) {
  const ItemMatrix m = load_text(
      "judge,item,gold,verdict,p.B,p.A\n"
      "j,i1,C,C,,\nj,i2,A,A,0.1,0.9\nj,i3,D,D,,\n");
  EXPECT_EQ(m.labels, (std::vector<std::string>{"B", "A", "C", "D"}));
  EXPECT_EQ(m.gold, (std::vector<int32_t>{2, 1, 3}));
  EXPECT_DOUBLE_EQ(m.probs_of(m.cell(0, 1, 0, 0))[1], 0.9);  // p.A lands in label A's slot
}

TEST(LoadLabels, ExplicitLabelsFixTheSetAndOrder) {
  LoadOptions options;
  options.labels = {"B", "A", "C"};
  const ItemMatrix m = load_text("judge,item,gold,verdict\nj,i1,A,C\nj,i2,A,D\n", ".csv", options);
  EXPECT_EQ(m.labels, options.labels);
  EXPECT_EQ(m.gold, (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(verdict_of(m, 0), 2);
  EXPECT_EQ(verdict_of(m, 1), kInvalid);  // D is outside --labels
}

// --- Pivot -----------------------------------------------------------------------------------

TEST(LoadPivot, CellsLinesAndItemColumns) {
  const ItemMatrix m = load_text(
      "judge,item,gold,verdict,cluster,benchmark,condition,order,variant,p.A,p.B,fee_usd,flag\n"
      "j1,i1,A,A,q1,b1,factual,0,plain,0.9,0.1,0.01,0\n"
      "j1,i1,A,B,q1,b1,factual,1,plain,0.2,0.8,,1\n"
      "j2,i2,B,B,q1,b2,logical,0,polished,,,,\n");
  EXPECT_EQ(m.judges, (std::vector<std::string>{"j1", "j2"}));
  EXPECT_EQ(m.items, (std::vector<std::string>{"i1", "i2"}));
  EXPECT_EQ(m.clusters, (std::vector<std::string>{"q1"}));
  EXPECT_EQ(m.item_cluster, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(m.item_benchmark, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.conditions, (std::vector<std::string>{"factual", "logical"}));
  EXPECT_EQ(m.item_flag, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.n_variants(), 2);
  ASSERT_EQ(m.verdict.size(), 2u * 2 * 2 * 2);
  ASSERT_EQ(m.prob.size(), m.verdict.size() * 2);

  const size_t first = m.cell(0, 0, 0, 0), swapped = m.cell(0, 0, 1, 0);
  EXPECT_EQ(m.verdict[first], 0);
  EXPECT_EQ(m.line[first], 2);
  EXPECT_EQ(m.verdict[swapped], 1);
  EXPECT_EQ(m.line[swapped], 3);
  EXPECT_DOUBLE_EQ(m.probs_of(swapped)[1], 0.8);
  EXPECT_DOUBLE_EQ(m.fee[first], 0.01);
  EXPECT_TRUE(std::isnan(m.fee[swapped]));
  EXPECT_TRUE(std::isnan(m.latency[first]));
  EXPECT_TRUE(m.has_probs && m.has_fee);
  EXPECT_FALSE(m.has_latency || m.has_rationale);

  const size_t polished = m.cell(1, 1, 0, m.variant_index("polished"));
  EXPECT_EQ(m.verdict[polished], 1);
  EXPECT_TRUE(std::isnan(m.probs_of(polished)[0]));
  EXPECT_FALSE(m.present(m.cell(1, 0, 0, 0)));
  EXPECT_EQ(m.line[m.cell(1, 0, 0, 0)], 0);
  EXPECT_EQ(m.variant_index("padded"), -1);
}

TEST(LoadPivot, JudgeIndexNamesTheJudgesWhenAbsent) {
  const ItemMatrix m = load_text("judge,item,gold,verdict\nalpha,i1,A,A\nbeta,i1,A,B\n");
  EXPECT_EQ(m.judge_index("beta"), 1);
  try {
    m.judge_index("gamma");
    FAIL() << "expected UsageError";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("gamma"), std::string::npos) << message;
    EXPECT_NE(message.find("alpha, beta"), std::string::npos) << message;
  }
}

TEST(LoadPivot, BuildFromRecordsInCode) {
  Record record;
  record.judge = "j";
  record.item = "i";
  record.gold = "A";
  record.verdict = "A";
  record.verdict_given = true;
  record.line = 7;
  const ItemMatrix m = build_item_matrix({record}, "in-memory");
  EXPECT_EQ(m.benchmarks, (std::vector<std::string>{"default"}));
  EXPECT_EQ(m.variants, (std::vector<std::string>{"plain"}));
  EXPECT_EQ(m.line[0], 7);
  EXPECT_THROW(build_item_matrix({}, "in-memory"), InputError);
}

/// Equal vectors of doubles, NaN equal to NaN.
void expect_same_values(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_TRUE(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))
        << what << "[" << k << "]: " << a[k] << " vs " << b[k];
  }
}

void expect_same_matrix(const ItemMatrix& a, const ItemMatrix& b) {
  EXPECT_EQ(a.records, b.records);
  EXPECT_EQ(a.invalid, b.invalid);
  EXPECT_EQ(a.judges, b.judges);
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.clusters, b.clusters);
  EXPECT_EQ(a.benchmarks, b.benchmarks);
  EXPECT_EQ(a.conditions, b.conditions);
  EXPECT_EQ(a.variants, b.variants);
  EXPECT_EQ(a.orders, b.orders);
  EXPECT_EQ(a.has_probs, b.has_probs);
  EXPECT_EQ(a.has_fee, b.has_fee);
  EXPECT_EQ(a.has_latency, b.has_latency);
  EXPECT_EQ(a.has_rationale, b.has_rationale);
  EXPECT_EQ(a.gold, b.gold);
  EXPECT_EQ(a.item_cluster, b.item_cluster);
  EXPECT_EQ(a.item_benchmark, b.item_benchmark);
  EXPECT_EQ(a.item_condition, b.item_condition);
  EXPECT_EQ(a.item_flag, b.item_flag);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.line, b.line);
  expect_same_values(a.prob, b.prob, "prob");
  expect_same_values(a.fee, b.fee, "fee");
  expect_same_values(a.latency, b.latency, "latency");
  expect_same_values(a.rationale_ok, b.rationale_ok, "rationale_ok");
}

TEST(LoadPivot, CsvRowsAndRecordsPivotAlike) {
  // load_item_matrix numbers a CSV file's rows as it reads them; build_item_matrix numbers
  // Records. Quoted names with doubled quotes outlive the row they were read from.
  const std::string path = write_temp(
      "judge,item,gold,verdict,cluster,benchmark,condition,order,variant,p.A,p.B,fee_usd,"
      "latency_s,rationale_ok,flag\n"
      "\"say \"\"hi\"\"\",i1,A,A,c1,,x,0,,0.9,0.1,0.01,1.5,1,\n"
      "\"say \"\"hi\"\"\",i1,A,tie,c1,,x,1,,0.5,0.5,,,0,1\n"
      "j2,\"i,2\",B,null,,bench,,0,padded,,,,,,\n"
      "j2,i3,B,B,c1,bench,y,0,,nan,0.2,,,,\n"
      "\"say \"\"hi\"\"\",\"i,2\",B,A,,bench,,0,padded,0.6,0.4,,,,0\n");
  for (const LoadOptions& options : {LoadOptions{}, LoadOptions{{"B", "A", "C"}}}) {
    const ItemMatrix from_rows = load_item_matrix(path, options);
    const ItemMatrix from_records = build_item_matrix(read_records(path), path, options);
    expect_same_matrix(from_rows, from_records);
    EXPECT_EQ(from_rows.judges, (std::vector<std::string>{"say \"hi\"", "j2"}));
    EXPECT_EQ(from_rows.items, (std::vector<std::string>{"i1", "i,2", "i3"}));
    EXPECT_EQ(from_rows.clusters, (std::vector<std::string>{"c1", "i,2"}));
    EXPECT_EQ(from_rows.item_cluster, (std::vector<int32_t>{0, 1, 0}));
    EXPECT_EQ(from_rows.variants, (std::vector<std::string>{"plain", "padded"}));
    // The null verdict and the NaN probability; "tie" too when there are three labels.
    EXPECT_EQ(from_rows.invalid, options.labels.empty() ? 2 : 3);
  }
}

TEST(LoadBadInput, FieldErrorsComeBeforeDisagreementsBetweenRecords) {
  // Every row is read and checked before records are checked against each other, so a bad
  // field is reported even when an earlier row repeats a record.
  expect_bad_input("judge,item,gold,verdict,fee_usd\nj,i1,A,A,\nj,i1,A,A,\nj,i2,A,A,cheap\n", 4, "'fee_usd'",
                   "non-negative number");
  const std::string path = write_temp("judge,item,gold,verdict,fee_usd\nj,i1,A,A,\nj,i1,A,A,\nj,i2,A,A,0.5\n");
  EXPECT_NE(load_error(path).find(path + ":3: columns 'judge','item','order','variant'"), std::string::npos);
}

// --- Bundled data ----------------------------------------------------------------------------

int64_t data_rows(const std::string& path) {
  const std::string text = read_file(path);
  return static_cast<int64_t>(std::count(text.begin(), text.end(), '\n')) - 1;
}

TEST(LoadBundled, JudgeBenchGpt4oSplit) {
  const std::string path = judgestat::testing_support::kRoot + "/data/judgebench/gpt4o_split.csv";
  const ItemMatrix m = load_item_matrix(path);
  EXPECT_EQ(m.records, data_rows(path));
  EXPECT_EQ(m.records, 4200);
  EXPECT_EQ(m.n_judges(), 6);
  EXPECT_EQ(m.n_items(), 350);
  EXPECT_EQ(m.orders, 2);
  EXPECT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(m.benchmarks, (std::vector<std::string>{"mmlu", "livebench", "livecodebench"}));
  EXPECT_TRUE(m.has_probs);
  EXPECT_EQ(m.invalid, 0);
  EXPECT_EQ(std::count(m.verdict.begin(), m.verdict.end(), kTie), 44);  // o1-mini's A=B
  EXPECT_EQ(m.sha256, sha256_hex(read_file(path)));
}

TEST(LoadBundled, LlmBarNaturalNeighbor) {
  const std::string path = judgestat::testing_support::kRoot + "/data/llmbar/natural_neighbor.csv";
  const ItemMatrix m = load_item_matrix(path);
  EXPECT_EQ(m.records, data_rows(path));
  EXPECT_EQ(m.records, 30420);
  EXPECT_EQ(m.n_judges(), 65);
  EXPECT_EQ(m.n_items(), 234);
  EXPECT_EQ(m.conditions, (std::vector<std::string>{"Natural", "Neighbor"}));
  EXPECT_FALSE(m.has_probs);
  EXPECT_EQ(m.invalid, 51);  // LLMBar outputs without a parsable winner
}

// --- The loader's steps, called directly -----------------------------------------------------

TEST(LoadSteps, FormatByExtension) {
  using loading::Format;
  EXPECT_EQ(loading::format_of("-"), Format::kCsv);
  EXPECT_EQ(loading::format_of("runs/a.CSV"), Format::kCsv);
  EXPECT_EQ(loading::format_of("a.jsonl"), Format::kJsonl);
  EXPECT_EQ(loading::format_of("a.Json"), Format::kJsonl);
  try {
    loading::format_of("runs.csv/records");
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown file type (no extension)"), std::string::npos) << error.what();
  }
}

TEST(LoadSteps, NumberingByFirstAppearanceWithDefaults) {
  const std::string text = std::string(kHeader) +
                           "j1,i1,A,A,0.9,0.1\n"
                           "j2,i1,A,B,,\n"
                           "j1,i2,B,,,\n";
  const loading::NumberedRecords numbered = loading::number_csv(text, "t.csv");
  ASSERT_EQ(numbered.records.size(), 3u);
  EXPECT_EQ(numbered.judges.names(), (std::vector<std::string>{"j1", "j2"}));
  EXPECT_EQ(numbered.items.names(), (std::vector<std::string>{"i1", "i2"}));
  EXPECT_EQ(numbered.clusters.names(), (std::vector<std::string>{"i1", "i2"}));  // item's own
  EXPECT_EQ(numbered.benchmarks.names(), (std::vector<std::string>{"default"}));
  EXPECT_EQ(numbered.variants.names(), (std::vector<std::string>{"plain"}));
  EXPECT_EQ(numbered.prob_label_lists, (std::vector<std::vector<std::string>>{{"A", "B"}}));
  EXPECT_EQ(numbered.records[1].verdict, 1);
  EXPECT_EQ(numbered.records[2].verdict, -1);  // empty: not given
  EXPECT_EQ(numbered.records[2].line, 4);
  // One list of two labels: record k's probabilities are probs[2k], probs[2k + 1].
  ASSERT_EQ(numbered.probs.size(), 6u);
  EXPECT_DOUBLE_EQ(numbered.probs[0], 0.9);
  EXPECT_DOUBLE_EQ(numbered.probs[1], 0.1);
  EXPECT_TRUE(std::isnan(numbered.probs[2]));
  // Item-level columns are kept once per item, from its first record.
  ASSERT_EQ(numbered.item_columns.size(), 2u);
  EXPECT_EQ(numbered.item_columns[1].first_record, 2u);
  EXPECT_EQ(numbered.golds.name(numbered.item_columns[1].gold), "B");
}

TEST(LoadSteps, VerdictCodeOnNumberedRecord) {
  loading::NumberedRecord record{};
  const std::vector<int32_t> slots{0, 1};
  const loading::VerdictMeaning a{0, false}, b{1, false}, tie{-1, true};
  const double top_a[] = {0.8, 0.2}, even[] = {0.5, 0.5}, off_sum[] = {0.8, 0.3};
  const double none[] = {kMissing, kMissing};
  EXPECT_EQ(loading::verdict_code(record, top_a, slots, &a, 2), 0);
  EXPECT_EQ(loading::verdict_code(record, top_a, slots, &b, 2), kInvalid);  // not the top label
  EXPECT_EQ(loading::verdict_code(record, off_sum, slots, &a, 2), kInvalid);
  EXPECT_EQ(loading::verdict_code(record, none, slots, &b, 2), 1);
  EXPECT_EQ(loading::verdict_code(record, none, slots, nullptr, 2), kInvalid);
  EXPECT_EQ(loading::verdict_code(record, even, slots, &tie, 2), kTie);
  EXPECT_EQ(loading::verdict_code(record, top_a, slots, &tie, 2), kInvalid);
  EXPECT_EQ(loading::verdict_code(record, none, slots, &tie, 3), kInvalid);  // ties: pairs only
  record.nan_probability = true;
  EXPECT_EQ(loading::verdict_code(record, none, slots, &a, 2), kInvalid);
}

}  // namespace
}  // namespace judgestat
