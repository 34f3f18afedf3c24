// The label budget asked for by flags (`judgestat budget FILE`, judgestat/analysis.hpp): the
// simulation of threshold rules (docs/statistics.md §3.5), the flags parsed into BudgetOptions
// for run_budget (include/judgestat/label_budget.hpp); with `--compare A,B` (§7.6), how many
// labels tell two judges apart, BudgetCompareOptions for run_budget_compare.
#include <iostream>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/label_budget.hpp"
#include "records/selection.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/invalid_option.hpp"
#include "requests/option_reader.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

void add_budget_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("file", "judgment records (.csv, .jsonl, .json; - = CSV on stdin)", cxxopts::value<std::string>())
      ("first", "first-stage judge (needs probabilities)", cxxopts::value<std::string>())
      ("fallback", "fallback judge (order 0 on every item the first stage covers)", cxxopts::value<std::string>())
      ("compare", "A,B: instead of a cascade, the power of k labels to tell judge B from A (docs/statistics.md §7.6)",
       cxxopts::value<std::string>())
      ("statistic", "with --compare: acc (order 0) or pa (mean over orders)", cxxopts::value<std::string>()->default_value("acc"))
      ("level", "with --compare: level of the z-interval", cxxopts::value<double>()->default_value("0.95"))
      ("benchmark", "with --compare: only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "with --compare: only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("common-items", "with --compare: analyse only the items both judges rated in order 0")
      ("k", "labelling budgets, comma-separated (--k or -k; default 48,96,192,384, with --compare 50,100,200,400 "
       "where they fit the pool)", cxxopts::value<std::string>()->default_value("48,96,192,384"))
      ("draws", "draws per k and rule (default 1000000 on CUDA, 100000 on CPU)", cxxopts::value<uint64_t>())
      ("rule", "point, lower or both", cxxopts::value<std::string>()->default_value("both"))
      ("per-stratum", "each stratum chooses its own threshold from its labels")
      ("strata", "strata for --per-stratum: benchmark (default) or condition; implies --per-stratum",
       cxxopts::value<std::string>()->default_value(""))
      ("grid", "ascending thresholds in [0, 1]; `all` (escalate everything) is implied",
       cxxopts::value<std::string>()->default_value("0.5,0.6,0.7,0.8,0.85,0.9,0.95,0.99,1"))
      ("tol", "tolerated accuracy loss", cxxopts::value<double>()->default_value("0.02"))
      ("z", "z of the lower-bound rule (--z or -z)", cxxopts::value<double>()->default_value("1.645"))
      ("gate-orders", "first-stage orders: 1 (order 0) or 2 (all orders)", cxxopts::value<int>()->default_value("2"))
      ("seed", "random seed (docs/statistics.md §2 Philox key)", cxxopts::value<uint64_t>()->default_value("1"))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("devices", "CUDA devices to split the draws between, e.g. 0,1 (default: one device per process; "
       "under mpirun, round-robin by rank)", cxxopts::value<std::string>()->default_value(""))
      ("threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
      ("fee", "per-call fee JUDGE=USD (repeatable); replaces the file's fee_usd for that judge",
       cxxopts::value<std::vector<std::string>>())
      ("labels", "label set, comma-separated (default: from the file)", cxxopts::value<std::string>()->default_value(""))
      ("map", "read each FILE through an import map: MAP.json or a built-in NAME (docs/import.md)", cxxopts::value<std::string>()->default_value(""))
      ("format", "text, md, csv or json", cxxopts::value<std::string>()->default_value("text"))
      ("json", "also write the JSON result to FILE", cxxopts::value<std::string>()->default_value(""))
      ("plots", "write SVG plots into DIR", cxxopts::value<std::string>()->default_value(""))
      ("quiet", "no progress on stderr")
      ("invalid", "how invalid outputs count: wrong (an error, kept in n; JEV) or exclude (failed calls leave n; CAP)",
       cxxopts::value<std::string>()->default_value("wrong"))
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"file"});
  options.positional_help("FILE");
}

