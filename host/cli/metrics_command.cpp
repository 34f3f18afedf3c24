// `judgestat metrics FILE`: the accuracy family per judge with clustered bootstrap CIs.
#include <cstdint>
#include <string>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/text_lists.hpp"
#include "judgestat/metrics.hpp"
#include "records/selection.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

// The analysis's own fields and their flags (the shared ones are in common_flags()).
const FlagNames& metric_flags() {
  static const FlagNames flags{{"reference", "--reference"}};
  return flags;
}

}  // namespace

int command_metrics(int argc, char** argv) {
  cxxopts::Options options("judgestat metrics",
                           "Accuracy family per judge (docs/statistics.md §3.1) with clustered bootstrap CIs");
  add_common_options(options);
  // clang-format off
  options.add_options()
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("reference", "reference judge for diff (default: the first judge)", cxxopts::value<std::string>()->default_value(""))
      ("by", "report per group: benchmark or condition (stratified bootstrap)", cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("variant", "only these variants, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("invalid-match", "two invalid verdicts agree in cons (LLMBar's equal)");
  // clang-format on
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!parse_common(options, argc, argv, parsed, common)) return 0;

  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(common.file, common.load);
  ReportHead head;
  head.load_s = seconds_since(load_start);
  MetricsOptions metrics;
  metrics.judges = split_list(parsed["judges"].as<std::string>());
  metrics.benchmarks = split_list(parsed["benchmark"].as<std::string>());
  metrics.conditions = split_list(parsed["condition"].as<std::string>());
  metrics.variants = split_list(parsed["variant"].as<std::string>());
  metrics.by = parsed["by"].as<std::string>();
  metrics.invalid_match = parsed.count("invalid-match") > 0;
  metrics.reference = parsed["reference"].as<std::string>();
  const BootstrapOptions boot = bootstrap_options(common);
  metrics.replicates = boot.replicates;
  metrics.seed = boot.seed;
  metrics.ci = boot.ci;
  metrics.level = boot.level;
  metrics.keep_replicates = boot.keep_replicates;
  Progress progress("replicates", common.quiet);
  metrics.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };

  const MetricsReport report =
      with_flag_names(metric_flags(), [&] { return run_metrics(matrix, metrics, common.target); });
  save_replicates(common, report.statistics);
  progress.finish();
  head.envelope = json_envelope("metrics", argc, argv, matrix);
  emit(common, to_json(report, head), tables(report, common.format));
  return 0;
}

}  // namespace judgestat
