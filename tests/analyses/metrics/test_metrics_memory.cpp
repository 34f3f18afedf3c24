// Issue 26 part 7: a metrics run's plan is sized before it is built. With the item matrix loaded,
// a lower bound on the plan's columns × units × their bytes per unit (1 for a count column; a
// column of fractions 8 per unit, or 8 per cluster once folded into its cluster sums, whichever is
// less), added to the matrix, is checked against
// the memory budget (JUDGESTAT_MEMORY_LIMIT here), and a run that cannot fit is refused with the
// figure before anything is resampled.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::cpu_target;
using testing_support::kRoot;
using testing_support::thrown_message;
using testing_support::write_temp;

constexpr int kItems = 50, kJudges = 2, kOrders = 2;

/// Two judges × two orders × 50 items in clusters of 2, every record valid with p.A and p.B.
std::string records_csv() {
  std::string text = "judge,item,cluster,order,gold,verdict,p.A,p.B\n";
  for (int i = 0; i < kItems; ++i)
    for (int j = 0; j < kJudges; ++j)
      for (int o = 0; o < kOrders; ++o) {
        const double p = 0.1 + 0.8 * ((i * 7 + j * 3 + o) % 10) / 9.0;
        text += "j" + std::to_string(j) + ",i" + std::to_string(i) + ",c" + std::to_string(i / 2) + "," +
                std::to_string(o) + "," + (i % 2 ? "A" : "B") + "," + (p >= 0.5 ? "A" : "B") + "," + std::to_string(p) +
                "," + std::to_string(1 - p) + "\n";
      }
  return text;
}

/// Sets JUDGESTAT_MEMORY_LIMIT for the scope of a test.
class MemoryLimit {
 public:
  explicit MemoryLimit(const std::string& value) { ::setenv("JUDGESTAT_MEMORY_LIMIT", value.c_str(), 1); }
  ~MemoryLimit() { ::unsetenv("JUDGESTAT_MEMORY_LIMIT"); }
  MemoryLimit(const MemoryLimit&) = delete;
  MemoryLimit& operator=(const MemoryLimit&) = delete;
};

// Per judge the columns the builder certainly adds on this data: acc (num, den) per order, pa
// (num, den), bc, cons, stable_wrong, jb_score (2 + 2 + 3 + 2), and n, brier, nll and an ece bin
// per presentation with probabilities (each order and the order-averaged one). The units are the
// items (one variant), which probability quality shares with the accuracy family. Counts are
// a byte per unit; brier, nll and the ece bin are fractions, folded into a sum per cluster as
// written (25 clusters of 2 units).
constexpr int64_t kMinimumCountColumns = kJudges * (2 * kOrders + 2 + 9 + (kOrders + 1));
constexpr int64_t kMinimumDoubleColumns = kJudges * 3 * (kOrders + 1);
constexpr int64_t kMinimumColumns = kMinimumCountColumns + kMinimumDoubleColumns;
constexpr int64_t kUnits = kItems;
constexpr int64_t kClusters = kItems / 2;

MetricsOptions options_with_progress(bool& resampled) {
  MetricsOptions options;
  options.bootstrap.replicates = 20;
  options.bootstrap.progress = [&resampled](uint64_t, uint64_t) { resampled = true; };
  return options;
}

