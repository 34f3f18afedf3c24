// Records through a map straight into the loader (issue 29 item 5): the matrix is the one its
// mapped CSV loads into, value for value, with each record at its log line and the log's own
// SHA-256; a value the CSV reader refuses names the log's place; a `json` document refuses a key
// given twice naming its line (item 3).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "records/input.hpp"
#include "records/sha256.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;
using testing_support::write_temp;

// Two games per line, the second swapped; probabilities, fee, latency and a covariate.
const char* const kMap = R"({
  "input": "jsonl", "each": "games",
  "fields": {
    "judge": "judge", "item": "id", "order": "$index", "gold": "gold",
    "verdict": {"path": "@.score", "values": {"A>B": "A", "B>A": "B", "A=B": "tie"}},
    "p.A": "@.pa", "p.B": {"linear": "@.pa", "scale": -1, "offset": 1},
    "fee_usd": "fee", "latency_s": {"linear": "ms", "scale": 0.001},
    "x.words": {"length": "text", "unit": "tokens"}
  },
  "swap": {"when": {"path": "$index", "equals": 1}, "labels": {"A": "B", "B": "A"}}
})";

std::string game_line(const std::string& judge, const std::string& id, const std::string& gold,
                      const std::string& first, const std::string& second, const std::string& fee) {
  return R"({"id": ")" + id + R"(", "judge": ")" + judge + R"(", "gold": ")" + gold + R"(", "games": [{"score": ")" +
         first + R"(", "pa": 0.75}, {"score": ")" + second + R"(", "pa": 0.25}], "fee": )" + fee +
         R"(, "ms": 1250, "text": "one, two \"three\""})" + "\n";
}

bool same_numbers(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))) return false;
  return true;
}

// Everything the pivot fills but the lines, which are the log's for the map and the CSV's for the CSV.
void expect_same_matrix(const ItemMatrix& mapped, const ItemMatrix& csv) {
  EXPECT_EQ(mapped.judges, csv.judges);
  EXPECT_EQ(mapped.items, csv.items);
  EXPECT_EQ(mapped.labels, csv.labels);
  EXPECT_EQ(mapped.gold, csv.gold);
  EXPECT_EQ(mapped.verdict, csv.verdict);
  EXPECT_EQ(mapped.orders, csv.orders);
  EXPECT_EQ(mapped.invalid, csv.invalid);
  EXPECT_TRUE(same_numbers(mapped.prob, csv.prob));
  EXPECT_TRUE(same_numbers(mapped.fee, csv.fee));
  EXPECT_TRUE(same_numbers(mapped.latency, csv.latency));
  ASSERT_EQ(mapped.covariates.size(), 1u);
  ASSERT_EQ(csv.covariates.size(), 1u);
  EXPECT_EQ(mapped.covariates[0].levels, csv.covariates[0].levels);
  EXPECT_EQ(mapped.covariates[0].cell_level, csv.covariates[0].cell_level);
}

TEST(MappedRecords, LoadIsTheMappedCsvsLoadAtTheLogsLines) {
  const std::string map = write_temp("records_map.json", kMap);
  const std::string log1 = write_temp("records_log1.jsonl", game_line("j1", "q1", "A", "A>B", "A>B", "0.002") +
                                                                game_line("j1", "q2", "B", "B>A", "A=B", "0.003"));
  const std::string log2 = write_temp("records_log2.jsonl", game_line("j2", "q1", "A", "B>A", "B>A", "0.001"));
  LoadOptions options;
  options.map = map;
  for (const std::vector<std::string>& logs : {std::vector<std::string>{log1}, std::vector<std::string>{log1, log2}}) {
    std::vector<std::string> digests;
    const ItemMatrix mapped = load_item_matrix(logs, options, &digests);
    const std::string csv = write_temp("records_mapped.csv", mapped_records_csv(map, logs));
    expect_same_matrix(mapped, load_item_matrix(csv, {}));
    // j1's q2 is the log's line 2, order 1 its second game; q1's first game reads A (label 0).
    // (A swapped game's verdict B beside its p.A 0.75 is invalid in both loads: verdict and
    // probabilities disagree.)
    const size_t q2_second = mapped.cell(0, 1, 1, 0);
    EXPECT_EQ(mapped.line[q2_second], 2);
    EXPECT_EQ(mapped.verdict[mapped.cell(0, 0, 0, 0)], 0);
    // Swapped, the second game's p.A (0.25) is canonical B's.
    EXPECT_EQ(mapped.probs_of(q2_second)[0], 0.75);
    ASSERT_EQ(digests.size(), logs.size());
    for (size_t f = 0; f < logs.size(); ++f) EXPECT_EQ(digests[f], sha256_hex(loading::read_bytes(logs[f])));
  }
}

TEST(MappedRecords, AValueTheCsvReaderRefusesNamesTheLogsPlace) {
  const std::string map = write_temp("records_bad_map.json", kMap);
  const std::string log = write_temp("records_bad.jsonl", game_line("j1", "q1", "A", "A>B", "A>B", "0.002") +
                                                              game_line("j1", "q2", "B", "B>A", "B>A", "-1"));
  LoadOptions options;
  options.map = map;
  // Line 2's first game is the third record; a negative fee is refused as in a records file.
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(log, options); });
  EXPECT_EQ(message.rfind(log + ":2 (mapped record 3): column 'fee_usd': ", 0), 0u) << message;
  options.item_column = "split";
  EXPECT_EQ(thrown_message<InputError>([&] {
              load_item_matrix(log, options);
            }).rfind(log + ":1: column 'split': the item-level column asked for is missing", 0),
            0u);
}

