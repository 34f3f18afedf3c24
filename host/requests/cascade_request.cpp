// The confidence cascade asked for by flags (`judgestat cascade FILE --first F --fallback S`,
// judgestat/analysis.hpp; docs/statistics.md §3.3, §3.4, §7.5; JEV §7–§9): the flags parsed into
// CascadeOptions, and run_cascade's report as an AnalysisResult.
//
// --tau without --select, --select-column or --select-items scores the frozen policy on every
// item (the live test of a threshold fixed in advance); with one of them, on the held-out part.
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/cascade.hpp"
#include "report/report.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

void add_cascade_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("first", "first-stage judge (needs probabilities)", cxxopts::value<std::string>())
      ("fallback", "fallback judge (order 0 on every item the first stage covers)", cxxopts::value<std::string>())
      ("grid", "ascending thresholds in [0, 1]; `all` (escalate everything) is implied",
       cxxopts::value<std::string>()->default_value("0.5,0.6,0.7,0.8,0.85,0.9,0.95,0.99,1"))
      ("gate-orders", "first-stage orders: present (the orders each item has, probabilities averaged), 1 (order 0) "
       "or 2 (every order of the file required; items with fewer escalate)",
       cxxopts::value<std::string>()->default_value("present"))
      ("fee", "per-call fee JUDGE=USD (repeatable); replaces the file's fee_usd for that judge",
       cxxopts::value<std::vector<std::string>>())
      ("latency", "per-call latency JUDGE=SECONDS (repeatable); replaces the file's latency_s",
       cxxopts::value<std::vector<std::string>>())
      ("select", "share of clusters (per benchmark, seeded) that choose the threshold; 0 = sweep only, 1 = all "
       "items choose it and none is held out", cxxopts::value<double>()->default_value("0.4"))
      ("select-column", "item-level column marking each item select (labelled, chooses τ) or heldout",
       cxxopts::value<std::string>()->default_value(""))
      ("select-items", "file of labelled item ids, one per line (the other items are held out)",
       cxxopts::value<std::string>()->default_value(""))
      ("tau", "a threshold frozen in advance, scored with CIs: 0.9, or per benchmark mmlu=0.9,livebench=0.95 "
       "(a bare value covers benchmarks not named; all = escalate)", cxxopts::value<std::string>()->default_value(""))
      ("by", "also report per group: benchmark or condition (stratified replicates)",
       cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "only these benchmarks' items, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("tol", "tolerated accuracy loss of the rules", cxxopts::value<double>()->default_value("0.02"))
      ("z", "z of the lower-bound rule", cxxopts::value<double>()->default_value("1.645"))
      ("temperature", "temperature scaling of the first stage on the selection items: pooled (one T) or "
       "per-benchmark (each benchmark's own T)", cxxopts::value<std::string>()->default_value("pooled"))
      ("bins", "first-stage confidence bins of the bin table: paper (JEV Fig. 5: q < 0.6, tenths, [0.9, 0.95), "
       "[0.95, 0.99), [0.99, 1), q = 1) or ascending edges such as 0.6,0.9,1 (a last edge 1 makes q = 1 its own bin); "
       "default 10 equal bins", cxxopts::value<std::string>()->default_value(""))
      ("compare-gate", "a second run's records of the same items (JEV Table 36): the share of items both runs "
       "gate alike at --tau, with CI", cxxopts::value<std::string>()->default_value(""))
      ("other-gate-orders", "also sweep under gate 1 or 2 (not --gate-orders; 0: off): JEV Fig. 9's two gates",
       cxxopts::value<int>()->default_value("0"))
      ("per-stratum", "each stratum (--strata) chooses its own threshold")
      ("strata", "strata for --per-stratum: benchmark or condition", cxxopts::value<std::string>()->default_value("benchmark"))
      ("plots", "write SVG plots into DIR", cxxopts::value<std::string>()->default_value(""));
  // clang-format on
}

int parse_gate_orders(const std::string& text) {
  if (text == "present") return 0;  // CascadeOptions::gate_orders 0: the orders each item has
  if (text == "1" || text == "2") return text[0] - '0';
  throw UsageError(
      "--gate-orders: expected present (the orders each item has), 1 (order 0) or 2 (every order "
      "required), got '" +
      text + "'");
}

// --select, --select-column and --select-items name the labelled items; give at most one.
void check_selection_flags(const OptionReader& r, const CascadeOptions& o) {
  const int given = r.given("select") + !o.select_column.empty() + !o.select_items.empty();
  if (given > 1)
    throw UsageError("--select, --select-column and --select-items each name the labelled items; give one of them");
}