// cxxopts parses one-letter names as short options only; accept --k and --z (and --k=96) too.
std::vector<std::string> with_short_k_and_z(int argc, char** argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t a = 1; a < arguments.size(); ++a) {
    std::string& argument = arguments[a];
    if (argument == "--") break;
    for (const char* name : {"k", "z"}) {
      const std::string long_form = std::string("--") + name;
      if (argument == long_form)
        argument = std::string("-") + name;
      else if (argument.rfind(long_form + "=", 0) == 0)
        argument = std::string("-") + name + argument.substr(long_form.size() + 1);
    }
  }
  return arguments;
}

// The output options emit() needs, into `common`.
void read_budget_outputs(const OptionReader& r, CommonOptions& common) {
  common.load.labels = r.list("labels", ListSplit::kDropEmpty, ListOf::kWords);
  common.load.map = r.text("map");
  common.format = r.text("format");
  common.json_path = r.text("json");
  common.exclude_invalid = excludes_invalid(r.text("invalid"));
  common.quiet = r.given("quiet");
}

// The cascade's options into `options` and `common`; UsageError on bad values.
void read_budget_options(const OptionReader& r, BudgetOptions& options, CommonOptions& common) {
  if (!r.given("first"))
    throw UsageError("missing --first: the first-stage judge (see --help; --compare A,B compares two judges instead)");
  if (!r.given("fallback")) throw UsageError("missing --fallback: the fallback judge (see --help)");
  read_budget_outputs(r, common);
  options.seed = r.whole("seed");
  options.first = r.text("first");
  options.fallback = r.text("fallback");
  options.strata = r.text("strata");
  options.grid = parse_grid(r.list("grid", ListSplit::kTrimmed, ListOf::kNumbers));
  options.ks = parse_k_list(r.list("k", ListSplit::kTrimmed, ListOf::kWholeNumbers));
  options.tol = r.number("tol");
  options.z = r.number("z");
  options.gate_orders = r.integer("gate-orders");
  options.per_stratum = r.given("per-stratum") || !options.strata.empty();
  if (r.given("draws")) options.draws = r.whole("draws");
  const std::string rule = r.text("rule");
  if (rule == "point" || rule == "lower")
    options.rules = {parse_rule(rule)};
  else if (rule != "both")
    throw UsageError("--rule: expected point, lower or both, got '" + rule + "'");
}

// --compare A,B into `options`; UsageError on bad values and on the cascade's flags.
void read_compare_options(const OptionReader& r, BudgetCompareOptions& options, CommonOptions& common) {
  for (const char* flag :
       {"first", "fallback", "rule", "per-stratum", "strata", "grid", "tol", "z", "gate-orders", "fee"})
    if (r.given(flag))
      throw UsageError(std::string("--") + flag + " goes with the cascade's --first/--fallback, not with --compare");
  read_budget_outputs(r, common);
  const std::vector<std::string> judges = r.list("compare", ListSplit::kDropEmpty, ListOf::kWords);
  if (judges.size() != 2)
    throw UsageError("--compare: expected two judges A,B (d = B − A), got '" + r.shown("compare") + "'");
  options.a = judges[0];
  options.b = judges[1];
  options.statistic = r.text("statistic");
  options.level = r.number("level");
  options.seed = r.whole("seed");
  options.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  options.conditions = r.list("condition", ListSplit::kDropEmpty, ListOf::kWords);
  options.common_items = r.given("common-items");
  if (r.given("k")) options.ks = parse_k_list(r.list("k", ListSplit::kTrimmed, ListOf::kWholeNumbers));
  if (r.given("draws")) options.draws = r.whole("draws");
}

void check_format(const CommonOptions& common) {
  if (common.format != "text" && common.format != "md" && common.format != "csv" && common.format != "json")
    throw UsageError("--format: expected text, md, csv or json, got '" + common.format + "'");
}

