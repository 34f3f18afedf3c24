// The analysis commands' flags parsed once, for the CLI and for run_analysis
// (judgestat/analysis.hpp): each command's *_command.cpp defines its flags (make_X_cli), parses them
// into a ParsedAnalysis (parse_X_args) and runs it (run_X_analysis); `judgestat X` is parse →
// load → run → emit, and run_analysis is parse → run.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "cli/cli_common.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/analysis.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/items.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/profile.hpp"
#include "report/report_from_json.hpp"

namespace judgestat {

/// Every analysis command's options; only the command's own part is filled.
struct ParsedAnalysis {
  std::string command;
  CommonOptions common;  // file, load, output flags, target; replicates … for the bootstrap commands
  std::string plots_dir;
  std::vector<std::string> files;      // profile: FILE and the further files
  std::vector<std::string> unmatched;  // positional arguments nothing took
  MetricsOptions metrics;
  std::string temperature_fit;  // metrics --temperature-fit FILE
  CascadeOptions cascade;
  bool compare = false;  // budget --compare
  BudgetOptions budget;
  BudgetCompareOptions budget_compare;
  ProfileOptions profile;
  std::string config_path;  // profile --config
  ItemsOptions items;
  std::string out_path;  // items --out
};

/// Where the CLI and run_analysis differ: the CLI has a records FILE and a --format to print in.
struct RunContext {
  const ReportHead& head;
  const AnalysisHooks& hooks;
  std::string format = "text";  // tables(report, format) into *formatted when given
  std::string* formatted = nullptr;
};

/// A report's writers' outputs: its JSON, its tables (text, csv, md, and the CLI's --format),
/// its figures and its render state. The caller adds the replicate statistics where the analysis has them.
template <typename Report>
AnalysisResult analysis_result(const Report& report, const RunContext& context) {
  AnalysisResult result;
  result.json = to_json(report, context.head);
  result.text = tables(report, "text");
  result.csv = tables(report, "csv");
  result.md = tables(report, "md");
  if (context.formatted) *context.formatted = tables(report, context.format);
  result.plots = plot_files(report);
  result.render = render_state(report);  // what a study's cache renders the tables from again
  return result;
}

// Per command: the flags (argv[0] names the program), the parse (false when --help was
// printed; with `file_required` false the records FILE may be missing) and the run.
cxxopts::Options make_metrics_cli();
bool parse_metrics_args(int argc, char** argv, bool file_required, ParsedAnalysis& out);
AnalysisResult run_metrics_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                    const RunContext& context);

cxxopts::Options make_cascade_cli();
bool parse_cascade_args(int argc, char** argv, bool file_required, ParsedAnalysis& out);
AnalysisResult run_cascade_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                    const RunContext& context);

cxxopts::Options make_budget_cli();
bool parse_budget_args(int argc, char** argv, bool file_required, ParsedAnalysis& out);
AnalysisResult run_budget_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);

cxxopts::Options make_profile_cli();
bool parse_profile_args(int argc, char** argv, bool file_required, ParsedAnalysis& out);
AnalysisResult run_profile_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                    const RunContext& context);

cxxopts::Options make_items_cli();
bool parse_items_args(int argc, char** argv, bool file_required, ParsedAnalysis& out);
AnalysisResult run_items_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const RunContext& context);

/// What the parsed command reads (records FILE(s), --config, --temperature-fit, --select-items)
/// and writes (--json, --save-replicates, --out, --plots with the command's figure prefixes),
/// for check_paths_apart before anything is loaded.
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
/// Runs a parsed analysis (dispatching on parsed.command).
AnalysisResult run_parsed_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context);

}  // namespace judgestat
