// judgestat CLI: dispatches `judgestat <command> …` and turns errors into clear messages.
// Under mpirun every rank runs the command (host/distributed/distributed.hpp); rank 0 prints the result.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cli/cli_common.hpp"
#include "cli/cli_help.hpp"
#include "cli/commands.hpp"
#include "distributed/distributed.hpp"
#include "engine/philox_simd.hpp"
#include "judgestat/backend.hpp"
#include "report/atomic_file.hpp"

namespace {

struct CommandEntry {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

// One line per subcommand, as `judgestat --help` lists them.
const CommandEntry kCommands[] = {
    {"run", judgestat::command_run, "a study file's analyses into one folder and report.html (cached)"},
    {"metrics", judgestat::command_metrics, "accuracy family, agreement, bias, differences per judge (CIs)"},
    {"items", judgestat::command_items, "per-item table of verdicts and correctness (CSV or JSONL)"},
    {"import", judgestat::command_import, "a judge harness's log to judgment records (import maps)"},
    {"bench", judgestat::command_bench, "time the workloads: w1 bootstrap, w2 label budget"},
    {"budget", judgestat::command_budget, "label-budget simulation of threshold rules"},
    {"cascade", judgestat::command_cascade, "confidence cascade sweep, rules and baselines"},
    {"profile", judgestat::command_profile, "CAP profiles C1-C8 with coverage, rank stability, stress"},
    {"synth", judgestat::command_synth, "synthetic judgment records with planted values (synth cap)"},
    {"coverage", judgestat::command_coverage, "coverage of each CI method on simulated datasets"},
    {"systems", judgestat::command_systems, "win rates between systems, system-level tau/rho, self-preference"},
    {"repeats", judgestat::command_repeats, "agreement across repeats, variants and orders (CIs)"},
};

namespace distributed = judgestat::distributed;

// A closed standard descriptor (`judgestat … >&-`) would go to the next file opened: the result
// would be written into a records file being read or an output being made. Each closed one is
// held by /dev/null opened the wrong way round (stdin write-only, stdout and stderr read-only),
// so that using it fails, and the failure is reported (flush_stdout), as gnulib's stdopen does.
void hold_closed_standard_descriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) {
      ::dup2(held, fd);
      ::close(held);
    }
  }
}

// `code`, once what was printed to stdout has arrived; 1 with a message when it could not be.
int with_stdout_flushed(int code) {
  try {
    judgestat::flush_stdout();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "judgestat: error: %s\n", e.what());
    return 1;
  }
  return code;
}

// `judgestat --help`: what the tool is, its commands, options, examples and exit status
// (help2man makes the man page of it: CMake target `man`).
std::string usage_text() {
  std::string text =
      "judgestat: statistics for evaluating LLM judges, with clustered-bootstrap intervals\n"
      "(docs/statistics.md defines every number)\n\n"
      "Usage:\n"
      "  judgestat COMMAND [OPTION...] [FILE...]\n"
      "  judgestat help [COMMAND]\n\n"
      "Commands:\n";
  char line[128];
  for (const auto& entry : kCommands) {
    std::snprintf(line, sizeof line, "  %-9s %s\n", entry.name, entry.summary);
    text += line;
  }
  text +=
      "\nOptions:\n"
      "  -h, --help     show this help and exit\n"
      "  -V, --version  print the version and the backends this build offers, and exit\n\n"
      "`judgestat help COMMAND` (or `judgestat COMMAND --help`) lists a command's options\n"
      "and ends with examples on the bundled data.\n\n"
      "Examples:\n"
      "  judgestat metrics data/judgebench/gpt4o_split.csv\n"
      "  judgestat run configs/study_bundled.json --out report/\n"
      "  judgestat help cascade\n\n";
  return text + judgestat::exit_status_text();
}

// On stdout when asked for (exit 0), on stderr after a mistake (exit 2); under mpirun once.
void print_usage(FILE* to) {
  if (!distributed::is_root()) return;
  std::fputs(usage_text().c_str(), to);
}

const CommandEntry* find_command(const char* name) {
  for (const auto& entry : kCommands)
    if (std::strcmp(name, entry.name) == 0) return &entry;
  return nullptr;
}

