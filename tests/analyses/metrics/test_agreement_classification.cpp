// Classification detail (docs/statistics.md §7.1): macro and per-label precision, recall and F1
// against sklearn's definitions written out here, and the confusion matrix of counts.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/metrics/classification.hpp"
#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/metrics/test_agreement_fixture.hpp"

using namespace judgestat;
using namespace judgestat::agreement_testing;

namespace {

struct Case {
  std::string gold, verdict;  // verdict "" = invalid
};

// Three labels; C is gold three times and never predicted; one A is answered with nothing
// (invalid). Each item also has an order-1 record saying C, which order-0 statistics ignore.
const std::vector<Case> kCases = {{"A", "A"}, {"A", "A"}, {"A", "A"}, {"A", "B"}, {"A", ""},  {"B", "B"},
                                  {"B", "B"}, {"B", "A"}, {"B", "B"}, {"C", "A"}, {"C", "B"}, {"C", "B"}};

std::string cases_csv(const std::vector<Case>& cases) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,order\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    csv << "J,i" << i << "," << cases[i].gold << "," << cases[i].verdict << ",0\n";
    csv << "J,i" << i << "," << cases[i].gold << ",C,1\n";
  }
  return csv.str();
}

// sklearn.metrics.precision_recall_fscore_support (zero_division=0), per label k:
//   precision = tp / (tp + fp), recall = tp / (tp + fn), F1 = 2 tp / (2 tp + fp + fn),
// each 0 where its denominator is 0; average='macro' is the unweighted mean over the labels.
// A prediction outside the labels (invalid) is a false negative of its true label only.
struct Expected {
  double precision, recall, f1;
};
Expected sklearn_scores(const std::vector<Case>& cases, const std::string& k) {
  double tp = 0, fp = 0, fn = 0;
  for (const Case& c : cases) {
    tp += c.gold == k && c.verdict == k;
    fp += c.gold != k && c.verdict == k;
    fn += c.gold == k && c.verdict != k;
  }
  auto or_zero = [](double x, double y) { return y == 0 ? 0.0 : x / y; };
  return {or_zero(tp, tp + fp), or_zero(tp, tp + fn), or_zero(2 * tp, 2 * tp + fp + fn)};
}

}  // namespace

TEST(AgreementClassification, MacroAndPerLabelMatchSklearnDefinitions) {
  Fixture f = make_fixture(cases_csv(kCases), "three_labels.csv");
  add_classification(f.m, f.judge("J"), f.scope(), f.plan);
  expect_stack_within_limit(f.plan);
  double macro_p = 0, macro_r = 0, macro_f = 0;
  for (const std::string k : {"A", "B", "C"}) {
    SCOPED_TRACE(k);
    const Expected e = sklearn_scores(kCases, k);
    EXPECT_NEAR(estimate(f.plan, {"precision", k}), e.precision, 1e-15);
    EXPECT_NEAR(estimate(f.plan, {"recall", k}), e.recall, 1e-15);
    EXPECT_NEAR(estimate(f.plan, {"f1", k}), e.f1, 1e-15);
    EXPECT_EQ(label_of(f.plan, {"precision", k}).order, 0);
    macro_p += e.precision / 3;
    macro_r += e.recall / 3;
    macro_f += e.f1 / 3;
  }
  // C is never predicted: precision 0 by zero_division=0, with no predictions behind it.
  EXPECT_EQ(estimate(f.plan, {"precision", "C"}), 0.0);
  EXPECT_EQ(label_of(f.plan, {"precision", "C"}).n, 0);
  EXPECT_EQ(label_of(f.plan, {"recall", "C"}).n, 3);
  EXPECT_NEAR(estimate(f.plan, {"macro_precision"}), macro_p, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"macro_recall"}), macro_r, 1e-15);
  EXPECT_NEAR(estimate(f.plan, {"macro_f1"}), macro_f, 1e-15);
  EXPECT_EQ(label_of(f.plan, {"macro_f1"}).n, 12);
  EXPECT_EQ(f.plan.statistics.size(), 3u + 3u * 3u);
}

// The averaged labels are those occurring as gold or as a verdict (sklearn's default label set,
// the union of y_true and y_pred): D, predicted once and never gold, joins with precision,
// recall and F1 0. The values equal those of the metrics plan's macro_f1 bit for bit.
TEST(AgreementClassification, MacroF1EqualsTheMetricsPlans) {
  std::vector<Case> cases = kCases;
  cases.push_back({"A", "D"});  // D: a label that is predicted but never gold
  Fixture f = make_fixture(cases_csv(cases), "gold_only.csv", LoadOptions{{"A", "B", "C", "D"}});
  add_classification(f.m, f.judge("J"), f.scope(), f.plan);
  const MetricsPlan metrics = build_metrics_plan(f.m, f.sel, MetricsOptions{});
  EXPECT_EQ(estimate(f.plan, {"macro_f1"}), estimate(metrics.plan, {"macro_f1"}));
  EXPECT_EQ(label_of(f.plan, {"macro_f1"}).n, label_of(metrics.plan, {"macro_f1"}).n);
  int d_rows = 0;
  for (const StatisticDef& stat : f.plan.statistics) d_rows += stat.label.label == std::optional<std::string>("D");
  EXPECT_EQ(d_rows, 3);  // precision, recall, f1 of D
  EXPECT_EQ(estimate(f.plan, {"f1", "D"}), 0.0);
  double macro_f = 0;
  for (const std::string k : {"A", "B", "C", "D"}) macro_f += sklearn_scores(cases, k).f1 / 4;
  EXPECT_NEAR(estimate(f.plan, {"macro_f1"}), macro_f, 1e-15);
}

