// `judgestat import NAME FILE... [--out FILE]` and `judgestat import --map MAP.json FILE...`: judge
// logs in their own formats → judgment records (CSV), through an import map (docs/import.md) —
// a built-in one (configs/import/NAME.json) or the user's. LLMBar's dataset folder keeps its
// converter (sources/import.hpp): its judges and subsets are folder names, which maps do not read.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "report/atomic_file.hpp"
#include "requests/request_flags.hpp"
#include "sources/import.hpp"
#include "support/text.hpp"

namespace judgestat {

namespace {

struct Imported {
  std::string csv;
  int64_t records = 0;
  int32_t judges = 0;
};

// The LLMBar dataset folder through its converter.
Imported import_mapped(const std::string& map, const std::vector<std::string>& files);

// LLMBar's dataset folder: its result.json files through the shipped `llmbar` map
// (configs/import/llmbar.json), so the folder route and `--map` read records one way.
Imported import_llmbar(const std::vector<std::string>& inputs) {
  if (inputs.size() != 1)
    throw UsageError("import llmbar: give one folder, the LLMBar dataset folder holding Natural/ and Adversarial/");
  return import_mapped("llmbar", llmbar_result_files(inputs[0]));
}

// The files through `map`, checked as the loader checks records (each file, then all together)
// before anything is written.
Imported import_mapped(const std::string& map, const std::vector<std::string>& files) {
  if (files.empty()) throw UsageError("import: give one or more FILEs to read through the map");
  LoadOptions load;
  load.map = map;
  const ItemMatrix matrix = load_item_matrix(files, load);
  return {mapped_records_csv(map, files), matrix.records, matrix.n_judges()};
}

// The CSV to `out` ('-' = stdout), whole or not at all.
void write_records(const std::string& text, const std::string& out) {
  AtomicFile file(out, "--out");
  file.write(text);
  file.commit();
}

cxxopts::Options import_cli(const char* program) {
  cxxopts::Options options(program,
                           "Converts judge logs to judgment records (CSV) through an import map (docs/import.md).\n"
                           "  judgestat import NAME FILE... [--out FILE]        a built-in map: " +
                               join(builtin_map_names(), ", ") +
                               "\n"
                               "  judgestat import --map MAP.json FILE... [--out FILE]\n"
                               "  judgestat import llmbar LLMBAR_DIR [--out FILE]   the folder holding Natural/ and "
                               "Adversarial/\n"
                               "FILEs may be globs ('logs/*.jsonl', quoted), expanded by judgestat.");
  // clang-format off
  options.add_options()
      ("o,out", "output CSV file ('-' = stdout)", cxxopts::value<std::string>()->default_value("-"))
      ("map", "import map: a MAP.json file, or a built-in map's NAME", cxxopts::value<std::string>()->default_value(""))
      ("h,help", "show this help")
      ("source", "a built-in map's NAME, or llmbar", cxxopts::value<std::string>());
  // clang-format on
  // The inputs are read from the unmatched positionals rather than a vector option, which
  // cxxopts would split at commas (JudgeBench file names hold commas).
  options.parse_positional({"source"});
  options.positional_help("NAME FILE...");
  return options;
}

// The output is CSV: a name with another extension would hold text its readers refuse (a .jsonl
// file is read as JSON lines).
void check_out_is_csv(const std::string& out) {
  std::string extension = out.size() > 4 ? out.substr(out.size() - 4) : "";
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out != "-" && extension != ".csv")
    throw UsageError("import: --out '" + out +
                     "': import writes CSV records; give a file name ending in .csv, or '-' for stdout");
}

}  // namespace

int command_import(int argc, char** argv) {
  cxxopts::Options options = import_cli(argv[0]);
  cxxopts::ParseResult args;
  if (!parse_or_help(options, argc, argv, args)) return 0;
  const std::string out = args["out"].as<std::string>();
  std::string map = args["map"].as<std::string>();
  std::vector<std::string> words = args.unmatched();
  if (args.count("source")) words.insert(words.begin(), args["source"].as<std::string>());
  if (map.empty()) {
    if (words.empty())
      throw UsageError("import: name a built-in map (" + join(builtin_map_names(), ", ") +
                       ", or llmbar) or give --map MAP.json (see judgestat import --help)");
    map = words.front();
    words.erase(words.begin());
  }
  const bool llmbar = map == "llmbar";
  if (!llmbar) import_map_text(map);  // an unknown built-in name before the files
  const std::vector<std::string> inputs = llmbar ? words : record_files(words);
  RunPaths paths;
  for (const std::string& input : inputs) paths.inputs.push_back({"INPUT", input});
  paths.outputs = {{"--out", out}};
  check_paths_apart(paths);  // first: an --out that would replace an input says so
  check_out_is_csv(out);     // before any input is read
  const Imported imported = llmbar ? import_llmbar(inputs) : import_mapped(map, inputs);
  write_records(imported.csv, out);
  std::fprintf(stderr, "judgestat import: %lld records of %d judges → %s\n", static_cast<long long>(imported.records),
               imported.judges, out == "-" ? "stdout" : out.c_str());
  return 0;
}

}  // namespace judgestat
