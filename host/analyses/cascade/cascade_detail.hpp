// The confidence cascade analysis (docs/statistics.md §3.3, §3.4; JEV §7–§9) as plan builders and the point
// summaries around them: the threshold sweep with the dollar-matched random baseline and the
// oracle, latency quantiles, the selection / held-out split, the threshold rules' selection-set
// trials and chosen policies, and temperature scaling of the first stage.
//
// Per pool item (host/analyses/cascade/cascade_pool.hpp): c1, c2, q, gate_ok, fees, latencies. A policy accepts a
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

#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/budget_engine.hpp"
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
/// records the cascade reads: F's gate orders and S's order 0 on those items. Unstratified (one
/// stratum) as number_pool_clusters gives them; stratify() numbers them stratum-major.
struct PoolClusters {
  std::vector<int32_t> item_cluster;       // per pool item: cluster, −1 when not in the set
  std::vector<std::string> names;          // per cluster
  std::vector<int32_t> cluster_benchmark;  // per cluster: matrix benchmark of its first item
  std::vector<int32_t> item_order;         // the set's pool items by first appearance
  std::vector<int64_t> stratum_offset;     // resampling strata; empty = one stratum of every cluster
  std::vector<std::string> stratum_names;
  int32_t size() const { return static_cast<int32_t>(names.size()); }
};

/// `in_set` (per pool item, empty = every item) picks the items.
PoolClusters number_pool_clusters(const ItemMatrix& matrix, const CascadePool& pool,
                                  const std::vector<uint8_t>& in_set = {});

/// `by` groups of the pool items (benchmark or condition), numbered by first appearance in the
/// pool's item order (docs/statistics.md §2), and whether the bootstrap can stratify by them.
struct PoolGroups {
  std::string key;
  std::vector<std::string> names;
  std::vector<int32_t> item_group;  // per pool item
  bool domain = false;              // a cluster spans two groups: domain estimation
  std::string note;                 // in domain mode: the first spanning cluster and two of its groups
  int32_t size() const { return static_cast<int32_t>(names.size()); }
};

/// `clusters` must number every pool item (number_pool_clusters without a set).
PoolGroups pool_groups(const ItemMatrix& matrix, const CascadePool& pool, const PoolClusters& clusters,
                       const std::string& key);

/// The clusters renumbered stratum-major by the groups (docs/statistics.md §2: strata by first
/// appearance among the set's items, clusters by first appearance within each); unchanged in
/// domain mode or without groups.
PoolClusters stratify(const PoolClusters& clusters, const PoolGroups* groups);

/// The selection / held-out split of `--select FRACTION` (in [0, 1]), per pool item (1 = selection part).
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
  bool fees = true;                    // fee_ratio and random_acc (fees given for both judges)
  bool oracle = true;                  // oracle_acc
  const PoolGroups* groups = nullptr;  // per-group statistics after the pooled ones
  /// The frozen plan's: per policy F's and S's accuracy and agreement on the accepted and the
  /// escalated items (PolicyStatistics), where the scope has such items.
  bool split = false;
  /// With split: per pool item the compared run's gate at the policy (1 accept, 0 escalate, −1 the
  /// item is not in that run): the first policy's gate_agreement.
  const std::vector<int8_t>* compare_accepted = nullptr;
};

struct CascadePlan {
  Plan plan;
  /// The pooled scope, then each group with items in the plan (items, clusters, policies,
  /// oracle_acc filled; the point summaries are left to summarise_scope).
  std::vector<CascadeScope> scopes;
  FeeScale fees;
  const CascadeScope& pooled() const { return scopes.front(); }
};

/// The plan of a set of policies over the pool items that `clusters` numbers (item_cluster >= 0),
/// resampled in its strata (one without stratify()). Statistic labels: judge = F, reference = S,
/// threshold = the policy's; a group's rows also name the group (benchmark or condition field).
CascadePlan build_cascade_plan(const CascadePool& pool, const PoolClusters& clusters,
                               const std::vector<CascadePolicy>& policies, const CascadePlanOptions& options);

/// A lower bound on what the sweep's plan holds (issue 26 part 7): its policies' accepted flags and the count
/// columns it certainly has, each a byte per pool item.
struct CascadePlanSize {
  int64_t items = 0, policies = 0, columns = 0;
};
CascadePlanSize minimum_sweep_size(const CascadePool& pool, const CascadeOptions& options);

/// Refuses, before the sweep is built and anything is resampled, a run whose sweep (minimum_sweep_size) would not
/// fit the memory budget with the item matrices held (the input's, and its copy of the items with gold when the
/// cascade made one): InputError "cascade: the plan needs about X GB (…) …"
/// (loading::check_analysis_fits). The held-out and frozen plans are built one at a time after it, each on fewer or
/// as many items with fewer policies.
void check_cascade_fits(const std::vector<const ItemMatrix*>& matrices, const CascadePool& pool,
                        const CascadeOptions& options);

