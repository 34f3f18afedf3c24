// `judgestat synth cap --out FILE`: judgerEva-style synthetic records (synth.hpp) and, with
// --truth, their planted CAP values.
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <cxxopts.hpp>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "distributed/distributed.hpp"
#include "judgestat/records.hpp"
#include "records/selection.hpp"
#include "report/atomic_file.hpp"
#include "report/report.hpp"
#include "requests/text_lists.hpp"
#include "sources/synth.hpp"

namespace judgestat {
namespace {

// The options' fields and their flags.
const FlagNames& synth_flags() {
  static const FlagNames flags{{"items_per_type", "--items-per-type"},
                               {"domains", "--domains"},
                               {"items_per_cluster", "--items-per-cluster"},
                               {"flag_skill_drop", "--flag-skill-drop"},
                               {"skill_scale", "--skill-scale"},
                               {"flag_share", "--flag-shares"},
                               {"benchmark", "--benchmark"}};
  return flags;
}

// --flag-shares: four numbers, one per failure type.
void parse_flag_shares(const std::string& text, SynthOptions& synth) {
  const std::vector<std::string> shares = split_list(text);
  if (shares.size() != synth_failure_types().size())
    throw UsageError("--flag-shares: expected four numbers (factual,logical,overclaim,omission)");
  for (size_t t = 0; t < shares.size(); ++t) {
    try {
      size_t used = 0;
      synth.flag_share[synth_failure_types()[t]] = std::stod(shares[t], &used);
      if (used != shares[t].size()) throw std::invalid_argument(shares[t]);
    } catch (const std::exception&) {
      throw UsageError("--flag-shares: '" + shares[t] + "' is not a number");
    }
  }
}

// --judges FILE: the judges JSON (none given: the built-in judges, filled in later).
void read_judges(const std::string& judges_path, SynthOptions& synth) {
  if (judges_path.empty()) return;
  std::ifstream in(judges_path, std::ios::binary);
  if (!in) throw UsageError("--judges: cannot open '" + judges_path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  synth.judges = parse_synth_judges(text.str(), judges_path);
}

// `text` into `path` ("-" = stdout), whole or not at all; failures name `flag`.
void write_output(const std::string& path, const std::string& text, const char* flag) {
  if (!distributed::is_root()) return;  // under MPI, rank 0 writes the run's files
  AtomicFile file(path, flag);
  file.write(text);
  file.commit();
}

// --truth FILE: the planted values.
Json truth_json(const SynthOptions& synth) {
  Json truth;
  truth["generator"] = "judgestat synth cap";
  truth["rng"] = "std::mt19937_64";
  truth["seed"] = synth.seed;
  truth["benchmark"] = synth.benchmark;
  Json judges = Json::object();
  for (const auto& [judge, values] : synth_truth(synth)) {
    Json row = Json::object();
    for (const auto& [name, value] : values) row[name] = value;
    judges[judge] = row;
  }
  truth["planted"] = judges;
  return truth;
}

}  // namespace

int command_synth(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "cap") != 0) {
    if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
      std::string cap = "cap", help = "--help";  // the one generator's help
      char* cap_argv[] = {argv[0], cap.data(), help.data(), nullptr};
      return command_synth(3, cap_argv);
    }
    throw UsageError("synth: expected the generator name 'cap' (judgestat synth cap --out FILE)");
  }
  std::string program = std::string(argv[0]) + " cap";
  argv[1] = program.data();
  cxxopts::Options options("judgestat synth cap",
                           "judgerEva-style synthetic judgment records with known CAP values "
                           "(std::mt19937_64 seeded with --seed)");
  // clang-format off
  options.add_options()
      ("out", "write the records (docs/statistics.md §1 CSV) to FILE; - = stdout", cxxopts::value<std::string>())
      ("truth", "also write the planted values (JSON) to FILE", cxxopts::value<std::string>()->default_value(""))
      ("seed", "random seed (std::mt19937_64)", cxxopts::value<uint64_t>()->default_value("1"))
      ("items-per-type", "plain items per failure type", cxxopts::value<int>()->default_value("150"))
      ("domains", "domains the items are dealt to", cxxopts::value<int>()->default_value("6"))
      ("items-per-cluster", "items per source-question cluster", cxxopts::value<int>()->default_value("2"))
      ("judges", "judges JSON (default: seven built-in judges; see configs/synth_judges.json)",
       cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "benchmark column value", cxxopts::value<std::string>()->default_value("judgerEva"))
      ("flag-shares", "low-quality shares for factual,logical,overclaim,omission",
       cxxopts::value<std::string>()->default_value("0.10,0.10,0.12,0.48"))
      ("flag-skill-drop", "skill lost on flagged items", cxxopts::value<double>()->default_value("0.15"))
      ("skill-scale", "every skill times this (a harder stress benchmark)", cxxopts::value<double>()->default_value("1"))
      ("quiet", "no summary line on stderr")
      ("h,help", "show this help");
  // clang-format on
  cxxopts::ParseResult parsed;
  if (!parse_or_help(options, argc - 1, argv + 1, parsed)) return 0;
  if (!parsed.count("out")) throw UsageError("synth cap: --out FILE is required (- = stdout)");
  RunPaths paths;
  paths.inputs = {{"--judges", parsed["judges"].as<std::string>()}};
  paths.outputs = {{"--out", parsed["out"].as<std::string>()}, {"--truth", parsed["truth"].as<std::string>()}};
  check_paths_apart(paths);  // before the judges are read
  SynthOptions synth;
  synth.seed = parsed["seed"].as<uint64_t>();
  synth.items_per_type = parsed["items-per-type"].as<int>();
  synth.domains = parsed["domains"].as<int>();
  synth.items_per_cluster = parsed["items-per-cluster"].as<int>();
  synth.benchmark = parsed["benchmark"].as<std::string>();
  synth.flag_skill_drop = parsed["flag-skill-drop"].as<double>();
  synth.skill_scale = parsed["skill-scale"].as<double>();
  parse_flag_shares(parsed["flag-shares"].as<std::string>(), synth);
  read_judges(parsed["judges"].as<std::string>(), synth);
  if (synth.judges.empty()) synth.judges = default_synth_judges();
  with_flag_names(synth_flags(), [&] { check_synth_options(synth); });

  const std::string out_path = parsed["out"].as<std::string>();
  std::ostringstream csv;
  const int64_t records = write_synth_cap(csv, synth);
  write_output(out_path, csv.str(), "--out");
  const std::string truth_path = parsed["truth"].as<std::string>();
  if (!truth_path.empty()) write_output(truth_path, dump_json(truth_json(synth), 1) + "\n", "--truth");
  if (out_path != "-" && !parsed.count("quiet"))
    std::cerr << "synth cap: " << records << " records, " << synth.judges.size() << " judges, "
              << 4 * synth.items_per_type << " items × 3 variants × 2 orders → " << out_path << "\n";
  return 0;
}

}  // namespace judgestat
