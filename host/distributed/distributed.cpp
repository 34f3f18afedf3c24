// MPI ranks for the drivers and the output layer (see distributed.hpp). Only the main thread
// calls MPI (MPI_THREAD_FUNNELED); backends may use threads of their own.
#include "distributed/distributed.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#ifdef JUDGESTAT_HAVE_MPI
#include <mpi.h>
#endif

#include "judgestat/records.hpp"

namespace judgestat::distributed {
namespace {

bool g_active = false;  // MPI initialised by a Session and not yet finalised
int g_rank = 0, g_size = 1, g_node_rank = 0;

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

// One process: every collective is a copy from `local` to `gathered` (or nothing).
template <typename T>
void gather_locally(const T* local, uint64_t local_count, T* gathered, uint64_t gathered_count) {
  if (local_count != gathered_count)
    throw std::logic_error("gather_to_root: " + std::to_string(local_count) + " values for room of " +
                           std::to_string(gathered_count));
  if (gathered != local && local_count > 0) std::memmove(gathered, local, local_count * sizeof(T));
}

#ifdef JUDGESTAT_HAVE_MPI

constexpr int kGatherTag = 0x4a53;

template <typename T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type<int64_t>() {
  return MPI_INT64_T;
}
template <>
MPI_Datatype mpi_type<uint64_t>() {
  return MPI_UINT64_T;
}
template <>
MPI_Datatype mpi_type<uint8_t>() {
  return MPI_UINT8_T;
}
template <>
MPI_Datatype mpi_type<char>() {
  return MPI_CHAR;
}

// Values per message: kMaxMessageBytes, and an int count as MPI wants.
template <typename T>
constexpr uint64_t piece_values() {
  return kMaxMessageBytes / sizeof(T);
}

template <typename T>
void gather_impl(const T* local, uint64_t local_count, T* gathered, uint64_t gathered_count) {
  if (g_size == 1) return gather_locally(local, local_count, gathered, gathered_count);
  std::vector<uint64_t> counts(g_rank == 0 ? g_size : 0);
  MPI_Gather(&local_count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (g_rank != 0) {
    for (uint64_t done = 0; done < local_count;) {
      const uint64_t piece = std::min(piece_values<T>(), local_count - done);
      MPI_Send(local + done, static_cast<int>(piece), mpi_type<T>(), 0, kGatherTag, MPI_COMM_WORLD);
      done += piece;
    }
    return;
  }
  uint64_t total = 0;
  for (uint64_t count : counts) total += count;
  if (total != gathered_count)
    throw std::logic_error("gather_to_root: the ranks hold " + std::to_string(total) + " values for room of " +
                           std::to_string(gathered_count));
  if (gathered != local && local_count > 0) std::memmove(gathered, local, local_count * sizeof(T));
  uint64_t offset = counts[0];
  for (int source = 1; source < g_size; ++source) {
    for (uint64_t done = 0; done < counts[source];) {
      const uint64_t piece = std::min(piece_values<T>(), counts[source] - done);
      MPI_Recv(gathered + offset + done, static_cast<int>(piece), mpi_type<T>(), source, kGatherTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      done += piece;
    }
    offset += counts[source];
  }
}

template <typename T>
void broadcast_impl(T* data, uint64_t count, int root) {
  if (g_size == 1) return;
  for (uint64_t done = 0; done < count;) {
    const uint64_t piece = std::min(piece_values<T>(), count - done);
    MPI_Bcast(data + done, static_cast<int>(piece), mpi_type<T>(), root, MPI_COMM_WORLD);
    done += piece;
  }
}

void broadcast_string(std::string& text, int root) {
  uint64_t length = text.size();
  broadcast_impl(&length, 1, root);
  text.resize(length);
  broadcast_impl(text.data(), length, root);
}

#else

// Ranks the launcher says it started (1 when it does not say).
int launcher_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  return 1;
}

template <typename T>
void gather_impl(const T* local, uint64_t local_count, T* gathered, uint64_t gathered_count) {
  gather_locally(local, local_count, gathered, gathered_count);
}
template <typename T>
void broadcast_impl(T*, uint64_t, int) {}

#endif

}  // namespace

Session::Session(int* argc, char*** argv) {
#ifdef JUDGESTAT_HAVE_MPI
  if (!launched_by_mpi()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_active = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &g_node_rank);
  MPI_Comm_free(&node);
#else
  (void)argc;
  (void)argv;
  if (launched_by_mpi() && launcher_ranks() > 1)
    throw UsageError("started as one of " + std::to_string(launcher_ranks()) +
                     " MPI ranks, but this judgestat was built without MPI: every rank would run the whole job "
                     "(rebuild with -DJUDGESTAT_MPI=ON, or run it without mpirun)");
#endif
}

Session::~Session() {
#ifdef JUDGESTAT_HAVE_MPI
  if (g_active) MPI_Finalize();
#endif
  g_active = false;
  g_rank = 0;
  g_size = 1;
  g_node_rank = 0;
}

int rank() { return g_rank; }
int size() { return g_size; }
int node_rank() { return g_node_rank; }

void abort_all(int exit_code) {
#ifdef JUDGESTAT_HAVE_MPI
  if (g_active && g_size > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
  if (g_active) MPI_Finalize();
#endif
  std::exit(exit_code);
}

void silence_stdout_off_root() {
  if (g_rank == 0) return;
  // At the descriptor, so C and C++ streams alike; if /dev/null cannot be opened, stdout stays.
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd < 0) return;
  std::fflush(stdout);
  dup2(null_fd, STDOUT_FILENO);
  close(null_fd);
}

Range share(uint64_t total, int rank, int ranks) {
  // total < 2^63 and ranks < 2^31 in every caller; the products stay in 128 bits regardless.
  const auto bound = [&](int r) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * static_cast<unsigned>(r) /
                                 static_cast<unsigned>(ranks));
  };
  const uint64_t first = bound(rank);
  return {first, bound(rank + 1) - first};
}

