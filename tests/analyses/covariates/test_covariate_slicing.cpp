// `--by x.NAME` (docs/statistics.md §8.3): metrics sliced by a covariate's values or by bins of a
// numeric one, each slice row naming its edges, with n and accuracy counted by hand; bad slicing
// requests name the flag, and an item whose records disagree names the file, line and column.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// Eight items, one cluster each, x.len 10, 20, …, 80 and x.model by item; J is right on the items
// of length 10, 20, 50, 60 and 70 and wrong on 30, 40 and 80.
const char* kLengths =
    "judge,item,gold,verdict,x.len,x.model\n"
    "J,a,A,A,10,gpt\nJ,b,A,A,20,gpt\nJ,c,A,B,30,claude\nJ,d,B,A,40,gpt\n"
    "J,e,B,B,50,claude\nJ,f,A,A,60,claude\nJ,g,B,B,70,gpt\nJ,h,B,A,80,claude\n";

struct Slice {
  double acc;
  int64_t n;
  bool operator==(const Slice& other) const { return acc == other.acc && n == other.n; }
};

std::map<std::string, Slice> acc_by_slice(const ItemMatrix& m, const std::string& by, const std::string& bins) {
  SelectionOptions select;
  select.strata = by;
  select.bins = bins;
  const Selection sel = select_records(m, select);
  const MetricsPlan built = build_metrics_plan(m, sel, MetricsOptions{});
  const std::vector<double> point = point_estimates(built.plan);
  std::map<std::string, Slice> out;
  for (size_t s = 0; s < point.size(); ++s) {
    const StatLabel& l = built.plan.statistics[s].label;
    if (l.name == "acc") out[l.condition ? *l.condition : "all"] = {point[s], l.n};
  }
  return out;
}

std::string lengths_file() { return write_temp("covariate_lengths.csv", kLengths); }

}  // namespace

TEST(CovariateSlicing, EdgesCutTheItemsAndEachRowNamesItsBin) {
  const ItemMatrix m = load_item_matrix(lengths_file());
  // [0, 35): lengths 10, 20, 30 (right, right, wrong); [35, inf]: 40 … 80 (wrong, right, right, right, wrong).
  EXPECT_EQ(acc_by_slice(m, "x.len", "0,35,inf"),
            (std::map<std::string, Slice>{
                {"all", {5.0 / 8, 8}}, {"x.len=[0, 35)", {2.0 / 3, 3}}, {"x.len=[35, inf]", {3.0 / 5, 5}}}));
}

TEST(CovariateSlicing, QuantileBinsFollowNumpy) {
  const ItemMatrix m = load_item_matrix(lengths_file());
  // numpy.quantile(10..80, [0, .5, 1]) = [10, 45, 80]: [10, 45) holds 10–40 (2 of 4 right),
  // [45, 80] holds 50–80 (3 of 4 right).
  EXPECT_EQ(acc_by_slice(m, "x.len", "2"),
            (std::map<std::string, Slice>{
                {"all", {5.0 / 8, 8}}, {"x.len=[10, 45)", {0.5, 4}}, {"x.len=[45, 80]", {0.75, 4}}}));
  SelectionOptions select;
  select.strata = "x.len";
  select.bins = "2";
  EXPECT_EQ(select_records(m, select).bin_edges, (std::vector<double>{10, 45, 80}));
}

TEST(CovariateSlicing, TextValuesAreSlices) {
  const ItemMatrix m = load_item_matrix(lengths_file());
  // gpt: a, b, d, g (right, right, wrong, right); claude: c, e, f, h (wrong, right, right, wrong).
  EXPECT_EQ(
      acc_by_slice(m, "x.model", ""),
      (std::map<std::string, Slice>{{"all", {5.0 / 8, 8}}, {"x.model=gpt", {0.75, 4}}, {"x.model=claude", {0.5, 4}}}));
}

TEST(CovariateSlicing, ItemsWithoutAValueHaveTheirOwnSlice) {
  const ItemMatrix m = load_item_matrix(
      write_temp("covariate_gap.csv", "judge,item,gold,verdict,x.len\nJ,a,A,A,10\nJ,b,A,B,\nJ,c,A,A,30\n"));
  EXPECT_EQ(acc_by_slice(m, "x.len", "0,100"),
            (std::map<std::string, Slice>{
                {"all", {2.0 / 3, 3}}, {"x.len=[0, 100]", {1.0, 2}}, {"x.len=(no value)", {0.0, 1}}}));
}

TEST(CovariateSlicing, ClustersSpanningBinsGetDomainEstimation) {
  const ItemMatrix m = load_item_matrix(write_temp(
      "covariate_span.csv", "judge,item,gold,verdict,cluster,x.len\nJ,a,A,A,q,10\nJ,b,A,B,q,90\nJ,c,A,A,r,95\n"));
  SelectionOptions select;
  select.strata = "x.len";
  select.bins = "0,50,100";
  const Selection sel = select_records(m, select);
  EXPECT_TRUE(sel.domain);
  EXPECT_TRUE(contains(sel.strata_note, "cluster 'q' has items in two x.len groups ('[0, 50)' and '[50, 100]')"));
  select.strata_mode = "by";
  EXPECT_TRUE(contains(thrown_message([&] { select_records(m, select); }), "--strata by resamples within groups"));
}

TEST(CovariateSlicing, BadRequestsNameTheFlagOrTheLine) {
  const std::string path = lengths_file();
  const ItemMatrix m = load_item_matrix(path);
  SelectionOptions select;
  select.strata = "x.len";
  select.bins = "0,50,20";
  EXPECT_EQ(thrown_message([&] { select_records(m, select); }),
            "--bins: edges must increase, but 20 follows 50 in '0,50,20'");
  select.bins = "20,50";
  EXPECT_EQ(thrown_message([&] { select_records(m, select); }),
            "--bins: item 'a' has x.len = 10, outside the edges 20 to 50; widen them (inf and -inf are allowed)");
  select.strata = "x.model";
  select.bins = "2";
  EXPECT_EQ(thrown_message([&] { select_records(m, select); }),
            "--bins: x.model is not numeric (it has 'gpt') in " + path + "; drop --bins to group by its values");
  select.strata = "x.size";
  EXPECT_TRUE(contains(thrown_message([&] { select_records(m, select); }),
                       "--by: no covariate column 'x.size' in " + path + " (it has x.len, x.model)"));
  select.strata = "benchmark";
  EXPECT_TRUE(contains(thrown_message([&] { select_records(m, select); }), "bins: cuts a numeric covariate"));

  const std::string mixed =
      write_temp("covariate_mixed.csv", "judge,item,gold,verdict,x.len\nJ,a,A,A,10\nK,a,A,A,12\nJ,b,A,A,5\n");
  const ItemMatrix m2 = load_item_matrix(mixed);
  SelectionOptions by_len;
  by_len.strata = "x.len";
  EXPECT_EQ(thrown_message([&] { select_records(m2, by_len); }),
            mixed +
                ":3: column 'x.len': item \"a\" has \"12\" here but \"10\" on line 2; --by x.len needs one value "
                "per item, so give every record of the item the same x.len");
}
