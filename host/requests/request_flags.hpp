// The flags every analysis shares (docs/statistics.md §2, §4), defined and parsed once for the
// CLI, the study file and the Python binding; and the one place where the library's field names
// in error messages ("threads: …") become the flags a user typed ("--threads: …").
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

class OptionReader;

struct CommonOptions {
  std::string file;  // the first FILE; the others, and globs, are ParsedAnalysis::unmatched (record_files)
  uint64_t replicates = 10000, seed = 1;
  CiMethod ci = CiMethod::kPercentile;
  double level = 0.95;
  std::string format = "text", json_path;
  std::string replicates_path;  // --save-replicates: the replicate distribution as CSV
  ExecTarget target;            // --backend, --devices, --threads, --chunk (parse_exec_target)
  bool quiet = false;
  /// `--invalid exclude` (docs/statistics.md §1 "Validity"): invalid records leave every n (CAP);
  /// false (`wrong`, the default): they count as errors (JEV).
  bool exclude_invalid = false;
  LoadOptions load;
};

/// FILE arguments as the files to read: a word holding '*', '?' or '[' is a glob, expanded by
/// judgestat (its matches in byte order); "-" is stdin. UsageError naming a path that does not
/// exist or a glob that matches nothing (docs/import.md: nothing is skipped).
std::vector<std::string> record_files(const std::vector<std::string>& words);

/// Parses argv, turning cxxopts errors into UsageError; false when --help was given (the caller
/// prints options.help(): the library prints nothing). Every output flag given is checked
/// writable before any work (--plots, and --out when `out_is_folder`, as folders).
bool parse_flags(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed,
                 bool out_is_folder = false);

/// Adds FILE, --replicates, --seed, --ci, --level, --backend, --devices, --threads, --labels,
/// --format, --json, --quiet, --invalid, --chunk and --help.
void add_common_options(cxxopts::Options& options);

/// Parses argv; false when --help was given. UsageError on bad values; without FILE too unless
/// `file_required` is false (run_analysis: the records are a matrix).
bool parse_common(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed, CommonOptions& common,
                  bool file_required = true);
/// The options add_common_options defines but FILE, read and checked into `common` (from the
/// flags or from typed values alike).
void read_common(const OptionReader& options, CommonOptions& common);

/// The bootstrap options the common flags ask for (replicates, seed, interval, level).
BootstrapOptions bootstrap_options(const CommonOptions& common);

/// "JUDGE=VALUE" options (--fee, --latency) → judge → value, each value a non-negative number;
/// UsageError otherwise. The judges are the caller's to check.
std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option);
/// One such value (`text` as given) checked: UsageError naming --`option` unless finite and ≥ 0.
void check_per_call_value(double value, const std::string& text, const std::string& judge, const char* option);
/// Each judge of `per_call` the first stage or the fallback (UsageError naming --`option`).
void check_per_call_judges(const std::map<std::string, double>& per_call, const char* option, const std::string& first,
                           const std::string& fallback);
/// The same, each judge the first stage or the fallback.
std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option,
                                             const std::string& first, const std::string& fallback);

/// --backend, --devices, --threads and --chunk as one execution target (UsageError on bad
/// values, naming the flag). Every command with these flags parses them here.
ExecTarget parse_exec_target(const cxxopts::ParseResult& parsed);
/// The same from the flags or from typed values alike.
ExecTarget read_exec_target(const OptionReader& options);

/// The library names its own fields in std::invalid_argument messages ("threads: …"); the
/// flags' side says which flag that is, once, here: the message's leading "field:" becomes
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

/// The fields every command shares (execution target, bootstrap, records, selection) and their
/// flags; rethrow_with_flag_names falls back to these.
const FlagNames& common_flags();

}  // namespace judgestat
