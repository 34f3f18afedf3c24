// The repeats analysis asked for by flags (`judgestat repeats`, judgestat/analysis.hpp): per judge
// the agreement of its verdicts with themselves across repeats, variants and presentation orders
// (docs/statistics.md §8.5), defined and read once for the CLI, studies and Python.
#include <string>
#include <utility>

#include "judgestat/repeats.hpp"
#include "report/repeats_from_json.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/scores_request.hpp"

namespace judgestat {
namespace {

cxxopts::Options make_repeats_cli() {
  cxxopts::Options options("judgestat repeats",
                           "agreement of each judge with itself across repeats, variants and presentation orders "
                           "(docs/statistics.md §8.5)");
  add_common_options(options);
  // clang-format off
  options.add_options()
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("variant", "only these variants, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("by", "report per group as well: benchmark, condition, variant or repeat (each repeat against repeat 0)", cxxopts::value<std::string>()->default_value(""))
      ("invalid-match", "two invalid verdicts agree (LLMBar's equal); by default an invalid verdict agrees with nothing")
      ("requests", "report every compared request with its members (on with --plots)")
      ("plots", "write the repeat figures (JEV Figs. 7c, 17-19; SVG + CSV) into DIR",
       cxxopts::value<std::string>()->default_value(""));
  // clang-format on
  add_scale_option(options);  // scores compared as labels
  return options;
}

void read_repeats(const OptionReader& r, ParsedAnalysis& out) {
  read_common(r, out.common);
  read_scale(r, out.common.load);
  RepeatsOptions repeats;
  repeats.judges = r.list("judges", ListSplit::kDropEmpty, ListOf::kWords);
  repeats.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  repeats.conditions = r.list("condition", ListSplit::kDropEmpty, ListOf::kWords);
  repeats.variants = r.list("variant", ListSplit::kDropEmpty, ListOf::kWords);
  repeats.by = r.text("by");
  repeats.invalid_match = r.given("invalid-match");
  repeats.bootstrap = bootstrap_options(out.common);
  out.plots_dir = r.text("plots");
  repeats.requests = r.given("requests") || !out.plots_dir.empty();  // the per-request figures need them
  out.options = std::move(repeats);
}

bool parse_repeats_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("repeats", make_repeats_cli, argc, argv, file_required, parsed, out)) return false;
  read_repeats(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kRepeatsParser{"repeats", make_repeats_cli, parse_repeats_args, read_repeats};

const FlagNames& repeats_flag_names() {
  static const FlagNames flags{{"by", "--by"}};
  return flags;
}

AnalysisResult run_repeats_request(RepeatsOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  options.bootstrap.progress = context.hooks.progress;
  RepeatsReport report = run_repeats(matrix, options, target);
  AnalysisResult result;
  result.json = to_json(report, context.head);
  result.text = tables(report, "text");
  result.csv = tables(report, "csv");
  result.md = tables(report, "md");
  result.render = render_state(report);  // what a study's cache renders the tables from again
  result.plots = plot_files(report);
  result.bootstrap = std::make_shared<const BootstrapResult>(std::move(report.statistics));
  return result;
}

}  // namespace judgestat
