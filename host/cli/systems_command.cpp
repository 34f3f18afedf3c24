// `judgestat systems FILE --systems x.A,x.B [--baseline NAME] [--self x.MODEL --family J=F,…]`: win
// rates between systems, system-level rank agreement with gold and self-preference
// (judgestat/systems.hpp, docs/statistics.md §8.4). The flags and the run are the request layer's
// (host/requests/systems_request.cpp).
#include "cli/analysis_command.hpp"
#include "cli/commands.hpp"

namespace judgestat {

int command_systems(int argc, char** argv) { return run_analysis_command("systems", argc, argv); }

}  // namespace judgestat
