// `judgestat profile FILE… --config C`: CAP profiles (docs/statistics.md §3.6) in the paper's layouts; the
// analysis is run_profile() (judgestat/profile.hpp), its tables and JSON the report's writers.
#include <system_error>

#include "cli/analysis_parse.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/text_lists.hpp"
#include "judgestat/profile.hpp"
#include "records/selection.hpp"

namespace judgestat {

namespace {

const FlagNames& profile_flags() {
  static const FlagNames flags{
      {"config", "--config"}, {"benchmarks", "--benchmarks"}, {"exact_max_n", "--exact-max-n"}};
  return flags;
}

}  // namespace

cxxopts::Options make_profile_cli() {
  cxxopts::Options options("judgestat profile",
                           "CAP profiles C1–C8 (docs/statistics.md §3.6) with coverage, rank stability and stress");
  add_common_options(options);
  // clang-format off
  options.add_options()
      ("files", "further record files (one per benchmark, or one file with a benchmark column)",
       cxxopts::value<std::vector<std::string>>())
      ("config", "profile config (configs/*.json)", cxxopts::value<std::string>()->default_value(""))
      ("judges", "judges to profile, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("benchmarks", "config benchmarks to profile, comma-separated (default: those with records)",
       cxxopts::value<std::string>()->default_value(""))
      ("plots", "write the radar chart per benchmark (SVG) into DIR", cxxopts::value<std::string>()->default_value(""))
      ("invalid-match", "two invalid verdicts agree in the _cons statistics")
      ("no-leave-out", "skip the leave-out sensitivity for flag = 1 items")
      ("exact-max-n", "exact permutation p-values for Spearman up to this many judges (at most 10)",
       cxxopts::value<int>()->default_value("9"));
  // clang-format on
  options.parse_positional({"file", "files"});
  options.positional_help("FILE…");
  return options;
}

bool parse_profile_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::Options options = make_profile_cli();
  cxxopts::ParseResult parsed;
  out.command = "profile";
  CommonOptions& common = out.common;
  if (!parse_common(options, argc, argv, parsed, common, file_required)) return false;
  out.unmatched = parsed.unmatched();
  if (parsed.count("file")) out.files.push_back(common.file);
  if (parsed.count("files"))
    for (const auto& path : parsed["files"].as<std::vector<std::string>>()) out.files.push_back(path);
  const std::string config_path = parsed["config"].as<std::string>();
  if (config_path.empty()) throw UsageError("profile: --config FILE is required (see configs/*.json)");

  ProfileOptions& profile = out.profile;
  profile.exact_max_n = parsed["exact-max-n"].as<int>();
  if (profile.exact_max_n < 0 || profile.exact_max_n > 10) throw UsageError("--exact-max-n: expected 0 … 10");
  out.config_path = config_path;
  profile.config = with_flag_names(profile_flags(), [&] { return load_profile_config(config_path); });
  profile.judges = split_list(parsed["judges"].as<std::string>());
  profile.benchmarks = split_list(parsed["benchmarks"].as<std::string>());
  profile.invalid_match = parsed.count("invalid-match") > 0;
  profile.leave_out = parsed.count("no-leave-out") == 0;
  profile.bootstrap = bootstrap_options(common);
  out.plots_dir = parsed["plots"].as<std::string>();
  return true;
}

AnalysisResult run_profile_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                    const RunContext& context) {
  ProfileOptions profile = parsed.profile;
  profile.bootstrap.progress = context.hooks.progress;
  ProfileReport report = with_flag_names(profile_flags(), [&] { return run_profile(matrix, profile, target); });
  AnalysisResult result = analysis_result(report, context);
  result.bootstrap = std::make_shared<const BootstrapResult>(std::move(report.result));
  return result;
}

int command_profile(int argc, char** argv) {
  ParsedAnalysis parsed;
  const double load_start = now_seconds();  // the config's reading counts as loading, as before
  if (!parse_profile_args(argc, argv, true, parsed)) return 0;
  const CommonOptions& common = parsed.common;
  const RunPaths paths = analysis_run_paths(parsed);
  check_paths_apart(paths);  // before anything is loaded
  const ProfileInput input = load_profile_inputs(parsed.files, common.load);
  ReportHead head;
  head.load_s = seconds_since(load_start);
  head.envelope = json_envelope("profile", argc, argv, input.matrix);
  set_profile_inputs(head.envelope, input.files);
  Progress progress("replicates", common.quiet);
  const AnalysisHooks hooks{[&](uint64_t done, uint64_t total) { progress(done, total); }};
  std::string table;
  const AnalysisResult result =
      run_profile_analysis(parsed, input.matrix, common.target, {head, hooks, common.format, &table});
  check_plot_files_apart(paths, result.plots);  // the figures known, before any is written
  save_replicates(common, *result.bootstrap);
  progress.finish();
  write_plot_files(result.plots, parsed.plots_dir);
  emit(common, result.json, table);
  return 0;
}

}  // namespace judgestat
