// Agreement (docs/statistics.md §7.1): Cohen's κ against Cohen's/Wikipedia's worked example and an
// independent loop, and the metrics plan's order kappa; Fleiss' κ against Fleiss (1971) as
// Wikipedia works it; Krippendorff's α against Krippendorff's own nominal example.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/metrics/agreement.hpp"
#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/test_agreement_fixture.hpp"

using namespace judgestat;
using namespace judgestat::agreement_testing;

namespace {

// Records of raters (columns) on items (rows); "." = no record, "" = an invalid verdict.
std::string ratings_csv(const std::vector<std::string>& raters, const std::vector<std::vector<std::string>>& rows,
                        const std::string& gold, int order = 0) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,order\n";
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t r = 0; r < raters.size(); ++r)
      if (rows[i][r] != ".") csv << raters[r] << ",u" << i << "," << gold << "," << rows[i][r] << "," << order << "\n";
  return csv.str();
}

std::vector<int32_t> indices(const Fixture& f, const std::vector<std::string>& names) {
  std::vector<int32_t> out;
  for (const std::string& name : names) out.push_back(f.judge(name));
  return out;
}

// Cohen's κ from the two raters' verdicts on the items both rated, by the contingency table:
// p_o = Σ_c t_cc / n, p_e = Σ_c (row c)(column c) / n².
double cohen_by_table(const std::vector<std::vector<std::string>>& rows) {
  std::map<std::string, double> row_total, column_total;
  double agree = 0, n = 0;
  for (const auto& row : rows) {
    if (row[0] == "." || row[1] == ".") continue;
    const std::string a = row[0].empty() ? "<invalid>" : row[0], b = row[1].empty() ? "<invalid>" : row[1];
    ++row_total[a];
    ++column_total[b];
    agree += a == b;
    ++n;
  }
  double chance = 0;
  for (const auto& [category, count] : row_total) chance += count * column_total[category] / (n * n);
  return (agree / n - chance) / (1 - chance);
}

}  // namespace

// Wikipedia, "Cohen's kappa", simple example: 50 applications read by two readers; both say yes
// 20 times, A yes / B no 5, A no / B yes 10, both no 15. p_o = 0.7, p_e = 0.5, "κ = 0.4".
TEST(AgreementCohen, WikipediaYesNoExample) {
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < 20; ++i) rows.push_back({"yes", "yes"});
  for (int i = 0; i < 5; ++i) rows.push_back({"yes", "no"});
  for (int i = 0; i < 10; ++i) rows.push_back({"no", "yes"});
  for (int i = 0; i < 15; ++i) rows.push_back({"no", "no"});
  Fixture f = make_fixture(ratings_csv({"A", "B"}, rows, "yes"), "cohen.csv", LoadOptions{{"yes", "no"}});
  add_pair_kappa(f.m, f.judge("A"), f.judge("B"), 0, f.scope(), f.plan);
  ASSERT_EQ(f.plan.statistics.size(), 1u);
  EXPECT_NEAR(estimate(f.plan, {"kappa"}), 0.4, 1e-15);
  const StatLabel& label = label_of(f.plan, {"kappa"});
  EXPECT_EQ(label.judge, "A");
  EXPECT_EQ(label.reference, "B");
  EXPECT_EQ(label.order, 0);
  EXPECT_EQ(label.n, 50);
}

// Three labels, invalid verdicts (their own category) and items only one judge rated.
TEST(AgreementCohen, MatchesContingencyTableWithInvalidAndMissing) {
  std::mt19937 rng(3);
  const std::vector<std::string> choices = {"A", "B", "C", "", "."};
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < 80; ++i) {
    const std::string a = choices[rng() % 5];
    // B agrees with A half the time.
    const std::string b = rng() % 2 && a != "." ? a : choices[rng() % 5];
    if (a == "." && b == ".") continue;
    rows.push_back({a, b});
  }
  Fixture f = make_fixture(ratings_csv({"P", "Q"}, rows, "A", 1), "cohen_loop.csv", LoadOptions{{"A", "B", "C"}});
  add_pair_kappa(f.m, f.judge("P"), f.judge("Q"), 1, f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  EXPECT_NEAR(estimate(f.plan, {"kappa"}), cohen_by_table(rows), 1e-14);
  int64_t both = 0;
  for (const auto& row : rows) both += row[0] != "." && row[1] != ".";
  EXPECT_EQ(label_of(f.plan, {"kappa"}).n, both);
  EXPECT_EQ(label_of(f.plan, {"kappa"}).order, 1);
}

