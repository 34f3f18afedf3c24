// The quick JSONL row scan of import maps (host/sources/map_scan.cpp, issue 29 item 5): a plain
// line gives exactly nlohmann's document (types included) even into the previous line's storage;
// anything else is left to nlohmann, so errors still name the file's line.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "sources/import_map.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using mapping::Json;
using testing_support::contains;
using testing_support::temp_path;
using testing_support::thrown_message;
using testing_support::write_temp;

// Equal values of equal types all the way down (nlohmann's == takes 1u and 1 as equal).
bool same_document(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto m = a.begin(); m != a.end(); ++m)
      if (!b.contains(m.key()) || !same_document(*m, b.at(m.key()))) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_document(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

TEST(ImportMapScan, PlainLinesGiveNlohmannsDocumentIntoTheLastLinesStorage) {
  // One document reused line after line: keys come and go, arrays grow and shrink, types change.
  const std::vector<std::string> lines = {
      R"({"id": "q1", "judge": "j", "games": [{"score": "A>B"}, {"score": "B>A"}], "gold": "A"})",
      R"({"id": "q2", "judge": "j", "games": [{"score": "A>B"}]})",
      R"(  {"id":7,"judge":{"name":"k","seed":-3},"games":[],"gold":null}	)",
      R"({"id": -0, "judge": "j", "games": [[1, 2, [true, false, null]], {}], "x": {"y": {"z": 123456789012345678}}})",
      "{\"a\": 1, \"b\" : [ ] }\r",
      R"({})",
      R"({"id": "q3", "games": {"score": "A"}, "gold": [1]})",
  };
  Json row;
  for (const std::string& line : lines) {
    ASSERT_TRUE(mapping::scan_plain_row(line, row)) << line;
    EXPECT_TRUE(same_document(row, Json::parse(line))) << line << "\ngot " << row.dump();
  }
  EXPECT_TRUE(row["id"].is_string());
  Json integers;
  ASSERT_TRUE(mapping::scan_plain_row(R"({"u": 5, "i": -5})", integers));
  EXPECT_TRUE(integers["u"].is_number_unsigned());  // as nlohmann writes a number without '-'
  EXPECT_TRUE(integers["i"].is_number_integer());
}

TEST(ImportMapScan, UnusualLinesAreLeftToNlohmann) {
  const std::string deep = "{\"a\": " + std::string(300, '[') + std::string(300, ']') + "}";
  for (const std::string& line :
       {std::string(R"({"a": "say \"hi\""})"), std::string("{\"a\": \"n\xC3\xA9\"}"), std::string(R"({"a": 0.5})"),
        std::string(R"({"a": 1e3})"), std::string(R"({"a": 1234567890123456789})"), std::string(R"({"a": 01})"),
        std::string(R"({"a": 1,})"), std::string(R"({"a": 1 "b": 2})"), std::string(R"([1])"),
        std::string(R"({"a": 1} x)"), std::string(R"({"a": "open)"), std::string(R"({"a": tru})"),
        std::string("\xEF\xBB\xBF{\"a\": 1}"), std::string("{\"a\": \"tab\there\"}"), deep,
        std::string(R"({"a": 1, "a": "twice"})"), std::string(R"({"x": [{"b": 1, "c": 2, "b": 3}]})")}) {
    Json row;
    EXPECT_FALSE(mapping::scan_plain_row(line, row)) << line;
  }
}

const char* const kMap = R"({"input": "jsonl",
  "fields": {"judge": "judge", "item": "id", "verdict": "v", "gold": {"path": "g", "default": ""}}})";

TEST(ImportMapScan, MappedRowsMixQuickAndNlohmannLinesAndErrorsNameTheLine) {
  const std::string map = write_temp("scan_map.json", kMap);
  // Line 2 drops "g" that line 1 gave (the default, not line 1's value); line 3 has an escape and
  // line 4 a byte outside ASCII (nlohmann reads them); line 5 is plain again.
  const std::string log = write_temp("scan_log.jsonl", R"({"judge": "j", "id": "1", "v": "A", "g": "A"})"
                                                       "\n"
                                                       R"({"judge": "j", "id": "2", "v": "B"})"
                                                       "\n"
                                                       R"({"judge": "j\u0031", "id": "3", "v": "A", "g": "B"})"
                                                       "\n"
                                                       "{\"judge\": \"j\", \"id\": \"n\xC3\xA9\", \"v\": \"tie\"}\n"
                                                       R"({"judge": "j", "id": 5, "v": "B", "g": "B"})"
                                                       "\n");
  EXPECT_EQ(mapped_records_csv(map, {log}),
            "judge,item,gold,verdict\nj,1,A,A\nj,2,,B\nj1,3,B,A\nj,n\xC3\xA9,,tie\nj,5,B,B\n");
  const std::string broken = write_temp("scan_broken.jsonl", R"({"judge": "j", "id": "1", "v": "A"})"
                                                             "\n\n"
                                                             R"({"judge": "j", "id": "2", "v": })"
                                                             "\n");
  const std::string message = thrown_message<InputError>([&] { mapped_records_csv(map, {broken}); });
  EXPECT_EQ(message.rfind(broken + ":3: column ", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "malformed JSON")) << message;
  const std::string deep = write_temp("scan_deep.jsonl", R"({"judge": "j", "id": "1", "v": "A"})"
                                                         "\n{\"judge\": " +
                                                             std::string(300, '[') + std::string(300, ']') + "}\n");
  const std::string too_deep = thrown_message<InputError>([&] { mapped_records_csv(map, {deep}); });
  EXPECT_EQ(too_deep.rfind(deep + ":2: column ", 0), 0u) << too_deep;
  EXPECT_TRUE(contains(too_deep, "deeper than 256")) << too_deep;
}

TEST(ImportMapScan, AKeyGivenTwiceIsAnErrorNamingLineAndKeyOnBothPaths) {
  const std::string map = write_temp("scan_map.json", kMap);
  auto error_of = [&](const std::string& lines) {
    const std::string log = write_temp("scan_twice.jsonl", lines);
    return thrown_message<InputError>([&] { mapped_records_csv(map, {log}); });
  };
  const std::string log = temp_path("scan_twice.jsonl");
  const std::string first = R"({"judge": "j", "id": "1", "v": "A"})"
                            "\n";
  // Plain text (the quick scan), then with an escape (nlohmann's reading), then nested.
  EXPECT_EQ(error_of(first + R"({"judge": "g", "id": "2", "v": "A", "judge": "h"})"
                             "\n"),
            log + ":2: key \"judge\" occurs twice in one object; give each key once");
  EXPECT_EQ(error_of(first + first +
                     R"({"judge": "g\u0031", "v": "B", "id": "2", "v": "A"})"
                     "\n"),
            log + ":3: key \"v\" occurs twice in one object; give each key once");
  EXPECT_EQ(error_of(R"({"judge": "j", "id": "1", "v": "A", "meta": {"seed": 1, "seed": 2}})"
                     "\n"),
            log + ":1: key \"seed\" occurs twice in one object; give each key once");
  // The same key in two objects is no repeat.
  const std::string fine = write_temp("scan_fine.jsonl", R"({"judge": "j", "id": "1", "v": "A", "m": {"v": "\u0042"}})"
                                                         "\n");
  EXPECT_EQ(mapped_records_csv(map, {fine}), "judge,item,gold,verdict\nj,1,,A\n");
}

}  // namespace
}  // namespace judgestat
