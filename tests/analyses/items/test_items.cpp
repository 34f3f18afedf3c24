// The per-item table (docs/statistics.md §7.4) on hand-built records: every cell of the table
// worked out by hand, the rows `disagree` keeps, q as the order-averaged top probability
// (JEV Eq. 1), the adjudicated column (§7.2), variants as rows, and the CSV / JSONL writers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judgestat/items.hpp"
#include "judgestat/records.hpp"
#include "test_support.hpp"

using namespace judgestat;

namespace {

using namespace judgestat::testing_support;

// Three judges, two orders, labels A/B. J1 has probabilities; J1's i4 order 0 says A while its
// probabilities favour B (invalid); J2 says `tie` on i3 order 0 (valid, wrong) and has no
// order-0 record for i4. i4 has no cluster (it is its own), i3 no condition.
const char* const kThreeJudges =
    "judge,item,cluster,benchmark,condition,gold,order,verdict,p.A,p.B\n"
    "J1,i1,c1,bx,factual,A,0,A,0.9,0.1\n"
    "J1,i1,c1,bx,factual,A,1,A,0.7,0.3\n"
    "J1,i2,c1,bx,logical,B,0,A,0.6,0.4\n"
    "J1,i2,c1,bx,logical,B,1,B,0.2,0.8\n"
    "J1,i3,c2,by,,A,0,A,0.55,0.45\n"
    "J1,i3,c2,by,,A,1,B,0.3,0.7\n"
    "J1,i4,,by,factual,B,0,A,0.2,0.8\n"
    "J1,i4,,by,factual,B,1,B,0.1,0.9\n"
    "J1,i5,c3,bx,logical,A,0,B,0.3,0.7\n"
    "J1,i5,c3,bx,logical,A,1,B,0.4,0.6\n"
    "J2,i1,c1,bx,factual,A,0,A,,\n"
    "J2,i1,c1,bx,factual,A,1,B,,\n"
    "J2,i2,c1,bx,logical,B,0,B,,\n"
    "J2,i2,c1,bx,logical,B,1,B,,\n"
    "J2,i3,c2,by,,A,0,tie,,\n"
    "J2,i3,c2,by,,A,1,A,,\n"
    "J2,i4,,by,factual,B,1,B,,\n"
    "J2,i5,c3,bx,logical,A,0,B,,\n"
    "J2,i5,c3,bx,logical,A,1,A,,\n"
    "J3,i1,c1,bx,factual,A,0,A,,\n"
    "J3,i1,c1,bx,factual,A,1,A,,\n"
    "J3,i2,c1,bx,logical,B,0,B,,\n"
    "J3,i2,c1,bx,logical,B,1,A,,\n"
    "J3,i3,c2,by,,A,0,A,,\n"
    "J3,i3,c2,by,,A,1,A,,\n"
    "J3,i4,,by,factual,B,0,B,,\n"
    "J3,i4,,by,factual,B,1,B,,\n"
    "J3,i5,c3,bx,logical,A,0,B,,\n"
    "J3,i5,c3,bx,logical,A,1,B,,\n";

const ItemsValue N{};  // null
ItemsValue S(const char* text) { return std::string(text); }
ItemsValue D(double value) { return value; }

// JEV Eq. 1 for two orders with probabilities (pA0, pB0) and (pA1, pB1): q = the larger label
// average.
double averaged_q(double pa0, double pb0, double pa1, double pb1) { return std::max((pa0 + pa1) / 2, (pb0 + pb1) / 2); }

std::string describe(const ItemsValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return "\"" + *s + "\"";
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return "null";
}

void expect_table(const ItemsReport& report, const std::vector<std::string>& columns,
                  const std::vector<std::vector<ItemsValue>>& rows) {
  ASSERT_EQ(report.columns, columns);
  ASSERT_EQ(report.rows.size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(report.rows[r].size(), columns.size()) << "row " << r;
    for (size_t c = 0; c < columns.size(); ++c)
      EXPECT_TRUE(report.rows[r][c] == rows[r][c])
          << "row " << r << " column " << columns[c] << ": got " << describe(report.rows[r][c]) << ", expected "
          << describe(rows[r][c]);
  }
}

const std::vector<std::string> kColumns = {
    "item",        "cluster",     "benchmark",     "condition",     "gold",          "J1.verdict0", "J1.correct0",
    "J1.verdict1", "J1.correct1", "J1.pa",         "J1.q",          "J1.consistent", "J2.verdict0", "J2.correct0",
    "J2.verdict1", "J2.correct1", "J2.pa",         "J2.consistent", "J3.verdict0",   "J3.correct0", "J3.verdict1",
    "J3.correct1", "J3.pa",       "J3.consistent", "wrong0"};

// The whole table, worked out by hand from kThreeJudges.
std::vector<std::vector<ItemsValue>> expected_rows() {
  return {
      // i1: every judge right in order 0; J2 flips to B.
      {S("i1"), S("c1"), S("bx"), S("factual"), S("A"),  //
       S("A"),  D(1),    S("A"),  D(1),         D(1),   D(averaged_q(0.9, 0.1, 0.7, 0.3)),
       D(1),                                                   // J1
       S("A"),  D(1),    S("B"),  D(0),         D(0.5), D(0),  // J2
       S("A"),  D(1),    S("A"),  D(1),         D(1),   D(1),  // J3
       D(0)},
      // i2: J1 wrong in order 0.
      {S("i2"), S("c1"), S("bx"), S("logical"), S("B"),  //
       S("A"),  D(0),    S("B"),  D(1),         D(0.5), D(averaged_q(0.6, 0.4, 0.2, 0.8)),
       D(0),                                                   // J1
       S("B"),  D(1),    S("B"),  D(1),         D(1),   D(1),  // J2
       S("B"),  D(1),    S("A"),  D(0),         D(0.5), D(0),  // J3
       D(1)},
      // i3: no condition; J2's tie is valid but wrong.
      {S("i3"),  S("c2"), S("by"), N,    S("A"),  //
       S("A"),   D(1),    S("B"),  D(0), D(0.5), D(averaged_q(0.55, 0.45, 0.3, 0.7)),
       D(0),                                            // J1
       S("tie"), D(0),    S("A"),  D(1), D(0.5), D(0),  // J2
       S("A"),   D(1),    S("A"),  D(1), D(1),   D(1),  // J3
       D(1)},
      // i4: its own cluster; J1 invalid in order 0 (q from order 1 alone, pa ½, not
      // consistent); J2 has no order-0 record (pa from order 1, consistency undefined, not
      // counted in wrong0).
      {S("i4"),
       S("i4"),
       S("by"),
       S("factual"),
       S("B"),  //
       S("invalid"),
       D(0),
       S("B"),
       D(1),
       D(0.5),
       D(0.9),
       D(0),  // J1
       N,
       N,
       S("B"),
       D(1),
       D(1),
       N,  // J2
       S("B"),
       D(1),
       S("B"),
       D(1),
       D(1),
       D(1),  // J3
       D(1)},
      // i5: every judge wrong in order 0, all saying B.
      {S("i5"), S("c3"), S("bx"), S("logical"), S("A"),  //
       S("B"),  D(0),    S("B"),  D(0),         D(0),   D(averaged_q(0.3, 0.7, 0.4, 0.6)),
       D(1),                                                   // J1
       S("B"),  D(0),    S("A"),  D(1),         D(0.5), D(0),  // J2
       S("B"),  D(0),    S("B"),  D(0),         D(0),   D(1),  // J3
       D(3)},
  };
}

ItemMatrix three_judges() { return load_item_matrix(write_temp("three.csv", kThreeJudges)); }

std::vector<std::string> first_column(const ItemsReport& report) {
  std::vector<std::string> items;
  for (const auto& row : report.rows) items.push_back(std::get<std::string>(row[0]));
  return items;
}

}  // namespace