// "unknown command 'metric'; did you mean `metrics`?" (as git says it), exit 2.
int unknown_command(const char* name) {
  std::vector<std::string> names;
  for (const auto& entry : kCommands) names.emplace_back(entry.name);
  for (const char* alias : {"--help", "--version"}) names.emplace_back(alias);
  const std::string nearest = judgestat::nearest_word(name, names);
  if (distributed::is_root())
    std::fprintf(stderr, "judgestat: unknown command '%s'%s\n(`judgestat --help` lists the commands)\n", name,
                 nearest.empty() ? "" : ("; did you mean `" + nearest + "`?").c_str());
  return 2;
}

int print_version() {
  // Also says which backends this build and machine offer, so a log shows why CUDA is skipped.
  std::string why;
  const bool cuda = judgestat::cuda_available(&why);
  std::printf("judgestat %s\ncuda backend: %s\ncpu simd: %s\nmpi: %s\n", JUDGESTAT_VERSION,
              cuda ? "available" : ("unavailable (" + why + ")").c_str(),
              judgestat::simd_path_name(judgestat::simd_path()),
#ifdef JUDGESTAT_HAVE_MPI
              "built in"
#else
              "not built"
#endif
  );
  return with_stdout_flushed(0);
}

// Reports a failure the ranks did not agree on: alone, as before; among ranks, naming this one,
// and ending every rank so that no partial result appears.
int fail(const distributed::FailureReport& report) {
  if (distributed::size() == 1) {
    std::fprintf(stderr, "judgestat: %s\n", report.message.c_str());
    return report.exit_code;
  }
  std::fprintf(stderr, "judgestat: rank %d of %d: %s\n", distributed::rank(), distributed::size(),
               report.message.c_str());
  std::fflush(stderr);
  distributed::abort_all(report.exit_code);
}

// Runs one command with the errors turned into messages and exit codes (docs: exit_status_text).
int run_command(const CommandEntry& entry, int argc, char** argv) {
  std::string program = std::string("judgestat ") + entry.name;
  argv[0] = program.data();
  try {
    try {
      const int code = entry.run(argc, argv);
      judgestat::flush_stdout();  // --help's text too: a write that failed fails the run
      return code;
    } catch (const std::invalid_argument& e) {
      // The library names its own fields; the one place they become flag names.
      judgestat::rethrow_with_flag_names(e, {});
    }
  } catch (const distributed::RankFailure& e) {
    // Every rank knows: rank 0 says which rank failed, and all leave with its exit code.
    if (distributed::is_root()) std::fprintf(stderr, "judgestat: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    // Last resort: inputs and replicates are sized before allocating (pivot, replicate
    // memory checks); an allocation that fails anyway still gets a message and an exit code.
    return fail({1,
                 "out of memory: this run needs more memory than the machine could give; use fewer "
                 "replicates (--replicates), a smaller --chunk, fewer judges, or a smaller input"});
  } catch (...) {
    return fail(distributed::describe_failure(std::current_exception()));
  }
}

// `judgestat help [COMMAND]`: the tool's help, or the command's (as COMMAND --help).
int help(int argc, char** argv) {
  if (argc < 3 || !std::strcmp(argv[2], "help")) {
    print_usage(stdout);
    return with_stdout_flushed(0);
  }
  const CommandEntry* entry = find_command(argv[2]);
  if (!entry) return unknown_command(argv[2]);
  std::string program, flag = "--help";
  char* command_argv[] = {program.data(), flag.data(), nullptr};
  return run_command(*entry, 2, command_argv);
}

bool is_any_of(const char* arg, const char* a, const char* b) { return !std::strcmp(arg, a) || !std::strcmp(arg, b); }

}  // namespace

int main(int argc, char** argv) {
  hold_closed_standard_descriptors();
  std::unique_ptr<distributed::Session> session;
  try {
    session = std::make_unique<distributed::Session>(&argc, &argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "judgestat: %s\n", e.what());
    return 2;
  }
  distributed::silence_stdout_off_root();
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  if (is_any_of(argv[1], "--help", "-h") || !std::strcmp(argv[1], "help")) return help(argc, argv);
  if (is_any_of(argv[1], "--version", "-V")) return print_version();
  const CommandEntry* entry = find_command(argv[1]);
  if (!entry) return unknown_command(argv[1]);
  return run_command(*entry, argc - 1, argv + 1);
}
