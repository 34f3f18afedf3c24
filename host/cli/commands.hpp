// Subcommands of the judgestat CLI; main.cpp dispatches on the first argument.
// Each takes the arguments after the subcommand name (argv[0] = "judgestat <name>") and returns
// the process exit code; errors are thrown (InputError, UsageError, std::runtime_error) and
// reported by main.
#pragma once

namespace judgestat {
int command_metrics(int argc, char** argv);
int command_import(int argc, char** argv);
int command_items(int argc, char** argv);
int command_budget(int argc, char** argv);
int command_cascade(int argc, char** argv);
int command_bench(int argc, char** argv);
int command_profile(int, char**);
int command_synth(int, char**);
int command_run(int argc, char** argv);
int command_coverage(int, char**);
int command_systems(int argc, char** argv);
int command_repeats(int, char**);
}  // namespace judgestat
