// The metrics analysis asked for by flags (`judgestat metrics`, judgestat/analysis.hpp): per judge
// the accuracy family, classification detail, agreement, position bias, cost and probability
// quality, and the judges' paired differences, each with a clustered bootstrap CI
// (docs/statistics.md §3.1, §3.2, §7.1–§7.3).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyses/probability/calibration.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "report/report.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/scores_request.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

void add_metrics_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("reference", "reference judge for diff (default: the first judge)", cxxopts::value<std::string>()->default_value(""))
      ("diff", "per-judge statistics to difference, comma-separated (acc, pa, bc, brier, auroc_err, macro_f1, kappa, fee_per_1k, longer_rate, length_acc_diff, point_biserial, …)",
       cxxopts::value<std::string>()->default_value("acc,pa,bc"))
      ("pairs", "'all': every pair of judges (j − i for i < j) instead of each judge − the reference",
       cxxopts::value<std::string>()->default_value(""))
      ("raters", "judges as raters, comma-separated, two or more: Fleiss' kappa and Krippendorff's alpha; "
       "with --scale, alpha and Kendall's W",
       cxxopts::value<std::string>()->default_value(""))
      ("order", "the order kappa, Fleiss' kappa and alpha compare verdicts in", cxxopts::value<int>()->default_value("0"))
      ("gold", "gold (default) or adjudicated: the decisive adjudicated label replaces gold",
       cxxopts::value<std::string>()->default_value("gold"))
      ("tie-credit", "what a valid tie verdict earns in acc and pa: zero (default, JudgeBench) or half (JEV's exact "
       "score ties)", cxxopts::value<std::string>()->default_value("zero"))
      ("indecisive", "in diff acc_adjudicated an indecisive item is scored by gold (default) or contributes "
       "zero (JEV App. C's primary outcome)", cxxopts::value<std::string>()->default_value("gold"))
      ("by", "report per group: benchmark, condition, difficulty (judges wrong in order 0) or a covariate x.NAME",
       cxxopts::value<std::string>()->default_value(""))
      ("difficulty-from", "with --by difficulty: count wrong judges among the selected (default) or the others, the "
       "file's judges not in --judges (JEV Table 11)", cxxopts::value<std::string>()->default_value("selected"))
      ("difficulty-bins", "with --by difficulty: bins of the count, e.g. 0,1-2,3-5,6-9,10-13",
       cxxopts::value<std::string>()->default_value(""))
      ("bins", "with --by x.NAME (numeric): K quantile bins, or edges E0,E1,… (inf allowed)",
       cxxopts::value<std::string>()->default_value(""))
      ("length", "length bias: x.LEN_A,x.LEN_B, the lengths of candidates A and B (the first and second label)",
       cxxopts::value<std::string>()->default_value(""))
      ("length-bins", "with --length: bins of the length measure, K quantile bins or edges",
       cxxopts::value<std::string>()->default_value("4"))
      ("length-measure", "with --length: length_acc's bins over len(gold) − len(other) (difference) or "
       "len(other) / len(gold), rejected over preferred (ratio; JEV Table 12)",
       cxxopts::value<std::string>()->default_value("difference"))
      ("assoc", "a numeric covariate x.NAME against correctness: point-biserial r, Spearman rho and accuracy per bin",
       cxxopts::value<std::string>()->default_value(""))
      ("assoc-bins", "with --assoc: bins of the covariate, K quantile bins or edges",
       cxxopts::value<std::string>()->default_value("4"))
      ("strata", "with --by: 'by' forces the stratified bootstrap, 'none' domain estimation (default: by when "
       "every cluster lies in one group)", cxxopts::value<std::string>()->default_value(""))
      ("hard", "only items some judge gets wrong in order 0 (CAP's Hard-Empirical)")
      ("benchmark", "only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("variant", "only these variants, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("fee", "per-call fee JUDGE=USD (repeatable); replaces the file's fee_usd for that judge",
       cxxopts::value<std::vector<std::string>>())
      ("latency", "per-call latency JUDGE=SECONDS (repeatable); replaces the file's latency_s",
       cxxopts::value<std::vector<std::string>>())
      ("temperature-fit", "fit each judge's temperature on this records file and apply it here (a frozen calibration)",
       cxxopts::value<std::string>()->default_value(""))
      ("invalid-match", "two invalid verdicts agree in cons (LLMBar's equal)")
      ("failure-type", "a covariate x.NAME holding each invalid record's failure type: failure_rate per judge and "
       "type (JEV Table 19)", cxxopts::value<std::string>()->default_value(""))
      ("group-diff", "with --by: A,B, each judge's --diff statistics on group A minus on group B (group_diff, same "
       "replicates) and that difference between judges (difference of differences)",
       cxxopts::value<std::string>()->default_value(""))
      ("native-confidence", "a numeric covariate x.NAME holding a second confidence score per record (JEV App. I): "
       "its error-detection AUROC (native_auroc_err) and Spearman's rho with q (native_q_rho)",
       cxxopts::value<std::string>()->default_value(""))
      ("pooled-orders", "probability quality also with every order's record a separate judgment (JEV Table 15): rows "
       "'orders pooled' with high_q_error_rate, the error rate at q >= 0.9")
      ("verdict-shares", "LABEL=SHARE,... for every label (CAP App. C): composition_acc, each verdict's "
       "agreement with gold reweighted to these verdict shares (counts or shares; normalised to sum 1)",
       cxxopts::value<std::string>()->default_value(""))
      ("full", "print every table (default: the summary, judges × headline statistics, within 100 columns)")
      ("plots", "write the forest plot of the accuracy family per group and JEV's figures (SVG + CSV) into DIR",
       cxxopts::value<std::string>()->default_value(""));
  // clang-format on
}

