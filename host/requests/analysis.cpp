// judgestat/analysis.hpp: an analysis asked for with typed options, or with the CLI's flags parsed
// into them by the analyses' own parsers (host/requests/*_request.cpp) without a records file.
#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "judgestat/analysis.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/invalid_option.hpp"

namespace judgestat {

const AnalysisParser& analysis_parser(const std::string& command) {
  static const AnalysisParser* const parsers[] = {&kMetricsParser, &kCascadeParser, &kBudgetParser, &kProfileParser,
                                                  &kItemsParser,   &kRepeatsParser, &kSystemsParser};
  for (const AnalysisParser* parser : parsers)
    if (command == parser->command) return *parser;
  throw std::invalid_argument("command: expected metrics, cascade, budget, profile, items, repeats or systems, got '" +
                              command + "'");
}

const std::vector<std::string>& analysis_commands() {
  static const std::vector<std::string> commands{"metrics", "cascade", "budget", "profile",
                                                 "items",   "repeats", "systems"};
  return commands;
}

namespace {

// The flags in definition order with their kinds.
std::vector<std::pair<std::string, FlagKind>> flags_in_order(const std::string& command) {
  const cxxopts::Options options = analysis_parser(command).make_cli();
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

bool parse_argv(const char* command, cxxopts::Options (*make_cli)(), int argc, char** argv, bool file_required,
                cxxopts::ParseResult& parsed, ParsedAnalysis& out) {
  cxxopts::Options options = make_cli();
  out.command = command;
  if (!parse_flags(options, argc, argv, parsed)) return false;
  if (file_required && !parsed.count("file"))
    throw UsageError("missing FILE: give a judgment records file (see --help)");
  if (parsed.count("file")) out.common.file = parsed["file"].as<std::string>();
  out.unmatched = parsed.unmatched();
  return true;
}

namespace {

// The map is how the records are read (a study input's "map", LoadOptions::map), not an
// analysis option: an analysis that is given the matrix cannot use it.
void check_no_map(const ParsedAnalysis& parsed) {
  if (!parsed.common.load.map.empty())
    throw UsageError(parsed.command +
                     ": --map reads the records; give it where they are loaded (a study input's "
                     "\"map\", LoadOptions::map), not to an analysis of a loaded matrix");
}

}  // namespace

namespace {

// FILE (profile: its files) and the further positional words, as given.
std::vector<std::string> record_words(const ParsedAnalysis& parsed) {
  std::vector<std::string> words = parsed.files.empty() ? std::vector<std::string>{parsed.common.file} : parsed.files;
  words.insert(words.end(), parsed.unmatched.begin(), parsed.unmatched.end());
  words.erase(std::remove(words.begin(), words.end(), std::string()), words.end());
  return words;
}

}  // namespace

std::vector<std::string> analysis_record_files(const ParsedAnalysis& parsed) {
  const std::vector<std::string> words = record_words(parsed);
  if (words.empty()) throw UsageError("missing FILE: give one or more judgment records files (see --help)");
  return record_files(words);
}

ParsedAnalysis parse_analysis_request(const AnalysisRequest& request) {
  const AnalysisParser& parser = analysis_parser(request.command);
  for (const std::string& arg : request.args)
    if (arg == "-h" || arg == "--help") throw UsageError(request.command + ": --help is not an analysis option");
  std::string program = "judgestat " + request.command;
  std::vector<std::string> words = request.args;
  std::vector<char*> argv{program.data()};
  for (std::string& word : words) argv.push_back(word.data());
  ParsedAnalysis parsed;
  parser.parse(static_cast<int>(argv.size()), argv.data(), false, parsed);
  // The records are the matrix: a records file, or any word no flag took, is an error.
  std::vector<std::string> stray = parsed.unmatched;
  if (!parsed.common.file.empty()) stray.insert(stray.begin(), parsed.common.file);
  for (size_t f = 1; f < parsed.files.size(); ++f) stray.push_back(parsed.files[f]);
  if (!stray.empty())
    throw UsageError(request.command + ": unexpected argument '" + stray.front() +
                     "' (the records are the input's matrix; every option is a --flag)");
  check_no_map(parsed);
  return parsed;
}

ParsedAnalysis read_analysis_values(const AnalysisValues& request) {
  const AnalysisParser& parser = analysis_parser(request.command);
  const TypedOptions options(request.command, request.values);
  ParsedAnalysis parsed;
  parsed.command = request.command;
  parser.read(options, parsed);
  check_no_map(parsed);
  return parsed;
}

RunPaths analysis_run_paths(const ParsedAnalysis& parsed) {
  RunPaths paths;
  for (const std::string& file : record_files(record_words(parsed))) paths.inputs.push_back({"FILE", file});
  paths.inputs.push_back({"--config", parsed.config_path});
  paths.inputs.push_back({"--temperature-fit", parsed.temperature_fit});
  const auto* cascade = std::get_if<CascadeOptions>(&parsed.options);
  paths.inputs.push_back({"--select-items", cascade ? cascade->select_items : std::string()});
  paths.outputs = {{"--json", parsed.common.json_path},
                   {"--save-replicates", parsed.common.replicates_path},
                   {"--out", parsed.out_path}};
  paths.plots.path = parsed.plots_dir;
  // The stems plot_files() gives each report's figures (host/report/*_report.cpp).
  if (parsed.command == "metrics")
    paths.plot_prefixes = {"metrics_forest", "metrics_length_bias", "metrics_score_calibration", "metrics_paper_"};
  if (parsed.command == "cascade") paths.plot_prefixes = {"cascade_"};
  if (parsed.command == "budget") paths.plot_prefixes = {"budget_"};
  if (parsed.command == "profile") paths.plot_prefixes = {"radar_", "forest_"};
  if (parsed.command == "repeats") paths.plot_prefixes = {"repeats_paper_"};
  return paths;
}

void check_analysis(const AnalysisRequest& request) { parse_analysis_request(request); }

TypedAnalysisRequest typed_request(const ParsedAnalysis& parsed) {
  return {parsed.options, parsed.common.load, parsed.temperature_fit, parsed.common.exclude_invalid};
}

TypedAnalysisRequest parse_analysis(const AnalysisRequest& request) {
  return typed_request(parse_analysis_request(request));
}

TypedAnalysisRequest parse_analysis_values(const AnalysisValues& request) {
  return typed_request(read_analysis_values(request));
}

void check_analysis_values(const AnalysisValues& request) { read_analysis_values(request); }

ExecTarget analysis_values_target(const AnalysisValues& request) { return read_analysis_values(request).common.target; }

LoadOptions analysis_load_options(const AnalysisRequest& request) {
  return parse_analysis_request(request).common.load;
}

ExecTarget analysis_target(const AnalysisRequest& request) { return parse_analysis_request(request).common.target; }

namespace {

// One call per alternative of AnalysisOptions: std::visit(overloaded{…}, options).
template <class... Calls>
struct overloaded : Calls... {
  using Calls::operator()...;
};
template <class... Calls>
overloaded(Calls...) -> overloaded<Calls...>;

}  // namespace

std::string analysis_command(const AnalysisOptions& options) {
  static const char* const commands[] = {"metrics", "cascade", "budget",  "budget",
                                         "profile", "items",   "repeats", "systems"};
  static_assert(std::variant_size_v<AnalysisOptions> == std::size(commands));
  return commands[options.index()];
}

const FlagNames& flag_names_of(const AnalysisOptions& options) {
  return std::visit(
      overloaded{[](const MetricsOptions&) -> const FlagNames& { return metrics_flag_names(); },
                 [](const CascadeOptions&) -> const FlagNames& { return cascade_flag_names(); },
                 [](const BudgetOptions&) -> const FlagNames& { return budget_flag_names(); },
                 [](const BudgetCompareOptions&) -> const FlagNames& { return budget_compare_flag_names(); },
                 [](const ProfileOptions&) -> const FlagNames& { return profile_flag_names(); },
                 [](const ItemsOptions&) -> const FlagNames& { return items_flag_names(); },
                 [](const RepeatsOptions&) -> const FlagNames& { return repeats_flag_names(); },
                 [](const SystemsOptions&) -> const FlagNames& { return systems_flag_names(); }},
      options);
}

namespace {

// The cascade's labelled items by column need the loader to have kept that column.
void check_matrix_columns(const TypedAnalysisRequest& request, const ItemMatrix& matrix) {
  const auto* cascade = std::get_if<CascadeOptions>(&request.options);
  if (cascade && !cascade->select_column.empty() && matrix.item_column != cascade->select_column)
    throw std::invalid_argument("matrix: --select-column " + cascade->select_column +
                                " needs the matrix loaded with analysis_load_options(request) (its item column; "
                                "typed: LoadOptions::item_column)");
}

}  // namespace

namespace {

// The analysis on `matrix` as given (no --invalid rule applied).
AnalysisResult run_analysis_as_is(const TypedAnalysisRequest& request, const ItemMatrix& matrix,
                                  const ExecTarget& target, const ReportHead& head, const AnalysisHooks& hooks) {
  check_matrix_columns(request, matrix);
  const RunContext context{head, hooks};
  return std::visit(
      overloaded{[&](const MetricsOptions& o) { return run_metrics_request(o, request, matrix, target, context); },
                 [&](const CascadeOptions& o) { return run_cascade_request(o, matrix, target, context); },
                 [&](const BudgetOptions& o) { return run_budget_request(o, matrix, target, context); },
                 [&](const BudgetCompareOptions& o) { return run_budget_compare_request(o, matrix, target, context); },
                 [&](const ProfileOptions& o) { return run_profile_request(o, matrix, target, context); },
                 [&](const ItemsOptions& o) { return run_items_request(o, matrix, context); },
                 [&](const RepeatsOptions& o) { return run_repeats_request(o, matrix, target, context); },
                 [&](const SystemsOptions& o) { return run_systems_request(o, matrix, target, context); }},
      request.options);
}

}  // namespace

AnalysisResult run_analysis_with_invalid_rule(const TypedAnalysisRequest& request, bool exclude_invalid,
                                              const ItemMatrix& matrix, const ExecTarget& target,
                                              const ReportHead& head, const AnalysisHooks& hooks) {
  if (!exclude_invalid) return run_analysis_as_is(request, matrix, target, head, hooks);
  if (std::holds_alternative<ProfileOptions>(request.options)) {
    // A profile has the rule in its config (`"invalid": "exclude"`, its notes give the counts):
    // the flag sets that key, so the profile's JSON says it once, in its own words.
    TypedAnalysisRequest with_rule = request;
    std::get<ProfileOptions>(with_rule.options).config.invalid = "exclude";
    return run_analysis_as_is(with_rule, matrix, target, head, hooks);
  }
  InvalidExclusion exclusion;
  const ItemMatrix kept = matrix_without_invalid(matrix, exclusion);
  AnalysisResult result = run_analysis_as_is(request, kept, target, head, hooks);
  note_invalid_exclusion(result, exclusion);
  return result;
}

AnalysisResult run_analysis(const TypedAnalysisRequest& request, const ItemMatrix& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks) {
  return run_analysis_with_invalid_rule(request, request.exclude_invalid, matrix, target, head, hooks);
}

AnalysisResult run_analysis(const TypedAnalysisRequest& request, ItemMatrix&& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks) {
  const auto* cascade = std::get_if<CascadeOptions>(&request.options);
  if (!cascade || request.exclude_invalid)
    return run_analysis(request, static_cast<const ItemMatrix&>(matrix), target, head, hooks);
  check_matrix_columns(request, matrix);
  return run_cascade_request(*cascade, std::move(matrix), target, RunContext{head, hooks});
}

AnalysisResult run_analysis(const AnalysisRequest& request, const ItemMatrix& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks) {
  const ParsedAnalysis parsed = parse_analysis_request(request);
  const TypedAnalysisRequest typed = typed_request(parsed);
  check_matrix_columns(typed, matrix);  // a caller's mistake, not a flag's: std::invalid_argument
  return with_flag_names(flag_names_of(typed.options), [&] {
    return run_analysis_with_invalid_rule(typed, typed.exclude_invalid, matrix, target, head, hooks);
  });
}

}  // namespace judgestat
