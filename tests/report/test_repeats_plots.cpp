// JEV Figs. 17–19 as far as the repeat statistics carry them (repeats_paper_plot_files): on a
// report whose numbers the test sets, the probability-variation forest draws one point per
// `_tv` row and the decision-change forest one per agreement or flip row, each axis holds every
// CI end and each CSV the values; a report without probabilities has no variation figure.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "judgestat/repeats.hpp"
#include "paper_plot_checks.hpp"

using namespace judgestat;
using namespace judgestat::paper_plot_checks;

namespace {

void add_row(RepeatsReport& r, const std::string& name, const std::string& judge, double est, double lo, double hi) {
  StatLabel label;
  label.name = name, label.judge = judge, label.n = 48;
  Interval ci;
  ci.estimate = est, ci.lo = lo, ci.hi = hi;
  r.statistics.labels.push_back(label);
  r.statistics.intervals.push_back(ci);
}

RepeatsReport hand_report() {
  RepeatsReport r;
  r.statistics.level = 0.9;
  add_row(r, "repeat_agree", "JEV", 0.96, 0.91, 1.0), add_row(r, "repeat_flip", "JEV", 0.02, 0.0, 0.05);
  add_row(r, "repeat_tv", "JEV", 0.004, 0.002, 0.007);
  add_row(r, "variant_agree", "JEV", 0.88, 0.80, 0.95), add_row(r, "variant_flip", "JEV", 0.07, 0.03, 0.12);
  add_row(r, "variant_tv", "JEV", 0.031, 0.020, 0.045);
  add_row(r, "rotation_agree", "GPT", 0.75, 0.62, 0.86), add_row(r, "rotation_pair_agree", "GPT", 0.83, 0.74, 0.91);
  return r;
}

}  // namespace

TEST(RepeatsPlots, ProbabilityVariationAndDecisionChangesWithTheirIntervals) {
  const RepeatsReport r = hand_report();
  const std::vector<PlotFile> plots = repeats_paper_plot_files(r);
  ASSERT_EQ(plots.size(), 2u);
  const PlotFile* tv = find_plot(plots, "repeats_paper_probability_variation");
  const PlotFile* changes = find_plot(plots, "repeats_paper_decision_changes");
  ASSERT_TRUE(tv && changes);
  EXPECT_EQ(points_drawn(tv->svg), 2u);
  EXPECT_EQ(points_drawn(changes->svg), 6u);
  EXPECT_NE(tv->svg.find("<title>"), std::string::npos);
  EXPECT_NE(changes->svg.find("90% CI"), std::string::npos);  // the run's level, not a fixed 95 %
  for (const PlotFile* p : {tv, changes}) {
    const Csv csv = parse_csv(p->csv);
    const Range axis = axis_range(p->svg, true);
    for (size_t k = 0; k < csv.rows.size(); ++k) {
      EXPECT_TRUE(axis.holds(csv.number(k, "ci_lo")) && axis.holds(csv.number(k, "ci_hi"))) << p->name;
      bool found = false;
      for (size_t s = 0; s < r.statistics.labels.size(); ++s)
        found = found || (r.statistics.labels[s].name == csv.cell(k, "statistic") &&
                          r.statistics.intervals[s].estimate == csv.number(k, "estimate") &&
                          r.statistics.intervals[s].hi == csv.number(k, "ci_hi"));
      EXPECT_TRUE(found) << csv.cell(k, "statistic");
    }
    expect_text_inside(p->svg);
  }
  EXPECT_EQ(parse_csv(tv->csv).number(1, "estimate"), 0.031);
}

TEST(RepeatsPlots, NoVariationFigureWithoutProbabilities) {
  RepeatsReport r;
  r.statistics.level = 0.95;
  add_row(r, "repeat_agree", "J", 0.9, 0.8, 0.97);
  const std::vector<PlotFile> plots = repeats_paper_plot_files(r);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots[0].name, "repeats_paper_decision_changes");
  EXPECT_EQ(plot_files(r).size(), 1u);  // the run's figures are these
}
