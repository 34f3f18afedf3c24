// The covariate flags of `judgestat metrics` end to end (docs/statistics.md §8.3): the bundled
// example's length-bias and association rows in the tidy CSV against a recount of its records,
// the slice rows of --by x.NAME --bins, and bad flags answered with the flag's name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace judgestat::testing_support;

namespace {

const std::string kExample = kRoot + "/data/examples/length_bias.csv";

/// The fields of a CSV line; a quoted field ("[0, 1)") keeps its commas, "" is a quote.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t k = 0; k < line.size(); ++k) {
    const char ch = line[k];
    if (ch == '"' && quoted && k + 1 < line.size() && line[k + 1] == '"')
      out.back().push_back(line[++k]);
    else if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      out.emplace_back();
    else
      out.back().push_back(ch);
  }
  return out;
}

/// The tidy CSV's estimate and n of the row named `name` for `judge` (condition and label given).
std::pair<double, long> row(const std::string& csv, const std::string& name, const std::string& judge,
                            const std::string& condition = "", const std::string& label = "") {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // header: name,of,judge,reference,benchmark,condition,order,variant,label,…,n,estimate
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = fields(line);
    if (f.size() > 12 && f[0] == name && f[2] == judge && f[5] == condition && f[8] == label)
      return {std::strtod(f[12].c_str(), nullptr), std::strtol(f[11].c_str(), nullptr, 10)};
  }
  return {-1, -1};
}

}  // namespace

TEST(CovariateCli, LengthBiasRowsOfTheExampleMatchARecount) {
  // Recount from the generator's rules (data/examples/make_length_bias.py): `verbose` picks the
  // longer answer whenever lengths differ by more than 10%, so on mismatched pairs it picks the
  // longer one except where they differ by 10% or less (ratio 1.0 only: 0.5, 0.8, 1.3, 2.2 all
  // differ more), i.e. always.
  const CliRun r = run_cli("metrics " + kExample +
                           " --labels A,B --length x.len_a,x.len_b --length-bins=-inf,0,1,inf --replicates 200 "
                           "--format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(row(r.out, "longer_rate", "verbose").first, 1.0);
  // Every 5th item (i % 5 == 2) has equal lengths: 48 of 60 are mismatched, verdicts all A or B.
  EXPECT_EQ(row(r.out, "longer_rate", "verbose").second, 48);
  EXPECT_EQ(row(r.out, "acc_gold_shorter", "verbose").first, 0.0);
  EXPECT_EQ(row(r.out, "acc_gold_longer", "verbose").first, 1.0);
  EXPECT_EQ(row(r.out, "length_acc_diff", "verbose").first, 1.0);
  EXPECT_EQ(row(r.out, "length_acc", "verbose", "", "[0, 1)").first, 1.0);  // equal lengths: verbose is right
}

TEST(CovariateCli, SliceRowsNameTheirBins) {
  const CliRun r = run_cli("metrics " + kExample +
                           " --labels A,B --by x.subtlety --bins 1,3,5 --replicates 200 "
                           "--format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  // shallow is right on every item of subtlety 1 and 2 (generator rule).
  EXPECT_EQ(row(r.out, "acc", "shallow", "x.subtlety=[1, 3)").first, 1.0);
  EXPECT_GT(row(r.out, "acc", "shallow", "x.subtlety=[3, 5]").second, 0);
}

TEST(CovariateCli, BadFlagsNameTheFlag) {
  CliRun r = run_cli("metrics " + kExample + " --labels A,B --by x.subtlety --bins 3,1");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "--bins: edges must increase, but 1 follows 3 in '3,1'")) << r.out;
  r = run_cli("metrics " + kExample + " --labels A,B --length x.len_a,x.words");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "--length: no covariate column 'x.words'")) << r.out;
  r = run_cli("metrics " + kExample + " --labels A,B --assoc x.source");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "--assoc: x.source must be a number, but it has 'math'")) << r.out;
}

TEST(CovariateCli, PlotsDrawTheLengthBiasPanel) {
  const std::string dir = temp_path("length_plots");
  const CliRun r = run_cli("metrics " + kExample +
                           " --labels A,B --length x.len_a,x.len_b --length-bins=-inf,0,1,inf --judges verbose "
                           "--replicates 200 --plots " +
                           dir);
  ASSERT_EQ(r.status, 0) << r.out;
  // verbose: wrong on every pair whose better answer is shorter, right on the others (one row per bin).
  EXPECT_EQ(read_all(dir + "/metrics_length_bias.csv"),
            "series,label,estimate,ci_lo,ci_hi,n\n"
            "\"len(gold) − len(other) in [-inf, 0)\",verbose,0,0,0,24\n"
            "\"len(gold) − len(other) in [0, 1)\",verbose,1,1,1,12\n"
            "\"len(gold) − len(other) in [1, inf]\",verbose,1,1,1,24\n");
  EXPECT_TRUE(contains(read_all(dir + "/metrics_length_bias.svg"), "<svg"));
}
