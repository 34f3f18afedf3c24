// `judgestat repeats FILE`: the repeat statistics of judgestat/repeats.hpp (docs/statistics.md
// §8.5): per judge, agreement across repeats, variants and orders with clustered intervals. The
// flags and the run are the request layer's (host/requests/repeats_request.cpp).
#include "cli/analysis_command.hpp"
#include "cli/commands.hpp"

namespace judgestat {

int command_repeats(int argc, char** argv) { return run_analysis_command("repeats", argc, argv); }

}  // namespace judgestat