TEST(MetricsMemory, PlanBeyondTheBudgetIsRefusedWithItsFigureBeforeResampling) {
  const ItemMatrix matrix = load_item_matrix(write_temp("metrics_memory.csv", records_csv()));
  bool resampled = false;
  const MetricsOptions options = options_with_progress(resampled);
  // The plan alone is at least 36 × 50 × 1 + 18 × 25 × 8 = 5,400 bytes; with the matrix's 200
  // cells (a 2-byte verdict, an 8-byte line and two 8-byte probabilities each: 5,200 bytes)
  // 10,600 bytes, which 10,000 bytes cannot hold.
  ASSERT_EQ(kMinimumCountColumns * kUnits + kMinimumDoubleColumns * kClusters * 8, 5400);
  const MemoryLimit limit("10000");
  const std::string message = thrown_message<InputError>([&] { run_metrics(matrix, options, cpu_target(1)); });
  EXPECT_NE(message.find("metrics: the plan needs about 5.4e-06 GB (at least " + std::to_string(kMinimumCountColumns) +
                         " count columns x " + std::to_string(kUnits) + " units x 1 byte + " +
                         std::to_string(kMinimumDoubleColumns) + " fraction columns x " + std::to_string(kClusters) +
                         " cluster sums x 8 bytes) on top of the item matrix's"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("but 1e-05 GB is available (JUDGESTAT_MEMORY_LIMIT)"), std::string::npos) << message;
  EXPECT_FALSE(resampled);
}

TEST(MetricsMemory, EstimateIsALowerBoundOnTheBuiltPlanAndARunThatFitsIsUnchanged) {
  const ItemMatrix matrix = load_item_matrix(write_temp("metrics_memory.csv", records_csv()));
  bool resampled = false;
  const MetricsOptions options = options_with_progress(resampled);
  const Selection selection = select_records(matrix, SelectionOptions{});
  const MetricsPlan built = build_metrics_run_plan(matrix, selection, options);
  EXPECT_EQ(built.plan.n_units(), kUnits);
  EXPECT_GE(static_cast<int64_t>(built.plan.columns.size()), kMinimumColumns);
  // The estimate's bytes are a lower bound on the columns' real storage; the fraction columns are
  // held as their cluster sums.
  int64_t column_bytes = 0, folded_columns = 0;
  for (const PlanColumn& column : built.plan.columns) {
    if (const FoldedSums* folded = column.folded()) {
      EXPECT_EQ(static_cast<int64_t>(folded->sums.size()), kClusters);
      column_bytes += static_cast<int64_t>(folded->sums.size()) * 8;
      ++folded_columns;
    } else {
      column_bytes += static_cast<int64_t>(column.size()) * (column.kind() == PlanColumn::Kind::kDouble ? 8 : 1);
    }
  }
  EXPECT_GE(folded_columns, kMinimumDoubleColumns);
  EXPECT_GE(column_bytes, kMinimumCountColumns * kUnits + kMinimumDoubleColumns * kClusters * 8);
  const MetricsReport unlimited = run_metrics(matrix, options, cpu_target(1));
  EXPECT_TRUE(resampled);
  const MemoryLimit limit("1G");
  const MetricsReport limited = run_metrics(matrix, options, cpu_target(1));
  ASSERT_EQ(limited.statistics.intervals.size(), unlimited.statistics.intervals.size());
  ASSERT_EQ(limited.statistics.intervals.size(), built.plan.statistics.size());
  for (size_t s = 0; s < limited.statistics.intervals.size(); ++s) {
    EXPECT_EQ(limited.statistics.intervals[s].estimate, unlimited.statistics.intervals[s].estimate) << s;
    EXPECT_EQ(limited.statistics.intervals[s].lo, unlimited.statistics.intervals[s].lo) << s;
    EXPECT_EQ(limited.statistics.intervals[s].hi, unlimited.statistics.intervals[s].hi) << s;
  }
}

// Probability quality on the accuracy units (what `metrics` builds, so that the plan's columns
// are not lengthened) and on units of its own (appended, zeros in the accuracy columns) give the
// same statistics bit for bit: its columns are zero off its units, and the clusters are the same.
TEST(MetricsMemory, ProbabilityQualityOnSharedUnitsMatchesAppendedUnits) {
  const ItemMatrix matrix = load_item_matrix(kRoot + "/data/judgebench/gpt4o_split.csv");
  SelectionOptions select;
  select.strata = "benchmark";
  const Selection selection = select_records(matrix, select);
  MetricsOptions options;
  MetricsPlan appended = build_metrics_plan(matrix, selection, options);
  MetricsPlan shared = build_metrics_plan(matrix, selection, options);
  const int64_t accuracy_units = shared.plan.n_units();
  add_probability_quality(matrix, selection, true, appended.plan);
  add_probability_quality(matrix, selection, true, shared.plan, &shared.units);
  ASSERT_GT(appended.plan.n_units(), accuracy_units) << "the data has probabilities";
  EXPECT_EQ(shared.plan.n_units(), accuracy_units);
  ASSERT_EQ(shared.plan.statistics.size(), appended.plan.statistics.size());
  ASSERT_EQ(shared.plan.rank_terms.size(), appended.plan.rank_terms.size());
  EXPECT_GT(shared.plan.rank_terms.size(), 0u);
  BootstrapOptions boot;
  boot.replicates = 200;
  boot.ci = CiMethod::kBca;
  auto backend = make_backend(cpu_target(1));
  const BootstrapResult a = run_bootstrap(appended.plan, *backend, boot);
  const BootstrapResult b = run_bootstrap(shared.plan, *backend, boot);
  ASSERT_EQ(a.intervals.size(), b.intervals.size());
  for (size_t s = 0; s < a.intervals.size(); ++s) {
    EXPECT_EQ(a.labels[s].name, b.labels[s].name) << s;
    EXPECT_EQ(a.labels[s].n, b.labels[s].n) << s;
    for (auto field : {&Interval::estimate, &Interval::lo, &Interval::hi, &Interval::se})
      EXPECT_TRUE(a.intervals[s].*field == b.intervals[s].*field ||
                  (std::isnan(a.intervals[s].*field) && std::isnan(b.intervals[s].*field)))
          << a.labels[s].judge << " " << a.labels[s].name << ": " << a.intervals[s].*field << " vs "
          << b.intervals[s].*field;
  }
}

// Probability quality's fraction columns folded as written (what `metrics` builds when no `diff` reads them)
// compile to the CompiledPlan of the same columns kept, field by field: the run's statistics are the same bits.
TEST(MetricsMemory, FoldedProbabilityColumnsCompileAsKeptOnes) {
  const ItemMatrix matrix = load_item_matrix(write_temp("metrics_memory.csv", records_csv()));
  const Selection selection = select_records(matrix, SelectionOptions{});
  MetricsOptions options;
  MetricsPlan kept = build_metrics_plan(matrix, selection, options);
  MetricsPlan folded = build_metrics_plan(matrix, selection, options);
  add_probability_quality(matrix, selection, false, kept.plan, &kept.units, FractionColumns::kKept);
  add_probability_quality(matrix, selection, false, folded.plan, &folded.units, FractionColumns::kFolded);
  ASSERT_EQ(folded.plan.columns.size(), kept.plan.columns.size());
  int64_t n_folded = 0;
  for (size_t k = 0; k < kept.plan.columns.size(); ++k) {
    // Exactly probability quality's columns of fractions fold (brier, nll, ece bins and mean_q's q; 50 units
    // in 25 clusters).
    const std::string& name = kept.plan.column_names[k];
    const bool fraction =
        kept.plan.columns[k].kind() == PlanColumn::Kind::kDouble &&
        (name.find("/brier") != std::string::npos || name.find("/nll") != std::string::npos ||
         name.find("/ece/") != std::string::npos || (name.size() > 2 && name.compare(name.size() - 2, 2, "/q") == 0));
    EXPECT_EQ(folded.plan.columns[k].folded() != nullptr, fraction) << name;
    n_folded += folded.plan.columns[k].folded() != nullptr;
  }
  EXPECT_GE(n_folded, kMinimumDoubleColumns);
  const CompiledPlan a = compile(kept.plan), b = compile(std::move(folded.plan));
  EXPECT_EQ(a.n_columns, b.n_columns);
  EXPECT_EQ(a.cluster_sums, b.cluster_sums);
  EXPECT_EQ(a.totals, b.totals);
  EXPECT_EQ(a.fits_int32, b.fits_int32);
  ASSERT_EQ(a.column_unscale.size(), b.column_unscale.size());
  for (size_t k = 0; k < a.column_unscale.size(); ++k) EXPECT_EQ(a.column_unscale[k], b.column_unscale[k]) << k;
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].code, b.ops[i].code) << i;
    EXPECT_EQ(a.ops[i].arg, b.ops[i].arg) << i;
  }
  EXPECT_EQ(a.rank_cluster, b.rank_cluster);
  EXPECT_EQ(a.rank_positive, b.rank_positive);
}

}  // namespace
}  // namespace judgestat
