// docs/statistics.md §8.5: the repeat statistics against hand counts on hand-built files, the
// total-variation distance against a direct computation, notes, errors and determinism.
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyses/repeats/repeat_counts.hpp"
#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::cpu_target;
using testing_support::run_cli;
using testing_support::thrown_message;
using testing_support::write_temp;

RepeatsReport run_on(const std::string& csv, RepeatsOptions options = {}, int threads = 1) {
  if (options.bootstrap.replicates == 10000) options.bootstrap.replicates = 400;
  const ItemMatrix m = load_item_matrix(write_temp("records.csv", csv), LoadOptions{{"A", "B", "C"}});
  return run_repeats(m, options, cpu_target(threads));
}

// The row `name` of `judge` (and of `variant`/`benchmark` when given); a failure when absent.
const Interval& row(const RepeatsReport& r, const std::string& name, const std::string& judge,
                    const std::string& variant = "", const std::string& benchmark = "", int64_t* n = nullptr) {
  const auto& labels = r.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s) {
    const StatLabel& l = labels[s];
    if (l.name != name || l.judge != judge || l.variant.value_or("") != variant ||
        l.benchmark.value_or("") != benchmark)
      continue;
    if (n) *n = l.n;
    return r.statistics.intervals[s];
  }
  ADD_FAILURE() << "no row " << name << " of " << judge;
  static const Interval none{NAN, NAN, NAN, NAN};
  return none;
}

bool has_row(const RepeatsReport& r, const std::string& name) {
  for (const StatLabel& l : r.statistics.labels)
    if (l.name == name) return true;
  return false;
}

// Judge J, one order, one variant. Per item the verdicts of repeats 0, 1, 2 ("" = no verdict:
// invalid); hand counts beside each: present repeats, all agree, pairs, disagreeing pairs.
const char* kRepeatsCsv =
    "judge,item,cluster,gold,verdict,repeat\n"
    "J,i1,c1,A,A,0\nJ,i1,c1,A,A,1\nJ,i1,c1,A,A,2\n"  // 3 present, agree, 3 pairs, 0 flips
    "J,i2,c1,A,A,0\nJ,i2,c1,A,B,1\nJ,i2,c1,A,A,2\n"  // 3 present, no, 3 pairs, 2 flips
    "J,i3,c2,B,B,0\nJ,i3,c2,B,B,1\n"                 // 2 present, agree, 1 pair, 0 flips
    "J,i4,c3,A,A,0\n"                                // 1 present: not a unit
    "J,i5,c3,A,A,0\nJ,i5,c3,A,,2\n"                  // A vs invalid: no, 1 pair, 1 flip
    "J,i6,c4,B,,0\nJ,i6,c4,B,,1\n";                  // invalid vs invalid: no (yes with invalid_match), 1, 1 (0)

TEST(Repeats, RatesMatchHandCounts) {
  const RepeatsReport r = run_on(kRepeatsCsv);
  int64_t n = 0;
  // Units i1, i2, i3, i5, i6; all agree on i1 and i3.
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J", "", "", &n).estimate, 2.0 / 5.0);
  EXPECT_EQ(n, 5);
  // Pairs 3 + 3 + 1 + 1 + 1 = 9; flips 0 + 2 + 0 + 1 + 1 = 4.
  EXPECT_DOUBLE_EQ(row(r, "repeat_flip", "J", "", "", &n).estimate, 4.0 / 9.0);
  EXPECT_EQ(n, 9);
  EXPECT_EQ(row(r, "repeat_agree", "J").clusters, 4);
  EXPECT_FALSE(has_row(r, "repeat_tv"));  // no probabilities
  EXPECT_FALSE(has_row(r, "rotation_agree"));
  EXPECT_FALSE(has_row(r, "variant_agree"));
  EXPECT_EQ(r.repeats, 3);
  EXPECT_EQ(r.repeat_records, 7);  // repeat 1 on i1, i2, i3, i6; repeat 2 on i1, i2, i5
}

