// `judgestat profile FILE… --config C`: CAP profiles (docs/statistics.md §3.6) in the paper's layouts; the
// analysis is run_profile() (judgestat/profile.hpp), its tables and JSON the report's writers.
#include <system_error>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/text_lists.hpp"
#include "judgestat/profile.hpp"
#include "records/selection.hpp"

namespace judgestat {

int command_profile(int argc, char** argv) {
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
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!parse_common(options, argc, argv, parsed, common)) return 0;
  std::vector<std::string> files{common.file};
  if (parsed.count("files"))
    for (const auto& path : parsed["files"].as<std::vector<std::string>>()) files.push_back(path);
  const std::string config_path = parsed["config"].as<std::string>();
  if (config_path.empty()) throw UsageError("profile: --config FILE is required (see configs/*.json)");

  const FlagNames flags{{"config", "--config"}, {"benchmarks", "--benchmarks"}, {"exact_max_n", "--exact-max-n"}};
  const double load_start = now_seconds();
  ProfileOptions profile;
  profile.exact_max_n = parsed["exact-max-n"].as<int>();
  if (profile.exact_max_n < 0 || profile.exact_max_n > 10) throw UsageError("--exact-max-n: expected 0 … 10");
  profile.config = with_flag_names(flags, [&] { return load_profile_config(config_path); });
  const ProfileInput input = load_profile_inputs(files, common.load);
  profile.judges = split_list(parsed["judges"].as<std::string>());
  profile.benchmarks = split_list(parsed["benchmarks"].as<std::string>());
  profile.invalid_match = parsed.count("invalid-match") > 0;
  profile.leave_out = parsed.count("no-leave-out") == 0;
  profile.bootstrap = bootstrap_options(common);
  Progress progress("replicates", common.quiet);
  profile.bootstrap.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };
  ReportHead head;
  head.load_s = seconds_since(load_start);
  const ProfileReport report =
      with_flag_names(flags, [&] { return run_profile(input.matrix, profile, common.target); });
  save_replicates(common, report.result);
  progress.finish();

  head.envelope = json_envelope("profile", argc, argv, input.matrix);
  set_profile_inputs(head.envelope, input.files);
  write_plots(report, parsed["plots"].as<std::string>());
  emit(common, to_json(report, head), tables(report, common.format));
  return 0;
}

}  // namespace judgestat