// The options' values as given (or their defaults); the checks that join them follow.
void read_cascade_values(const OptionReader& r, CascadeOptions& o) {
  if (!r.given("first")) throw UsageError("missing --first: the first-stage judge (see --help)");
  if (!r.given("fallback")) throw UsageError("missing --fallback: the fallback judge (see --help)");
  o.first = r.text("first");
  o.fallback = r.text("fallback");
  o.grid = parse_grid(r.list("grid", ListSplit::kTrimmed, ListOf::kNumbers));
  o.gate_orders = parse_gate_orders(r.text_or_number("gate-orders"));
  o.select = r.number("select");
  o.select_column = r.text("select-column");
  o.select_items = r.text("select-items");
  o.by = r.text("by");
  o.temperature = r.text("temperature");
  o.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  o.tol = r.number("tol");
  o.z = r.number("z");
  o.per_stratum = r.given("per-stratum");
  o.strata = r.text("strata");
  if (!r.text("bins").empty())
    o.bin_edges = with_flag_names(cascade_flag_names(), [&] { return parse_bin_edges(r.text("bins")); });
  o.compare_gate = r.text("compare-gate");
  o.other_gate_orders = r.integer("other-gate-orders");  // 0 (off), 1 or 2: check_cascade_options says
}

CascadeOptions read_cascade_options(const OptionReader& r, const CommonOptions& common) {
  CascadeOptions o;
  std::vector<std::string> tau;
  try {
    read_cascade_values(r, o);
    tau = r.list("tau", ListSplit::kTrimmed, ListOf::kNumbersOrWords);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  check_selection_flags(r, o);
  if (r.given("tau")) {
    o.tau = with_flag_names(cascade_flag_names(), [&] { return parse_frozen_tau(tau); });
    // A frozen threshold without a selection flag is the live test: scored on every item.
    if (!r.given("select") && o.select_column.empty() && o.select_items.empty()) o.select = 0;
  }
  with_flag_names(cascade_flag_names(), [&] { check_cascade_options(o); });
  o.fee = r.per_call("fee");
  check_per_call_judges(o.fee, "fee", o.first, o.fallback);
  o.latency = r.per_call("latency");
  check_per_call_judges(o.latency, "latency", o.first, o.fallback);
  o.bootstrap = bootstrap_options(common);
  return o;
}

cxxopts::Options make_cascade_cli() {
  cxxopts::Options options(
      "judgestat cascade",
      "Confidence cascade (docs/statistics.md §3.3, §3.4, §7.5): threshold sweep with clustered CIs, random "
      "baseline and oracle; threshold rules chosen on a selection part (seeded, or your own labelled items) and "
      "scored on the rest; a frozen threshold scored with CIs; per benchmark with --by benchmark");
  add_common_options(options);
  add_cascade_options(options);
  return options;
}

void read_cascade(const OptionReader& r, ParsedAnalysis& out) {
  read_common(r, out.common);
  const CascadeOptions& cascade = std::get<CascadeOptions>(out.options = read_cascade_options(r, out.common));
  out.plots_dir = r.text("plots");
  out.common.load.item_column = cascade.select_column;  // the loader keeps it, checked item by item
}

bool parse_cascade_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("cascade", make_cascade_cli, argc, argv, file_required, parsed, out)) return false;
  read_cascade(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kCascadeParser{"cascade", make_cascade_cli, parse_cascade_args, read_cascade};

const FlagNames& cascade_flag_names() {
  static const FlagNames flags = [] {
    FlagNames names;
    for (const char* field : {"fallback", "tol", "z", "tau", "temperature"}) names[field] = std::string("--") + field;
    names["select_column"] = "--select-column";
    names["select_items"] = "--select-items";
    names["bins"] = "--bins";
    names["bin_edges"] = "--bins";
    names["compare_gate"] = "--compare-gate";
    names["other_gate_orders"] = "--other-gate-orders";
    return names;
  }();
  return flags;
}

namespace {

// --compare-gate FILE2: the second run's gate inputs, read before the first file's matrix is given up.
void load_compared_gate(CascadeOptions& cascade) {
  if (cascade.compare_gate.empty() || !cascade.compare_gate_items.empty()) return;
  const ItemMatrix second = load_item_matrix(cascade.compare_gate);
  cascade.compare_gate_items = gate_outcomes(second, cascade);
}

}  // namespace

AnalysisResult run_cascade_request(CascadeOptions cascade, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  cascade.progress = context.hooks.progress;
  load_compared_gate(cascade);
  CascadeReport report = run_cascade(matrix, cascade, target);
  // The sweep's statistics (the JSON's `statistics`).
  return analysis_result(report, context, std::move(report.sweep.result));
}

AnalysisResult run_cascade_request(CascadeOptions cascade, ItemMatrix&& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  cascade.progress = context.hooks.progress;
  load_compared_gate(cascade);
  CascadeReport report = run_cascade(std::move(matrix), cascade, target);
  return analysis_result(report, context, std::move(report.sweep.result));
}

}  // namespace judgestat
