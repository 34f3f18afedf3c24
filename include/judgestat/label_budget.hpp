// The label-budget analysis (docs/statistics.md §3.5) as a library function: for each labelling budget k and
// threshold rule, how often a threshold chosen on k labelled items loses more than `tol`
// accuracy against the fallback on the held-out items, and what it saves. The engines and the
// per-draw contract are in judgestat/budget_engine.hpp; this is the analysis a client runs. Also
// `budget --compare` (§7.6): how many labels tell two judges apart (engines in
// judgestat/compare_engine.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/budget_engine.hpp"
#include "judgestat/compare_engine.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "judgestat/rules.hpp"

namespace judgestat {

inline constexpr uint64_t kDefaultBudgetDrawsCuda = 1000000, kDefaultBudgetDrawsCpu = 100000;

struct BudgetOptions {
  std::string first;                              // first-stage judge (needs probabilities)
  std::string fallback;                           // fallback judge
  std::vector<uint32_t> ks = {48, 96, 192, 384};  // labelling budgets
  std::vector<ThresholdRule> rules = {ThresholdRule::kPoint, ThresholdRule::kLower};
  /// Draws per (k, rule), 1 to 2^32; unset = kDefaultBudgetDrawsCuda on CUDA,
  /// kDefaultBudgetDrawsCpu on the CPU.
  std::optional<uint64_t> draws;
  bool per_stratum = false;  // each stratum chooses its own threshold
  std::string strata;        // with per_stratum: "benchmark" (when empty) or "condition"
  ThresholdGrid grid = default_grid();
  double tol = 0.02;    // tolerated accuracy loss
  double z = 1.645;     // z of the lower-bound rule
  int gate_orders = 2;  // first-stage orders: 1 (order 0) or 2 (all orders)
  uint64_t seed = 1;
  std::map<std::string, double> fee_per_call;  // judge → fee per call, replacing the file's fee_usd
  /// (draws done, draws in all) after each chunk of draws.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct BudgetReport {
  // The settings as run.
  uint64_t seed = 1, draws = 0;
  std::string backend, device;  // the engine's name() and device()
  std::string first, fallback;
  ThresholdGrid grid;
  double tol = 0, z = 0;
  bool per_stratum = false;
  std::string strata;  // resolved ("benchmark" by default) when per_stratum
  int gate_orders = 2;
  // The cascade pool.
  int64_t pool_items = 0, gate_ok = 0;   // items covered by first; those with every order valid
  std::vector<std::string> pool_strata;  // the problem's strata ("all" when pooled)
  std::vector<JudgeValidity> validity;   // first's and fallback's records on the whole input (docs/statistics.md §1)
  /// One per (k, rule), k-major in the options' order.
  std::vector<BudgetSummary> summaries;
  uint64_t total_draws = 0;  // draws × ks × rules
  double setup_s = 0;        // building the pool and the problem
  double resample_s = 0;     // the draws, summed over (k, rule)
};

/// std::invalid_argument naming the field ("tol: …", "z: …") for options no run can take.
void check_budget_options(const BudgetOptions& options);

/// Runs the simulation. UsageError for judges or pools the cascade cannot use;
/// std::invalid_argument naming the field: "tol", "z", "k" (a budget the rule or pool cannot
/// take), "draws", and the target's ("kind", "devices", "threads").
BudgetReport run_budget(const ItemMatrix& matrix, const BudgetOptions& options, const ExecTarget& target);

/// docs/statistics.md §4's JSON: head.envelope, then settings, pool, budget and timing (load_s includes head.load_s).
Json to_json(const BudgetReport& report, const ReportHead& head);
/// The budget table with its notes: text, md or csv.
std::string tables(const BudgetReport& report, const std::string& format);
/// budget_delta_k<K>_<rule>.svg per (k, rule) and budget_loss_share.svg into `dir` (created).
/// The figures in memory (file stem, SVG, data as CSV); plots() writes them.
std::vector<PlotFile> plot_files(const BudgetReport& report);
void plots(const BudgetReport& report, const std::string& dir);

// ---- `budget --compare` (docs/statistics.md §7.6) ----

inline constexpr uint64_t kDefaultCompareDrawsCuda = 1000000, kDefaultCompareDrawsCpu = 100000;

struct BudgetCompareOptions {
  std::string a, b;               // the two judges; d = value_B − value_A
  std::string statistic = "acc";  // "acc" (order 0) or "pa" (mean over the item's orders)
  /// Labelling budgets, each 2 to the pool's size; empty = 50, 100, 200, 400 where they fit the
  /// pool (those that do not are left out with a note).
  std::vector<uint32_t> ks;
  double level = 0.95;  // of the z-interval
  /// Draws per k, 1 to 2^32; unset = kDefaultCompareDrawsCuda on CUDA, kDefaultCompareDrawsCpu on the CPU.
  std::optional<uint64_t> draws;
  uint64_t seed = 1;
  std::vector<std::string> benchmarks, conditions;  // record filters (empty: all)
  /// Analyse only the items on which both judges have an order-0 record (else such an item is an error).
  bool common_items = false;
  /// (draws done, draws in all) after each chunk of draws.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct BudgetCompareReport {
  // The settings as run.
  uint64_t seed = 1, draws = 0;
  std::string backend, device;
  std::string a, b, statistic;
  double level = 0.95, z = 0;
  std::vector<std::string> benchmarks, conditions;
  bool common_items = false;
  // The pool: items analysed (first appearance), their variant, each judge's value on them.
  int64_t items = 0, dropped = 0;  // dropped: items left out by common_items
  std::string variant;
  int32_t scale = 2;
  double value_a = 0, value_b = 0, pool_diff = 0;
  std::vector<CompareSummary> summaries;  // one per k, in the options' order
  std::vector<std::string> notes;
  std::vector<JudgeValidity> validity;  // a's and b's records on the whole input (docs/statistics.md §1)
  uint64_t total_draws = 0;
  double setup_s = 0, resample_s = 0;
};

/// std::invalid_argument naming the field: "compare" (A = B or a name missing), "statistic",
/// "level" (outside (0, 1)), "k" (below 2).
void check_budget_compare_options(const BudgetCompareOptions& options);

/// Runs the comparison. UsageError for an unknown judge or filter value, an empty subset, or an
/// item on which a judge has no order-0 record (naming it; common_items drops such items);
/// std::invalid_argument naming the field as check_budget_compare_options, "k" for a budget
/// above the pool, "draws", and the target's.
BudgetCompareReport run_budget_compare(const ItemMatrix& matrix, const BudgetCompareOptions& options,
                                       const ExecTarget& target);

/// docs/statistics.md §4/§7.6's JSON: head.envelope, then settings, pool, budget and timing.
Json to_json(const BudgetCompareReport& report, const ReportHead& head);
/// The power table with its notes: text, md or csv.
std::string tables(const BudgetCompareReport& report, const std::string& format);
/// budget_compare_power.svg (power and wrong-sign share against k) into `dir` (created).
/// The figures in memory (file stem, SVG, data as CSV); plots() writes them.
std::vector<PlotFile> plot_files(const BudgetCompareReport& report);
void plots(const BudgetCompareReport& report, const std::string& dir);

}  // namespace judgestat
