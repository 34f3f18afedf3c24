// The systems analysis asked for by flags (`judgestat systems`, judgestat/analysis.hpp): win rates
// between systems, system-level rank agreement with gold and self-preference (docs/statistics.md
// §8.4), defined and read once for the CLI, studies and Python.
#include <memory>
#include <string>
#include <utility>

#include "judgestat/systems.hpp"
#include "report/systems_from_json.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/scores_request.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

cxxopts::Options make_systems_cli() {
  cxxopts::Options options("judgestat systems",
                           "win rates between systems, system-level rank agreement and self-preference "
                           "(docs/statistics.md §8.4)");
  add_common_options(options);
  // clang-format off
  options.add_options()
      ("systems", "the systems behind candidates A and B (x.A,x.B: win rates; with gold, system-level τ and ρ), "
       "or behind a pointwise response (x.MODEL: system level of score judges)",
       cxxopts::value<std::string>()->default_value(""))
      ("baseline", "win rates of every system against this one (default: against all opponents)",
       cxxopts::value<std::string>()->default_value(""))
      ("self", "the model that wrote the response (x.MODEL) or responses A and B (x.A,x.B): self-preference",
       cxxopts::value<std::string>()->default_value(""))
      ("family", "families of judges and models, NAME=FAMILY,… (a model without one is its own family), "
       "or x.NAME: a record column with each judge's family", cxxopts::value<std::string>()->default_value(""))
      ("plots", "write the win-rate panel (and, with gold, the system-level panel) as SVG + CSV into DIR",
       cxxopts::value<std::string>()->default_value(""))
      ("judges", "judges to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "benchmarks to analyse, comma-separated (default: all)",
       cxxopts::value<std::string>()->default_value(""))
      ("condition", "conditions to analyse, comma-separated (default: all)",
       cxxopts::value<std::string>()->default_value(""))
      ("variant", "variants to analyse, comma-separated (default: all)", cxxopts::value<std::string>()->default_value(""));
  // clang-format on
  add_scale_option(options);  // pointwise score judges: system level by mean score
  return options;
}

// --family NAME=FAMILY,… or x.NAME.
void read_family(const std::vector<std::string>& entries, SystemsOptions& options) {
  if (entries.size() == 1 && entries[0].rfind("x.", 0) == 0 && entries[0].find('=') == std::string::npos) {
    options.family_column = entries[0];
    return;
  }
  for (const std::string& entry : entries) {
    const size_t eq = entry.find('=');
    if (entry.empty()) continue;
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      throw UsageError("--family: expected NAME=FAMILY entries (or x.NAME, a record column), got '" + entry + "'");
    const std::string name = entry.substr(0, eq);
    if (!options.family.emplace(name, entry.substr(eq + 1)).second)
      throw UsageError("--family: '" + name + "' is given twice");
  }
}

void read_systems(const OptionReader& r, ParsedAnalysis& out) {
  read_common(r, out.common);
  read_scale(r, out.common.load);
  SystemsOptions options;
  options.systems = r.list("systems", ListSplit::kDropEmpty, ListOf::kWords);
  options.baseline = r.text("baseline");
  options.self = r.list("self", ListSplit::kDropEmpty, ListOf::kWords);
  read_family(r.list("family", ListSplit::kTrimmed, ListOf::kWords), options);
  options.judges = r.list("judges", ListSplit::kDropEmpty, ListOf::kWords);
  options.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  options.conditions = r.list("condition", ListSplit::kDropEmpty, ListOf::kWords);
  options.variants = r.list("variant", ListSplit::kDropEmpty, ListOf::kWords);
  options.bootstrap = bootstrap_options(out.common);
  out.options = std::move(options);
  out.plots_dir = r.text("plots");
}

bool parse_systems_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("systems", make_systems_cli, argc, argv, file_required, parsed, out)) return false;
  read_systems(ArgvOptions(parsed), out);
  return true;
}

// The replicates' columns named apart: the system as `label`, the opponent as `reference`, the
// part (judge or gold, own or other) after the name.
BootstrapResult saved_labels(const SystemsReport& report) {
  BootstrapResult result = report.statistics;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const SystemsRowKey& key = report.keys[s];
    result.labels[s].label = key.system;
    result.labels[s].reference = key.opponent;
    if (key.part) result.labels[s].name += "[" + *key.part + "]";
  }
  return result;
}

}  // namespace

const AnalysisParser kSystemsParser{"systems", make_systems_cli, parse_systems_args, read_systems};

const FlagNames& systems_flag_names() {
  static const FlagNames flags{
      {"systems", "--systems"}, {"baseline", "--baseline"}, {"self", "--self"}, {"family", "--family"}};
  return flags;
}

AnalysisResult run_systems_request(SystemsOptions options, const ItemMatrix& matrix, const ExecTarget& target,
                                   const RunContext& context) {
  options.bootstrap.progress = context.hooks.progress;
  const SystemsReport report = run_systems(matrix, options, target);
  AnalysisResult result;
  result.json = to_json(report, context.head);
  result.text = tables(report, "text");
  result.csv = tables(report, "csv");
  result.md = tables(report, "md");
  result.plots = plot_files(report);
  result.render = render_state(report);  // what a study's cache renders the tables from again
  result.bootstrap = std::make_shared<const BootstrapResult>(saved_labels(report));
  return result;
}

}  // namespace judgestat