// CAP App. C's one-sided disagreement counts and mean label per rater on the Wikipedia table
// above: A yes / B no on 5 of 50, A no / B yes on 10; A says yes on 25, B on 30. An invalid verdict
// of A is its own category; a tie never seen gets no share.
TEST(AgreementDirectional, DisagreementsBothWaysAndLabelSharesByHand) {
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < 20; ++i) rows.push_back({"yes", "yes"});
  for (int i = 0; i < 5; ++i) rows.push_back({"yes", "no"});
  for (int i = 0; i < 10; ++i) rows.push_back({"no", "yes"});
  for (int i = 0; i < 15; ++i) rows.push_back({"no", "no"});
  rows.push_back({"", "yes"});  // A invalid: a disagreement invalid/yes; not among A's valid verdicts
  rows.push_back({".", "no"});  // A absent: not co-rated
  Fixture f = make_fixture(ratings_csv({"A", "B"}, rows, "yes"), "directional.csv", LoadOptions{{"yes", "no"}});
  add_pair_disagreements(f.m, f.judge("A"), f.judge("B"), 0, f.scope(), f.plan);
  EXPECT_NEAR(estimate(f.plan, {"disagree", "yes/no"}), 5.0 / 51, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"disagree", "no/yes"}), 10.0 / 51, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"disagree", "invalid/yes"}), 1.0 / 51, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"disagree", "yes/invalid"}), 0.0, 0.0);  // the other direction, seen 0 times
  EXPECT_EQ(f.plan.statistics.size(), 4u);  // no/invalid and invalid/no never seen: no rows
  const StatLabel& label = label_of(f.plan, {"disagree", "yes/no"});
  EXPECT_EQ(label.judge, "A");
  EXPECT_EQ(label.reference, "B");
  EXPECT_EQ(label.n, 51);
  add_label_shares(f.m, f.judge("A"), 0, f.scope(), f.plan);
  add_label_shares(f.m, f.judge("B"), 0, f.scope(), f.plan);
  EXPECT_NEAR(estimate(f.plan, {"label_share", "yes", "A"}), 25.0 / 50, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"label_share", "no", "A"}), 25.0 / 50, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"label_share", "yes", "B"}), 31.0 / 52, 1e-15);
  EXPECT_EQ(label_of(f.plan, {"label_share", "yes", "B"}).n, 52);
  EXPECT_EQ(f.plan.statistics.size(), 8u);  // yes and no for each; no tie given
  expect_stack_within_limit(f.plan);
}

// add_cohen_kappa on one judge's order-0 and order-1 categories is the metrics plan's order kappa.
TEST(AgreementCohen, SharedHelperGivesTheOrderKappa) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,order\n";
  std::mt19937 rng(5);
  const char* verdicts[] = {"A", "B", "tie", ""};
  for (int i = 0; i < 40; ++i)
    for (int o = 0; o < 2; ++o)
      csv << "J,i" << i << "," << (i % 3 ? "A" : "B") << "," << verdicts[rng() % 4] << "," << o << "\n";
  Fixture f = make_fixture(csv.str(), "order_kappa.csv");
  std::vector<int32_t> first, second;
  for (const AccuracyUnit& u : f.units) {
    first.push_back(agreement_category(f.m, f.m.verdict[f.m.cell(0, u.item, 0, u.variant)]));
    second.push_back(agreement_category(f.m, f.m.verdict[f.m.cell(0, u.item, 1, u.variant)]));
  }
  StatLabel label;
  label.name = "kappa";
  ASSERT_TRUE(add_cohen_kappa(first, second, agreement_categories(f.m), "J/kappa", label, f.plan));
  const MetricsPlan metrics = build_metrics_plan(f.m, f.sel, MetricsOptions{});
  EXPECT_EQ(estimate(f.plan, {"kappa"}), estimate(metrics.plan, {"kappa"}));
  EXPECT_EQ(label_of(f.plan, {"kappa"}).n, label_of(metrics.plan, {"kappa"}).n);
}