TEST(Repeats, InvalidMatchLetsTwoInvalidVerdictsAgree) {
  RepeatsOptions options;
  options.invalid_match = true;
  const RepeatsReport r = run_on(kRepeatsCsv, options);
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J").estimate, 3.0 / 5.0);  // i6 now agrees
  EXPECT_DOUBLE_EQ(row(r, "repeat_flip", "J").estimate, 3.0 / 9.0);
}

TEST(Repeats, NotesSayWhatIsLeftOut) {
  const RepeatsReport r = run_on(kRepeatsCsv);
  std::string notes;
  for (const std::string& note : r.notes) notes += note + "\n";
  EXPECT_TRUE(contains(notes,
                       "variant_agree, variant_flip and variant_tv are left out: the analysed records have one "
                       "variant"));
  EXPECT_TRUE(contains(notes, "rotation_agree, rotation_pair_agree and rotation_tv are left out"));
  EXPECT_TRUE(contains(notes,
                       "the probability statistics (<family>_tv, <family>_q_range) are left out: the records carry no "
                       "probabilities"));
}

// Total variation ½ Σ_k |p_k − q_k|, written out here from the probabilities in the file below.
double direct_tv(const std::vector<double>& p, const std::vector<double>& q) {
  double sum = 0;
  for (size_t k = 0; k < p.size(); ++k) sum += std::fabs(p[k] - q[k]);
  return sum / 2;
}

TEST(Repeats, TotalVariationIsTheMeanOverPairsOfRepeats) {
  const std::string csv =
      "judge,item,gold,verdict,repeat,p.A,p.B,p.C\n"
      "P,k1,A,A,0,0.9,0.1,0\nP,k1,A,A,1,0.7,0.3,0\nP,k1,A,A,2,0.6,0.4,0\n"
      "P,k2,B,B,0,0.2,0.8,0\nP,k2,B,B,1,0.5,0.5,0\n"
      "P,k3,A,A,0,0.5,0.5,0\nP,k3,A,A,1,,,\n";  // repeat 1 gives no probabilities: no TV pair
  const std::vector<std::vector<double>> k1{{0.9, 0.1, 0}, {0.7, 0.3, 0}, {0.6, 0.4, 0}};
  const std::vector<std::vector<double>> k2{{0.2, 0.8, 0}, {0.5, 0.5, 0}};
  const double sum =
      direct_tv(k1[0], k1[1]) + direct_tv(k1[0], k1[2]) + direct_tv(k1[1], k1[2]) + direct_tv(k2[0], k2[1]);
  const RepeatsReport r = run_on(csv);
  int64_t n = 0;
  EXPECT_NEAR(row(r, "repeat_tv", "P", "", "", &n).estimate, sum / 4, 1e-12);
  EXPECT_EQ(n, 4);
  EXPECT_NEAR(sum / 4, 0.225, 1e-15);                           // 0.2 + 0.3 + 0.1 + 0.3 over 4 pairs, by hand
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "P").estimate, 1.0);  // A A A, B B, A A
  EXPECT_DOUBLE_EQ(row(r, "repeat_flip", "P").estimate, 0.0);
}

TEST(Repeats, GroupCountsOfHandBuiltMembers) {
  const double p[] = {0.9, 0.1}, q[] = {0.4, NAN};  // q's B not given: read as 0
  const AgreementCounts c = group_counts({{0, p}, {0, q}, {1, nullptr}}, 2, false);
  EXPECT_EQ(c.units, 1);
  EXPECT_EQ(c.all_agree, 0);
  EXPECT_EQ(c.pairs, 3);
  EXPECT_EQ(c.agreeing_pairs, 1);
  EXPECT_EQ(c.tv_pairs, 1);
  EXPECT_DOUBLE_EQ(c.tv_sum, 0.5 * (0.5 + 0.1));
  EXPECT_EQ(group_counts({{0, p}}, 2, false).units, 0);  // one member: nothing to compare
  EXPECT_FALSE(verdicts_agree(kInvalid, kInvalid, false));
  EXPECT_TRUE(verdicts_agree(kInvalid, kInvalid, true));
  EXPECT_TRUE(verdicts_agree(kTie, kTie, false));
}

