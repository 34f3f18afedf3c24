// Options every resampling command shares (docs/statistics.md §2, §4), parsed once.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"
#include "report/report.hpp"

namespace judgestat {

struct CommonOptions {
  std::string file;
  uint64_t replicates = 10000, seed = 1;
  CiMethod ci = CiMethod::kPercentile;
  double level = 0.95;
  std::string format = "text", json_path;
  std::string replicates_path;  // --save-replicates: the replicate distribution as CSV
  ExecTarget target;            // --backend, --devices, --threads, --chunk (parse_exec_target)
  bool quiet = false;
  LoadOptions load;
};

/// Parses argv, turning cxxopts errors into UsageError; prints the help and returns false when
/// --help was given. Every output flag given is checked writable before any work (--plots, and
/// --out when `out_is_folder`, as folders).
bool parse_or_help(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed,
                   bool out_is_folder = false);

/// Adds FILE, --replicates, --seed, --ci, --level, --backend, --devices, --threads, --labels,
/// --format, --json, --quiet, --chunk and --help.
void add_common_options(cxxopts::Options& options);

/// Parses argv; prints help and returns false when --help was given. UsageError on bad values;
/// without FILE too unless `file_required` is false (run_analysis: the records are a matrix).
bool parse_common(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed, CommonOptions& common,
                  bool file_required = true);

/// The bootstrap options the common flags ask for (replicates, seed, interval, level).
BootstrapOptions bootstrap_options(const CommonOptions& common);

/// --save-replicates FILE: one CSV row per replicate, one column per statistic (named as in the
/// JSON), empty where a replicate is undefined. Nothing when the option was not given.
void save_replicates(const CommonOptions& common, const BootstrapResult& result);

/// Prints the table (or the JSON when --format json) and writes --json FILE; under MPI on
/// rank 0, once every rank has got here.
void emit(const CommonOptions& common, const Json& json, const std::string& table_text);

/// "JUDGE=VALUE" options (--fee, --latency) → judge → value, each value a non-negative number;
/// UsageError otherwise. The judges are the caller's to check.
std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option);
/// The same, each judge the first stage or the fallback.
std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option,
                                             const std::string& first, const std::string& fallback);

/// --backend, --devices, --threads and --chunk as one execution target (UsageError on bad
/// values, naming the flag). Every command with these flags parses them here.
ExecTarget parse_exec_target(const cxxopts::ParseResult& parsed);

/// The library names its own fields in std::invalid_argument messages ("threads: …"); the
/// CLI says which flag that is, once, here: the message's leading "field:" becomes
/// "--flag:" when `flags` maps it, and the error a UsageError (exit 2).
using FlagNames = std::map<std::string, std::string>;
[[noreturn]] void rethrow_with_flag_names(const std::invalid_argument& error, const FlagNames& flags);
/// Runs work(); a std::invalid_argument from it is rethrown by rethrow_with_flag_names.
template <typename Work>
auto with_flag_names(const FlagNames& flags, Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const std::invalid_argument& error) {
    rethrow_with_flag_names(error, flags);
  }
}
/// Writes `report`'s plots into `dir` (nothing when dir is empty); the writer's own errors
/// ("plots: …") name the --plots flag.
template <typename Report>
void write_plots(const Report& report, const std::string& dir) {
  if (dir.empty()) return;
  try {
    plots(report, dir);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (message.rfind("plots: ", 0) == 0) throw std::runtime_error("--" + message);
    throw;
  }
}

/// The figures of a report (plot_files) written into `dir` as write_plots(report, dir) writes them.
void write_plot_files(const std::vector<PlotFile>& figures, const std::string& dir);

/// The fields every command shares (execution target, bootstrap, records, selection) and their
/// flags; rethrow_with_flag_names falls back to these.
const FlagNames& common_flags();

double seconds_since(double start);
double now_seconds();

}  // namespace judgestat
