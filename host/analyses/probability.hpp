// Probability quality (SPEC §3.2, JEV §7): the plan builder behind the `brier`, `nll`, `ece` and
// `auroc_err` statistics of `judgestat metrics`, and the point summaries that carry no CI: the
// reliability table, the error rate and share of errors at q >= 0.9, the risk–coverage curve
// with its AURC, the flip rate by base-order confidence bin, and temperature scaling.
//
// Two presentations of a judge's probabilities are scored:
// - single order o (label order = o): each valid record of that order with probabilities;
//   correctness is the verdict's (a valid `tie` earns ½ when the gold label shares the top
//   probability);
// - order-averaged (label order = null, JEV Eq. 1): each label's probability averaged over the
//   item's valid orders with probabilities; q and the verdict come from the averaged
//   probabilities and an exact tie at the top with the gold label earns ½.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"
#include "judgestat/records.hpp"
#include "report/report.hpp"
#include "records/selection.hpp"

namespace judgestat {

inline constexpr int kConfidenceBins = 10;       // SPEC §3.2: equal width on q
inline constexpr double kHighConfidence = 0.9;   // "error rate at q >= 0.9" (JEV §7.1)
inline constexpr double kNllFloor = 1e-6;        // nll = −ln(max(p_gold, 1e-6))

/// SPEC §3.2's bin of a confidence: min(⌊10q⌋, 9).
int confidence_bin(double q);

/// One probability vector scored against its gold label.
struct ScoredProbabilities {
  double q = 0;        // the largest probability
  double correct = 0;  // 1 when the gold label alone has the top probability, ½ on a tie, else 0
  double brier = 0;    // Σ_k (p_k − 1[k = gold])²
  double nll = 0;      // −ln(max(p_gold, 1e-6))
};
ScoredProbabilities score_probabilities(const double* probs, int32_t n_labels, int32_t gold);

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
  double ece = 0;                    // Σ_bins |Σ (correct − q)| / n (the estimate, for checks)
  double error_rate_high() const;    // errors_high / n_high (NaN when n_high = 0)
  double error_share_high() const;   // errors_high / errors (NaN when there are no errors)
};
ReliabilityTable reliability_table(const std::vector<double>& q, const std::vector<double>& correct);

/// Risk–coverage (SPEC §3.2): outputs sorted by q descending; at coverage k/n the selective risk
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
RiskCoverage risk_coverage(const std::vector<double>& q, const std::vector<double>& correct);

/// Flip rate by base-order confidence bin (SPEC §3.1 `flip`, JEV Fig. 7a): items with every
/// order present and a valid base order with probabilities, binned by the base order's q; a
/// flip is a verdict that differs between orders (an invalid verdict matches nothing).
struct FlipTable {
  std::vector<int64_t> items, flips;  // per bin (kConfidenceBins)
  int64_t total_items = 0, total_flips = 0, flips_high = 0;  // flips_high: base q >= 0.9
};

/// Temperature scaling (SPEC §3.2): probabilities ∝ p^(1/T). `probs` holds rows of n_labels.
/// Mean NLL of the rows at temperature t (t = 1: the probabilities as given).
double mean_nll_at_temperature(const std::vector<double>& probs, int32_t n_labels,
                               const std::vector<int32_t>& gold, double t);
/// The T in [0.05, 20] minimising the mean NLL: a log-spaced scan, then golden-section search
/// around the best scan point. Deterministic. 1 when there are no rows.
double fit_temperature(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold);

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
  std::string strata;                       // the grouping key of `group` ("" overall only)
  std::vector<ProbabilitySummary> summaries;
  std::vector<FlipSummary> flips;
  std::vector<std::string> notes;
  bool empty() const { return summaries.empty(); }
};

/// Appends the probability-quality statistics (brier, nll, ece, auroc_err per presentation) of
/// every selected judge whose valid records carry probabilities to `plan`, overall and per
/// stratum when per_group, and returns the point summaries. The statistics get their own units
/// (item × variant, clusters from the selection), appended after the plan's existing units with
/// zeros in the existing columns, so the plan's other statistics are unchanged. Adds nothing
/// when no selected judge has probabilities.
ProbabilityQuality add_probability_quality(const ItemMatrix& matrix, const Selection& selection,
                                           bool per_group, Plan& plan);

/// Adds the top-level keys `reliability`, `risk_coverage` and `flip_by_confidence` (when there
/// is anything to report).
void add_probability_json(const ProbabilityQuality& quality, Json& json);

/// JSON of one reliability table / risk–coverage curve (shared with `judgestat cascade`).
Json reliability_json(const ReliabilityTable& table);
Json risk_coverage_json(const RiskCoverage& curve);

/// Text (or md) tables of the point summaries for people; "" for csv and when empty.
std::string probability_tables_text(const ProbabilityQuality& quality, const std::string& format);

/// "[0.9, 1.0]" style name of a confidence bin.
std::string confidence_bin_name(int bin);

}  // namespace judgestat