/// The point summaries of `scope` over the pool items with in_set[i] (and, for a group's scope,
/// the group's items): latencies per policy, F and S alone (accuracy, fee ratio, latency).
void summarise_scope(const CascadePool& pool, const std::vector<CascadePolicy>& policies,
                     const std::vector<uint8_t>& in_set, const PoolGroups* groups, bool fees, CascadeScope& scope);

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
/// Items without a valid F output are left out. Beside it, `all` and `groups` hold
/// temperature_scaling_by_group (calibration.hpp) on cascade_probability_rows: pooled, or per
/// benchmark with per_benchmark.
TemperatureResult temperature_scaling(const ItemMatrix& matrix, const CascadePool& pool,
                                      const std::vector<uint8_t>& selection, bool per_benchmark = false);

/// Adds the risk–coverage statistics of F (AURC, selective accuracy at coverages 0.5/0.8/0.9,
/// F's and the fallback's accuracy per F confidence bin; risk_coverage.hpp) over the plan's units,
/// which must be the pool items in order; units with q = 0 (no valid F output) do not enter.
/// Pooled (group < 0) it adds the risk–coverage curve too; with a group of `groups` only that
/// group's items enter and the rows name it (benchmark or condition field), without the curve.
/// `tenths`: F's and S's accuracy in the 10 equal bins (false when --bins replaces them by add_edge_bins).
CascadeSelective add_cascade_selective(const CascadePool& pool, Plan& plan, const PoolGroups* groups = nullptr,
                                       int32_t group = -1, bool tenths = true);

// ---- confidence bins with edges and the compared gate (analyses/cascade/cascade_bins.cpp) ----

/// The bin of q among `edges` (judgestat/cascade.hpp's CascadeSettings::bin_edges): 0..edges.size().
int32_t edge_bin(const std::vector<double>& edges, double q);
/// "[0.9, 0.95)", "[0.99, 1)", "q = 1", "[0, 0.6)": bin b's name.
std::string edge_bin_name(const std::vector<double>& edges, int32_t b);

/// F's and S's accuracy, their agreement (1 − |c1 − c2|), F's errors and the items the judges differ on
/// per bin of `edges`, over the pool items with q > 0 (of one group of `groups` when group >= 0); the
/// plan's units must be the pool items in order. Bins without items are left out.
std::vector<ConfidenceBinAccuracy> add_edge_bins(const CascadePool& pool, Plan& plan, const std::vector<double>& edges,
                                                 const PoolGroups* groups = nullptr, int32_t group = -1);

/// Per pool item the compared run's gate under `policy_tau` (per pool item its τ; NaN = `all`): 1 accept,
/// 0 escalate, −1 when the compared run lacks the item; `out` counts them on the items with in_set[i].
std::vector<int8_t> compared_gate(const ItemMatrix& matrix, const CascadePool& pool,
                                  const std::map<std::string, GateOutcome>& second,
                                  const std::vector<double>& policy_tau, const std::vector<uint8_t>& accepted,
                                  const std::vector<uint8_t>& in_set, GateComparison& out);

/// Per pool item the frozen τ (NaN for `all`), as frozen_policy applies it.
std::vector<double> frozen_item_tau(const ItemMatrix& matrix, const CascadePool& pool, const FrozenTau& tau);

// ---- own labelled sets and frozen thresholds (analyses/cascade/cascade_select.cpp, docs/statistics.md §7.5) ----

/// The selection part from matrix.item_column (`select` / `heldout` per item). InputError naming
/// file, line and column for any other value (every matrix item is checked);
/// std::invalid_argument("select_column: …") when the matrix was loaded without that column.
std::vector<uint8_t> selection_from_column(const ItemMatrix& matrix, const CascadePool& pool,
                                           const std::string& column);

/// The selection part from a file of item ids (one per line; blank lines skipped, surrounding
/// spaces and CR trimmed). An id that is no item of the data is an InputError naming the file and
/// line; listed items outside the pool (filtered out, or not covered by F) are counted in
/// source.listed_outside. std::invalid_argument("select_items: …") when the file cannot be read.
std::vector<uint8_t> selection_from_items(const ItemMatrix& matrix, const CascadePool& pool, const std::string& path,
                                          SelectionSource& source);

/// Clusters (of `clusters`) holding items of both parts.
int64_t straddling_clusters(const PoolClusters& clusters, const std::vector<uint8_t>& selection);

/// The frozen policy per pool item: each item's benchmark's τ (a named one, else the bare value).
/// UsageError for a named benchmark that no pool item has, or a pool benchmark without a τ.
/// `applied` receives the τ of every pool benchmark in first-appearance order.
CascadePolicy frozen_policy(const ItemMatrix& matrix, const CascadePool& pool, const FrozenTau& tau,
                            std::vector<std::pair<std::string, FrozenThreshold>>& applied);

}  // namespace judgestat
