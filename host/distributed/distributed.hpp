// Runs over MPI ranks (issue 7): one process per GPU, started by mpirun or a cluster scheduler.
// Rank r of P takes the contiguous share [total·r/P, total·(r+1)/P) of a command's replicates
// or draws; rank 0 gathers the shares in rank order, which is replicate order, and summarises
// them exactly as one process would (docs/statistics.md §2 indexes the random stream by replicate, so the
// output does not depend on P). Messages stay under kMaxMessageBytes, whatever the total.
//
// Without MPI in the build (JUDGESTAT_HAVE_MPI undefined), or when the process was not started
// by an MPI launcher, there is one rank and every collective below is a local copy or nothing.
#pragma once
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

namespace judgestat::distributed {

inline constexpr uint64_t kMaxMessageBytes = uint64_t{64} << 20;

/// MPI for main(): initialises MPI when an MPI launcher started the process (it set
/// OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE) and finalises it on destruction.
/// UsageError when a launcher started several ranks but this build has no MPI: each would run
/// the whole job and print its own copy of the result.
class Session {
 public:
  Session(int* argc, char*** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

int rank();  // 0 in one process
int size();  // 1 in one process
inline bool is_root() { return rank() == 0; }
/// This rank's index among the ranks on its node (0 in one process): picks its GPU round-robin.
int node_rank();

/// Ends every rank of the run with this exit code (MPI_Abort); std::exit in one process.
[[noreturn]] void abort_all(int exit_code);

/// Points stdout of ranks other than 0 at /dev/null, so only rank 0 prints a result, whichever
/// command prints it. stderr stays: every rank can report its own error.
void silence_stdout_off_root();

/// A contiguous range [first, first + count) of replicates or draws.
struct Range {
  uint64_t first = 0, count = 0;
};
/// Rank `rank`'s share of `total` items among `ranks`: [total·rank/ranks, total·(rank+1)/ranks).
Range share(uint64_t total, int rank, int ranks);
inline Range my_share(uint64_t total) { return share(total, rank(), size()); }
/// Progress of a whole run of `total` from this rank's: share_done · total / share_count (ranks
/// keep about the same pace); exact in one process, `total` when the share is done.
uint64_t run_progress(uint64_t share_done, uint64_t share_count, uint64_t total);

/// The CLI's reading of an exception: exit code 3 with "bad input: …" (InputError), 2 with the
/// message (UsageError), 1 with "error: …" (anything else).
struct FailureReport {
  int exit_code = 1;
  std::string message;
};
FailureReport describe_failure(std::exception_ptr failure);

/// Thrown on every rank when a step failed on some rank; what() = "rank R of P: <message>".
class RankFailure : public std::runtime_error {
 public:
  RankFailure(int failed_rank, int ranks, FailureReport report);
  int failed_rank() const { return failed_rank_; }
  int exit_code() const { return exit_code_; }

 private:
  int failed_rank_, exit_code_;
};

/// Collective failure agreement: every rank passes what its step threw (null when it
/// succeeded). When some rank failed, every rank throws RankFailure naming the lowest failing
/// rank, with that rank's message and exit code. In one process the local exception is rethrown
/// as it is.
void agree_on_failure(std::exception_ptr local_failure);

/// Runs step() on this rank, then agrees with the other ranks whether every step succeeded.
template <typename Step>
void fail_together(Step&& step) {
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(failure);
}

/// Collective: every rank's `local` (local_count values) concatenated in rank order into
/// `gathered` on rank 0, which holds `gathered_count` values (std::logic_error when the ranks'
/// counts do not add up to it). Other ranks pass gathered = nullptr, gathered_count = 0.
/// Rank 0's `local` may be the start of `gathered`.
void gather_to_root(const double* local, uint64_t local_count, double* gathered, uint64_t gathered_count);
void gather_to_root(const int64_t* local, uint64_t local_count, int64_t* gathered, uint64_t gathered_count);
void gather_to_root(const uint64_t* local, uint64_t local_count, uint64_t* gathered, uint64_t gathered_count);
void gather_to_root(const uint8_t* local, uint64_t local_count, uint8_t* gathered, uint64_t gathered_count);

/// Collective: rank 0's `count` values copied to every rank.
void broadcast_from_root(double* data, uint64_t count);
void broadcast_from_root(int64_t* data, uint64_t count);
void broadcast_from_root(uint64_t* data, uint64_t count);
void broadcast_from_root(uint8_t* data, uint64_t count);

/// Collective: element-wise sums of every rank's counts, into rank 0's `data`.
void sum_to_root(uint64_t* data, uint64_t count);

}  // namespace judgestat::distributed
