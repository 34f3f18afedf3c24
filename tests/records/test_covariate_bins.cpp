// Bins of a numeric covariate (docs/statistics.md §8.3 `--bins`): counts and edges parsed, quantile
// edges against numpy's, and numpy.histogram's rule for which bin a value falls in.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "judgestat/records.hpp"
#include "records/covariate_bins.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

TEST(CovariateBins, ParsesACountOrEdges) {
  EXPECT_EQ(parse_bins("4", "--bins").count, 4);
  const BinSpec edges = parse_bins("0, 200,500,inf", "--bins");
  EXPECT_EQ(edges.count, 0);
  EXPECT_EQ(edges.edges, (std::vector<double>{0, 200, 500, std::numeric_limits<double>::infinity()}));
  EXPECT_EQ(parse_bins("-inf,0", "--bins").edges.front(), -std::numeric_limits<double>::infinity());
}

TEST(CovariateBins, BadSpecsNameTheFlag) {
  EXPECT_EQ(thrown_message([] { parse_bins("0,500,200", "--bins"); }),
            "--bins: edges must increase, but 200 follows 500 in '0,500,200'");
  EXPECT_EQ(thrown_message([] { parse_bins("0,0", "--length-bins"); }),
            "--length-bins: edges must increase, but 0 follows 0 in '0,0'");
  EXPECT_TRUE(contains(thrown_message([] { parse_bins("0", "--bins"); }), "--bins: expected a bin count from 1"));
  EXPECT_TRUE(contains(thrown_message([] { parse_bins("0,ten", "--bins"); }), "--bins: 'ten' is not a number"));
  EXPECT_TRUE(contains(thrown_message([] { parse_bins("0,nan", "--bins"); }), "--bins: 'nan' is not a number"));
}

TEST(CovariateBins, QuantileEdgesAreNumpys) {
  // numpy.quantile([10, 20, …, 80], [0, 0.25, 0.5, 0.75, 1]) = [10, 27.5, 45, 62.5, 80].
  const std::vector<double> values{80, 10, 30, 20, 50, 40, 70, 60};
  EXPECT_EQ(bin_edges(parse_bins("4", "--bins"), values), (std::vector<double>{10, 27.5, 45, 62.5, 80}));
  // Repeated quantiles merge: numpy.quantile([1, 1, 1, 2], [0, 1/3, 2/3, 1]) = [1, 1, 1, 2] → [1, 2].
  EXPECT_EQ(bin_edges(parse_bins("3", "--bins"), {1, 1, 1, 2}), (std::vector<double>{1, 2}));
  EXPECT_EQ(bin_edges(parse_bins("3", "--bins"), {5, 5}), (std::vector<double>{5, 5}));
}

TEST(CovariateBins, ValuesFallInHalfOpenBinsTheLastClosed) {
  // numpy.histogram([0, 199, 200, 500, 600], bins=[0, 200, 500]) counts [2, 2] (500 in the last bin)
  // and leaves 600 out.
  const std::vector<double> edges{0, 200, 500};
  EXPECT_EQ(bin_of(edges, 0), 0);
  EXPECT_EQ(bin_of(edges, 199), 0);
  EXPECT_EQ(bin_of(edges, 200), 1);
  EXPECT_EQ(bin_of(edges, 500), 1);
  EXPECT_EQ(bin_of(edges, 600), -1);
  EXPECT_EQ(bin_of(edges, -1), -1);
  EXPECT_EQ(bin_of({5, 5}, 5), 0);
  EXPECT_EQ(bin_text(edges, 0), "[0, 200)");
  EXPECT_EQ(bin_text(edges, 1), "[200, 500]");
  EXPECT_EQ(number_text(27.5), "27.5");
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(-std::numeric_limits<double>::infinity()), "-inf");
}
