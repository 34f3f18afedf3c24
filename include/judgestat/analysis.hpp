// Any analysis asked for in one of three forms, run the same way:
// - typed: a TypedAnalysisRequest holding the options struct the analysis's run_X takes
//   (MetricsOptions, CascadeOptions, …). This is what every run reaches.
// - with the CLI's own flags: `judgestat metrics FILE --by benchmark` is
//   AnalysisRequest{"metrics", {"--by", "benchmark"}} over FILE's matrix.
// - with the CLI's options as typed values (what a study file and Python's keyword arguments
//   give): AnalysisValues{"metrics", {{"by", "benchmark"}, {"replicates", 2000}}}.
// parse_analysis and parse_analysis_values turn them into the typed form: each analysis reads its
// options once, by flag name, from the flags or from the values (host/requests/), with the CLI's
// defaults and checks, so the CLI, a study file (judgestat/study.hpp) and the Python binding can
// never disagree on an option.
//
//   MetricsOptions metrics;  metrics.by = "benchmark";  metrics.bootstrap.seed = 7;
//   const AnalysisResult typed = run_analysis(TypedAnalysisRequest{metrics}, matrix, make_target(), head);
//
//   const AnalysisRequest request{"cascade", {"--first", "a", "--fallback", "b", "--by", "benchmark"}};
//   check_analysis(request);                                   // bad flags fail here, before loading
//   const ItemMatrix matrix = load_item_matrix(path, analysis_load_options(request));
//   const AnalysisResult result = run_analysis(request, matrix, make_target(), head);
//
// How the pieces relate:
// - The records are the matrix: `args` hold no records file (a positional argument is an error).
//   Load it with analysis_load_options(request) (the typed form's `load`): --labels and, for
//   cascade, --select-column enter the LoadOptions; run_analysis throws
//   std::invalid_argument("matrix: …") when the matrix was loaded without the select column the
//   options name.
// - Where it runs is the `target` argument, so that a client holds one target (one CUDA context,
//   one thread pool) for many analyses. The execution flags (--backend, --devices, --threads,
//   --chunk) are still parsed and checked when in args, and analysis_target(request) gives the
//   target they describe (the CLI runs on that one), but run_analysis runs on `target`.
// - Run-wide flags that change results (--seed, --replicates, --ci, --level; budget's --draws)
//   are ordinary args; in the typed form they are the options' own fields (bootstrap, seed, draws).
// - Output flags (--format, --json, --save-replicates, --plots, --out, --quiet) are accepted
//   and checked; run_analysis writes no file and prints nothing. --save-replicates makes
//   `bootstrap` keep every replicate value (BootstrapResult::replicates).
// - Errors: the typed form throws what run_X throws (std::invalid_argument naming the options'
//   fields, "tol: …"); the flags' form says the flag instead ("--tol: …", a UsageError).
// - The implementation is in judgestat::core (host/requests/), installed with these headers.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/items.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/profile.hpp"
#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "judgestat/report.hpp"
#include "judgestat/systems.hpp"

