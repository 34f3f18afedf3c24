// The order guard (docs/statistics.md §1, issue 29 item 4): a file whose order-1 verdicts were
// written in presented terms (the swap forgotten) is warned about above the tables and in the
// JSON notes, naming the judge, both agreement rates and `swap`; honest position bias, the bundled
// examples and the LLMBar / JudgeBench data are not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyses/metrics/order_guard.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "report/render_support.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

char other(char label) { return label == 'A' ? 'B' : 'A'; }

// 40 items, gold alternating A, B. `honest` is right except on every 8th item, in both orders,
// written canonically; `unswapped` judges the same but its order-1 verdicts were left in
// presented terms (A and B exchanged); `first` always picks the first shown response (A in order
// 0, canonical B in order 1) — honest position bias.
std::string swap_file() {
  std::string csv = "judge,item,order,gold,verdict\n";
  for (int i = 0; i < 40; ++i) {
    const char gold = i % 2 ? 'B' : 'A', verdict = i % 8 == 5 ? other(gold) : gold;
    const std::string item = "i" + std::to_string(i);
    for (int order = 0; order < 2; ++order) {
      const std::string head = "," + item + "," + std::to_string(order) + "," + gold + ",";
      csv += "honest" + head + verdict + "\n";
      csv += "unswapped" + head + (order == 1 ? other(verdict) : verdict) + "\n";
      csv += "first" + head + (order == 0 ? 'A' : 'B') + "\n";
    }
  }
  return write_temp("order_guard.csv", csv);
}

std::vector<std::string> warnings_of(const std::string& path, const LoadOptions& load = {}) {
  const ItemMatrix m = load_item_matrix(path, load);
  return order_guard_warnings(m, select_records(m, {}));
}

}  // namespace

TEST(OrderGuard, ForgottenSwapIsNamedWithBothRates) {
  // unswapped, recounted: right on 35 of 40 items (i % 8 == 5 wrong: 5 items) in order 0; in
  // order 1 its verdicts are the other label, so it names gold's presented position on 35 and gold
  // on 5.
  const std::vector<std::string> warnings = warnings_of(swap_file());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "unswapped: order-1 verdicts agree with gold's presented position (the label gold takes once A and B "
            "are swapped) on 35 of 40 records (0.88) but with gold on 5 (0.12; order 0: 0.88). Order-1 verdicts "
            "look written in presented terms: records give verdicts in canonical terms (docs/statistics.md §1); "
            "swap them back (an import map's `swap`)");
}

TEST(OrderGuard, HonestPositionBiasDoesNotFire) {
  // `first` always picks the first shown response. With gold 80% A its order-1 accuracy (0.2)
  // and presented-gold agreement (0.8) look like a forgotten swap, but per gold label the latter is
  // 1 on gold A and 0 on gold B: 0.5 on average, the most any verdict that ignores gold can reach.
  std::string csv = "judge,item,order,gold,verdict\n";
  for (int i = 0; i < 40; ++i)
    for (int order = 0; order < 2; ++order)
      csv += "first,i" + std::to_string(i) + "," + std::to_string(order) + "," + (i % 5 == 4 ? "B" : "A") + "," +
             (order == 0 ? "A" : "B") + "\n";
  const ItemMatrix m = load_item_matrix(write_temp("order_guard_first.csv", csv));
  const OrderAgreement a = order_agreement(m, select_records(m, {}), 0);
  EXPECT_EQ(a.order1, 40);
  EXPECT_EQ(a.right1, 8);       // gold B: 8 items
  EXPECT_EQ(a.presented1, 32);  // gold A shows as B in order 1
  EXPECT_EQ(a.presented1_by_gold[0], 32);
  EXPECT_EQ(a.presented1_by_gold[1], 0);
  EXPECT_FALSE(looks_unswapped(a));
}

TEST(OrderGuard, FewRecordsDoNotFire) {
  OrderAgreement a;
  a.order0 = a.right0 = 19;
  a.order1 = a.presented1 = 19;  // one short of kGuardRecords
  a.order1_by_gold[0] = a.presented1_by_gold[0] = 10;
  a.order1_by_gold[1] = a.presented1_by_gold[1] = 9;
  EXPECT_FALSE(looks_unswapped(a));
  a.order0 = a.right0 = a.order1 = a.presented1 = 20;
  a.order1_by_gold[1] = a.presented1_by_gold[1] = 10;
  EXPECT_TRUE(looks_unswapped(a));
}

TEST(OrderGuard, BundledDataDoesNotFire) {
  for (const char* file :
       {"data/examples/length_bias.csv", "data/examples/position_no_gold.csv", "data/examples/repeats.csv",
        "data/examples/win_rates.csv", "data/llmbar/natural_neighbor.csv", "data/judgebench/gpt4o_split.csv"}) {
    SCOPED_TRACE(file);
    EXPECT_TRUE(warnings_of(kRoot + "/" + file, LoadOptions{{"A", "B"}}).empty());
  }
}

TEST(OrderGuard, WarnsAboveTheTablesAndInTheJsonNotes) {
  const std::string path = swap_file();
  const CliRun text = run_cli("metrics " + path + " --replicates 200");
  ASSERT_EQ(text.status, 0) << text.out;
  const size_t warning = text.out.find("WARNING: unswapped: order-1 verdicts agree with gold's presented position");
  ASSERT_NE(warning, std::string::npos) << text.out;
  EXPECT_LT(warning, text.out.find("Summary: "));  // above the summary the text leads with
  EXPECT_TRUE(contains(text.out, "(an import map's `swap`)"));
  EXPECT_FALSE(contains(text.out, "WARNING: honest")) << text.out;
  EXPECT_FALSE(contains(text.out, "WARNING: first")) << text.out;
  const CliRun json = run_cli("metrics " + path + " --replicates 200 --format json");
  ASSERT_EQ(json.status, 0) << json.out;
  EXPECT_TRUE(contains(json.out, "\"unswapped: order-1 verdicts agree with gold's presented position")) << json.out;
  const CliRun csv = run_cli("metrics " + path + " --replicates 200 --format csv");
  EXPECT_FALSE(contains(csv.out, "WARNING"));
}

TEST(OrderGuard, TheWarningRendersAgainFromTheJson) {
  const AnalysisRequest request{"metrics", {"--replicates", "200"}};
  render_support::expect_renders_the_run("metrics", render_support::run_on(swap_file(), request));
}