cxxopts::Options make_budget_cli() {
  cxxopts::Options cli(
      "judgestat budget",
      "Label-budget simulation of threshold rules (docs/statistics.md §3.5): choose the cascade threshold on k "
      "labelled items, score it on the rest; with --compare A,B (§7.6), how many labels tell two judges apart");
  add_budget_options(cli);
  return cli;
}

// --fee JUDGE=USD, each judge the first stage or the fallback.
std::map<std::string, double> read_fee(const OptionReader& r, const BudgetOptions& budget) {
  std::map<std::string, double> fee = r.per_call("fee");
  check_per_call_judges(fee, "fee", budget.first, budget.fallback);
  return fee;
}

void read_budget(const OptionReader& r, ParsedAnalysis& out) {
  const bool compare = r.given("compare");
  if (!compare)
    for (const char* flag : {"statistic", "level", "benchmark", "condition", "common-items"})
      if (r.given(flag))
        throw UsageError(std::string("--") + flag +
                         " goes with --compare A,B (the cascade's pool takes no record filters)");
  BudgetOptions budget;
  BudgetCompareOptions budget_compare;
  try {
    if (compare)
      read_compare_options(r, budget_compare, out.common);
    else
      read_budget_options(r, budget, out.common);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  check_format(out.common);
  if (compare)
    with_flag_names(budget_compare_flag_names(), [&] { check_budget_compare_options(budget_compare); });
  else
    with_flag_names(budget_flag_names(), [&] { check_budget_options(budget); });
  out.common.target = read_exec_target(r);
  if (!compare) budget.fee_per_call = read_fee(r, budget);
  if (compare)
    out.options = std::move(budget_compare);
  else
    out.options = std::move(budget);
  out.plots_dir = r.text("plots");
}

bool parse_budget_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::Options cli = make_budget_cli();
  std::vector<std::string> arguments = with_short_k_and_z(argc, argv);
  std::vector<char*> words;
  for (std::string& argument : arguments) words.push_back(argument.data());
  cxxopts::ParseResult parsed;
  out.command = "budget";
  if (!parse_flags(cli, static_cast<int>(words.size()), words.data(), parsed)) return false;
  out.unmatched = parsed.unmatched();
  if (file_required && !parsed.count("file"))
    throw UsageError("missing FILE: give a judgment records file (see --help)");
  if (parsed.count("file")) out.common.file = parsed["file"].as<std::string>();
  read_budget(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kBudgetParser{"budget", make_budget_cli, parse_budget_args, read_budget};

// The analysis's fields and their flags. The target's `kind` only fails a run when CUDA is
// asked for and missing, which the command has always reported as "--backend cuda: why".
const FlagNames& budget_flag_names() {
  static const FlagNames flags{
      {"tol", "--tol"}, {"z", "--z"}, {"k", "--k"}, {"draws", "--draws"}, {"kind", "--backend cuda"}};
  return flags;
}

const FlagNames& budget_compare_flag_names() {
  static const FlagNames flags{{"compare", "--compare"},      {"statistic", "--statistic"},
                               {"level", "--level"},          {"k", "--k"},
                               {"draws", "--draws"},          {"kind", "--backend cuda"},
                               {"benchmarks", "--benchmark"}, {"conditions", "--condition"}};
  return flags;
}

AnalysisResult run_budget_request(BudgetOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                  const RunContext& context) {
  options.progress = context.hooks.progress;
  return analysis_result(run_budget(matrix, options, target), context);
}

AnalysisResult run_budget_compare_request(BudgetCompareOptions options, const ItemMatrix& matrix,
                                          const ExecTarget& target, const RunContext& context) {
  options.progress = context.hooks.progress;
  return analysis_result(run_budget_compare(matrix, options, target), context);
}

}  // namespace judgestat
