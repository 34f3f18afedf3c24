// `judgestat coverage`: how well each interval method covers on the user's own design
// (docs/statistics.md §2 "Coverage check"). Datasets are simulated with the file's cluster sizes per
// stratum and, per judge, its observed accuracy, intracluster correlation and order effect under
// a logit-normal cluster model; every CI method runs on every dataset (datasets batched as strata
// of one plan) and the share of intervals that contain the model's true value is reported with
// its Monte Carlo SE.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// Philox stream of the simulated datasets: "replicate" slot = dataset, draw d as in
/// simulate_dataset.
inline constexpr uint32_t kCoverageStream = (1u << 30) + 3;

/// One judge's simulation model: unit (item i in cluster c, order o) is right with probability
/// expit(mu + sigma z_c + offset[o]), z_c ~ N(0, 1) per cluster, shared by the judges.
struct CoverageJudge {
  std::string name;
  double accuracy = 0;                 // observed on the file (invalid = wrong), the model's truth by construction
  double icc = 0;                      // observed intracluster correlation of correctness (one-way ANOVA estimator)
  double order_effect = 0;             // logit(acc order 1) − logit(acc order 0); 0 with one order
  double sigma = 0, mu = 0;            // latent scale: sigma² = icc/(1 − icc) · π²/3; mu solves the accuracy
  std::vector<double> offset;          // per order: ∓ order_effect / 2 with two orders, else 0
  std::vector<double> truth_by_order;  // the model's accuracy per order
};

struct CoverageDesign {
  std::vector<int64_t> stratum_clusters;  // clusters per stratum (file's benchmarks; one when a cluster spans two)
  std::vector<std::string> stratum_names;
  std::vector<int32_t> cluster_items;  // items per cluster, stratum-major
  int orders = 1;
  std::vector<CoverageJudge> judges;
  int64_t n_clusters() const { return static_cast<int64_t>(cluster_items.size()); }
  int64_t n_units() const;  // items × orders
};

struct CoverageOptions {
  std::vector<std::string> judges;  // at least one; diff rows compare each later judge with the first
  uint64_t datasets = 200;
  BootstrapOptions bootstrap;  // replicates, seed (datasets and bootstrap), level; ci ignored
  std::vector<CiMethod> methods{CiMethod::kPercentile, CiMethod::kBasic, CiMethod::kBca, CiMethod::kT,
                                CiMethod::kStudentized};
  double icc = -1;  // ≥ 0: use this intracluster correlation for every judge instead of the file's
};

/// Coverage of one statistic under one method.
struct CoverageCell {
  std::string statistic;  // "acc" or "diff"
  std::string judge, reference;
  CiMethod method = CiMethod::kPercentile;
  double truth = 0;
  uint64_t datasets = 0, covered = 0, null_intervals = 0;
  double coverage = 0, mc_se = 0, mean_width = 0;  // mean width over non-null intervals
};

struct CoverageReport {
  CoverageDesign design;
  CoverageOptions options;
  std::vector<CoverageCell> cells;      // statistic-major, then method
  std::vector<JudgeValidity> validity;  // the design's judges' records on the whole input (docs/statistics.md §1)
  std::string backend, device;
  double seconds = 0;
};

/// The design of `matrix` for `judges` (first variant, every order): UsageError for an unknown
/// judge or an empty list; `icc` ≥ 0 overrides the file's intracluster correlations.
CoverageDesign coverage_design(const ItemMatrix& matrix, const std::vector<std::string>& judges, double icc = -1);

/// Dataset k's correctness, judge-major then unit (cluster-major, items, then orders):
/// z_c from Box–Muller on draws 2c, 2c + 1; unit u of judge j right when uniform draw
/// 2C + j·U + u is below its probability.
std::vector<uint8_t> simulate_dataset(const CoverageDesign& design, uint64_t seed, uint32_t dataset);

/// The labels of `datasets` simulated datasets' statistics, dataset-major: per dataset acc of
/// every judge, then diff (of acc) of every judge after the first against the first. They are
/// the analyses' labels, so `t` and `studentized` intervals are built on the scale the
/// analyses use (logit, Fisher z; docs/statistics.md §2) and coverage measures those.
std::vector<StatLabel> coverage_labels(const CoverageDesign& design, size_t datasets);

/// E over z ~ N(0, 1) of f(z), Simpson's rule on [−10, 10] (20,000 panels).
double normal_expectation(const std::function<double(double)>& f);

CoverageReport run_coverage(const ItemMatrix& matrix, const CoverageOptions& options, const ExecTarget& target);

/// JSON: docs/statistics.md §4's envelope with settings, `design` and `coverage` (one object per cell).
Json to_json(const CoverageReport& report, const ReportHead& head);
/// Text, md or csv: coverage (%) ± MC SE per statistic × method, the mean over statistics, and the
/// model's parameters.
std::string tables(const CoverageReport& report, const std::string& format);

}  // namespace judgestat
