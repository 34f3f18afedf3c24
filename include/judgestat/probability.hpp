// Probability quality's typed tables (docs/statistics.md §3.2): the point summaries that carry
// no CI, which `judgestat metrics` and `judgestat cascade` report beside their statistics.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat {

inline constexpr int kConfidenceBins = 10;      // docs/statistics.md §3.2: equal width on q
inline constexpr double kHighConfidence = 0.9;  // "error rate at q >= 0.9" (JEV §7.1)
inline constexpr double kNllFloor = 1e-6;       // nll = −ln(max(p_gold, 1e-6))

/// Reliability table: per bin n, mean q and accuracy (mean correctness), and the confident
/// errors: errors (Σ 1 − correct) made at q >= 0.9.
struct ReliabilityBin {
  int64_t n = 0;
  double mean_q = 0, accuracy = 0;  // NaN when n = 0
};
struct ReliabilityTable {
  std::vector<ReliabilityBin> bins;  // kConfidenceBins
  int64_t n = 0, n_high = 0;         // outputs, outputs at q >= 0.9
  double errors = 0, errors_high = 0;
  double ece = 0;                   // Σ_bins |Σ (correct − q)| / n (the estimate, for checks)
  double error_rate_high() const;   // errors_high / n_high (NaN when n_high = 0)
  double error_share_high() const;  // errors_high / errors (NaN when there are no errors)
  /// Invalid outputs of the same judge, scope and presentation (errors that carry no q). JEV
  /// Table 30 counts them among all errors: error_share_high_with_invalid() =
  /// errors_high / (errors + invalid), NaN when that is 0/0.
  int64_t invalid = 0;
  double error_share_high_with_invalid() const;
};

/// Risk–coverage (docs/statistics.md §3.2): outputs sorted by q descending; at coverage k/n the selective risk
/// is the error share among the k most confident. Outputs with equal q are taken together, so
/// within a tie group risk is the expected value over the group's orderings (errors spread
/// evenly); AURC = mean of the risk over k = 1..n. The curve keeps one point per distinct q.
struct RiskCoveragePoint {
  double q = 0, coverage = 0, risk = 0;
};
struct RiskCoverage {
  std::vector<RiskCoveragePoint> points;  // descending q, coverage rising to 1
  double aurc = 0;                        // NaN when there are no outputs
};

/// Flip rate by base-order confidence bin (docs/statistics.md §3.1 `flip`, JEV Fig. 7a): items with every
/// order present and a valid base order with probabilities, binned by the base order's q; a
/// flip is a verdict that differs between orders (an invalid verdict matches nothing).
struct FlipTable {
  std::vector<int64_t> items, flips;                         // per bin (kConfidenceBins)
  int64_t total_items = 0, total_flips = 0, flips_high = 0;  // flips_high: base q >= 0.9
};

/// Point summaries of one judge × group × presentation.
struct ProbabilitySummary {
  std::string judge;
  std::optional<std::string> group;  // stratum name when reporting per group
  std::optional<int> order;          // nullopt: order-averaged
  ReliabilityTable reliability;
  RiskCoverage risk_coverage;
};
struct FlipSummary {
  std::string judge;
  std::optional<std::string> group;
  FlipTable table;
};

struct ProbabilityQuality {
  std::string strata;  // the grouping key of `group` ("" overall only)
  std::vector<ProbabilitySummary> summaries;
  std::vector<FlipSummary> flips;
  std::vector<std::string> notes;
  /// `--native-confidence` (docs/statistics.md §3.2): native_q_rho per judge, scope and presentation
  /// (no CI); the run's point statistics.
  std::vector<std::pair<StatLabel, double>> point_statistics;
  bool empty() const { return summaries.empty(); }
};

}  // namespace judgestat
