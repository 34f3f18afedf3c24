// Length bias (docs/statistics.md §8.3, JEV Tables 11–12) on records with a planted bias: judge
// L always picks the longer response, judge G always the gold one. Every expected rate is a hand
// count over the table below, recounted in the test from the same rows.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

struct Pair {
  const char* item;
  char gold;
  int len_a, len_b;
};

// The longer one is A on a, d, e; B on b, c, g, h; f ties. Gold is the longer one on a, c, e, h and
// the shorter one on b, d, g.
const Pair kPairs[] = {{"a", 'A', 100, 50},  {"b", 'A', 50, 100}, {"c", 'B', 30, 90}, {"d", 'B', 90, 30},
                       {"e", 'A', 200, 100}, {"f", 'B', 60, 60},  {"g", 'A', 10, 40}, {"h", 'B', 20, 80}};

char longer_of(const Pair& p) { return p.len_a > p.len_b ? 'A' : p.len_b > p.len_a ? 'B' : '='; }

std::string planted_file() {
  std::string csv = "judge,item,gold,verdict,x.len_a,x.len_b\n";
  for (const Pair& p : kPairs) {
    const char longer = longer_of(p) == '=' ? 'A' : longer_of(p);  // on the tie L says A
    const std::string lengths = "," + std::to_string(p.len_a) + "," + std::to_string(p.len_b) + "\n";
    csv += std::string("L,") + p.item + "," + p.gold + "," + longer + lengths;
    csv += std::string("G,") + p.item + "," + p.gold + "," + p.gold + lengths;
  }
  return write_temp("length_bias.csv", csv);
}

using Key = std::tuple<std::string, std::string, std::string>;  // name, judge, bin label

std::map<Key, std::pair<double, int64_t>> length_statistics(const ItemMatrix& m, const CovariateOptions& covariates) {
  MetricsOptions options;
  options.covariates = covariates;
  const MetricsPlan built = build_metrics_run_plan(m, select_records(m, {}), options);
  const std::vector<double> point = point_estimates(built.plan);
  std::map<Key, std::pair<double, int64_t>> out;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    out[{l.name, l.judge, l.label.value_or("")}] = {point[s], l.n};
  }
  return out;
}

CovariateOptions length_options() {
  CovariateOptions covariates;
  covariates.length = "x.len_a,x.len_b";
  covariates.length_bins = "-inf,-1,1,inf";
  return covariates;
}

}  // namespace

TEST(LengthBias, RatesOnAPlantedBiasMatchTheHandCount) {
  // Recount from the rows: mismatched pairs, those whose gold is longer, shorter.
  int mismatched = 0, gold_longer = 0, gold_shorter = 0;
  for (const Pair& p : kPairs) {
    if (longer_of(p) == '=') continue;
    ++mismatched;
    (longer_of(p) == p.gold ? gold_longer : gold_shorter)++;
  }
  ASSERT_EQ(std::make_tuple(mismatched, gold_longer, gold_shorter), std::make_tuple(7, 4, 3));
  const auto stats = length_statistics(load_item_matrix(planted_file()), length_options());
  auto at = [&](const char* name, const char* judge) { return stats.at({name, judge, ""}); };
  using V = std::pair<double, int64_t>;
  // L picks the longer on all 7 mismatched pairs: right on the 4 where gold is longer, wrong on 3.
  EXPECT_EQ(at("longer_rate", "L"), V(1.0, 7));
  EXPECT_EQ(at("gold_longer_rate", "L"), V(4.0 / 7, 7));
  EXPECT_EQ(at("longer_rate_gold_shorter", "L"), V(1.0, 3));
  EXPECT_EQ(at("acc_gold_longer", "L"), V(1.0, 4));
  EXPECT_EQ(at("acc_gold_shorter", "L"), V(0.0, 3));
  EXPECT_EQ(at("length_acc_diff", "L"), V(1.0, 7));
  // G picks gold: the longer one as often as gold is longer, never the longer one when gold is shorter.
  EXPECT_EQ(at("longer_rate", "G"), V(4.0 / 7, 7));
  EXPECT_EQ(at("longer_rate_gold_shorter", "G"), V(0.0, 3));
  EXPECT_EQ(at("length_acc_diff", "G"), V(0.0, 7));
}