TEST(Items, EveryCellOfTheHandBuiltTable) {
  const ItemMatrix matrix = three_judges();
  ASSERT_EQ(matrix.invalid, 1);  // J1's i4 order 0
  const ItemsReport report = run_items(matrix, {});
  expect_table(report, kColumns, expected_rows());
  EXPECT_EQ(report.column("adjudicated"), -1);  // the file has no adjudicated column
  EXPECT_EQ(report.column("J2.q"), -1);         // J2 has no probabilities
  // Order 0: i2 (A, B, B), i3 (A, tie, A), i4 (invalid, —, B) differ; i1 and i5 agree.
  EXPECT_EQ(report.disagreeing, 3);
}

TEST(Items, QIsTheOrderAveragedTopProbability) {
  const ItemsReport report = run_items(three_judges(), {});
  const int32_t q = report.column("J1.q");
  ASSERT_GE(q, 0);
  // i3: A averages (0.55 + 0.3) / 2 = 0.425, B (0.45 + 0.7) / 2 = 0.575: q = 0.575, though
  // neither order's own top probability (0.55, 0.7) is that.
  EXPECT_DOUBLE_EQ(std::get<double>(report.rows[2][q]), 0.575);
  EXPECT_EQ(std::get<double>(report.rows[2][q]), averaged_q(0.55, 0.45, 0.3, 0.7));
  // i4: order 0 is invalid, so only order 1's (0.1, 0.9) counts.
  EXPECT_EQ(std::get<double>(report.rows[3][q]), 0.9);
}

