// CAP profiles asked for by flags (`judgestat profile FILE… --config C`, judgestat/analysis.hpp;
// docs/statistics.md §3.6): the flags parsed into ProfileOptions for run_profile()
// (judgestat/profile.hpp), whose report's writers give the tables and JSON.
#include <system_error>

#include "judgestat/profile.hpp"
#include "records/selection.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {

namespace {

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
      ("hard", "only items some judge gets wrong in order 0 (CAP's Hard-Empirical; as metrics --hard)")
      ("diff-reference", "per-cell differences judge − J with CIs (overrides the config's differences.reference)",
       cxxopts::value<std::string>()->default_value(""))
      ("exact-max-n", "exact permutation p-values for Spearman up to this many judges (at most 10)",
       cxxopts::value<int>()->default_value("9"));
  // clang-format on
  options.parse_positional({"file", "files"});
  options.positional_help("FILE…");
  return options;
}

void read_profile(const OptionReader& r, ParsedAnalysis& out) {
  read_common(r, out.common);
  const std::string config_path = r.text("config");
  if (config_path.empty()) throw UsageError("profile: --config FILE is required (see configs/*.json)");
  ProfileOptions profile;
  profile.exact_max_n = r.integer("exact-max-n");
  if (profile.exact_max_n < 0 || profile.exact_max_n > 10) throw UsageError("--exact-max-n: expected 0 … 10");
  out.config_path = config_path;
  profile.config = with_flag_names(profile_flag_names(), [&] { return load_profile_config(config_path); });
  profile.judges = r.list("judges", ListSplit::kDropEmpty, ListOf::kWords);
  profile.benchmarks = r.list("benchmarks", ListSplit::kDropEmpty, ListOf::kWords);
  profile.invalid_match = r.given("invalid-match");
  profile.leave_out = !r.given("no-leave-out");
  profile.hard = r.given("hard");
  profile.diff_reference = r.text("diff-reference");
  profile.bootstrap = bootstrap_options(out.common);
  out.options = std::move(profile);
  out.plots_dir = r.text("plots");
}

bool parse_profile_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("profile", make_profile_cli, argc, argv, file_required, parsed, out)) return false;
  if (parsed.count("file")) out.files.push_back(out.common.file);
  if (parsed.count("files"))
    for (const auto& path : parsed["files"].as<std::vector<std::string>>()) out.files.push_back(path);
  read_profile(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kProfileParser{"profile", make_profile_cli, parse_profile_args, read_profile};

const FlagNames& profile_flag_names() {
  static const FlagNames flags{{"config", "--config"},
                               {"benchmarks", "--benchmarks"},
                               {"exact_max_n", "--exact-max-n"},
                               {"hard", "--hard"},
                               {"diff_reference", "--diff-reference"}};
  return flags;
}

AnalysisResult run_profile_request(ProfileOptions profile, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  profile.bootstrap.progress = context.hooks.progress;
  ProfileReport report = run_profile(matrix, profile, target);
  return analysis_result(report, context, std::move(report.result));
}

}  // namespace judgestat