TEST(LengthBias, AccuracyByBinsOfTheLengthDifference) {
  const auto stats = length_statistics(load_item_matrix(planted_file()), length_options());
  using V = std::pair<double, int64_t>;
  // len(gold) − len(other): b −50, d −60, g −30 (gold shorter); f 0; a 50, c 60, e 100, h 60.
  EXPECT_EQ(stats.at({"length_acc", "L", "[-inf, -1)"}), V(0.0, 3));
  EXPECT_EQ(stats.at({"length_acc", "L", "[-1, 1)"}), V(0.0, 1));  // f: L says A, gold is B
  EXPECT_EQ(stats.at({"length_acc", "L", "[1, inf]"}), V(1.0, 4));
  EXPECT_EQ(stats.at({"length_acc", "G", "[-inf, -1)"}), V(1.0, 3));
}

// JEV Table 12's bins of the length ratio, rejected over preferred: len(other) / len(gold) is
// a 0.5, b 2, c 0.333…, d 3, e 0.5, f 1, g 4, h 0.25.
TEST(LengthBias, AccuracyByBinsOfTheLengthRatio) {
  CovariateOptions options = length_options();
  options.length_measure = "ratio";
  options.length_bins = "0,0.8,1.25,inf";
  const auto stats = length_statistics(load_item_matrix(planted_file()), options);
  using V = std::pair<double, int64_t>;
  // Below 0.8 (gold the longer one: a, c, e, h) L is right on all; at 1 (f) wrong; above (b, d, g) wrong.
  EXPECT_EQ(stats.at({"length_acc", "L", "[0, 0.8)"}), V(1.0, 4));
  EXPECT_EQ(stats.at({"length_acc", "L", "[0.8, 1.25)"}), V(0.0, 1));
  EXPECT_EQ(stats.at({"length_acc", "L", "[1.25, inf]"}), V(0.0, 3));
  EXPECT_EQ(stats.at({"length_acc", "G", "[1.25, inf]"}), V(1.0, 3));
  // The other length statistics do not depend on the measure.
  EXPECT_EQ(stats.at({"longer_rate", "L", ""}), V(1.0, 7));
  // The CLI refuses an unknown measure, and a ratio without the lengths to divide.
  const std::string path = planted_file();
  const CliRun unknown = run_cli("metrics " + path + " --length x.len_a,x.len_b --length-measure share");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_TRUE(contains(unknown.out, "--length-measure: expected difference or ratio, got 'share'")) << unknown.out;
  const CliRun alone = run_cli("metrics " + path + " --length-measure ratio");
  EXPECT_EQ(alone.status, 2);
  EXPECT_TRUE(contains(alone.out, "--length-measure ratio: give --length")) << alone.out;
}

TEST(LengthBias, BadRequestsNameTheFlag) {
  const std::string path = planted_file();
  const ItemMatrix m = load_item_matrix(path);
  CovariateOptions options = length_options();
  options.length = "x.len_a,x.size";
  EXPECT_TRUE(contains(thrown_message([&] { length_statistics(m, options); }),
                       "--length: no covariate column 'x.size' in " + path + " (it has x.len_a, x.len_b)"));
  options.length = "x.len_a";
  EXPECT_TRUE(contains(thrown_message([&] { length_statistics(m, options); }),
                       "--length: expected the two length columns x.LEN_A,x.LEN_B"));
  options = length_options();
  options.length_bins = "1,0";
  EXPECT_EQ(thrown_message([&] { length_statistics(m, options); }),
            "--length-bins: edges must increase, but 0 follows 1 in '1,0'");
  const ItemMatrix one_label =
      load_item_matrix(write_temp("length_one_label.csv", "judge,item,gold,verdict,x.len_a,x.len_b\nL,a,A,A,5,10\n"));
  EXPECT_TRUE(contains(thrown_message([&] { length_statistics(one_label, length_options()); }),
                       "--length: length bias reads two-label pairwise items (A and B in label order), but"));
  const ItemMatrix words = load_item_matrix(
      write_temp("length_words.csv", "judge,item,gold,verdict,x.len_a,x.len_b\nL,a,A,A,long,10\nL,b,B,B,20,10\n"));
  EXPECT_TRUE(contains(thrown_message([&] { length_statistics(words, length_options()); }),
                       "--length: x.len_a must be a number, but it has 'long'"));
}
