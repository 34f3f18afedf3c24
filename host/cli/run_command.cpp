// `judgestat run STUDY --out DIR`: every analysis of a study file (docs/study.md) into DIR —
// results.json, per analysis its tables and figures, report.html — recomputing only what
// changed since the last run into DIR (judgestat/study.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/study.hpp"
#include "requests/analysis_parse.hpp"

namespace judgestat {
namespace {

// "report/results.json" for "report//results.json" (--out report/ joined with a '/').
std::string shown_path(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

}  // namespace

int command_run(int argc, char** argv) {
  cxxopts::Options options("judgestat run",
                           "Run a study file (docs/study.md): every analysis into DIR (results.json, tables, "
                           "figures, report.html), reusing the cached results of analyses whose inputs, options "
                           "and settings did not change");
  // clang-format off
  options.add_options()
      ("study", "study file (JSON)", cxxopts::value<std::string>())
      ("out", "folder to write into (its cache/ holds the results for the next run)", cxxopts::value<std::string>())
      ("replicates", "bootstrap replicates (overrides the study's settings)", cxxopts::value<uint64_t>())
      ("seed", "random seed (overrides the study's settings)", cxxopts::value<uint64_t>())
      ("backend", "auto, cpu or cuda (overrides the study's settings)", cxxopts::value<std::string>())
      ("devices", "CUDA devices, e.g. 0,1 (overrides the study's settings)", cxxopts::value<std::string>())
      ("threads", "CPU threads, 0 = all (overrides the study's settings)", cxxopts::value<int>())
      ("force", "recompute every analysis, cached or not; and write into a folder that holds files but is not a "
                "study folder (its files are kept)")
      ("quiet", "no progress on stderr")
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"study"});
  options.positional_help("STUDY");
  cxxopts::ParseResult parsed;
  if (!parse_or_help(options, argc, argv, parsed, /*out_is_folder=*/true)) return 0;
  if (!parsed.count("study")) throw UsageError("missing STUDY: give a study file (see docs/study.md)");
  if (!parsed.count("out")) throw UsageError("missing --out DIR: the folder the study writes into");
  StudyRunOptions run;
  try {
    run.out_dir = parsed["out"].as<std::string>();
    if (parsed.count("replicates")) run.replicates = parsed["replicates"].as<uint64_t>();
    if (parsed.count("seed")) run.seed = parsed["seed"].as<uint64_t>();
    if (parsed.count("backend")) run.backend = parsed["backend"].as<std::string>();
    if (parsed.count("devices")) run.devices = parsed["devices"].as<std::string>();
    if (parsed.count("threads")) run.threads = parsed["threads"].as<int>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  run.force = parsed.count("force") > 0;
  run.quiet = parsed.count("quiet") > 0;
  // On a terminal the progress line rewrites itself; elsewhere one line per finished analysis.
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  run.log = [terminal](const std::string& line, bool transient) {
    if (transient && !terminal) return;
    std::fprintf(stderr, terminal ? "\r\033[K%s%s" : "%s%s", line.c_str(), transient ? "" : "\n");
    std::fflush(stderr);
  };
  Study study = load_study(parsed["study"].as<std::string>());
  // The overrides are checked with the study, before anything runs.
  if (run.replicates) study.settings.replicates = run.replicates;
  if (run.seed) study.settings.seed = run.seed;
  // --out DIR is the run's own: it may not be or hold the study file or a file the study reads.
  std::vector<NamedPath> reads{{"STUDY", study.path}};
  for (const StudyInput& input : study.inputs)
    for (const std::string& file : input.files) reads.push_back({"input '" + input.name + "'", file});
  for (const StudyAnalysis& analysis : study.analyses) {
    const RunPaths paths = analysis_run_paths(read_analysis_values(study_values(analysis, study.settings)));
    for (const NamedPath& read : paths.inputs)
      if (!read.path.empty()) reads.push_back({"analysis '" + analysis.name + "' " + read.flag, read.path});
  }
  check_out_dir_apart({"--out", run.out_dir}, reads);
  const StudyOutcome outcome = run_study(study, run);
  if (!run.quiet)
    std::fprintf(stderr, "%zu analyses: %zu computed, %zu reused; wrote %s and %s\n",
                 outcome.computed.size() + outcome.reused.size(), outcome.computed.size(), outcome.reused.size(),
                 shown_path(outcome.results_path).c_str(), shown_path(outcome.report_path).c_str());
  return 0;
}

}  // namespace judgestat