TEST(Items, DisagreeKeepsTheItemsToAdjudicate) {
  const ItemMatrix matrix = three_judges();
  ItemsOptions options;
  options.disagree = true;
  ItemsReport report = run_items(matrix, options);
  EXPECT_EQ(first_column(report), (std::vector<std::string>{"i2", "i3", "i4"}));
  EXPECT_EQ(report.disagreeing, 3);
  const auto all = expected_rows();
  expect_table(report, kColumns, {all[1], all[2], all[3]});

  // J2 and J3 only: i3 (tie vs A) differs; on i4 J2 has no order-0 record, leaving J3 alone.
  options.judges = {"J2", "J3"};
  report = run_items(matrix, options);
  EXPECT_EQ(first_column(report), (std::vector<std::string>{"i3"}));
  EXPECT_EQ(report.disagreeing, 1);
}

TEST(Items, JudgeColumnsFollowTheSelectionOrder) {
  ItemsOptions options;
  options.judges = {"J3", "J1"};
  const ItemsReport report = run_items(three_judges(), options);
  const std::vector<std::string> columns = {
      "item",        "cluster",     "benchmark", "condition",     "gold",        "J3.verdict0", "J3.correct0",
      "J3.verdict1", "J3.correct1", "J3.pa",     "J3.consistent", "J1.verdict0", "J1.correct0", "J1.verdict1",
      "J1.correct1", "J1.pa",       "J1.q",      "J1.consistent", "wrong0"};
  ASSERT_EQ(report.columns, columns);
  // i5: both wrong in order 0.
  EXPECT_EQ(std::get<double>(report.rows[4].back()), 2.0);
  // i4: J1 invalid: 1 wrong.
  EXPECT_EQ(std::get<double>(report.rows[3].back()), 1.0);
}

TEST(Items, FiltersSelectItems) {
  ItemsOptions options;
  options.benchmarks = {"by"};
  ItemsReport report = run_items(three_judges(), options);
  EXPECT_EQ(first_column(report), (std::vector<std::string>{"i3", "i4"}));
  options.benchmarks.clear();
  options.conditions = {"logical"};
  report = run_items(three_judges(), options);
  EXPECT_EQ(first_column(report), (std::vector<std::string>{"i2", "i5"}));
}

TEST(Items, AdjudicatedColumnWhenTheMatrixHasOne) {
  ItemMatrix matrix = three_judges();
  const auto label = [&](const std::string& name) {
    return static_cast<int32_t>(std::find(matrix.labels.begin(), matrix.labels.end(), name) - matrix.labels.begin());
  };
  // Filled by hand, as the loader would from an `adjudicated` column.
  matrix.has_adjudicated = true;
  matrix.item_adjudicated = {kNotAdjudicated, label("B"), kIndecisive, label("A"), kNotAdjudicated};
  const ItemsReport report = run_items(matrix, {});
  ASSERT_EQ(report.column("adjudicated"), 5);  // right after gold
  EXPECT_EQ(report.column("J1.verdict0"), 6);
  const std::vector<ItemsValue> expected = {N, S("B"), S("indecisive"), S("A"), N};
  for (size_t r = 0; r < expected.size(); ++r)
    EXPECT_TRUE(report.rows[r][5] == expected[r]) << "row " << r << ": " << describe(report.rows[r][5]);
  EXPECT_EQ(items_csv(report).substr(0, 40), "item,cluster,benchmark,condition,gold,ad");
}

