// The analyses' flags defined and parsed once, for the CLI and for the library's request layer
// (judgestat/analysis.hpp): each analysis's *_request.cpp defines its flags (make_X_cli), parses
// them into a ParsedAnalysis (parse_X_args) and runs its typed options (run_X_request).
// `judgestat X` is parse → load → run → emit; run_analysis(AnalysisRequest) is parse → run.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/analysis.hpp"
#include "report/report_from_json.hpp"
#include "requests/option_reader.hpp"
#include "requests/request_flags.hpp"
#include "requests/run_paths.hpp"

namespace judgestat {

/// A command's flags parsed: the typed request and what only the command line has (the records
/// FILE(s), the output flags, positional words nothing took).
struct ParsedAnalysis {
  std::string command;
  CommonOptions common;  // file, load, output flags, target; replicates … for the bootstrap commands
  AnalysisOptions options;
  std::string plots_dir;
  std::vector<std::string> files;      // profile: FILE and the further files
  std::vector<std::string> unmatched;  // positional arguments nothing took
  std::string temperature_fit;         // metrics --temperature-fit FILE
  std::string config_path;             // profile --config
  std::string out_path;                // items --out
};

/// The typed request the flags ask for: their options, load options and --temperature-fit.
TypedAnalysisRequest typed_request(const ParsedAnalysis& parsed);

/// What a run shares with every analysis: how it was asked for, and its progress.
struct RunContext {
  const ReportHead& head;
  const AnalysisHooks& hooks;
};

/// A report's writers' outputs: its JSON, its tables (text, csv, md), its figures and its
/// render state. The caller adds the replicate statistics where the analysis has them.
template <typename Report>
AnalysisResult analysis_result(const Report& report, const RunContext& context) {
  AnalysisResult result;
  result.json = to_json(report, context.head);
  result.text = tables(report, "text");
  result.csv = tables(report, "csv");
  result.md = tables(report, "md");
  result.plots = plot_files(report);
  result.render = render_state(report);  // what a study's cache renders the tables from again
  return result;
}

/// An analysis command's flags (make_cli; argv[0] names the program), their parse into `out`
/// (false when --help was given: the caller prints make_cli().help(); with `file_required` false
/// the records FILE may be missing), and the reading of its options into `out` from the flags or
/// from typed values alike (`read`, which `parse` ends with). Each *_request.cpp defines its own.
struct AnalysisParser {
  const char* command;
  cxxopts::Options (*make_cli)();
  bool (*parse)(int argc, char** argv, bool file_required, ParsedAnalysis& out);
  void (*read)(const OptionReader& options, ParsedAnalysis& out);
};
extern const AnalysisParser kMetricsParser, kCascadeParser, kBudgetParser, kProfileParser, kItemsParser, kRepeatsParser,
    kSystemsParser;

/// The start of parsing an analysis's flags: argv parsed with make_cli()'s flags into `parsed`
/// (parse_flags), FILE (required when `file_required`) into out.common.file, out.command and
/// out.unmatched set; false when --help was given. The analysis's `read` follows.
bool parse_argv(const char* command, cxxopts::Options (*make_cli)(), int argc, char** argv, bool file_required,
                cxxopts::ParseResult& parsed, ParsedAnalysis& out);

/// The analysis with replicate statistics: its report's outputs, then `statistics` (moved out of
/// the report once its writers have read it) as the result's bootstrap.
template <typename Report>
AnalysisResult analysis_result(const Report& report, const RunContext& context, BootstrapResult&& statistics) {
  AnalysisResult result = analysis_result(report, context);
  result.bootstrap = std::make_shared<const BootstrapResult>(std::move(statistics));
  return result;
}

// Per analysis, the run of its typed options: the hooks' progress joins them, run_X runs, and its
// report's writers give the result.
AnalysisResult run_metrics_request(MetricsOptions options, const TypedAnalysisRequest& request,
                                   const ItemMatrix& matrix, const ExecTarget& target, const RunContext& context);
AnalysisResult run_cascade_request(CascadeOptions options, ItemMatrix&& matrix, const ExecTarget& target,
                                   const RunContext& context);  // frees the matrix before resampling
AnalysisResult run_cascade_request(CascadeOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);
AnalysisResult run_budget_request(BudgetOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                  const RunContext& context);
AnalysisResult run_budget_compare_request(BudgetCompareOptions options, const ItemMatrix& matrix,
                                          const ExecTarget& target, const RunContext& context);
AnalysisResult run_profile_request(ProfileOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);
AnalysisResult run_items_request(const ItemsOptions& options, const ItemMatrix& matrix, const RunContext& context);
AnalysisResult run_repeats_request(RepeatsOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);
AnalysisResult run_systems_request(SystemsOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);

/// The parser of `command`; std::invalid_argument("command: …") for an unknown one.
const AnalysisParser& analysis_parser(const std::string& command);

/// The flags each analysis's own fields are given by (the shared ones are in common_flags()),
/// for rethrow_with_flag_names.
const FlagNames& metrics_flag_names();
const FlagNames& cascade_flag_names();
const FlagNames& budget_flag_names();
const FlagNames& budget_compare_flag_names();
const FlagNames& profile_flag_names();
const FlagNames& items_flag_names();
const FlagNames& repeats_flag_names();
const FlagNames& systems_flag_names();
/// The flag names of the analysis `options` are for.
const FlagNames& flag_names_of(const AnalysisOptions& options);

/// The records files of a parsed command: FILE (profile: its files) and the further positional
/// words, globs expanded, each checked to exist (record_files; UsageError otherwise).
std::vector<std::string> analysis_record_files(const ParsedAnalysis& parsed);

/// What the parsed command reads (records FILE(s), --config, --temperature-fit, --select-items)
/// and writes (--json, --save-replicates, --out, --plots with the command's figure prefixes),
/// for the CLI's check_paths_apart before anything is loaded.
RunPaths analysis_run_paths(const ParsedAnalysis& parsed);

/// How a flag takes its value: none (a switch), one, or one per use (--fee A=1 --fee B=2).
struct FlagKind {
  bool boolean = false, repeatable = false;
};
/// Every long flag of `command` (as analysis_flags) and its kind.
std::map<std::string, FlagKind> analysis_flag_kinds(const std::string& command);

/// `request` parsed as its command's CLI would (no records file); UsageError for unknown flags
/// and positional arguments.
ParsedAnalysis parse_analysis_request(const AnalysisRequest& request);
/// `request`'s typed values read by its command's `read` (TypedOptions: the CLI's defaults for
/// what is not given); UsageError naming the flag for unknown keys, output flags, values of the
/// wrong type and bad values.
ParsedAnalysis read_analysis_values(const AnalysisValues& request);

}  // namespace judgestat