// --verdict-shares LABEL=SHARE,…: the pairs as given (the analysis checks the labels and normalises).
std::vector<std::pair<std::string, double>> verdict_shares(const std::vector<std::string>& entries) {
  std::vector<std::pair<std::string, double>> out;
  for (const std::string& entry : entries) {
    const size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--verdict-shares: expected LABEL=SHARE, got '" + entry + "'");
    const std::string text = entry.substr(eq + 1);
    char* end = nullptr;
    const double share = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(share) || share < 0)
      throw UsageError("--verdict-shares: the share of '" + entry.substr(0, eq) +
                       "' must be a finite number >= 0, got '" + text + "'");
    out.emplace_back(entry.substr(0, eq), share);
  }
  return out;
}

MetricsOptions read_metrics_options(const OptionReader& r, const CommonOptions& common) {
  MetricsOptions metrics;
  metrics.judges = r.list("judges", ListSplit::kDropEmpty, ListOf::kWords);
  metrics.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  metrics.conditions = r.list("condition", ListSplit::kDropEmpty, ListOf::kWords);
  metrics.variants = r.list("variant", ListSplit::kDropEmpty, ListOf::kWords);
  metrics.by = r.text("by");
  metrics.strata_mode = r.text("strata");
  metrics.covariates = {r.text_or_number("bins"),        r.text("length"),
                        r.text_or_number("length-bins"), r.text("assoc"),
                        r.text_or_number("assoc-bins"),  r.text("length-measure")};  // docs/statistics.md §8.3
  const std::string& measure = metrics.covariates.length_measure;
  if (measure != "difference" && measure != "ratio")
    throw UsageError("--length-measure: expected difference or ratio, got '" + measure + "'");
  if (measure == "ratio" && metrics.covariates.length.empty())
    throw UsageError("--length-measure ratio: give --length x.LEN_A,x.LEN_B, the lengths it divides");
  if (!metrics.strata_mode.empty() && metrics.strata_mode != "by" && metrics.strata_mode != "none")
    throw UsageError("--strata: expected by or none, got '" + metrics.strata_mode + "'");
  metrics.hard_only = r.given("hard");
  const std::string difficulty_from = r.text("difficulty-from");
  if (difficulty_from != "selected" && difficulty_from != "others")
    throw UsageError("--difficulty-from: expected selected or others, got '" + difficulty_from + "'");
  metrics.difficulty_others = difficulty_from == "others";
  metrics.difficulty_bins = r.text("difficulty-bins");
  metrics.invalid_match = r.given("invalid-match");
  metrics.failure_type = r.text("failure-type");
  metrics.native_confidence = r.text("native-confidence");
  metrics.pooled_orders = r.given("pooled-orders");
  metrics.group_diff = r.list("group-diff", ListSplit::kTrimmed, ListOf::kWords);
  metrics.verdict_shares = verdict_shares(r.list("verdict-shares", ListSplit::kTrimmed, ListOf::kWords));
  metrics.full_text = r.given("full");
  metrics.reference = r.text("reference");
  metrics.diff = r.list("diff", ListSplit::kTrimmed, ListOf::kWords);
  const std::string pairs = r.text("pairs");
  if (!pairs.empty() && pairs != "all") throw UsageError("--pairs: expected all, got '" + pairs + "'");
  metrics.all_pairs = pairs == "all";
  metrics.raters = r.list("raters", ListSplit::kDropEmpty, ListOf::kWords);
  metrics.agreement_order = r.integer("order");
  const std::string gold = r.text("gold");
  if (gold != "gold" && gold != "adjudicated")
    throw UsageError("--gold: expected gold or adjudicated, got '" + gold + "'");
  metrics.adjudicated_gold = gold == "adjudicated";
  const std::string indecisive = r.text("indecisive");
  if (indecisive != "gold" && indecisive != "zero")
    throw UsageError("--indecisive: expected gold or zero, got '" + indecisive + "'");
  metrics.indecisive_zero = indecisive == "zero";
  const std::string tie_credit = r.text("tie-credit");
  if (tie_credit != "zero" && tie_credit != "half")
    throw UsageError("--tie-credit: expected zero or half, got '" + tie_credit + "'");
  metrics.tie_half_credit = tie_credit == "half";
  metrics.fee = r.per_call("fee");
  metrics.latency = r.per_call("latency");
  metrics.scores = read_score_options(r);  // docs/statistics.md §8.2
  metrics.bootstrap = bootstrap_options(common);
  return metrics;
}