TEST(AgreementCohen, LeftOutWhenUndefinedOrEmpty) {
  // Both always say A: p_e = 1, κ = 0/0.
  Fixture f = make_fixture(ratings_csv({"A", "B"}, {{"A", "A"}, {"A", "A"}, {"A", "."}}, "A"), "constant.csv",
                           LoadOptions{{"A", "B"}});
  add_pair_kappa(f.m, f.judge("A"), f.judge("B"), 0, f.scope(), f.plan);
  EXPECT_TRUE(f.plan.statistics.empty());
  Fixture g = make_fixture(ratings_csv({"A", "B"}, {{"A", "."}, {".", "B"}}, "A"), "disjoint.csv");
  add_pair_kappa(g.m, g.judge("A"), g.judge("B"), 0, g.scope(), g.plan);
  EXPECT_TRUE(g.plan.statistics.empty());
  EXPECT_THROW(add_pair_kappa(g.m, g.judge("A"), g.judge("B"), 1, g.scope(), g.plan), std::invalid_argument);
  EXPECT_THROW(add_pair_kappa(g.m, g.judge("A"), g.judge("A"), 0, g.scope(), g.plan), std::invalid_argument);
}

namespace {

// Fleiss (1971) as worked in Wikipedia's "Fleiss' kappa" example: 14 raters put 10 subjects into
// 5 categories; n_ij = raters assigning subject i to category j. "P̄ = 0.378, P̄e = 0.213,
// κ = 0.210".
const int kFleissTable[10][5] = {{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
                                 {7, 7, 0, 0, 0},  {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7}};

std::vector<std::string> fleiss_raters() {
  std::vector<std::string> raters;
  for (int r = 1; r <= 14; ++r) raters.push_back("R" + std::to_string(r));
  return raters;
}

// Rater r of subject i takes the r-th category of the row spelled out (n_i1 times c1, then c2, …).
std::vector<std::vector<std::string>> fleiss_rows() {
  std::vector<std::vector<std::string>> rows;
  for (const auto& counts : kFleissTable) {
    std::vector<std::string> row;
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < counts[j]; ++k) row.push_back("c" + std::to_string(j + 1));
    rows.push_back(row);
  }
  return rows;
}

// Fleiss' κ from a subjects × categories count table, as Fleiss (1971) defines it.
double fleiss_by_table(const std::vector<std::vector<double>>& table) {
  const double N = static_cast<double>(table.size());
  double n = 0;
  for (double x : table[0]) n += x;
  double p_bar = 0;
  std::vector<double> p(table[0].size(), 0.0);
  for (const auto& row : table) {
    double squares = 0;
    for (size_t j = 0; j < row.size(); ++j) {
      squares += row[j] * row[j];
      p[j] += row[j] / (N * n);
    }
    p_bar += (squares - n) / (n * (n - 1)) / N;
  }
  double p_e = 0;
  for (double pj : p) p_e += pj * pj;
  return (p_bar - p_e) / (1 - p_e);
}

const LoadOptions kFiveCategories{{"c1", "c2", "c3", "c4", "c5"}};

}  // namespace

