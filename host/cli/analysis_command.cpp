// `judgestat metrics|cascade|budget|profile|repeats|systems FILE…`: the flags and the analyses are the request
// layer's (host/requests/*_request.cpp); what is the command line's is here: the help, the
// output guard, loading the records named on it, progress on stderr and the outputs.
#include "cli/analysis_command.hpp"

#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "cli/cli_common.hpp"
#include "cli/cli_help.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/profile.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

// The table --format asks for; json prints the JSON instead (emit), so any table does there.
const std::string& table_in_format(const AnalysisResult& result, const std::string& format) {
  if (format == "md") return result.md;
  if (format == "csv") return result.csv;
  return result.text;
}

bool counts_draws(const AnalysisOptions& options) {
  return std::holds_alternative<BudgetOptions>(options) || std::holds_alternative<BudgetCompareOptions>(options);
}

}  // namespace

bool parse_analysis_or_help(const std::string& command, int argc, char** argv, ParsedAnalysis& parsed) {
  const AnalysisParser& parser = analysis_parser(command);
  const cxxopts::Options cli = parser.make_cli();
  if (suggesting_flags(cli, [&] { return parser.parse(argc, argv, true, parsed); })) return true;
  std::cout << command_help(cli) << std::flush;
  return false;
}

int run_analysis_command(const std::string& command, int argc, char** argv, const CommandRecords& records) {
  const double parse_start = now_seconds();
  ParsedAnalysis parsed;
  if (!parse_analysis_or_help(command, argc, argv, parsed)) return 0;
  const CommonOptions& common = parsed.common;
  const RunPaths paths = analysis_run_paths(parsed);
  check_paths_apart(paths);  // before anything is loaded
  const double load_start = records.parsing_is_loading ? parse_start : now_seconds();
  ItemMatrix matrix =
      records.load ? records.load(parsed) : load_item_matrix(analysis_record_files(parsed), common.load);
  ReportHead head;
  head.load_s = seconds_since(load_start);
  head.envelope = json_envelope(command, argc, argv, matrix);
  if (records.finish_envelope) records.finish_envelope(head.envelope);
  Progress progress(counts_draws(parsed.options) ? "draws" : "replicates", common.quiet);
  const AnalysisHooks hooks{[&](uint64_t done, uint64_t total) { progress(done, total); }};
  const AnalysisResult result = with_flag_names(flag_names_of(parsed.options), [&] {
    return run_analysis(typed_request(parsed), std::move(matrix), common.target, head, hooks);  // cascade frees it
  });
  check_plot_files_apart(paths, result.plots);  // the figures known, before any is written
  progress.finish();
  if (result.bootstrap) save_replicates(common, *result.bootstrap);
  write_plot_files(result.plots, parsed.plots_dir);
  emit(common, result.json, table_in_format(result, common.format));
  return 0;
}

int command_metrics(int argc, char** argv) { return run_analysis_command("metrics", argc, argv); }

int command_cascade(int argc, char** argv) { return run_analysis_command("cascade", argc, argv); }

int command_budget(int argc, char** argv) { return run_analysis_command("budget", argc, argv); }

// profile reads FILE and the further files (one per benchmark, or one with a benchmark column),
// and names them all in the envelope.
int command_profile(int argc, char** argv) {
  std::vector<InputFile> files;
  CommandRecords records;
  records.load = [&](const ParsedAnalysis& parsed) {
    ProfileInput input = load_profile_inputs(analysis_record_files(parsed), parsed.common.load);
    files = input.files;
    return std::move(input.matrix);
  };
  records.finish_envelope = [&](Json& envelope) { set_profile_inputs(envelope, files); };
  records.parsing_is_loading = true;
  return run_analysis_command("profile", argc, argv, records);
}

}  // namespace judgestat