namespace judgestat {

struct AnalysisRequest {
  /// "metrics", "cascade", "budget" (with --compare too), "profile", "items", "repeats" or "systems".
  std::string command;
  /// The CLI's flags after the records file, e.g. {"--first", "a", "--by", "benchmark"};
  /// "--flag=value" works as on the command line.
  std::vector<std::string> args;
};

/// An analysis asked for with its CLI options as typed values, keyed by the long flag names
/// without "--" ("-" and "_" alike): a switch is true/false; a number option a JSON number (a whole
/// number for --replicates, --seed, --order …); a text option a string; a list option an array
/// (or the CLI's comma-separated string); --fee and --latency an object {"judge": number}; --tau
/// and cascade's --gate-orders a number or a string. What is not given is the CLI's default. A
/// key the command lacks, an output flag (format, json, save-replicates, plots, out, quiet) or a
/// value of another type is a UsageError naming the flag ("--replicates: expected a whole
/// number …, got string \"10\"").
struct AnalysisValues {
  std::string command;
  Json values = Json::object();
};

/// The options of one analysis, as its run_X takes them: run_metrics, run_cascade, run_budget,
/// run_budget_compare (budget --compare), run_profile, run_items, run_repeats, run_systems.
using AnalysisOptions = std::variant<MetricsOptions, CascadeOptions, BudgetOptions, BudgetCompareOptions,
                                     ProfileOptions, ItemsOptions, RepeatsOptions, SystemsOptions>;

/// An analysis asked for with typed options, and what its run needs besides them.
struct TypedAnalysisRequest {
  AnalysisOptions options;
  /// What the matrix must be loaded with: labels, the score scale (--scale: metrics, repeats,
  /// systems), and cascade's select_column as item_column (load_item_matrix(path, request.load)).
  LoadOptions load = {};
  /// metrics only: a records file on which each analysed judge with probabilities gets its
  /// temperature fitted, applied to `options` at run time (--temperature-fit); "" for none.
  std::string temperature_fit = {};
  /// --invalid exclude: the analysis runs on the records without their invalid outputs (CAP's
  /// rule, docs/statistics.md §1 "Validity"), and its outputs say how many each judge lost.
  bool exclude_invalid = false;
};

/// "metrics", "cascade", "budget" (both budget forms), "profile", "items", "repeats" or "systems".
std::string analysis_command(const AnalysisOptions& options);

struct AnalysisHooks {
  /// (done, total) after each chunk of replicates or draws, as the CLI's progress line.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct AnalysisResult {
  /// Exactly the command's --json document: head.envelope first, then the report. items (which
  /// has no --json) gives head.envelope, then "columns", "rows" (one object per row, as its
  /// JSONL) and "disagreeing".
  Json json;
  /// tables(report, "text"), tables(report, "csv") and tables(report, "md"); items: its CSV in
  /// text and csv, md empty.
  std::string text, csv, md;
  /// plot_files(report); empty for items and where a report has no figures.
  std::vector<PlotFile> plots;
  /// What the report's writers read that `json` lacks (render_state in host/report/
  /// report_from_json.hpp), so that a study's cache renders the tables and figures again from
  /// json and this alone; null where json holds all of it. Not part of any --json output.
  Json render;
  /// The replicate statistics where the analysis has them (metrics, profile, cascade's sweep,
  /// repeats, systems: each column's label naming its system and opponent); null for budget and
  /// items.
  std::shared_ptr<const BootstrapResult> bootstrap;
};

/// The analyses run_analysis knows, in the CLI's order.
const std::vector<std::string>& analysis_commands();
/// The long flag names (without "--") `command` takes, "help" and the records file excepted;
/// std::invalid_argument("command: …") for an unknown command.
std::vector<std::string> analysis_flags(const std::string& command);
/// Whether a flag only says where results go or how they print (format, json, save-replicates,
/// plots, out, quiet): a study file does not take them.
bool is_output_flag(const std::string& flag);
/// Whether a flag says where the analysis runs (backend, devices, threads, chunk).
bool is_execution_flag(const std::string& flag);

/// The typed request `request` asks for: the flags parsed and validated as the CLI would,
/// without loading records or running (errors as check_analysis).
TypedAnalysisRequest parse_analysis(const AnalysisRequest& request);
/// The same for typed values: each read as its flag is, with the same defaults, checks and
/// messages. (Own names: a braced {"metrics", {…}} would fit either request.)
TypedAnalysisRequest parse_analysis_values(const AnalysisValues& request);
/// parse_analysis_values(request)'s checks alone.
void check_analysis_values(const AnalysisValues& request);
/// The execution target the values' backend, devices, threads and chunk describe.
ExecTarget analysis_values_target(const AnalysisValues& request);
/// Parses and validates the flags as the CLI would, without loading records or running:
/// UsageError / std::invalid_argument naming the flag; unknown flags and positional arguments
/// are errors. (profile reads its --config file here: the config is an option.)
void check_analysis(const AnalysisRequest& request);
/// The LoadOptions the request's matrix must be loaded with (--labels, --select-column).
LoadOptions analysis_load_options(const AnalysisRequest& request);
/// The execution target the request's --backend, --devices, --threads and --chunk describe.
ExecTarget analysis_target(const AnalysisRequest& request);

/// Runs the analysis on `matrix` and `target` and gives its outputs (see the head of this file).
/// Throws what the command would: UsageError and std::invalid_argument (library field names,
/// which the CLI maps to flags: here already mapped, "--flag: …" in a UsageError).
AnalysisResult run_analysis(const AnalysisRequest& request, const ItemMatrix& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks = {});
/// The same for typed options: runs run_X(matrix, request.options, target) (the hooks' progress
/// joins the options) and gives its outputs; throws what run_X throws.
AnalysisResult run_analysis(const TypedAnalysisRequest& request, const ItemMatrix& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks = {});
/// The same on a matrix given up (the CLI's): an analysis that can frees it once read, before
/// resampling (cascade; issue 26 part 7's peak memory); it is left empty or as it was.
AnalysisResult run_analysis(const TypedAnalysisRequest& request, ItemMatrix&& matrix, const ExecTarget& target,
                            const ReportHead& head, const AnalysisHooks& hooks = {});

}  // namespace judgestat
