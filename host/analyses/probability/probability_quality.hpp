// Probability quality (docs/statistics.md §3.2, JEV §7): the plan builder behind the `brier`, `nll`, `ece` and
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
#include "judgestat/probability.hpp"
#include "judgestat/records.hpp"
#include "judgestat/report.hpp"
#include "records/selection.hpp"

namespace judgestat {

struct AccuracyUnit;

/// docs/statistics.md §3.2's bin of a confidence: min(⌊10q⌋, 9).
int confidence_bin(double q);

/// One probability vector scored against its gold label.
struct ScoredProbabilities {
  double q = 0;        // the largest probability
  double correct = 0;  // 1 when the gold label alone has the top probability, ½ on a tie, else 0
  double brier = 0;    // Σ_k (p_k − 1[k = gold])²
  double nll = 0;      // −ln(max(p_gold, 1e-6))
};
ScoredProbabilities score_probabilities(const double* probs, int32_t n_labels, int32_t gold);

/// A cell's probabilities into `out` (n_labels), labels not given read as 0; false when the
/// record is absent, invalid or carries no probability.
bool cell_probabilities(const ItemMatrix& m, size_t cell, std::vector<double>& out);

/// The reliability table of outputs with confidences q and correctness (ReliabilityTable).
ReliabilityTable reliability_table(const std::vector<double>& q, const std::vector<double>& correct);

/// The risk–coverage curve of outputs (RiskCoverage).
RiskCoverage risk_coverage(const std::vector<double>& q, const std::vector<double>& correct);

/// Temperature scaling (docs/statistics.md §3.2): probabilities ∝ p^(1/T). `probs` holds rows of n_labels.
/// Mean NLL of the rows at temperature t (t = 1: the probabilities as given).
double mean_nll_at_temperature(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold,
                               double t);
/// The T in [0.05, 20] minimising the mean NLL: a log-spaced scan, then golden-section search
/// around the best scan point. Deterministic. 1 when there are no rows.
double fit_temperature(const std::vector<double>& probs, int32_t n_labels, const std::vector<int32_t>& gold);

/// Whether a plan builder's columns of fractions stay readable once written (kKept), or are folded into their
/// per-cluster sums as soon as written (kFolded, Plan::fold_column: a plan that is only compiled, whose
/// fractions nothing reads again, holds a sum per cluster instead of a double per unit).
enum class FractionColumns { kKept, kFolded };

/// Appends the probability-quality statistics (brier, nll, ece, auroc_err per presentation) of
/// every selected judge whose valid records carry probabilities to `plan`, overall and per
/// stratum when per_group, and returns the point summaries. The statistics get their own units
/// (item × variant, clusters from the selection), appended after the plan's existing units with
/// zeros in the existing columns, so the plan's other statistics are unchanged. When `plan_units`
/// lists the plan's units (one per plan unit, in plan order, clusters from the same selection:
/// metrics' accuracy units), the statistics use those units instead of appending their own; their
/// columns are zero on the other units, so the cluster sums and every statistic are the same and
/// the plan's columns are not lengthened. Adds nothing when no selected judge has probabilities. With
/// FractionColumns::kFolded, each presentation's brier, nll and ece columns are folded once written, so that they
/// never all exist at once; the plan compiles to the same CompiledPlan. With `native` (a numeric record covariate,
/// `--native-confidence`), each presentation also gets native_auroc_err and native_q_rho (native_confidence.hpp).
/// With `pooled_orders` (`--pooled-orders`, JEV Table 15) and two or more orders, one more presentation per judge and
/// scope takes every order's valid record as a separate judgment: brier, nll, mean_q, ece, auroc_err and
/// high_q_error_rate with `label` = kOrdersPooled (no point summaries, no native rows).
ProbabilityQuality add_probability_quality(const ItemMatrix& matrix, const Selection& selection, bool per_group,
                                           Plan& plan, const std::vector<AccuracyUnit>* plan_units = nullptr,
                                           FractionColumns fractions = FractionColumns::kKept,
                                           const Covariate* native = nullptr, bool pooled_orders = false);

/// The `label` of the pooled presentation's rows: every order's record a separate judgment.
inline constexpr const char* kOrdersPooled = "orders pooled";

/// "[0.9, 1.0]" style name of a confidence bin.
std::string confidence_bin_name(int bin);

/// "order 0", "order 1", … or "averaged" (nullopt): the name of a presentation.
std::string presentation_name(const std::optional<int>& order);

}  // namespace judgestat