// --temperature-fit FILE: one temperature per judge with probabilities in `matrix` (among
// `judges` when given), fitted on FILE's records.
std::map<std::string, double> fitted_temperatures(const std::string& file, const ItemMatrix& matrix,
                                                  const std::vector<std::string>& judges, const LoadOptions& load) {
  const ItemMatrix fit = load_item_matrix(file, load);
  std::vector<std::string> fitted;
  for (int32_t j = 0; j < matrix.n_judges(); ++j) {
    const std::string& name = matrix.judges[j];
    const bool asked = judges.empty() || std::find(judges.begin(), judges.end(), name) != judges.end();
    const size_t cells_per_judge = matrix.verdict.size() / matrix.n_judges();
    bool probabilities = false;
    for (size_t c = j * cells_per_judge; c < (j + 1) * cells_per_judge && !probabilities; ++c)
      for (int32_t k = 0; k < matrix.n_labels() && !probabilities; ++k)
        probabilities = matrix.valid(c) && !std::isnan(matrix.probs_of(c)[k]);
    if (asked && probabilities) fitted.push_back(name);
  }
  if (fitted.empty()) throw UsageError("--temperature-fit: no analysed judge has probabilities in " + matrix.path);
  try {
    return fit_temperatures(fit, fitted, {});
  } catch (const UsageError& error) {
    throw UsageError(std::string("--temperature-fit: ") + error.what());
  }
}

cxxopts::Options make_metrics_cli() {
  cxxopts::Options options("judgestat metrics",
                           "Per judge the accuracy family, classification, agreement, position bias, cost and "
                           "probability quality, and paired differences, with clustered bootstrap CIs "
                           "(docs/statistics.md §3.1, §3.2, §7.1–§7.3)");
  add_common_options(options);
  add_scale_option(options);
  add_metrics_options(options);
  add_score_options(options);
  return options;
}

void read_metrics(const OptionReader& r, ParsedAnalysis& out) {
  read_common(r, out.common);
  read_scale(r, out.common.load);  // docs/statistics.md §8.2
  out.options = read_metrics_options(r, out.common);
  // Without --scale α is the nominal one of §7.1: a level asked for would be silently ignored.
  if (r.given("alpha-level") && !out.common.load.scale)
    throw UsageError(
        "--alpha-level: the level of the score raters' alpha needs --scale LOW:HIGH; without it "
        "krippendorff_alpha is nominal (docs/statistics.md §7.1)");
  out.temperature_fit = r.text("temperature-fit");
  out.plots_dir = r.text("plots");
}

bool parse_metrics_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("metrics", make_metrics_cli, argc, argv, file_required, parsed, out)) return false;
  read_metrics(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kMetricsParser{"metrics", make_metrics_cli, parse_metrics_args, read_metrics};

const FlagNames& metrics_flag_names() {
  static const FlagNames flags{{"reference", "--reference"},
                               {"diff", "--diff"},
                               {"raters", "--raters"},
                               {"fee", "--fee"},
                               {"latency", "--latency"},
                               {"hard", "--hard"},
                               {"order", "--order"},
                               {"difficulty_from", "--difficulty-from"},
                               {"difficulty_bins", "--difficulty-bins"}};
  return flags;
}

AnalysisResult run_metrics_request(MetricsOptions metrics, const TypedAnalysisRequest& request,
                                   const ItemMatrix& matrix, const ExecTarget& target, const RunContext& context) {
  if (!request.temperature_fit.empty())
    metrics.temperature = fitted_temperatures(request.temperature_fit, matrix, metrics.judges, request.load);
  metrics.bootstrap.progress = context.hooks.progress;
  MetricsReport report = run_metrics(matrix, metrics, target);
  AnalysisResult result = analysis_result(report, context);
  if (!metrics.full_text) result.text = summary_text(report, result.json);  // `--full`: every table
  result.bootstrap = std::make_shared<const BootstrapResult>(std::move(report.statistics));
  return result;
}

}  // namespace judgestat