TEST(AgreementFleiss, FleissWikipediaExample) {
  Fixture f = make_fixture(ratings_csv(fleiss_raters(), fleiss_rows(), "c1"), "fleiss.csv", kFiveCategories);
  add_fleiss_kappa(f.m, indices(f, fleiss_raters()), 0, f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  const double kappa = estimate(f.plan, {"fleiss_kappa"});
  EXPECT_NEAR(kappa, 0.210, 5e-4);  // as published, to three places
  std::vector<std::vector<double>> table;
  for (const auto& counts : kFleissTable) table.emplace_back(counts, counts + 5);
  EXPECT_NEAR(kappa, fleiss_by_table(table), 1e-14);
  const StatLabel& label = label_of(f.plan, {"fleiss_kappa"});
  EXPECT_EQ(label.judge, "R1,R2,R3,R4,R5,R6,R7,R8,R9,R10,R11,R12,R13,R14");
  EXPECT_EQ(label.n, 10);
  EXPECT_EQ(label.order, 0);
}

namespace {

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §C (nominal data, any
// number of observers, missing data): 4 observers × 12 units, "." = missing. The paper's
// result: "α_nominal = 0.743".
const std::vector<std::vector<std::string>> kKrippendorffRows = {
    {"1", "1", ".", "1"}, {"2", "2", "3", "2"}, {"3", "3", "3", "3"}, {"3", "3", "3", "3"},
    {"2", "2", "2", "2"}, {"1", "2", "3", "4"}, {"4", "4", "4", "4"}, {"1", "1", "2", "1"},
    {"2", "2", "2", "2"}, {".", "5", "5", "5"}, {".", ".", "1", "1"}, {".", "3", ".", "."}};

// α by the coincidence matrix: o_ck = Σ_u (pairs of values c, k in u) / (m_u − 1),
// α = 1 − (n − 1) Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k.
double alpha_by_coincidences(const std::vector<std::vector<std::string>>& rows) {
  std::map<std::pair<std::string, std::string>, double> o;
  for (const auto& row : rows) {
    std::vector<std::string> values;
    for (const std::string& v : row)
      if (v != ".") values.push_back(v.empty() ? "<invalid>" : v);
    if (values.size() < 2) continue;
    for (size_t a = 0; a < values.size(); ++a)
      for (size_t b = 0; b < values.size(); ++b)
        if (a != b) o[{values[a], values[b]}] += 1.0 / static_cast<double>(values.size() - 1);
  }
  std::map<std::string, double> n_c;
  double n = 0, disagree = 0;
  for (const auto& [pair, count] : o) {
    n_c[pair.first] += count;
    n += count;
    if (pair.first != pair.second) disagree += count;
  }
  double expected = 0;
  for (const auto& [c, nc] : n_c)
    for (const auto& [k, nk] : n_c)
      if (c != k) expected += nc * nk;
  return 1 - (n - 1) * disagree / expected;
}

}  // namespace

TEST(AgreementKrippendorff, KrippendorffNominalExampleWithMissing) {
  const std::vector<std::string> raters = {"A", "B", "C", "D"};
  Fixture f =
      make_fixture(ratings_csv(raters, kKrippendorffRows, "1"), "alpha.csv", LoadOptions{{"1", "2", "3", "4", "5"}});
  add_krippendorff_alpha(f.m, indices(f, raters), 0, f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  const double alpha = estimate(f.plan, {"krippendorff_alpha"});
  EXPECT_NEAR(alpha, 0.743, 5e-4);  // as published
  EXPECT_NEAR(alpha, alpha_by_coincidences(kKrippendorffRows), 1e-14);
  EXPECT_EQ(label_of(f.plan, {"krippendorff_alpha"}).n, 11);  // unit 12 has one value: not pairable
  EXPECT_EQ(label_of(f.plan, {"krippendorff_alpha"}).judge, "A,B,C,D");
}

// The same table under Fleiss: only the units all four rated (2–9) count.
TEST(AgreementFleiss, OnlyUnitsEveryRaterRated) {
  const std::vector<std::string> raters = {"A", "B", "C", "D"};
  Fixture f = make_fixture(ratings_csv(raters, kKrippendorffRows, "1"), "fleiss_missing.csv",
                           LoadOptions{{"1", "2", "3", "4", "5"}});
  add_fleiss_kappa(f.m, indices(f, raters), 0, f.scope(), f.plan);
  std::vector<std::vector<double>> table;
  for (const auto& row : kKrippendorffRows) {
    if (std::count(row.begin(), row.end(), ".") > 0) continue;
    std::vector<double> counts(5, 0.0);
    for (const std::string& v : row) ++counts[std::stoi(v) - 1];
    table.push_back(counts);
  }
  ASSERT_EQ(table.size(), 8u);
  EXPECT_NEAR(estimate(f.plan, {"fleiss_kappa"}), fleiss_by_table(table), 1e-14);
  EXPECT_EQ(label_of(f.plan, {"fleiss_kappa"}).n, 8);
}

// Invalid verdicts are a category of their own in both, as in Cohen's κ.
TEST(AgreementKrippendorff, InvalidIsItsOwnCategory) {
  const std::vector<std::vector<std::string>> rows = {{"A", "A", ""},  {"", "", "B"},  {"B", "B", "B"},
                                                      {"A", ".", "B"}, {"", "A", "."}, {"B", "", "A"}};
  const std::vector<std::string> raters = {"X", "Y", "Z"};
  Fixture f = make_fixture(ratings_csv(raters, rows, "A"), "alpha_invalid.csv", LoadOptions{{"A", "B"}});
  add_krippendorff_alpha(f.m, indices(f, raters), 0, f.scope(), f.plan);
  EXPECT_NEAR(estimate(f.plan, {"krippendorff_alpha"}), alpha_by_coincidences(rows), 1e-14);
}

TEST(AgreementRaters, FewerThanTwoOrTwiceIsAnError) {
  Fixture f = make_fixture(ratings_csv({"A", "B"}, {{"A", "B"}, {"B", "B"}}, "A"), "raters.csv");
  for (const std::vector<int32_t>& raters :
       {std::vector<int32_t>{0}, std::vector<int32_t>{}, std::vector<int32_t>{0, 0}}) {
    try {
      add_fleiss_kappa(f.m, raters, 0, f.scope(), f.plan);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("raters: ", 0), 0u) << e.what();
    }
    EXPECT_THROW(add_krippendorff_alpha(f.m, raters, 0, f.scope(), f.plan), std::invalid_argument);
  }
  EXPECT_TRUE(f.plan.statistics.empty());
}

TEST(AgreementRaters, LeftOutWhenEveryRatingIsOneCategory) {
  Fixture f = make_fixture(ratings_csv({"A", "B", "C"}, {{"A", "A", "A"}, {"A", "A", "."}}, "A"), "one_category.csv",
                           LoadOptions{{"A", "B"}});
  add_fleiss_kappa(f.m, {0, 1, 2}, 0, f.scope(), f.plan);
  add_krippendorff_alpha(f.m, {0, 1, 2}, 0, f.scope(), f.plan);
  EXPECT_TRUE(f.plan.statistics.empty());
}

namespace {

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §A (binary data, two
// observers, no missing data): 10 units; the paper's result "α = 0.095" (1 − 19 · 4 / (14 · 6)).
const std::vector<std::vector<std::string>> kTwoObserverRows = {{"0", "1"}, {"1", "1"}, {"0", "1"}, {"0", "0"},
                                                                {"0", "0"}, {"0", "1"}, {"0", "0"}, {"0", "0"},
                                                                {"1", "0"}, {"0", "0"}};

// Fleiss' κ with two raters per unit (Scott's π): observed agreement over the units both rated,
// chance from the pooled category shares, written out for two raters.
double two_rater_fleiss(const std::vector<std::vector<std::string>>& rows) {
  std::map<std::string, double> pooled;
  double units = 0, agree = 0;
  for (const auto& row : rows) {
    if (row[0] == "." || row[1] == ".") continue;
    ++units;
    agree += row[0] == row[1];
    ++pooled[row[0]];
    ++pooled[row[1]];
  }
  double chance = 0;
  for (const auto& [category, count] : pooled) chance += (count / (2 * units)) * (count / (2 * units));
  return (agree / units - chance) / (1 - chance);
}

}  // namespace

// Two raters are enough for both (issue 28 item 2): Krippendorff's published two-observer example,
// and the metrics plan builds both statistics for `--raters A,B` instead of refusing.
TEST(AgreementRaters, TwoObserversKrippendorffExample) {
  Fixture f =
      make_fixture(ratings_csv({"Mary", "Dave"}, kTwoObserverRows, "0"), "two_observers.csv", LoadOptions{{"0", "1"}});
  add_krippendorff_alpha(f.m, indices(f, {"Mary", "Dave"}), 0, f.scope(), f.plan);
  add_fleiss_kappa(f.m, indices(f, {"Mary", "Dave"}), 0, f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  const double alpha = estimate(f.plan, {"krippendorff_alpha"});
  EXPECT_NEAR(alpha, 0.095, 5e-4);  // as published
  EXPECT_NEAR(alpha, 1.0 - 19.0 * 4.0 / (14.0 * 6.0), 1e-15);
  EXPECT_NEAR(alpha, alpha_by_coincidences(kTwoObserverRows), 1e-15);
  // p_o = 6/10, p_e = 0.7² + 0.3² = 0.58: π = 0.02 / 0.42.
  EXPECT_NEAR(estimate(f.plan, {"fleiss_kappa"}), 0.02 / 0.42, 1e-14);
  EXPECT_NEAR(estimate(f.plan, {"fleiss_kappa"}), two_rater_fleiss(kTwoObserverRows), 1e-14);
  EXPECT_EQ(label_of(f.plan, {"krippendorff_alpha"}).n, 10);
  EXPECT_EQ(label_of(f.plan, {"fleiss_kappa"}).n, 10);

  MetricsOptions options;
  options.raters = {"Mary", "Dave"};
  const MetricsPlan metrics = build_metrics_run_plan(f.m, f.sel, options);
  EXPECT_EQ(estimate(metrics.plan, {"krippendorff_alpha"}), alpha);
  EXPECT_EQ(estimate(metrics.plan, {"fleiss_kappa"}), estimate(f.plan, {"fleiss_kappa"}));
  EXPECT_EQ(label_of(metrics.plan, {"fleiss_kappa"}).judge, "Mary,Dave");
}

// Two raters, three labels, invalid verdicts and units one rater skipped: α over the pairable
// units by the coincidence matrix, Fleiss' κ over the units both rated.
TEST(AgreementRaters, TwoRatersWithMissingAndInvalid) {
  const std::vector<std::vector<std::string>> rows = {{"A", "A"}, {"B", "A"}, {"C", "C"}, {"A", "."},
                                                      {"B", "B"}, {"", "B"},  {"C", "A"}, {".", "C"},
                                                      {"A", "A"}, {"B", "C"}, {"C", "C"}, {"", ""}};
  Fixture f = make_fixture(ratings_csv({"P", "Q"}, rows, "A"), "two_raters.csv", LoadOptions{{"A", "B", "C"}});
  add_krippendorff_alpha(f.m, indices(f, {"P", "Q"}), 0, f.scope(), f.plan);
  add_fleiss_kappa(f.m, indices(f, {"P", "Q"}), 0, f.scope(), f.plan);
  EXPECT_NEAR(estimate(f.plan, {"krippendorff_alpha"}), alpha_by_coincidences(rows), 1e-14);
  EXPECT_NEAR(estimate(f.plan, {"fleiss_kappa"}), two_rater_fleiss(rows), 1e-14);
  EXPECT_EQ(label_of(f.plan, {"krippendorff_alpha"}).n, 10);
  EXPECT_EQ(label_of(f.plan, {"fleiss_kappa"}).n, 10);
}
