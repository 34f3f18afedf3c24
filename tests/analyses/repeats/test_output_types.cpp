// JEV §7.3 and App. I, output-type consistency (docs/statistics.md §8.5 "Output types"): the same
// binary question asked as a Choice, a two-level Score and the two Noul questions, each a variant.
// The paper's three gaps, computed here directly from the probabilities, against `repeats`'s
// variant_tv and variant_flip on the bundled data/examples/jev_output_types.csv.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::cpu_target;
using testing_support::kRoot;

// Per example: each variant's p.A and verdict, read from the file with no help from judgestat.
struct Answer {
  double p_a;
  std::string verdict;
};
using Examples = std::map<std::string, std::map<std::string, Answer>>;

const std::string kFile = kRoot + "/data/examples/jev_output_types.csv";

Examples read_examples() {
  std::ifstream in(kFile);
  std::string line;
  std::getline(in, line);  // judge,item,cluster,benchmark,gold,verdict,variant,p.A,p.B
  Examples out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) f.push_back(cell);
    out[f[1]][f[6]] = {std::stod(f[7]), f[5]};
  }
  return out;
}

// The paper's gap between two output types: the mean over examples of |p_a(A) − p_b(A)|.
double mean_gap(const Examples& examples, const std::string& a, const std::string& b) {
  double sum = 0;
  for (const auto& [item, answers] : examples) sum += std::fabs(answers.at(a).p_a - answers.at(b).p_a);
  return sum / examples.size();
}

// The paper's complement residual: the mean of |yes(A) + yes(B) − 1| (noul-B's p.B is yes(B)).
double complement_residual(const Examples& examples) {
  double sum = 0;
  for (const auto& [item, answers] : examples)
    sum += std::fabs(answers.at("noul-A").p_a + (1 - answers.at("noul-B").p_a) - 1);
  return sum / examples.size();
}

int decisions_differing(const Examples& examples, const std::string& a, const std::string& b) {
  int n = 0;
  for (const auto& [item, answers] : examples) n += answers.at(a).verdict != answers.at(b).verdict;
  return n;
}

// `repeats --variant a,b` on the bundled file: its variant row `name`.
const Interval& variant_row(const RepeatsReport& r, const std::string& name) {
  for (size_t s = 0; s < r.statistics.labels.size(); ++s)
    if (r.statistics.labels[s].name == name) return r.statistics.intervals[s];
  ADD_FAILURE() << "no row " << name;
  return r.statistics.intervals.front();
}

RepeatsReport compare(const std::string& a, const std::string& b) {
  RepeatsOptions options;
  options.variants = {a, b};
  options.bootstrap.replicates = 200;
  return run_repeats(load_item_matrix(kFile), options, cpu_target(1));
}

}  // namespace

TEST(OutputTypes, VariantTvIsThePapersGapBetweenTwoOutputTypes) {
  const Examples examples = read_examples();
  ASSERT_EQ(examples.size(), 48u);  // 16 per task, as in the paper's audit
  for (const auto& [a, b] :
       std::vector<std::pair<std::string, std::string>>{{"choice", "noul-A"}, {"choice", "score"}}) {
    const RepeatsReport r = compare(a, b);
    EXPECT_NEAR(variant_row(r, "variant_tv").estimate, mean_gap(examples, a, b), 1e-12) << a << " vs " << b;
    EXPECT_NEAR(variant_row(r, "variant_flip").estimate * 48, decisions_differing(examples, a, b), 1e-9);
  }
  // The bundled file is built near the paper's figures: gaps 0.055 and 0.015, one flip.
  EXPECT_NEAR(mean_gap(examples, "choice", "noul-A"), 0.055, 0.01);
  EXPECT_NEAR(mean_gap(examples, "choice", "score"), 0.015, 0.005);
  EXPECT_EQ(decisions_differing(examples, "choice", "noul-A"), 1);
}

TEST(OutputTypes, TheTwoNoulQuestionsGiveTheComplementResidual) {
  const Examples examples = read_examples();
  const RepeatsReport r = compare("noul-A", "noul-B");
  EXPECT_NEAR(variant_row(r, "variant_tv").estimate, complement_residual(examples), 1e-12);
  EXPECT_NEAR(complement_residual(examples), 0.045, 1e-9);  // the paper's 0.045, as the file is built
  const Interval& tv = variant_row(r, "variant_tv");
  EXPECT_LT(tv.lo, tv.estimate);
  EXPECT_GT(tv.hi, tv.estimate);
}

}  // namespace judgestat