uint64_t run_progress(uint64_t share_done, uint64_t share_count, uint64_t total) {
  if (share_count == 0 || share_done >= share_count) return total;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(share_done) * total / share_count);
}

FailureReport describe_failure(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const RankFailure& e) {
    return {e.exit_code(), e.what()};
  } catch (const InputError& e) {
    return {3, std::string("bad input: ") + e.what()};
  } catch (const UsageError& e) {
    return {2, e.what()};
  } catch (const std::invalid_argument& e) {
    return {2, e.what()};  // a library field out of range: a usage error, named by its field
  } catch (const std::exception& e) {
    return {1, std::string("error: ") + e.what()};
  } catch (...) {
    return {1, "error: unknown exception"};
  }
}

RankFailure::RankFailure(int failed_rank, int ranks, FailureReport report)
    : std::runtime_error("rank " + std::to_string(failed_rank) + " of " + std::to_string(ranks) + ": " +
                         report.message),
      failed_rank_(failed_rank),
      exit_code_(report.exit_code) {}

void agree_on_failure(std::exception_ptr local_failure) {
  if (g_size == 1) {
    if (local_failure) std::rethrow_exception(local_failure);
    return;
  }
#ifdef JUDGESTAT_HAVE_MPI
  // A RankFailure was agreed on every rank already (a nested agreement): pass it on as it is.
  if (local_failure) {
    try {
      std::rethrow_exception(local_failure);
    } catch (const RankFailure&) {
      throw;
    } catch (...) {
    }
  }
  const int mine = local_failure ? g_rank : g_size;
  int lowest = g_size;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest == g_size) return;
  FailureReport report;
  if (g_rank == lowest) report = describe_failure(local_failure);
  int64_t exit_code = report.exit_code;
  broadcast_impl(&exit_code, 1, lowest);
  broadcast_string(report.message, lowest);
  report.exit_code = static_cast<int>(exit_code);
  throw RankFailure(lowest, g_size, report);
#endif
}

void gather_to_root(const double* local, uint64_t local_count, double* gathered, uint64_t gathered_count) {
  gather_impl(local, local_count, gathered, gathered_count);
}
void gather_to_root(const int64_t* local, uint64_t local_count, int64_t* gathered, uint64_t gathered_count) {
  gather_impl(local, local_count, gathered, gathered_count);
}
void gather_to_root(const uint64_t* local, uint64_t local_count, uint64_t* gathered, uint64_t gathered_count) {
  gather_impl(local, local_count, gathered, gathered_count);
}
void gather_to_root(const uint8_t* local, uint64_t local_count, uint8_t* gathered, uint64_t gathered_count) {
  gather_impl(local, local_count, gathered, gathered_count);
}

void broadcast_from_root(double* data, uint64_t count) { broadcast_impl(data, count, 0); }
void broadcast_from_root(int64_t* data, uint64_t count) { broadcast_impl(data, count, 0); }
void broadcast_from_root(uint64_t* data, uint64_t count) { broadcast_impl(data, count, 0); }
void broadcast_from_root(uint8_t* data, uint64_t count) { broadcast_impl(data, count, 0); }

void sum_to_root(uint64_t* data, uint64_t count) {
#ifdef JUDGESTAT_HAVE_MPI
  if (g_size == 1) return;
  for (uint64_t done = 0; done < count;) {
    const uint64_t piece = std::min(piece_values<uint64_t>(), count - done);
    MPI_Reduce(g_rank == 0 ? MPI_IN_PLACE : data + done, g_rank == 0 ? data + done : nullptr, static_cast<int>(piece),
               MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    done += piece;
  }
#else
  (void)data;
  (void)count;
#endif
}

}  // namespace judgestat::distributed