// The confidence's range across a request's rotations (JEV §7.3: "its confidence varies across
// rotations by 0.10 on average (median 0.08)"; two orders: "moves by 0.045 (median 0.01)"), q being
// a record's largest probability; ranges by hand beside each item.
const char* kConfidenceCsv =
    "judge,item,cluster,gold,verdict,order,p.A,p.B,p.C\n"
    "Q,q1,c1,A,A,0,0.9,0.1,0\nQ,q1,c1,A,A,1,0.7,0.2,0.1\nQ,q1,c1,A,B,2,0.3,0.6,0.1\n"  // q .9 .7 .6: 0.3
    "Q,q2,c1,B,B,0,0.2,0.8,0\nQ,q2,c1,B,B,1,0.1,0.75,0.15\n"                           // q .8 .75: 0.05
    "Q,q3,c2,C,C,0,0,0,1\nQ,q3,c2,C,C,1,,,\n"                                          // one q: no range
    "Q,q4,c3,A,A,0,0.5,0.5,0\nQ,q4,c3,A,A,1,0.4,0.4,0.2\nQ,q4,c3,A,A,2,0.6,0.4,0\n"    // q .5 .4 .6: 0.2
    "Q,q5,c4,B,B,0,0.1,0.9,0\nQ,q5,c4,B,B,1,0.1,0.9,0\n";                              // q .9 .9: 0

TEST(Repeats, ConfidenceRangeAcrossRotationsMeanAndMedianByHand) {
  const RepeatsReport r = run_on(kConfidenceCsv);
  int64_t n = 0;
  EXPECT_NEAR(row(r, "rotation_q_range", "Q", "", "", &n).estimate, (0.3 + 0.05 + 0.2 + 0) / 4, 1e-15);
  EXPECT_EQ(n, 4);
  ASSERT_EQ(r.point_statistics.size(), 1u);
  EXPECT_EQ(r.point_statistics[0].first.name, "rotation_q_range_median");
  EXPECT_EQ(r.point_statistics[0].first.n, 4);
  EXPECT_NEAR(r.point_statistics[0].second, (0.05 + 0.2) / 2, 1e-15);  // 0, 0.05, 0.2, 0.3
  // One more request with a range of 0.4 makes the count odd: the middle value.
  const RepeatsReport odd = run_on(std::string(kConfidenceCsv) + "Q,q6,c5,A,A,0,1,0,0\nQ,q6,c5,A,A,1,0.6,0.4,0\n");
  EXPECT_NEAR(odd.point_statistics.at(0).second, 0.2, 1e-15);
  EXPECT_EQ(confidence(std::vector<double>{0.2, NAN, 0.3}.data(), 3), 0.3);
  // Same seed, any thread count: the new statistic's replicates are identical bit for bit.
  RepeatsOptions options;
  options.bootstrap.seed = 11;
  options.bootstrap.keep_replicates = true;
  const RepeatsReport one = run_on(kConfidenceCsv, options, 1), two = run_on(kConfidenceCsv, options, 2);
  ASSERT_EQ(one.statistics.replicates.size(), two.statistics.replicates.size());
  EXPECT_EQ(std::memcmp(one.statistics.replicates.data(), two.statistics.replicates.data(),
                        one.statistics.replicates.size() * sizeof(double)),
            0);
  // The report (its medians among the rows) renders again from its JSON.
  const AnalysisResult run = render_support::run_on(write_temp("confidence.csv", kConfidenceCsv),
                                                    {"repeats", {"--labels", "A,B,C", "--replicates", "200"}});
  EXPECT_TRUE(contains(run.text, "rotation_q_range_median")) << run.text;
  render_support::expect_renders_the_run("repeats", run);
}

