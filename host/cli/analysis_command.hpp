// The analysis commands (metrics, cascade, budget, profile; items streams its table) as one
// course: parse → check the paths apart → load → run the typed request → write. Their flags,
// parsing and runs are the request layer's (host/requests/), which the library shares.
#pragma once
#include <functional>
#include <string>

#include "requests/analysis_parse.hpp"

namespace judgestat {

/// Parses `judgestat COMMAND …`'s flags into `parsed`; prints the command's help and gives false
/// when --help was given.
bool parse_analysis_or_help(const std::string& command, int argc, char** argv, ParsedAnalysis& parsed);

/// How a command reads its records; the defaults read the one FILE with the flags' LoadOptions.
struct CommandRecords {
  std::function<ItemMatrix(const ParsedAnalysis&)> load;  // the matrix (default: load_item_matrix(FILE, …))
  std::function<void(Json& envelope)> finish_envelope;    // adds to json_envelope's (default: nothing)
  bool parsing_is_loading = false;                        // profile: reading --config counts as loading
};

/// `judgestat COMMAND FILE…`: refuses an output that is an input before anything is loaded,
/// loads the records, runs the analysis with progress on stderr (replicates, or draws for
/// budget) on the flags' target, and writes --save-replicates, --plots and the table (--format)
/// or the JSON and --json. Library errors name the flags. Returns the exit code (0).
int run_analysis_command(const std::string& command, int argc, char** argv, const CommandRecords& records = {});

}  // namespace judgestat
