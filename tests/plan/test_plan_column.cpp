// PlanColumn (judgestat/plan.hpp): every kind gives back exactly the double written, a column
// widens at its first value a signed byte cannot hold, and compile() gives the same CompiledPlan for a
// plan whose columns are narrow as for the same plan with every column stored as doubles (the
// representation before columns had kinds), field by field and bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "judgestat/plan.hpp"

using namespace judgestat;

namespace {

uint64_t bits(double v) {
  uint64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

// Whether the column reads back `expected` bit for bit (−0 stays −0, NaN stays that NaN).
void expect_bits(const PlanColumn& column, const std::vector<double>& expected) {
  ASSERT_EQ(column.size(), expected.size());
  const std::vector<double> values = column.values();
  for (size_t u = 0; u < expected.size(); ++u) {
    EXPECT_EQ(bits(column[u]), bits(expected[u])) << "value " << u;
    EXPECT_EQ(bits(values[u]), bits(expected[u])) << "values() " << u;
  }
}

TEST(PlanColumn, IntegersFromMinus128To127StayBytesAndReadBackExactly) {
  std::vector<double> counts(256);
  for (int v = 0; v < 256; ++v) counts[v] = v - 128;
  PlanColumn column(counts.size());
  EXPECT_EQ(column.kind(), PlanColumn::Kind::kByte);
  for (size_t u = 0; u < counts.size(); ++u) column.set(u, counts[u]);
  EXPECT_EQ(column.kind(), PlanColumn::Kind::kByte);
  expect_bits(column, counts);
  const PlanColumn assigned = counts;
  EXPECT_EQ(assigned.kind(), PlanColumn::Kind::kByte);
  expect_bits(assigned, counts);
}

TEST(PlanColumn, EveryOtherValueWidensToDoublesAndReadsBackExactly) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const double odd : {0.5, -0.5, -0.0, 128.0, 255.0, -129.0, 126.5, 1e300, 1e-300, nan, inf, -inf}) {
    // Counts before and after the value: those written before the widening survive it.
    const std::vector<double> expected{1, -1, 7, odd, 127, -128};
    PlanColumn column(expected.size());
    for (size_t u = 0; u < expected.size(); ++u) {
      column.set(u, expected[u]);
      EXPECT_EQ(column.kind(), u < 3 ? PlanColumn::Kind::kByte : PlanColumn::Kind::kDouble) << odd;
    }
    expect_bits(column, expected);
    const PlanColumn assigned = expected;
    EXPECT_EQ(assigned.kind(), PlanColumn::Kind::kDouble) << odd;
    expect_bits(assigned, expected);
  }
}

TEST(PlanColumn, WritesThroughIndexAddResizeFillAndCompareByValue) {
  PlanColumn column(3);
  column[0] = 2;
  column[1] += 0.25;  // 0 + 0.25: widens
  column[2] = column[0];
  expect_bits(column, {2, 0.25, 2});
  column.add(0, 1);
  column.resize(5);
  expect_bits(column, {3, 0.25, 2, 0, 0});

  PlanColumn narrow = std::vector<double>{0, 1, 2}, wide = narrow;
  wide.widen();
  EXPECT_EQ(narrow.kind(), PlanColumn::Kind::kByte);
  EXPECT_EQ(wide.kind(), PlanColumn::Kind::kDouble);
  EXPECT_TRUE(narrow == wide);  // the same values in either kind
  wide.set(2, 2.5);
  EXPECT_TRUE(narrow != wide);
  EXPECT_TRUE(PlanColumn(std::vector<double>{0.0}) == PlanColumn(std::vector<double>{-0.0}));  // as double's ==
  narrow.fill(1);
  expect_bits(narrow, {1, 1, 1});
  narrow.fill(-2);
  EXPECT_EQ(narrow.kind(), PlanColumn::Kind::kByte);
  expect_bits(narrow, {-2, -2, -2});
  narrow.fill(-2.5);
  EXPECT_EQ(narrow.kind(), PlanColumn::Kind::kDouble);
  expect_bits(narrow, {-2.5, -2.5, -2.5});
}

// A random plan: clusters in two strata, columns of each sort a builder writes (0/1, counts,
// halves, signed differences, reals, copies of another column), a ratio statistic per column.
Plan random_plan(uint32_t seed) {
  std::mt19937 rng(seed);
  Plan plan;
  plan.stratum_offset = {0, 40, 97};
  plan.stratum_names = {"a", "b"};
  for (int32_t c = 0; c < 97; ++c)
    for (uint32_t u = 0, units = 1 + rng() % 4; u < units; ++u) plan.unit_cluster.push_back(c);
  const int32_t ones = plan.add_column("ones");
  plan.columns[ones].fill(1);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (int k = 0; k < 12; ++k) {
    const int32_t column = plan.add_column("c" + std::to_string(k));
    for (int64_t u = 0; u < plan.n_units(); ++u) {
      const uint32_t draw = rng();
      switch (k % 6) {
        case 0:
          plan.columns[column][u] = draw % 2;
          break;
        case 1:
          plan.columns[column][u] = draw % 128;
          break;
        case 2:
          plan.columns[column][u] = 0.5 * (draw % 3);
          break;
        case 3:
          plan.columns[column][u] = static_cast<double>(draw % 3) - 1.0;
          break;
        case 4:
          plan.columns[column][u] = uniform(rng);
          break;
        default:
          plan.columns[column][u] = plan.columns[column - 5][u];
          break;  // a copy of a 0/1 column
      }
    }
    plan.statistics.push_back({{"s" + std::to_string(k)}, ratio_program(column, ones)});
  }
  return plan;
}

void expect_same(const CompiledPlan& a, const CompiledPlan& b) {
  EXPECT_EQ(a.n_clusters, b.n_clusters);
  EXPECT_EQ(a.n_columns, b.n_columns);
  EXPECT_EQ(a.n_statistics, b.n_statistics);
  EXPECT_EQ(a.stratum_offset, b.stratum_offset);
  EXPECT_EQ(a.cluster_sums, b.cluster_sums);
  ASSERT_EQ(a.column_unscale.size(), b.column_unscale.size());
  for (size_t k = 0; k < a.column_unscale.size(); ++k) EXPECT_EQ(bits(a.column_unscale[k]), bits(b.column_unscale[k]));
  EXPECT_EQ(a.totals, b.totals);
  EXPECT_EQ(a.fits_int32, b.fits_int32);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) EXPECT_EQ(a.ops[i].arg, b.ops[i].arg);
  EXPECT_EQ(a.op_offset, b.op_offset);
}

TEST(PlanColumn, NarrowColumnsCompileExactlyAsDoubles) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const Plan narrow = random_plan(seed);
    Plan wide = narrow;
    for (PlanColumn& column : wide.columns) column.widen();
    // The 0/1, count, signed difference and copy columns (and ones) are bytes; the others doubles.
    int bytes = 0;
    for (const PlanColumn& column : narrow.columns) bytes += column.kind() == PlanColumn::Kind::kByte;
    EXPECT_EQ(bytes, 9) << seed;
    const CompiledPlan a = compile(narrow), b = compile(wide);
    expect_same(a, b);
    // The copy columns are deduplicated in both: 13 columns, 2 copies.
    EXPECT_EQ(a.n_columns, 11) << seed;
  }
}

}  // namespace
