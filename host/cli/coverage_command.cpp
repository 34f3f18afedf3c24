// `judgestat coverage FILE --judges A,B`: the coverage check of judgestat/coverage.hpp on the
// file's own design; prints achieved coverage per statistic and CI method with MC SEs.
#include <iostream>

#include "cli/cli_common.hpp"
#include "cli/cli_help.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/coverage.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {

int command_coverage(int argc, char** argv) {
  cxxopts::Options options("judgestat coverage",
                           "coverage of each CI method on datasets simulated with this file's design "
                           "(docs/statistics.md §2 \"Coverage check\")");
  add_common_options(options);
  // clang-format off
  options.add_options()
      ("judges", "judges to simulate, comma-separated; diff rows compare each later judge with the first",
       cxxopts::value<std::string>()->default_value(""))
      ("datasets", "simulated datasets", cxxopts::value<uint64_t>()->default_value("200"))
      ("methods", "CI methods to check, comma-separated (default: percentile,basic,bca,t,studentized)",
       cxxopts::value<std::string>()->default_value("percentile,basic,bca,t,studentized"))
      ("icc", "use this intracluster correlation for every judge instead of the file's (0 … 0.95)",
       cxxopts::value<double>()->default_value("-1"));
  // clang-format on
  options.parse_positional({"file"});
  options.positional_help("FILE");
  cxxopts::ParseResult parsed;
  CommonOptions common;
  if (!suggesting_flags(options, [&] { return parse_common(options, argc, argv, parsed, common); })) {
    std::cout << command_help(options) << std::flush;
    return 0;
  }
  if (common.exclude_invalid)
    throw UsageError(
        "--invalid exclude: coverage simulates datasets from the file's design and has no invalid "
        "records to leave out; run it without --invalid");
  if (!common.replicates_path.empty())
    throw UsageError("--save-replicates: coverage keeps no replicate distribution (each dataset's is discarded)");
  // Before anything is loaded: --json may not be the records.
  std::vector<std::string> words{common.file};  // FILE and further files, globs expanded
  words.insert(words.end(), parsed.unmatched().begin(), parsed.unmatched().end());
  const std::vector<std::string> files = record_files(words);
  RunPaths paths;
  for (const std::string& file : files) paths.inputs.push_back({"FILE", file});
  paths.outputs = {{"--json", common.json_path}};
  check_paths_apart(paths);
  if (!parsed.count("replicates")) common.replicates = 1000;  // per dataset and method
  const double load_start = now_seconds();
  const ItemMatrix matrix = load_item_matrix(files, common.load);
  CoverageOptions coverage;
  coverage.judges = split_list(parsed["judges"].as<std::string>());
  coverage.datasets = parsed["datasets"].as<uint64_t>();
  coverage.icc = parsed["icc"].as<double>();
  if (coverage.icc > 0.95) throw UsageError("--icc: expected 0 … 0.95 (or leave it out to use the file's)");
  coverage.bootstrap = bootstrap_options(common);
  Progress progress("datasets", common.quiet);
  coverage.bootstrap.progress = [&](uint64_t done, uint64_t total) { progress(done, total); };
  ReportHead head;
  head.load_s = seconds_since(load_start);
  const FlagNames flags{{"datasets", "--datasets"}, {"methods", "--methods"}, {"ci", "--methods"}};
  const CoverageReport report = with_flag_names(flags, [&] {
    coverage.methods.clear();
    for (const std::string& name : split_list(parsed["methods"].as<std::string>()))
      coverage.methods.push_back(parse_ci_method(name));
    return run_coverage(matrix, coverage, common.target);
  });
  progress.finish();
  head.envelope = json_envelope("coverage", argc, argv, matrix);
  emit(common, to_json(report, head), tables(report, common.format));
  return 0;
}

}  // namespace judgestat