TEST(AgreementClassification, MaskedUnitsAndAbsentOrderZeroAreLeftOut) {
  Fixture f = make_fixture(cases_csv(kCases) + "J,late,A,A,1\n", "masked.csv");
  std::vector<double> mask(f.units.size(), 0.0);
  std::vector<Case> kept;
  for (size_t u = 0; u < f.units.size(); ++u) {
    // i0, i2, …, i10, and "late", which has no order-0 record
    const std::string& item = f.m.items[f.units[u].item];
    if (item != "late" && std::stoi(item.substr(1)) % 2 != 0) continue;
    mask[u] = 1;
    if (item != "late") kept.push_back(kCases[std::stoi(item.substr(1))]);
  }
  ASSERT_EQ(kept.size(), 6u);
  add_classification(f.m, f.judge("J"), ScopeView{f.units, mask, StatLabel{}, "even"}, f.plan);
  EXPECT_EQ(label_of(f.plan, {"macro_recall"}).n, static_cast<int64_t>(kept.size()));
  double macro_r = 0;
  for (const std::string k : {"A", "B", "C"}) macro_r += sklearn_scores(kept, k).recall / 3;
  EXPECT_NEAR(estimate(f.plan, {"macro_recall"}), macro_r, 1e-15);
}

TEST(AgreementClassification, ConfusionCountsRowsGoldColumnsEveryLabelTieInvalid) {
  Fixture f = make_fixture(cases_csv(kCases), "confusion.csv");
  const Confusion c = confusion_counts(f.m, f.judge("J"), f.scope());
  EXPECT_EQ(c.judge, "J");
  EXPECT_EQ(c.scope.name, "confusion");
  EXPECT_EQ(c.scope.n, 12);
  EXPECT_EQ(c.gold_labels, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(c.verdict_labels, (std::vector<std::string>{"A", "B", "C", "invalid"}));
  std::map<std::pair<std::string, std::string>, int64_t> expected;
  for (const Case& k : kCases) ++expected[{k.gold, k.verdict.empty() ? "invalid" : k.verdict}];
  for (size_t r = 0; r < c.gold_labels.size(); ++r)
    for (size_t v = 0; v < c.verdict_labels.size(); ++v)
      EXPECT_EQ(c.counts[r][v], (expected[{c.gold_labels[r], c.verdict_labels[v]}]))
          << c.gold_labels[r] << " → " << c.verdict_labels[v];
}

// Pairs: a tie is valid but predicts no label — it lowers recall and enters no precision.
TEST(AgreementClassification, TieCountsAgainstRecallOnly) {
  const std::string csv =
      "judge,item,gold,verdict\n"
      "J,1,A,A\nJ,2,A,tie\nJ,3,A,B\nJ,4,B,B\nJ,5,B,tie\nJ,6,B,\n";
  Fixture f = make_fixture(csv, "tie.csv");
  add_classification(f.m, f.judge("J"), f.scope(), f.plan);
  EXPECT_EQ(estimate(f.plan, {"recall", "A"}), 1.0 / 3.0);
  EXPECT_EQ(estimate(f.plan, {"precision", "A"}), 1.0);  // the one A predicted is right
  EXPECT_EQ(estimate(f.plan, {"precision", "B"}), 0.5);
  EXPECT_EQ(estimate(f.plan, {"f1", "B"}), 2.0 * 1 / (3 + 2));
  const Confusion c = confusion_counts(f.m, f.judge("J"), f.scope());
  EXPECT_EQ(c.verdict_labels, (std::vector<std::string>{"A", "B", "tie", "invalid"}));
  EXPECT_EQ(c.counts, (std::vector<std::vector<int64_t>>{{1, 1, 1, 0}, {0, 1, 1, 1}}));
}

TEST(AgreementClassification, NothingWithoutOrderZeroRecords) {
  Fixture f = make_fixture("judge,item,gold,verdict,order\nJ,1,A,A,1\nK,1,A,B,0\n", "none.csv");
  add_classification(f.m, f.judge("J"), f.scope(), f.plan);
  EXPECT_TRUE(f.plan.statistics.empty());
  const Confusion c = confusion_counts(f.m, f.judge("J"), f.scope());
  EXPECT_TRUE(c.gold_labels.empty());
  EXPECT_EQ(c.scope.n, 0);
}
