// `judgestat import judgebench|llmbar INPUT... [--out FILE]`: benchmark outputs in their own
// formats → judgment records (CSV), by the converters of sources/import.hpp.
#include <cstdio>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "judgestat/records.hpp"
#include "report/atomic_file.hpp"
#include "sources/import.hpp"

namespace judgestat {

namespace {

// The records of `source` (judgebench: output files; llmbar: the dataset folder).
std::vector<ImportedRecord> import_records(const std::string& source, const std::vector<std::string>& inputs) {
  std::vector<ImportedRecord> records;
  if (source == "judgebench") {
    if (inputs.empty()) throw UsageError("import judgebench: give one or more outputs/*.jsonl files");
    for (const std::string& path : inputs) {
      std::vector<ImportedRecord> converted = convert_judgebench_file(path);
      records.insert(records.end(), converted.begin(), converted.end());
    }
    check_importable(records);  // across the files as well
  } else if (source == "llmbar") {
    if (inputs.size() != 1) {
      throw UsageError(
          "import llmbar: give one folder, the LLMBar dataset folder holding "
          "Natural/ and Adversarial/");
    }
    records = convert_llmbar_dir(inputs[0]);
  } else {
    throw UsageError("import: unknown source '" + source + "'; expected judgebench or llmbar");
  }
  return records;
}

// The CSV to `out` ('-' = stdout), whole or not at all.
void write_records(const std::string& text, const std::string& out) {
  AtomicFile file(out, "--out");
  file.write(text);
  file.commit();
}

}  // namespace

int command_import(int argc, char** argv) {
  cxxopts::Options options(argv[0],
                           "Converts benchmark outputs in their own formats to judgment records (CSV).\n"
                           "  judgestat import judgebench OUTPUT.jsonl... [--out FILE]\n"
                           "  judgestat import llmbar LLMBAR_DIR [--out FILE]\n"
                           "LLMBAR_DIR is the dataset folder holding Natural/ and Adversarial/.");
  // clang-format off
  options.add_options()("o,out", "output CSV file ('-' = stdout)",
                        cxxopts::value<std::string>()->default_value("-"))(
      "h,help", "show this help")("source", "judgebench or llmbar",
                                  cxxopts::value<std::string>());
  // clang-format on
  // The inputs are read from the unmatched positionals rather than a vector option, which
  // cxxopts would split at commas (JudgeBench file names hold commas).
  options.parse_positional({"source"});
  options.positional_help("judgebench|llmbar INPUT...");

  cxxopts::ParseResult args;
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& error) {
    throw UsageError(std::string(error.what()) + " (see judgestat import --help)");
  }
  if (args.count("help")) {
    std::cout << options.help() << "\n";
    return 0;
  }
  if (!args.count("source")) {
    throw UsageError("import: name the source, judgebench or llmbar (see judgestat import --help)");
  }
  const std::string source = args["source"].as<std::string>();
  const std::vector<std::string>& inputs = args.unmatched();

  const std::string out = args["out"].as<std::string>();
  try {
    check_writable(out, "--out");  // before converting anything
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  RunPaths paths;
  for (const std::string& input : inputs) paths.inputs.push_back({"INPUT", input});
  paths.outputs = {{"--out", out}};
  check_paths_apart(paths);
  const std::vector<ImportedRecord> records = import_records(source, inputs);
  write_records(imported_csv(records), out);
  std::set<std::string> judges;
  for (const ImportedRecord& r : records) judges.insert(r.judge);
  std::fprintf(stderr, "judgestat import: %zu records of %zu judges → %s\n", records.size(), judges.size(),
               out == "-" ? "stdout" : out.c_str());
  return 0;
}

}  // namespace judgestat
