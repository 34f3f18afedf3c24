// The metrics analysis asked for by flags (`judgestat metrics`, judgestat/analysis.hpp): per judge
// the accuracy family, classification detail, agreement, position bias, cost and probability
// quality, and the judges' paired differences, each with a clustered bootstrap CI
// (docs/statistics.md §3.1, §3.2, §7.1–§7.3).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "analyses/probability/calibration.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "report/report.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

void add_metrics_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("reference", "reference judge for diff (default: the first judge)", cxxopts::value<std::string>()->default_value(""))
      ("diff", "per-judge statistics to difference, comma-separated (acc, pa, bc, brier, auroc_err, macro_f1, kappa, fee_per_1k, …)",
       cxxopts::value<std::string>()->default_value("acc,pa,bc"))
      ("pairs", "'all': every pair of judges (j − i for i < j) instead of each judge − the reference",
       cxxopts::value<std::string>()->default_value(""))
      ("raters", "three or more judges as raters: Fleiss' kappa and Krippendorff's alpha, comma-separated",
       cxxopts::value<std::string>()->default_value(""))
      ("order", "the order kappa, Fleiss' kappa and alpha compare verdicts in", cxxopts::value<int>()->default_value("0"))
      ("gold", "gold (default) or adjudicated: the decisive adjudicated label replaces gold",
       cxxopts::value<std::string>()->default_value("gold"))
      ("by", "report per group: benchmark, condition or difficulty (judges wrong in order 0)",
       cxxopts::value<std::string>()->default_value(""))
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
      ("plots", "write the forest plot of the accuracy family (SVG + CSV) per group into DIR",
       cxxopts::value<std::string>()->default_value(""));
  // clang-format on
}

std::vector<std::string> repeated(const cxxopts::ParseResult& parsed, const char* name) {
  return parsed.count(name) ? parsed[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

MetricsOptions parse_metrics_options(const cxxopts::ParseResult& parsed, const CommonOptions& common) {
  MetricsOptions metrics;
  metrics.judges = split_list(parsed["judges"].as<std::string>());
  metrics.benchmarks = split_list(parsed["benchmark"].as<std::string>());
  metrics.conditions = split_list(parsed["condition"].as<std::string>());
  metrics.variants = split_list(parsed["variant"].as<std::string>());
  metrics.by = parsed["by"].as<std::string>();
  metrics.strata_mode = parsed["strata"].as<std::string>();
  if (!metrics.strata_mode.empty() && metrics.strata_mode != "by" && metrics.strata_mode != "none")
    throw UsageError("--strata: expected by or none, got '" + metrics.strata_mode + "'");
  metrics.hard_only = parsed.count("hard") > 0;
  metrics.invalid_match = parsed.count("invalid-match") > 0;
  metrics.reference = parsed["reference"].as<std::string>();
  metrics.diff = split_trimmed(parsed["diff"].as<std::string>());
  const std::string pairs = parsed["pairs"].as<std::string>();
  if (!pairs.empty() && pairs != "all") throw UsageError("--pairs: expected all, got '" + pairs + "'");
  metrics.all_pairs = pairs == "all";
  metrics.raters = split_list(parsed["raters"].as<std::string>());
  metrics.agreement_order = parsed["order"].as<int>();
  const std::string gold = parsed["gold"].as<std::string>();
  if (gold != "gold" && gold != "adjudicated")
    throw UsageError("--gold: expected gold or adjudicated, got '" + gold + "'");
  metrics.adjudicated_gold = gold == "adjudicated";
  metrics.fee = parse_per_call(repeated(parsed, "fee"), "fee");
  metrics.latency = parse_per_call(repeated(parsed, "latency"), "latency");
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
  add_metrics_options(options);
  return options;
}

bool parse_metrics_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_common_args("metrics", make_metrics_cli, argc, argv, file_required, parsed, out)) return false;
  out.options = parse_metrics_options(parsed, out.common);
  out.temperature_fit = parsed["temperature-fit"].as<std::string>();
  out.plots_dir = parsed["plots"].as<std::string>();
  return true;
}

}  // namespace

const AnalysisParser kMetricsParser{"metrics", make_metrics_cli, parse_metrics_args};

const FlagNames& metrics_flag_names() {
  static const FlagNames flags{
      {"reference", "--reference"}, {"diff", "--diff"}, {"raters", "--raters"}, {"fee", "--fee"},
      {"latency", "--latency"},     {"hard", "--hard"}, {"order", "--order"}};
  return flags;
}

AnalysisResult run_metrics_request(MetricsOptions metrics, const TypedAnalysisRequest& request,
                                   const ItemMatrix& matrix, const ExecTarget& target, const RunContext& context) {
  if (!request.temperature_fit.empty())
    metrics.temperature = fitted_temperatures(request.temperature_fit, matrix, metrics.judges, request.load);
  metrics.bootstrap.progress = context.hooks.progress;
  MetricsReport report = run_metrics(matrix, metrics, target);
  return analysis_result(report, context, std::move(report.statistics));
}

}  // namespace judgestat
