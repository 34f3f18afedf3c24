// The confidence cascade analysis (docs/statistics.md §3.3, §3.4; JEV §7–§9) as plan builders and the point
// summaries around them: the threshold sweep with the dollar-matched random baseline and the
// oracle, latency quantiles, the selection / held-out split, the threshold rules' selection-set
// trials and chosen policies, and temperature scaling of the first stage.
//
// Per pool item (host/cascade_pool.hpp): c1, c2, q, gate_ok, fees, latencies. A policy accepts a
// set of items (accepted_i = gate_ok_i and q_i >= τ for a threshold; nothing for `all`); every
// statistic is a ratio of per-item column sums, so one plan carries a whole sweep and every
// statistic shares the same replicates:
//   cascade_acc      = Σ (c2 + a·(c1 − c2)) / n          a = accepted
//   cascade_delta    = Σ a·(c1 − c2) / n                  (cascade − fallback accuracy)
//   escalated        = (n − Σ a) / n
//   errors_escalated = (Σ e − Σ a·e) / Σ e                e = [c1 < 1], F's errors
//   fee_ratio        = (Σ fee_first + Σ fee_fallback − Σ a·fee_fallback) / Σ fee_fallback
//   random_acc       = (Σ c1 + p·(Σ c2 − Σ c1)) / n,  p = (Σ fee_fallback − Σ a·fee_fallback) / Σ fee_fallback:
//                      escalating each item with probability p costs, in expectation, what the
//                      policy costs (dollar-matched, JEV §8), and scores this in expectation
//   oracle_acc       = Σ max(c1, c2) / n
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyses/cascade_pool.hpp"
#include "judgestat/budget.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/philox.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "judgestat/rules.hpp"

namespace judgestat {

/// Philox stream of the selection / held-out split (docs/statistics.md §2 reserves 0.. for strata, 2^30 for
/// label-budget draws and 2^31 + k for normal draws).
inline constexpr uint32_t kSplitStream = (1u << 30) + 1;

/// Clusters of a set of pool items, numbered 0..C−1 by first appearance (docs/statistics.md §2) among the
/// records the cascade reads: F's gate orders and S's order 0 on those items.
struct PoolClusters {
  std::vector<int32_t> item_cluster;       // per pool item: cluster, −1 when not in the set
  std::vector<std::string> names;          // per cluster
  std::vector<int32_t> cluster_benchmark;  // per cluster: matrix benchmark of its first item
  int32_t size() const { return static_cast<int32_t>(names.size()); }
};

/// `in_set` (per pool item, empty = every item) picks the items.
PoolClusters number_pool_clusters(const ItemMatrix& matrix, const CascadePool& pool,
                                  const std::vector<uint8_t>& in_set = {});

/// The selection / held-out split of `--select FRACTION`, per pool item (1 = selection part).
/// Clusters are split within each benchmark (a cluster belongs to the benchmark of its first
/// item; benchmarks in first-appearance order, h = 0, 1, …): benchmark h's C_h clusters, in
/// first-appearance order c = 0..C_h−1, get the words u_c = word c mod 4 of
/// Philox(counter = (c div 4, h, 2^30 + 1, 0), key = seed), and the round(FRACTION · C_h)
/// clusters with the smallest (u_c, c) form its selection part. Deterministic in the seed.
std::vector<uint8_t> split_selection(const PoolClusters& clusters, const CascadePool& pool, double fraction,
                                     uint64_t seed);

/// gate_ok and q >= τ, per pool item.
std::vector<uint8_t> accepted_at(const CascadePool& pool, double tau);

/// A policy: which items the first stage keeps.
struct CascadePolicy {
  std::optional<std::string> threshold;  // grid label or "all"; nullopt for per-stratum policies
  std::vector<uint8_t> accepted;         // per pool item
};

/// The sweep's policies: every grid threshold, then `all` (escalate every item).
std::vector<CascadePolicy> sweep_policies(const CascadePool& pool, const ThresholdGrid& grid);

/// Fees as plan columns. When every fee is a whole number (at most 10^9) of some decimal unit
/// 10^-k (k <= 9), the columns hold fee / unit with unit = 10^-k times the fees' greatest common
/// divisor: small integers, so fee sums (and fee ratios, which do not depend on the unit) are
/// exact and bit-identical on every backend. Otherwise the fees stay real (compile()'s fixed point).
FeeScale fee_scale(const CascadePool& pool);

struct CascadePlanOptions {
  bool fees = true;    // fee_ratio and random_acc (fees given for both judges)
  bool oracle = true;  // oracle_acc
};

struct CascadePlan {
  Plan plan;
  std::vector<PolicyStatistics> policies;  // one per policy, in order
  int32_t oracle_acc = -1;
  FeeScale fees;
};

/// The plan of a set of policies over the pool items that `clusters` numbers (item_cluster >= 0),
/// unstratified. Statistic labels: judge = F, reference = S, threshold = the policy's.
CascadePlan build_cascade_plan(const CascadePool& pool, const PoolClusters& clusters,
                               const std::vector<CascadePolicy>& policies, const CascadePlanOptions& options);

/// Per-item cascade latency = F's latency + (escalated ? S's latency : 0), summarised over the
/// items in `in_set` (empty = all): quantiles type 7 and the mean, on the original data.
LatencySummary cascade_latency(const CascadePool& pool, const std::vector<uint8_t>& accepted,
                               const std::vector<uint8_t>& in_set = {});
/// The fallback alone: S's latency per item.
LatencySummary fallback_latency(const CascadePool& pool, const std::vector<uint8_t>& in_set = {});

/// Trials (SelectionTrial, judgestat/cascade.hpp) of every grid threshold over the pool items with in_set[i] = 1.
std::vector<SelectionTrial> selection_trials(const CascadePool& pool, const ThresholdGrid& grid,
                                             const std::vector<uint8_t>& in_set, const RuleSettings& settings);

/// docs/statistics.md §3.4's choice from the trials: a grid index, or grid.size() for `all`.
int32_t choose_from_trials(const std::vector<SelectionTrial>& trials, const RuleSettings& settings);

/// A rule's outcome on the selection part (RuleChoice, judgestat/cascade.hpp).
RuleChoice choose_rule(const CascadePool& pool, const ThresholdGrid& grid, const std::vector<uint8_t>& selection,
                       const RuleSettings& settings, bool per_stratum);

/// The rule's policy on every pool item: each item's stratum threshold (or the pooled one).
CascadePolicy rule_policy(const CascadePool& pool, const ThresholdGrid& grid, const RuleChoice& choice);

/// Temperature scaling of F's order-averaged probabilities: fitted on the selection items,
/// NLL before (the probabilities as given, docs/statistics.md §3.2's nll) and after on the held-out items.
/// Items without a valid F output are left out.
TemperatureResult temperature_scaling(const ItemMatrix& matrix, const CascadePool& pool,
                                      const std::vector<uint8_t>& selection);

}  // namespace judgestat
