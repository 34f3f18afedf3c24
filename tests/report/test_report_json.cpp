// The JSON writer of the reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "report/report.hpp"

using namespace judgestat;

// docs/statistics.md §4's JSON writer: numbers as printf's %.17g (non-finite as null), strings as nlohmann
// writes them (escapes, UTF-8, invalid bytes replaced), short scalar arrays on one line.
TEST(ReportJson, NumbersStringsAndLayout) {
  std::mt19937_64 bits(5);
  for (int i = 0; i < 20000; ++i) {
    uint64_t word = bits();
    double v;
    std::memcpy(&v, &word, sizeof v);
    if (i % 2) v = static_cast<double>(word % 100000) / 10000.0;  // like a rounded probability
    char expected[40];
    std::snprintf(expected, sizeof expected, "%.17g", v);
    EXPECT_EQ(dump_json(Json(v)), std::isfinite(v) ? std::string(expected) : std::string("null")) << expected;
  }
  for (const std::string text : {"judge0", "", "say \"A\"", "back\\slash", "line\nbreak", "tab\there", "caf\xc3\xa9",
                                 "bad \xff byte", "del\x7f", "ctl\x01"})
    EXPECT_EQ(dump_json(Json(text)), Json(text).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace))
        << text;
  Json doc;
  doc["ci"] = {0.25, 0.5};
  doc["rows"] = Json::array({Json{{"q", 1.0}, {"s", "x"}}, 2});
  doc["empty"] = Json::object();
  doc["none"] = Json::array();
  EXPECT_EQ(dump_json(doc, 2),
            "{\n  \"ci\": [0.25, 0.5],\n  \"rows\": [\n    {\n      \"q\": 1,\n      \"s\": \"x\"\n    },\n"
            "    2\n  ],\n  \"empty\": {},\n  \"none\": []\n}");
  EXPECT_EQ(dump_json(doc), "{\"ci\":[0.25,0.5],\"rows\":[{\"q\":1,\"s\":\"x\"},2],\"empty\":{},\"none\":[]}");
}
