// What the commands share on the command line: the help, the replicates file, printing the
// table or JSON, the figures written, the time. The flags themselves are parsed in
// host/requests/ (request_flags.hpp), which the library shares.
#pragma once
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "report/report.hpp"
#include "requests/request_flags.hpp"

namespace judgestat {

/// parse_flags, and the help printed on stdout when --help was given (then false); an unknown
/// flag's error names the nearest flag (cli_help.hpp).
bool parse_or_help(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed,
                   bool out_is_folder = false);

/// --save-replicates FILE: one CSV row per replicate, one column per statistic (named as in the
/// JSON), empty where a replicate is undefined. Nothing when the option was not given.
void save_replicates(const CommonOptions& common, const BootstrapResult& result);

/// Prints the table (or the JSON when --format json) and writes --json FILE; under MPI on
/// rank 0, once every rank has got here.
void emit(const CommonOptions& common, const Json& json, const std::string& table_text);

/// The figures of a report (plot_files) written into `dir` (nothing when dir is empty); the
/// writer's own errors ("plots: …") name the --plots flag.
void write_plot_files(const std::vector<PlotFile>& figures, const std::string& dir);

double seconds_since(double start);
double now_seconds();

}  // namespace judgestat
