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

#include "cli/cli_common.hpp"
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

// One line per subcommand.
const CommandEntry kCommands[] = {
    {"run", judgestat::command_run, "a study file's analyses into one folder and report.html (cached)"},
    {"metrics", judgestat::command_metrics, "accuracy family per judge with clustered CIs"},
    {"items", judgestat::command_items, "per-item table of verdicts and correctness (CSV or JSONL)"},
    {"import", judgestat::command_import, "convert JudgeBench/LLMBar outputs to judgment records"},
    {"bench", judgestat::command_bench, "time a benchmark workload (w1)"},
    {"budget", judgestat::command_budget, "label-budget simulation of threshold rules"},
    {"cascade", judgestat::command_cascade, "confidence cascade sweep, rules and baselines"},
    {"profile", judgestat::command_profile, "CAP profiles C1–C8 with coverage, rank stability and stress"},
    {"synth", judgestat::command_synth, "synthetic judgment records (synth cap)"},
    {"coverage", judgestat::command_coverage, "coverage of each CI method on simulated datasets of your design"},
    {"systems", judgestat::command_systems, "win rates between systems, system-level τ/ρ, self-preference"},
    {"repeats", judgestat::command_repeats, "agreement across repeats, variants and orders with clustered CIs"},
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

void print_usage() {
  if (!distributed::is_root()) return;  // under mpirun, once
  std::fprintf(stderr, "usage: judgestat <command> [options]   (judgestat <command> --help)\n\n");
  for (const auto& entry : kCommands) std::fprintf(stderr, "  %-9s %s\n", entry.name, entry.summary);
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
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
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
  for (const auto& entry : kCommands) {
    if (std::strcmp(argv[1], entry.name) != 0) continue;
    std::string program = std::string("judgestat ") + entry.name;
    argv[1] = program.data();
    try {
      try {
        const int code = entry.run(argc - 1, argv + 1);
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
  if (distributed::is_root()) std::fprintf(stderr, "judgestat: unknown command '%s'\n\n", argv[1]);
  print_usage();
  return 2;
}
