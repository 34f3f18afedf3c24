// judgestat/analysis.hpp: an analysis asked for with the CLI's flags, parsed by the commands' own
// parsers (host/cli/*_command.cpp) without a records file.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/analysis_parse.hpp"
#include "cli/cli_common.hpp"
#include "judgestat/analysis.hpp"

namespace judgestat {
namespace {

struct CommandParsers {
  const char* name;
  cxxopts::Options (*make_cli)();
  bool (*parse)(int, char**, bool, ParsedAnalysis&);
};

const CommandParsers kParsers[] = {
    {"metrics", make_metrics_cli, parse_metrics_args}, {"cascade", make_cascade_cli, parse_cascade_args},
    {"budget", make_budget_cli, parse_budget_args},    {"profile", make_profile_cli, parse_profile_args},
    {"items", make_items_cli, parse_items_args},
};

const CommandParsers& parsers_of(const std::string& command) {
  for (const CommandParsers& parsers : kParsers)
    if (command == parsers.name) return parsers;
  throw std::invalid_argument("command: expected metrics, cascade, budget, profile or items, got '" + command + "'");
}

}  // namespace

const std::vector<std::string>& analysis_commands() {
  static const std::vector<std::string> commands{"metrics", "cascade", "budget", "profile", "items"};
  return commands;
}

namespace {

// The flags in definition order with their kinds.
std::vector<std::pair<std::string, FlagKind>> flags_in_order(const std::string& command) {
  const cxxopts::Options options = parsers_of(command).make_cli();
  std::vector<std::pair<std::string, FlagKind>> flags;
  for (const std::string& group : options.groups())
    for (const cxxopts::HelpOptionDetails& option : options.group_help(group).options) {
      const FlagKind kind{option.is_boolean, option.is_container};
      for (const std::string& name : option.l)
        if (name != "help" && name != "file" && name != "files" && name.size() > 1) flags.emplace_back(name, kind);
      // budget's -k and -z are also --k and --z.
      if (option.l.empty() && (option.s == "k" || option.s == "z")) flags.emplace_back(option.s, kind);
    }
  return flags;
}

}  // namespace

std::vector<std::string> analysis_flags(const std::string& command) {
  std::vector<std::string> names;
  for (const auto& [name, kind] : flags_in_order(command)) names.push_back(name);
  return names;
}

std::map<std::string, FlagKind> analysis_flag_kinds(const std::string& command) {
  std::map<std::string, FlagKind> kinds;
  for (const auto& [name, kind] : flags_in_order(command)) kinds[name] = kind;
  return kinds;
}

bool is_output_flag(const std::string& flag) {
  for (const char* name : {"format", "json", "save-replicates", "plots", "out", "quiet"})
    if (flag == name) return true;
  return false;
}

bool is_execution_flag(const std::string& flag) {
  for (const char* name : {"backend", "devices", "threads", "chunk"})
    if (flag == name) return true;
  return false;
}

ParsedAnalysis parse_analysis_request(const AnalysisRequest& request) {
  const CommandParsers& parsers = parsers_of(request.command);
  for (const std::string& arg : request.args)
    if (arg == "-h" || arg == "--help") throw UsageError(request.command + ": --help is not an analysis option");
  std::string program = "judgestat " + request.command;
  std::vector<std::string> words = request.args;
  std::vector<char*> argv{program.data()};
  for (std::string& word : words) argv.push_back(word.data());
  ParsedAnalysis parsed;
  parsers.parse(static_cast<int>(argv.size()), argv.data(), false, parsed);
  // The records are the matrix: a records file, or any word no flag took, is an error.
  std::vector<std::string> stray = parsed.unmatched;
  if (!parsed.common.file.empty()) stray.insert(stray.begin(), parsed.common.file);
  for (size_t f = 1; f < parsed.files.size(); ++f) stray.push_back(parsed.files[f]);
  if (!stray.empty())
    throw UsageError(request.command + ": unexpected argument '" + stray.front() +
                     "' (the records are the input's matrix; every option is a --flag)");
  return parsed;
}

RunPaths analysis_run_paths(const ParsedAnalysis& parsed) {
  RunPaths paths;
  if (parsed.files.empty()) paths.inputs.push_back({"FILE", parsed.common.file});
  for (const std::string& file : parsed.files) paths.inputs.push_back({"FILE", file});
  paths.inputs.push_back({"--config", parsed.config_path});
  paths.inputs.push_back({"--temperature-fit", parsed.temperature_fit});
  paths.inputs.push_back({"--select-items", parsed.cascade.select_items});
  paths.outputs = {{"--json", parsed.common.json_path},
                   {"--save-replicates", parsed.common.replicates_path},
                   {"--out", parsed.out_path}};
  paths.plots.path = parsed.plots_dir;
  // The stems plot_files() gives each report's figures (host/report/*_report.cpp).
  if (parsed.command == "metrics") paths.plot_prefixes = {"metrics_forest"};
  if (parsed.command == "cascade") paths.plot_prefixes = {"cascade_"};
  if (parsed.command == "budget") paths.plot_prefixes = {"budget_"};
  if (parsed.command == "profile") paths.plot_prefixes = {"radar_", "forest_"};
  return paths;
}

void check_analysis(const AnalysisRequest& request) { parse_analysis_request(request); }

LoadOptions analysis_load_options(const AnalysisRequest& request) {
  return parse_analysis_request(request).common.load;
}

ExecTarget analysis_target(const AnalysisRequest& request) { return parse_analysis_request(request).common.target; }

AnalysisResult run_parsed_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  if (parsed.command == "metrics") return run_metrics_analysis(parsed, matrix, target, context);
  if (parsed.command == "cascade") return run_cascade_analysis(parsed, matrix, target, context);
  if (parsed.command == "budget") return run_budget_analysis(parsed, matrix, target, context);
  if (parsed.command == "profile") return run_profile_analysis(parsed, matrix, target, context);
  if (parsed.command == "items") return run_items_analysis(parsed, matrix, context);
  throw std::invalid_argument("command: unknown analysis '" + parsed.command + "'");
}

AnalysisResult run_analysis(const AnalysisRequest& request, const ItemMatrix& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks) {
  const ParsedAnalysis parsed = parse_analysis_request(request);
  const std::string& column = parsed.common.load.item_column;
  if (!column.empty() && matrix.item_column != column)
    throw std::invalid_argument("matrix: --select-column " + column +
                                " needs the matrix loaded with analysis_load_options(request) (its item column)");
  try {
    return run_parsed_analysis(parsed, matrix, target, {head, hooks});
  } catch (const std::invalid_argument& error) {
    rethrow_with_flag_names(error, {});
  }
}

}  // namespace judgestat