// Rotations of three-candidate items (orders 0, 1, 2; verdicts canonical): hand counts beside.
const char* kRotationsCsv =
    "judge,item,gold,verdict,order\n"
    "R,r1,A,A,0\nR,r1,A,A,1\nR,r1,A,A,2\n"  // agree; 3 pairs, 3 agreeing
    "R,r2,A,A,0\nR,r2,A,B,1\nR,r2,A,A,2\n"  // no; 3 pairs, 1 agreeing (0-2)
    "R,r3,A,A,0\nR,r3,A,B,1\nR,r3,A,B,2\n"  // no; 3 pairs, 1 agreeing (1-2)
    "R,r4,B,B,0\nR,r4,B,B,1\n";             // agree; 1 pair, 1 agreeing (order 2 absent)

TEST(Repeats, RotationAgreementMatchesHandCounts) {
  const RepeatsReport r = run_on(kRotationsCsv);
  EXPECT_DOUBLE_EQ(row(r, "rotation_agree", "R").estimate, 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(row(r, "rotation_pair_agree", "R").estimate, 6.0 / 10.0);
  EXPECT_FALSE(has_row(r, "repeat_agree"));
}

// Variants (paraphrased rubrics) of order 0, and two benchmarks for --by.
const char* kVariantsCsv =
    "judge,item,benchmark,gold,verdict,variant\n"
    "V,v1,b1,A,A,plain\nV,v1,b1,A,A,para\n"  // agree
    "V,v2,b1,A,A,plain\nV,v2,b1,A,B,para\n"  // flip
    "V,v3,b2,B,B,plain\nV,v3,b2,B,A,para\n"  // flip
    "V,v4,b2,B,B,plain\n";                   // one variant: not a unit

TEST(Repeats, VariantAgreementAndGroups) {
  RepeatsOptions options;
  options.by = "benchmark";
  const RepeatsReport r = run_on(kVariantsCsv, options);
  EXPECT_DOUBLE_EQ(row(r, "variant_agree", "V").estimate, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(row(r, "variant_flip", "V").estimate, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(row(r, "variant_agree", "V", "", "b1").estimate, 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(row(r, "variant_agree", "V", "", "b2").estimate, 0.0);
  EXPECT_EQ(r.strata_mode, "benchmark");
}

TEST(Repeats, ByVariantSlicesRequests) {
  // Repeats of two variants: plain agrees on both items, para on one of two.
  const std::string csv =
      "judge,item,verdict,variant,repeat\n"
      "J,a,A,plain,0\nJ,a,A,plain,1\nJ,a,A,para,0\nJ,a,B,para,1\n"
      "J,b,B,plain,0\nJ,b,B,plain,1\nJ,b,B,para,0\nJ,b,B,para,1\n";
  RepeatsOptions options;
  options.by = "variant";
  const RepeatsReport r = run_on(csv, options);
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J").estimate, 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J", "plain").estimate, 1.0);
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J", "para").estimate, 1.0 / 2.0);
  // Across variants (repeat 0): a agrees (A, A), b agrees (B, B).
  EXPECT_DOUBLE_EQ(row(r, "variant_agree", "J").estimate, 1.0);
  EXPECT_EQ(r.strata_mode, "none");
}

TEST(Repeats, SameSeedAndThreadCountsGiveIdenticalReplicates) {
  RepeatsOptions options;
  options.bootstrap.seed = 7;
  options.bootstrap.keep_replicates = true;
  const RepeatsReport a = run_on(kRepeatsCsv, options, 1);
  const RepeatsReport b = run_on(kRepeatsCsv, options, 1);
  const RepeatsReport c = run_on(kRepeatsCsv, options, 2);
  ASSERT_FALSE(a.statistics.replicates.empty());
  ASSERT_EQ(a.statistics.replicates.size(), c.statistics.replicates.size());
  for (size_t k = 0; k < a.statistics.replicates.size(); ++k) {
    const double x = a.statistics.replicates[k];
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(b.statistics.replicates[k]) && std::isnan(c.statistics.replicates[k]));
      continue;
    }
    EXPECT_EQ(std::memcmp(&x, &b.statistics.replicates[k], sizeof x), 0);
    EXPECT_EQ(std::memcmp(&x, &c.statistics.replicates[k], sizeof x), 0);
  }
  EXPECT_EQ(tables(a, "csv"), tables(c, "csv"));
}