// A log of `lines` lines (about 190 bytes each), a blank line after every 97th; line `bad_fee`
// has a fee the CSV reader refuses, line `bad_score` a score the map's values lack (0: none).
std::string long_log(int lines, int bad_fee, int bad_score) {
  std::string log;
  int line = 1;
  for (int k = 0; line <= lines; ++k, ++line) {
    const std::string score = line == bad_score ? "C>D" : k % 3 ? "A>B" : "B>A";
    const std::string fee = line == bad_fee ? "\"x\"" : "0.001";
    log += game_line("j" + std::to_string(k % 5), "q" + std::to_string(k / 5), "AB"[(k / 5) % 2] + std::string(), score,
                     k % 7 ? "B>A" : "A>B", fee);
    if (k % 97 == 96 && line < lines) {
      log += "\n";
      ++line;
    }
  }
  return log;
}

// A log of several MiB is mapped in chunks on every hardware thread (map_records.cpp): its load is
// the one pass's (the mapped CSV, written by one pass), $row and $line counted across chunks, and
// the first error in the file is the one reported, whichever chunk meets an error first.
TEST(MappedRecords, ALongLogMapsInChunksAsInOnePass) {
  std::string map_text = kMap;
  map_text.replace(map_text.find("\"x.words\""), 0, R"("x.row": "$row", "x.line": "$line", )");
  const std::string map = write_temp("records_long_map.json", map_text);
  const std::string log = write_temp("records_long.jsonl", long_log(50000, 0, 0));
  ASSERT_GT(loading::read_bytes(log).size(), size_t{8} << 20);  // two windows of chunks on 2 threads
  LoadOptions options;
  options.map = map;
  const ItemMatrix mapped = load_item_matrix(log, options);
  const std::string csv = write_temp("records_long_mapped.csv", mapped_records_csv(map, {log}));
  const ItemMatrix loaded = load_item_matrix(csv, {});
  EXPECT_EQ(mapped.judges, loaded.judges);
  EXPECT_EQ(mapped.items, loaded.items);
  EXPECT_EQ(mapped.gold, loaded.gold);
  EXPECT_EQ(mapped.verdict, loaded.verdict);
  EXPECT_EQ(mapped.invalid, loaded.invalid);
  EXPECT_TRUE(same_numbers(mapped.prob, loaded.prob));
  ASSERT_EQ(mapped.covariates.size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(mapped.covariates[c].name, loaded.covariates[c].name);
    EXPECT_EQ(mapped.covariates[c].levels, loaded.covariates[c].levels);
    EXPECT_EQ(mapped.covariates[c].cell_level, loaded.covariates[c].cell_level);
  }
  // The last line (50,000) is the 49,490th row (510 blank lines before it): $row counts from 0.
  const Covariate& line = mapped.covariates[0].name == "line" ? mapped.covariates[0] : mapped.covariates[1];
  EXPECT_NE(std::find(line.levels.begin(), line.levels.end(), "50000"), line.levels.end());
  const Covariate& row = mapped.covariates[0].name == "row" ? mapped.covariates[0] : mapped.covariates[1];
  EXPECT_NE(std::find(row.levels.begin(), row.levels.end(), "49489"), row.levels.end());
  EXPECT_EQ(std::find(row.levels.begin(), row.levels.end(), "49490"), row.levels.end());

  // An early record the reader refuses wins over a later chunk's mapping error, and the other way.
  const std::string both = write_temp("records_long_both.jsonl", long_log(50000, 3000, 45000));
  EXPECT_EQ(
      thrown_message<InputError>([&] { load_item_matrix(both, options); }).rfind(both + ":3000 (mapped record ", 0),
      0u);
  const std::string late = write_temp("records_long_late.jsonl", long_log(50000, 45000, 3001));
  EXPECT_EQ(thrown_message<InputError>([&] { load_item_matrix(late, options); }),
            thrown_message<InputError>([&] { mapped_records_csv(map, {late}); }));
  EXPECT_EQ(thrown_message<InputError>([&] { load_item_matrix(late, options); }).rfind(late + ":3001: ", 0), 0u);
}

TEST(MappedRecords, JsonDocumentRefusesAKeyGivenTwiceNamingItsLine) {
  const std::string map =
      write_temp("records_json_map.json",
                 R"({"input": "json", "rows": "rows", "fields": {"judge": "j", "item": "id", "verdict": "v"}})");
  const std::string plain =
      write_temp("records_plain.json", "{\"rows\": [\n{\"j\": \"a\", \"id\": \"i1\", \"v\": \"A\"}\n]}");
  EXPECT_EQ(mapped_records_csv(map, {plain}), "judge,item,verdict\na,i1,A\n");
  const std::string twice = write_temp("records_twice.json",
                                       "{\"rows\": [\n{\"j\": \"a\", \"id\": \"i1\", \"v\": \"A\"},\n"
                                       "{\"j\": \"a\", \"id\": \"i2\",\n \"v\": \"A\", \"v\": \"B\"}\n]}");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {twice}); }),
            twice + ":4: key \"v\" occurs twice in one object; give each key once");
  // The same key spelled with an escape, in a nested object; equal keys in two objects are fine.
  const std::string escaped =
      write_temp("records_escaped.json",
                 "{\"rows\": [{\"j\": \"a\", \"id\": \"i1\", \"v\": \"A\", \"m\": {\"k\": 1}},\n"
                 "{\"j\": \"a\", \"id\": \"i2\", \"v\": \"A\", \"m\": {\"k\": 1, \"\\u006b\": 2}}]}");
  EXPECT_EQ(thrown_message<InputError>([&] { mapped_records_csv(map, {escaped}); }),
            escaped + ":2: key \"k\" occurs twice in one object; give each key once");
}

}  // namespace
}  // namespace judgestat
