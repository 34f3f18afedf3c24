// `judgestat metrics FILE`: the accuracy family per judge with clustered bootstrap CIs.
#include <iostream>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "analyses/metrics.hpp"
#include "analyses/probability.hpp"
#include "records/selection.hpp"

namespace judgestat {
namespace {

std::string statistic_title(const StatLabel& label) {
  std::string title = label.name == "diff" ? "diff " + *label.of : label.name;
  if (label.order && label.name != "macro_f1") title += " [order " + std::to_string(*label.order) + "]";
  if (label.reference) title += " − " + *label.reference;
  return title;
}

}  // namespace

int command_metrics(int argc, char** argv) {
  cxxopts::Options options("judgestat metrics",
                           "Accuracy family per judge (SPEC §3.1) with clustered bootstrap CIs");
  add_common_options(options);
  options.add_options()
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("reference", "reference judge for diff (default: the first judge)", cxxopts::value<std::string>()->default_value(""))
      ("by", "report per group: benchmark or condition (stratified bootstrap)", cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("variant", "only these variants, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("invalid-match", "two invalid verdicts agree in cons (LLMBar's equal)");
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!parse_common(options, argc, argv, parsed, common)) return 0;

  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(common.file, common.load);
  SelectionOptions select;
  select.judges = split_list(parsed["judges"].as<std::string>());
  select.benchmarks = split_list(parsed["benchmark"].as<std::string>());
  select.conditions = split_list(parsed["condition"].as<std::string>());
  select.variants = split_list(parsed["variant"].as<std::string>());
  select.strata = parsed["by"].as<std::string>();
  const Selection selection = select_records(matrix, select);
  MetricsOptions metrics;
  metrics.invalid_match = parsed.count("invalid-match") > 0;
  metrics.reference = parsed["reference"].as<std::string>();
  metrics.per_group = !select.strata.empty();
  MetricsPlan built = build_metrics_plan(matrix, selection, metrics);
  // Probability quality (SPEC §3.2) joins the same plan, after the accuracy family.
  const ProbabilityQuality probability = add_probability_quality(matrix, selection, metrics.per_group, built.plan);
  const double load_s = seconds_since(load_start);

  auto backend = make_backend(common.backend, common.threads, common.max_chunk);
  Progress progress("replicates", common.quiet);
  BootstrapOptions boot = bootstrap_options(common);
  boot.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };
  const BootstrapResult result = run_bootstrap(built.plan, *backend, boot);
  save_replicates(common, result);
  progress.finish();

  Json json = json_envelope("metrics", argc, argv, matrix);
  json["settings"] = bootstrap_settings(common, *backend, selection.strata);
  json["settings"]["invalid_match"] = metrics.invalid_match;
  json["statistics"] = statistics_json(result);
  Json validity = Json::array();
  for (const auto& v : built.validity)
    validity.push_back({{"judge", v.judge}, {"records", v.records}, {"invalid", v.invalid}});
  json["validity"] = validity;
  json["notes"] = built.notes;
  add_probability_json(probability, json);
  json["timing"] = bootstrap_timing(load_s, result);

  Table table;
  const bool grouped = !selection.strata.empty();
  const std::string level = fixed(100 * common.level, 0) + "% CI";
  table.header = {"judge"};
  if (grouped) table.header.push_back(selection.strata);
  for (const char* h : {"statistic", "estimate", level.c_str(), "SE", "n", "undef"})
    table.header.push_back(h);
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const Interval& ci = result.intervals[s];
    std::vector<std::string> row{label.judge};
    if (grouped)
      row.push_back(label.benchmark ? *label.benchmark : label.condition ? *label.condition : "all");
    row.push_back(statistic_title(label));
    row.push_back(fixed(ci.estimate));
    row.push_back("(" + fixed(ci.lo) + ", " + fixed(ci.hi) + ")");
    row.push_back(fixed(ci.se));
    row.push_back(std::to_string(label.n));
    row.push_back(std::to_string(ci.undefined));
    table.rows.push_back(row);
  }
  for (const auto& v : built.validity)
    table.notes.push_back("validity: " + v.judge + ": " + std::to_string(v.invalid) + " invalid of " +
                          std::to_string(v.records) + " records");
  for (const auto& note : built.notes) table.notes.push_back("note: " + note);
  for (const auto& note : probability.notes) table.notes.push_back("note: " + note);
  char summary[256];
  std::snprintf(summary, sizeof summary,
                "%llu replicates, %s CI, seed %llu, %lld clusters%s, backend %s (%s), %.2fs",
                static_cast<unsigned long long>(common.replicates), to_string(common.ci).c_str(),
                static_cast<unsigned long long>(common.seed),
                static_cast<long long>(result.n_clusters),
                grouped ? (", stratified by " + selection.strata).c_str() : "",
                backend->name().c_str(), backend->device().c_str(), result.resample_s);
  table.notes.push_back(summary);
  emit(common, json, table.render(common.format) + probability_tables_text(probability, common.format));
  return 0;
}

}  // namespace judgestat