TEST(Repeats, BadRequestsAreNamed) {
  RepeatsOptions options;
  options.by = "run";
  EXPECT_TRUE(contains(thrown_message<std::invalid_argument>([&] { run_on(kRepeatsCsv, options); }),
                       "by: expected benchmark, condition, variant or repeat, got 'run'"));
  options.by = "";
  options.judges = {"nobody"};
  EXPECT_TRUE(contains(thrown_message<UsageError>([&] { run_on(kRepeatsCsv, options); }), "nobody"));
  // Nothing to compare at all: one repeat, order and variant.
  EXPECT_TRUE(
      contains(thrown_message<UsageError>([&] { run_on("judge,item,verdict\nJ,a,A\n"); }), "nothing to compare"));
}

TEST(RepeatsCli, PrintsTheTableAndNamesBadFlags) {
  const std::string path = write_temp("records.csv", kRepeatsCsv);
  const auto csv = run_cli("repeats " + path + " --labels A,B --replicates 200 --format csv");
  EXPECT_EQ(csv.status, 0) << csv.out;
  EXPECT_TRUE(contains(csv.out, "repeat_agree,J,,,,,5,0.40000000000000002,")) << csv.out;
  const auto text = run_cli("repeats " + path + " --labels A,B --replicates 200");
  EXPECT_TRUE(contains(text.out, "repeat_flip")) << text.out;
  const auto bad = run_cli("repeats " + path + " --by judge");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(contains(bad.out, "--by: expected benchmark, condition, variant or repeat")) << bad.out;
}

// Every other analysis reads repeat 0 only and says how many records it left out (§8.5).
TEST(RepeatsCli, OtherAnalysesNoteTheRepeatRecordsTheyDoNotUse) {
  const std::string path = write_temp("records.csv", kRepeatsCsv);
  const std::string json = testing_support::temp_path("metrics.json");
  const auto metrics = run_cli("metrics " + path + " --labels A,B --replicates 200 --json " + json);
  EXPECT_EQ(metrics.status, 0) << metrics.out;
  // Records of repeat >= 1 in kRepeatsCsv, by hand: repeat 1 on i1, i2, i3, i6 and repeat 2 on i1, i2, i5.
  const std::string note = "7 records of repeat >= 1 are not used here: this analysis reads repeat 0 only";
  EXPECT_TRUE(contains(metrics.out, "WARNING: " + note)) << metrics.out;
  EXPECT_TRUE(contains(testing_support::read_all(json), note));
  const auto repeats = run_cli("repeats " + path + " --labels A,B --replicates 200");
  EXPECT_FALSE(contains(repeats.out, "not used here")) << repeats.out;
}

// The note is read back from the JSON as the study cache reads it: the tables render the same bytes.
TEST(RepeatsCli, TheRepeatsNoteRendersAgainFromTheJson) {
  // The same records with every gold field emptied (the fourth field of each line after the header).
  std::string no_gold;
  std::istringstream lines(kRepeatsCsv);
  for (std::string line; std::getline(lines, line);) {
    if (!no_gold.empty()) {
      size_t third = 0;
      for (int k = 0; k < 3; ++k) third = line.find(',', third) + 1;
      line.erase(third, line.find(',', third) - third);
    }
    no_gold += line + "\n";
  }
  for (const std::string& csv : {std::string(kRepeatsCsv), no_gold}) {
    const std::string path = write_temp("records.csv", csv);
    const AnalysisResult run =
        render_support::run_on(path, {"metrics", {"--labels", "A,B", "--replicates", "200", "--invalid-match"}});
    EXPECT_TRUE(contains(run.text, "WARNING: 7 records of repeat >= 1 are not used here")) << run.text;
    render_support::expect_renders_the_run("metrics", run);
  }
}

