// judgestat CLI: dispatches `judgestat <command> …` and turns errors into clear messages.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.hpp"
#include "judgestat/records.hpp"

namespace {

struct CommandEntry {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

// One line per subcommand.
const CommandEntry kCommands[] = {
    {"metrics", judgestat::command_metrics, "accuracy family per judge with clustered CIs"},
    {"import", judgestat::command_import, "convert JudgeBench/LLMBar outputs to judgment records"},
    {"bench", judgestat::command_bench, "time a benchmark workload (w1)"},
    {"budget", judgestat::command_budget, "label-budget simulation of threshold rules"},
    {"cascade", judgestat::command_cascade, "confidence cascade sweep, rules and baselines"},
    {"profile", judgestat::command_profile, "CAP profiles C1–C8 with coverage, rank stability and stress"},
    {"synth", judgestat::command_synth, "synthetic judgment records (synth cap)"},
};

void print_usage() {
  std::fprintf(stderr, "usage: judgestat <command> [options]   (judgestat <command> --help)\n\n");
  for (const auto& entry : kCommands) std::fprintf(stderr, "  %-9s %s\n", entry.name, entry.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("judgestat %s\n", JUDGESTAT_VERSION);
    return 0;
  }
  for (const auto& entry : kCommands) {
    if (std::strcmp(argv[1], entry.name) != 0) continue;
    std::string program = std::string("judgestat ") + entry.name;
    argv[1] = program.data();
    try {
      return entry.run(argc - 1, argv + 1);
    } catch (const judgestat::InputError& e) {
      std::fprintf(stderr, "judgestat: bad input: %s\n", e.what());
      return 3;
    } catch (const judgestat::UsageError& e) {
      std::fprintf(stderr, "judgestat: %s\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "judgestat: error: %s\n", e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "judgestat: unknown command '%s'\n\n", argv[1]);
  print_usage();
  return 2;
}
