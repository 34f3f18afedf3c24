// Selective prediction with CIs (docs/statistics.md §3.2 risk–coverage, §7.5; JEV Fig. 5) as plan
// statistics over units already in a plan: the AURC, selective accuracy at fixed coverages, and
// the first stage's and the fallback's accuracy per first-stage confidence bin. `metrics` calls
// them per judge (no fallback), `cascade` per pool (F and S).
//
// Every statistic is a fixed function of ratios of column sums, so the replicates resample units
// with their cluster's multiplicity and nothing is re-ranked per replicate:
// - selective accuracy at coverage c: the threshold q_c is chosen on the original data (the
//   ⌈c·n⌉-th largest q; every unit with q ≥ q_c is covered, so a tie group enters whole) and
//   then held fixed: Σ 1[q ≥ q_c]·correct / Σ 1[q ≥ q_c]. Re-choosing q_c on each replicate (the
//   ⌈c·n*⌉-th largest of the replicate) is not a ratio of sums; with q_c fixed the covered share
//   varies across replicates and is reported beside it (selective_coverage).
// - AURC: the area under the threshold curve — for fixed thresholds t_1 > … > t_K (the original
//   data's distinct q, or at most `aurc_points` of them at evenly spaced ranks), with N_j =
//   Σ 1[q ≥ t_j] and E_j = Σ 1[q ≥ t_j](1 − correct): AURC = Σ_j (N_j − N_{j−1})/n · E_j/N_j
//   (N_0 = 0, N_K = n). This is the selective risk integrated over the coverages a threshold can
//   reach. The tie-averaged AURC of docs/statistics.md §3.2 (risk_coverage() in
//   probability.hpp: (1/n) Σ_k risk_k, a tie group's errors spread over its ranks) is not a fixed
//   function of sums on a replicate (a replicate's duplicated units form new tie groups, whose
//   spread weights are harmonic sums of the replicate's counts); the two agree when q has no ties
//   and the thresholds are all distinct q values, and otherwise differ by the within-group
//   spreading (and the coarser grid). The point value of risk_coverage() is returned beside it.
// - per confidence bin b (bin(q) = min(⌊10q⌋, 9)): Σ_{q∈b} correct / Σ_{q∈b} 1 for F and for S.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

/// Per plan unit (each vector has plan.n_units() entries, or is empty where stated).
struct SelectiveUnits {
  std::vector<double> q;                 // the first stage's (or the judge's) confidence
  std::vector<double> first_correct;     // its correctness: 0, ½ or 1
  std::vector<double> fallback_correct;  // the fallback's correctness; empty: no fallback
  std::vector<double> mask;              // 1 = the unit enters (e.g. a valid output); empty: every unit
};

/// Where the rows go and what they are called. `base` carries the group fields and judge
/// (reference for a cascade); rows set name, threshold and n. `tag` prefixes column names and must
/// be unique per call (judge × scope × presentation).
struct SelectiveLabels {
  StatLabel base;
  std::string tag;
};

struct RiskCoverageOptions {
  std::vector<double> coverages{0.5, 0.8, 0.9};  // each in (0, 1]
  int32_t aurc_points = 100;                     // at most this many thresholds (>= 1)
  bool curve = false;                            // also a selective_risk row per threshold
};

/// One target coverage: the threshold chosen on the original data and the rows' indices.
struct SelectiveAtCoverage {
  double target = 0;      // c
  double threshold = 0;   // q_c
  int64_t covered = 0;    // units with q ≥ q_c on the original data
  int32_t accuracy = -1;  // selective_acc row (statistic index in the plan)
  int32_t coverage = -1;  // selective_coverage row: Σ 1[q ≥ q_c] / n
};

struct RiskCoverageStatistics {
  int64_t n = 0;                        // units entering
  int32_t aurc = -1;                    // aurc row; -1 when no unit enters
  double aurc_tie_averaged = NAN;       // risk_coverage()'s AURC on the original data (no CI)
  std::vector<double> thresholds;       // t_1 > … > t_K
  std::vector<int32_t> curve;           // selective_risk row per threshold (options.curve)
  std::vector<SelectiveAtCoverage> at;  // per options.coverages entry
};

/// Adds, over the units of `units.mask`: `aurc` (threshold null), `selective_acc` and
/// `selective_coverage` per target coverage (threshold "coverage=c"), and with options.curve
/// `selective_risk` per AURC threshold (threshold = that q). Rows carry label.n = n. Adds nothing
/// when no unit enters. std::invalid_argument("coverage: …" / "aurc_points: …") for bad options;
/// std::logic_error when a vector's length is not plan.n_units(). Its columns of fractions are folded into their
/// cluster sums as written (Plan::fold_column): the plan is for compile() only, with the plan's clusters final.
RiskCoverageStatistics add_risk_coverage(const SelectiveUnits& units, const SelectiveLabels& labels, Plan& plan,
                                         const RiskCoverageOptions& options = {});

/// One confidence bin with units on the original data.
struct ConfidenceBinRows {
  int bin = 0;
  int64_t n = 0;
  double mean_q = NAN;
  int32_t first = -1;     // bin_acc row: the first stage's accuracy in the bin
  int32_t fallback = -1;  // fallback_bin_acc row: the fallback's accuracy there; -1 without one
};

/// Adds per first-stage confidence bin with units (docs/statistics.md §3.2's 10 bins; empty bins
/// are left out — they are empty on every replicate): `bin_acc` and, with a fallback,
/// `fallback_bin_acc`, threshold = the bin's name ("[0.9, 1.0]"), n = the bin's units.
std::vector<ConfidenceBinRows> add_confidence_bin_accuracy(const SelectiveUnits& units, const SelectiveLabels& labels,
                                                           Plan& plan);

}  // namespace judgestat