// `--by repeat` (§8.5): per repeat r >= 1 the share of requests with repeats 0 and r both present
// whose two verdicts agree, counted by hand on kRepeatsCsv.
const Interval& repeat_match(const RepeatsReport& r, const std::string& repeat, int64_t& n) {
  const auto& labels = r.statistics.labels;
  for (size_t s = 0; s < labels.size(); ++s)
    if (labels[s].name == "repeat_match" && labels[s].label == repeat) {
      n = labels[s].n;
      return r.statistics.intervals[s];
    }
  ADD_FAILURE() << "no repeat_match row of repeat " << repeat;
  static const Interval none{NAN, NAN, NAN, NAN};
  return none;
}

TEST(Repeats, ByRepeatRatesMatchHandCounts) {
  RepeatsOptions options;
  options.by = "repeat";
  const RepeatsReport r = run_on(kRepeatsCsv, options);
  int64_t n = 0;
  // Repeat 1 against 0: i1 A=A, i2 A≠B, i3 B=B, i6 ∅≠∅ (i4, i5 have no repeat 1): 2 of 4.
  EXPECT_DOUBLE_EQ(repeat_match(r, "1", n).estimate, 2.0 / 4.0);
  EXPECT_EQ(n, 4);
  // Repeat 2 against 0: i1 A=A, i2 A=A, i5 A≠∅: 2 of 3.
  EXPECT_DOUBLE_EQ(repeat_match(r, "2", n).estimate, 2.0 / 3.0);
  EXPECT_EQ(n, 3);
  const Interval& v = repeat_match(r, "2", n);
  EXPECT_LE(v.lo, v.estimate);
  EXPECT_GE(v.hi, v.estimate);
  // The family rows stay as without --by.
  EXPECT_DOUBLE_EQ(row(r, "repeat_agree", "J").estimate, 2.0 / 5.0);
  options.invalid_match = true;  // i6's two invalid verdicts now agree
  EXPECT_DOUBLE_EQ(repeat_match(run_on(kRepeatsCsv, options), "1", n).estimate, 3.0 / 4.0);
  // Without --by there are no such rows.
  EXPECT_FALSE(has_row(run_on(kRepeatsCsv), "repeat_match"));
}

TEST(RepeatsCli, ByRepeatLabelsTheRowsByRepeat) {
  const std::string path = write_temp("records.csv", kRepeatsCsv);
  const std::string json = testing_support::temp_path("repeats.json");
  const auto csv =
      run_cli("repeats " + path + " --labels A,B --replicates 200 --by repeat --format csv --json " + json);
  EXPECT_EQ(csv.status, 0) << csv.out;
  EXPECT_TRUE(contains(csv.out, "repeat_match,J,,,,1,4,0.5,")) << csv.out;
  EXPECT_TRUE(contains(csv.out, "repeat_match,J,,,,2,3,0.66666666666666663,")) << csv.out;
  const std::string written = testing_support::read_all(json);
  EXPECT_TRUE(contains(written, "\"label\": \"2\"")) << written;
  EXPECT_TRUE(contains(written, "\"by\": \"repeat\"")) << written;
  const auto text = run_cli("repeats " + path + " --labels A,B --replicates 200 --by repeat");
  EXPECT_TRUE(contains(text.out, "repeat 1 vs 0")) << text.out;
  const auto one_run = run_cli("repeats " + write_temp("one.csv", "judge,item,verdict,order\nJ,a,A,0\nJ,a,A,1\n") +
                               " --labels A,B --replicates 200 --by repeat");
  EXPECT_TRUE(contains(one_run.out, "repeat_match (--by repeat) is left out")) << one_run.out;
}

}  // namespace
}  // namespace judgestat