TEST(Items, ClearErrors) {
  const ItemMatrix matrix = three_judges();
  ItemsOptions options;
  options.disagree = true;
  options.judges = {"J1"};
  try {
    run_items(matrix, options);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("disagree: needs at least two judges", 0), 0u) << e.what();
  }
  options.judges = {"J1", "J1"};
  EXPECT_THROW(run_items(matrix, options), std::invalid_argument);
  options.judges = {"nobody"};
  EXPECT_THROW(run_items(matrix, options), UsageError);
  options = {};
  options.variants = {"polished"};
  EXPECT_THROW(run_items(matrix, options), std::invalid_argument);
}

namespace {

// One order, two variants: rows are (item, variant) with a variant column; an item id with a
// comma and quotes; K2's empty verdict is invalid.
const char* const kVariants =
    "judge,item,variant,gold,verdict\n"
    "K1,x1,plain,A,A\n"
    "K1,x1,padded,A,B\n"
    "K2,x1,plain,A,A\n"
    "K2,x1,padded,A,\n"
    "K1,\"y,\"\"2\"\"\",plain,B,\n"
    "K2,\"y,\"\"2\"\"\",plain,B,\n";

}  // namespace

TEST(Items, VariantsAreRowsAndTheCsvQuotes) {
  const ItemMatrix matrix = load_item_matrix(write_temp("variants.csv", kVariants));
  ItemsReport report = run_items(matrix, {});
  const std::vector<std::string> columns = {"item",        "variant",     "cluster",     "benchmark", "condition",
                                            "gold",        "K1.verdict0", "K1.correct0", "K1.pa",     "K2.verdict0",
                                            "K2.correct0", "K2.pa",       "wrong0"};
  // (y, padded) has no record and no row. Two invalid verdicts match nothing: y disagrees.
  expect_table(
      report, columns,
      {{S("x1"), S("plain"), S("x1"), S("default"), N, S("A"), S("A"), D(1), D(1), S("A"), D(1), D(1), D(0)},
       {S("x1"), S("padded"), S("x1"), S("default"), N, S("A"), S("B"), D(0), D(0), S("invalid"), D(0), D(0), D(2)},
       {S("y,\"2\""), S("plain"), S("y,\"2\""), S("default"), N, S("B"), S("invalid"), D(0), D(0), S("invalid"), D(0),
        D(0), D(2)}});
  EXPECT_EQ(report.disagreeing, 2);
  EXPECT_EQ(items_csv(report),
            "item,variant,cluster,benchmark,condition,gold,K1.verdict0,K1.correct0,K1.pa,K2.verdict0,K2.correct0,"
            "K2.pa,wrong0\n"
            "x1,plain,x1,default,,A,A,1,1,A,1,1,0\n"
            "x1,padded,x1,default,,A,B,0,0,invalid,0,0,2\n"
            "\"y,\"\"2\"\"\",plain,\"y,\"\"2\"\"\",default,,B,invalid,0,0,invalid,0,0,2\n");
  // One variant selected: one row per item, no variant column.
  ItemsOptions plain;
  plain.variants = {"plain"};
  report = run_items(matrix, plain);
  EXPECT_EQ(report.column("variant"), -1);
  EXPECT_EQ(first_column(report), (std::vector<std::string>{"x1", "y,\"2\""}));
}

TEST(Items, NumbersReadBackExactlyInCsvAndJsonl) {
  ItemsReport report;
  report.columns = {"item", "x", "y", "z"};
  report.rows = {{S("a"), D(1.0 / 3.0), D(0.1), N}, {S("b\"c"), D(2), D(1e-7), S("")}};
  EXPECT_EQ(items_csv(report), "item,x,y,z\na,0.3333333333333333,0.1,\n\"b\"\"c\",2,1e-07,\n");
  const std::string jsonl = items_jsonl(report);
  EXPECT_EQ(jsonl,
            "{\"item\":\"a\",\"x\":0.3333333333333333,\"y\":0.1,\"z\":null}\n"
            "{\"item\":\"b\\\"c\",\"x\":2,\"y\":1e-07,\"z\":\"\"}\n");
  const auto first = nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(first["x"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(std::strtod("0.3333333333333333", nullptr), 1.0 / 3.0);
}
