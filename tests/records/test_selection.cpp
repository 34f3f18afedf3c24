// What a command analyses (docs/statistics.md §2 "Numbering", §7.1 difficulty and hard): record
// filters, groups, stratified and domain-estimation numbering, and the domain estimates' replicates
// against an explicit Philox loop.
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyses/metrics/metrics_plan.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/philox.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"

namespace judgestat {
namespace {

struct Row {
  std::string judge, item, gold, verdict, cluster, condition;
  int order = 0;
  std::string variant = "plain";
};

/// An item matrix from rows in line order (line k + 2, as after a CSV header).
ItemMatrix matrix_of(const std::vector<Row>& rows, const LoadOptions& options = {}) {
  std::vector<Record> records;
  for (const Row& row : rows) {
    Record record;
    record.judge = row.judge;
    record.item = row.item;
    record.gold = row.gold;
    record.verdict = row.verdict;
    record.verdict_given = !row.verdict.empty();
    record.cluster = row.cluster;
    record.condition = row.condition;
    record.benchmark = "default";
    record.order = row.order;
    record.variant = row.variant;
    record.line = static_cast<int64_t>(records.size()) + 2;
    records.push_back(record);
  }
  return build_item_matrix(records, "in-memory", options);
}

// Items i1..i5 (two judges, judge-major lines): conditions x, y, y, x, z; clusters q1, q2,
// `i3_cluster`, q3, q4. With i3 in q1, cluster q1 spans x and y.
ItemMatrix five_items(const std::string& i3_cluster) {
  const std::vector<std::pair<std::string, std::string>> item_cluster_condition = {
      {"q1", "x"}, {"q2", "y"}, {i3_cluster, "y"}, {"q3", "x"}, {"q4", "z"}};
  std::vector<Row> rows;
  for (const std::string judge : {"j1", "j2"})
    for (size_t k = 0; k < item_cluster_condition.size(); ++k)
      rows.push_back({judge, "i" + std::to_string(k + 1), "A", "A", item_cluster_condition[k].first,
                      item_cluster_condition[k].second});
  return matrix_of(rows);
}

SelectionOptions by_condition(const std::string& mode = "") {
  SelectionOptions options;
  options.strata = "condition";
  options.strata_mode = mode;
  return options;
}

bool has(const std::string& text, const std::string& words) { return text.find(words) != std::string::npos; }

TEST(SelectionStrata, StratifiedWhenEveryClusterLiesInOneGroup) {
  const ItemMatrix m = five_items("q5");
  for (const std::string mode : {"", "by"}) {
    SCOPED_TRACE("mode '" + mode + "'");
    const Selection sel = select_records(m, by_condition(mode));
    EXPECT_FALSE(sel.domain);
    EXPECT_EQ(sel.strata_note, "");
    EXPECT_EQ(sel.stratum_names, (std::vector<std::string>{"x", "y", "z"}));
    // Stratum x: q1 (i1), q3 (i4); y: q2 (i2), q5 (i3); z: q4 (i5).
    EXPECT_EQ(sel.stratum_offset, (std::vector<int64_t>{0, 2, 4, 5}));
    EXPECT_EQ(sel.cluster_names, (std::vector<std::string>{"q1", "q3", "q2", "q5", "q4"}));
    EXPECT_EQ(sel.item_cluster, (std::vector<int32_t>{0, 2, 3, 1, 4}));
    EXPECT_EQ(sel.item_stratum, (std::vector<int32_t>{0, 1, 1, 0, 2}));
    EXPECT_EQ(strata_setting(sel), "condition");
    const Plan plan = plan_for(sel);
    EXPECT_EQ(plan.n_strata(), 3);
    EXPECT_EQ(plan.stratum_names, sel.stratum_names);
  }
  EXPECT_EQ(strata_setting(select_records(m, SelectionOptions{})), "");
}

TEST(SelectionStrata, SpanningClusterGivesDomainEstimation) {
  const ItemMatrix m = five_items("q1");
  const Selection sel = select_records(m, by_condition());
  EXPECT_TRUE(sel.domain);
  // One resampling stratum, clusters by first appearance over all items: q1 (i1), q2, q3, q4.
  EXPECT_EQ(sel.stratum_offset, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(sel.cluster_names, (std::vector<std::string>{"q1", "q2", "q3", "q4"}));
  EXPECT_EQ(sel.item_cluster, (std::vector<int32_t>{0, 1, 0, 2, 3}));
  // The reporting groups are unchanged.
  EXPECT_EQ(sel.stratum_names, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(sel.item_stratum, (std::vector<int32_t>{0, 1, 1, 0, 2}));
  EXPECT_TRUE(has(sel.strata_note, "cluster 'q1'")) << sel.strata_note;
  EXPECT_TRUE(has(sel.strata_note, "('x' and 'y')")) << sel.strata_note;
  EXPECT_TRUE(has(sel.strata_note, "domain estimate on these unstratified replicates")) << sel.strata_note;
  EXPECT_EQ(strata_setting(sel), "none");
  const Plan plan = plan_for(sel);
  EXPECT_EQ(plan.n_strata(), 1);
  EXPECT_EQ(plan.stratum_names, (std::vector<std::string>{"all"}));
  EXPECT_EQ(plan.cluster_names, sel.cluster_names);
}

TEST(SelectionStrata, NoneAsksForDomainEstimation) {
  const Selection sel = select_records(five_items("q5"), by_condition("none"));
  EXPECT_TRUE(sel.domain);
  EXPECT_EQ(sel.stratum_offset, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(sel.cluster_names, (std::vector<std::string>{"q1", "q2", "q5", "q3", "q4"}));
  EXPECT_EQ(sel.item_cluster, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(sel.item_stratum, (std::vector<int32_t>{0, 1, 1, 0, 2}));
  EXPECT_TRUE(has(sel.strata_note, "--strata none asked for domain estimation")) << sel.strata_note;
  EXPECT_FALSE(has(sel.strata_note, "cluster '")) << sel.strata_note;  // no cluster spans groups here
  EXPECT_EQ(strata_setting(sel), "none");
}

TEST(SelectionStrata, ByWithASpanningClusterIsAnError) {
  try {
    select_records(five_items("q1"), by_condition("by"));
    ADD_FAILURE() << "expected UsageError";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(has(message, "cluster 'q1' has items in two condition groups ('x' and 'y')")) << message;
    EXPECT_TRUE(has(message, "--strata none")) << message;
    EXPECT_TRUE(has(message, "domain estimation")) << message;
  }
}

TEST(SelectionStrata, BadOptions) {
  const ItemMatrix m = five_items("q5");
  SelectionOptions bad_key;
  bad_key.strata = "source";
  EXPECT_THROW(select_records(m, bad_key), std::invalid_argument);
  try {
    select_records(m, by_condition("stratified"));
    ADD_FAILURE() << "expected invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "strata: expected by or none, got 'stratified'");
  }
  SelectionOptions mode_without_groups;
  mode_without_groups.strata_mode = "none";
  EXPECT_THROW(select_records(m, mode_without_groups), std::invalid_argument);
}

// Difficulty: labels A, B, gold A everywhere, three judges; item-major lines. Order-0 wrong counts:
// d1 0 (j1's order-1 B does not count), d2 1, d3 2 (invalid, tie), d4 3, d5 1 (j1 has no
// record), d6 1 (j1's first variant with a record is padded: B; j2's plain A; j3 plain A).
ItemMatrix difficulty_items() {
  std::vector<Row> rows;
  auto add = [&](const std::string& item, const std::string& judge, const std::string& verdict, int order = 0,
                 const std::string& variant = "plain") {
    rows.push_back({judge, item, "A", verdict, "", "", order, variant});
  };
  add("d1", "j1", "A"), add("d1", "j1", "B", 1), add("d1", "j2", "A"), add("d1", "j3", "A");
  add("d2", "j1", "B"), add("d2", "j2", "A"), add("d2", "j3", "A");
  add("d3", "j1", ""), add("d3", "j2", "tie"), add("d3", "j3", "A");
  add("d4", "j1", "B"), add("d4", "j2", "B"), add("d4", "j3", "B");
  add("d5", "j2", "B"), add("d5", "j3", "A");
  add("d6", "j1", "B", 0, "padded"), add("d6", "j2", "A"), add("d6", "j2", "B", 0, "padded"), add("d6", "j3", "A");
  return matrix_of(rows, LoadOptions{{"A", "B"}});
}

SelectionOptions by_difficulty(std::vector<std::string> judges = {}) {
  SelectionOptions options;
  options.strata = "difficulty";
  options.judges = std::move(judges);
  return options;
}

TEST(SelectionDifficulty, GroupsCountWrongJudgesInOrderZero) {
  const ItemMatrix m = difficulty_items();
  ASSERT_EQ(m.labels, (std::vector<std::string>{"A", "B"}));
  ASSERT_EQ(m.verdict[m.cell(1, 2, 0, 0)], kTie);  // d3's tie is a valid verdict, and wrong
  ASSERT_EQ(m.variants, (std::vector<std::string>{"plain", "padded"}));
  const Selection sel = select_records(m, by_difficulty());
  EXPECT_EQ(sel.stratum_names, (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(sel.item_stratum, (std::vector<int32_t>{0, 1, 2, 3, 1, 1}));
  // Each item its own cluster, so stratified: group 1 holds d2, d5, d6.
  EXPECT_FALSE(sel.domain);
  EXPECT_EQ(sel.stratum_offset, (std::vector<int64_t>{0, 1, 4, 5, 6}));
  EXPECT_EQ(sel.cluster_names, (std::vector<std::string>{"d1", "d2", "d5", "d6", "d3", "d4"}));
  EXPECT_EQ(strata_setting(sel), "difficulty");

  // Only the selected judges count: without j3, d4 has two wrong and d3 two.
  const Selection two = select_records(m, by_difficulty({"j1", "j2"}));
  EXPECT_EQ(two.stratum_names, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(two.item_stratum, (std::vector<int32_t>{0, 1, 2, 2, 1, 1}));

  // Only the padded variant: d6 alone, where j1 and j2 said B and j3 has no padded record.
  SelectionOptions padded = by_difficulty();
  padded.variants = {"padded"};
  const Selection only_padded = select_records(m, padded);
  EXPECT_EQ(only_padded.items, (std::vector<int32_t>{5}));
  EXPECT_EQ(only_padded.stratum_names, (std::vector<std::string>{"2"}));
}

TEST(SelectionDifficulty, HardKeepsItemsSomeJudgeGetsWrong) {
  const ItemMatrix m = difficulty_items();
  SelectionOptions hard;
  hard.hard_only = true;
  const Selection sel = select_records(m, hard);
  EXPECT_EQ(sel.items, (std::vector<int32_t>{1, 2, 3, 4, 5}));  // d1 left out
  EXPECT_EQ(sel.records, 19 - 4);                               // d1's four records
  EXPECT_EQ(sel.invalid, 1);                                    // d3's empty verdict
  EXPECT_EQ(sel.orders, 1);                                     // d1's order-1 record is gone
  EXPECT_EQ(sel.item_cluster, (std::vector<int32_t>{-1, 0, 1, 2, 3, 4}));

  hard.strata = "difficulty";
  EXPECT_EQ(select_records(m, hard).stratum_names, (std::vector<std::string>{"1", "2", "3"}));

  // Only the selected judges count: j3 is wrong on d4 alone.
  SelectionOptions j3_hard;
  j3_hard.hard_only = true;
  j3_hard.judges = {"j3"};
  EXPECT_EQ(select_records(m, j3_hard).items, (std::vector<int32_t>{3}));
}

TEST(SelectionDifficulty, EmptyHardSubsetNamesTheFilter) {
  const ItemMatrix m = matrix_of({{"j1", "i1", "A", "A", "", ""}, {"j2", "i1", "A", "A", "", ""}});
  SelectionOptions hard;
  hard.hard_only = true;
  try {
    select_records(m, hard);
    ADD_FAILURE() << "expected UsageError";
  } catch (const UsageError& error) {
    EXPECT_TRUE(has(error.what(), "the selected subset is empty")) << error.what();
    EXPECT_TRUE(has(error.what(), "hard filter")) << error.what();
  }
}

TEST(SelectionDifficulty, NeedsTwoJudges) {
  try {
    select_records(difficulty_items(), by_difficulty({"j2"}));
    ADD_FAILURE() << "expected invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(has(error.what(), "by: difficulty needs at least two judges")) << error.what();
  }
}

// --- Domain estimation against an explicit loop ------------------------------------------------

// 12 items in 5 clusters, conditions x and y; clusters c0, c2 and c4 span both. Two judges with
// verdicts from a fixed pattern; one invalid record.
ItemMatrix spanning_conditions() {
  const char* clusters[] = {"c0", "c1", "c0", "c2", "c3", "c2", "c4", "c1", "c4", "c3", "c0", "c4"};
  const char* conditions[] = {"x", "x", "y", "x", "y", "y", "x", "x", "y", "y", "x", "x"};
  std::vector<Row> rows;
  for (int k = 0; k < 12; ++k) {
    const std::string item = "i" + std::to_string(k), gold = k % 3 ? "A" : "B";
    const std::string v1 = (k * 7) % 5 < 3 ? gold : (gold == "A" ? "B" : "A");
    const std::string v2 = k == 4 ? "" : ((k * 5) % 7 < 4 ? gold : (gold == "A" ? "B" : "A"));
    rows.push_back({"j1", item, gold, v1, clusters[k], conditions[k]});
    rows.push_back({"j2", item, gold, v2, clusters[k], conditions[k]});
  }
  return matrix_of(rows);
}

TEST(SelectionDomainEstimation, ReplicatesAreGroupRatiosOnUnstratifiedDraws) {
  const ItemMatrix m = spanning_conditions();
  SelectionOptions select;
  select.strata = "condition";
  const Selection sel = select_records(m, select);
  ASSERT_TRUE(sel.domain);
  MetricsOptions options;
  options.by = "condition";
  const MetricsPlan built = build_metrics_plan(m, sel, options);
  BootstrapOptions boot;
  boot.replicates = 300;
  boot.seed = 0x1234567890abcdefULL;
  boot.keep_replicates = true;
  const auto backend = make_cpu_backend(2);
  const BootstrapResult result = run_bootstrap(built.plan, *backend, boot);
  const size_t S = result.labels.size();
  ASSERT_EQ(result.replicates.size(), boot.replicates * S);

  // Clusters numbered by first appearance over all items (items in line order), one stratum.
  std::map<int32_t, uint32_t> number;
  std::vector<uint32_t> cluster_of(m.n_items());
  for (int32_t i = 0; i < m.n_items(); ++i) {
    number.emplace(m.item_cluster[i], static_cast<uint32_t>(number.size()));
    cluster_of[i] = number[m.item_cluster[i]];
  }
  const uint32_t C = static_cast<uint32_t>(number.size());
  ASSERT_EQ(C, 5u);

  int checked = 0;
  for (size_t s = 0; s < S; ++s) {
    const StatLabel& label = result.labels[s];
    if (label.name != "acc") continue;
    const int32_t j = m.judge_index(label.judge);
    SCOPED_TRACE(label.judge + " " + label.condition.value_or("overall"));
    for (uint32_t r = 0; r < boot.replicates; ++r) {
      // docs/statistics.md §2: draw d is word d mod 4 of Philox(counter (d div 4, r, 0, 0)).
      std::vector<double> multiplicity(C, 0.0);
      for (uint32_t d = 0; d < C; ++d) {
        const uint32_t u = draw_block(PhiloxKey(boot.seed), d / 4, r, 0).w[d % 4];
        ++multiplicity[static_cast<uint32_t>((static_cast<uint64_t>(u) * C) >> 32)];
      }
      double right = 0, present = 0;
      for (int32_t i = 0; i < m.n_items(); ++i) {
        if (label.condition && m.conditions[m.item_condition[i]] != *label.condition) continue;
        const size_t c = m.cell(j, i, 0, 0);
        present += multiplicity[cluster_of[i]];
        right += multiplicity[cluster_of[i]] * m.correct(c, i);
      }
      const double expected = present > 0 ? right / present : std::nan("");
      const double got = result.replicates[r * S + s];
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << "replicate " << r;
      } else {
        EXPECT_EQ(got, expected) << "replicate " << r;
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6);  // two judges × (overall, x, y)
}

TEST(SelectionDomainEstimation, RunMetricsPassesStrataModeAndHard) {
  const ItemMatrix m = spanning_conditions();
  MetricsOptions options;
  options.by = "condition";
  options.bootstrap.replicates = 20;
  options.strata_mode = "by";
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 1;
  EXPECT_THROW(run_metrics(m, options, target), UsageError);
  options.strata_mode = "";
  options.hard_only = true;
  int64_t hard = 0;  // items some judge gets wrong
  for (int32_t i = 0; i < m.n_items(); ++i)
    hard += !m.correct(m.cell(0, i, 0, 0), i) || !m.correct(m.cell(1, i, 0, 0), i);
  ASSERT_GT(hard, 0);
  ASSERT_LT(hard, m.n_items());
  const MetricsReport report = run_metrics(m, options, target);
  int checked = 0;
  for (const StatLabel& label : report.statistics.labels) {
    if (label.name != "acc" || label.condition) continue;
    EXPECT_EQ(label.n, hard) << label.judge;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace judgestat
