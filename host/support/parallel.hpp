// Waiting on host threads that write into one shared output.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <future>
#include <system_error>
#include <thread>
#include <vector>

namespace judgestat {

/// Waits for every task before rethrowing the first failure: they all write into the caller's
/// buffers, which must outlive every one of them.
inline void wait_all_then_rethrow(std::vector<std::future<void>>& tasks) {
  std::exception_ptr failure;
  for (auto& task : tasks) {
    try {
      task.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

/// The hardware threads (at least 1).
inline uint64_t hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// More threads than this help no CPU engine (each runs compute-bound ranges); beyond it a large
/// --threads only costs thread stacks, or fails to start threads at all.
inline uint64_t max_useful_threads() { return 4 * hardware_threads(); }

/// The threads an engine uses when `requested` were asked for (0 = one per hardware thread):
/// at most max_useful_threads().
inline int capped_threads(int requested) {
  const uint64_t wanted = requested > 0 ? static_cast<uint64_t>(requested) : hardware_threads();
  return static_cast<int>(std::min(wanted, max_useful_threads()));
}

/// Started threads, joined when this goes out of scope on every path (a joinable std::thread
/// destroyed would std::terminate). When the system refuses a new thread, run_or_start runs the
/// work on the calling thread instead: the results do not depend on which thread computes them.
class JoiningThreads {
 public:
  JoiningThreads() = default;
  JoiningThreads(const JoiningThreads&) = delete;
  JoiningThreads& operator=(const JoiningThreads&) = delete;
  ~JoiningThreads() { join(); }

  template <typename Work, typename... Args>
  void run_or_start(const Work& work, Args... args) {
    try {
      threads_.emplace_back(work, args...);
      return;
    } catch (const std::system_error&) {
      // out of threads (EAGAIN): fall through and do this range here
    }
    work(args...);
  }
  void join() {
    for (auto& thread : threads_)
      if (thread.joinable()) thread.join();
  }

 private:
  std::vector<std::thread> threads_;
};

/// Runs work(part, n_parts) for part = 0 … n_parts − 1 on n_parts threads (the caller's among
/// them), n_parts = min(max_parts, hardware threads, at least 1), and waits for all.
template <typename Work>
void run_in_parts(uint64_t max_parts, const Work& work) {
  const auto n_parts = static_cast<int32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(max_parts, std::max(1u, std::thread::hardware_concurrency()))));
  std::vector<std::future<void>> tasks;
  for (int32_t part = 1; part < n_parts; ++part)
    tasks.push_back(std::async(std::launch::async, [&work, part, n_parts] { work(part, n_parts); }));
  std::exception_ptr mine;
  try {
    work(0, n_parts);
  } catch (...) {
    mine = std::current_exception();
  }
  wait_all_then_rethrow(tasks);
  if (mine) std::rethrow_exception(mine);
}

/// Splits [0, count) into `workers` contiguous ranges [count·w/workers, count·(w+1)/workers) and
/// runs work(begin, end) for each on its own thread — the caller's alone when one worker is
/// enough — and waits for all. The split is the engines' (budget, compare): exact per-draw
/// outcomes do not depend on it, only how the work is shared.
template <typename Work>
void run_in_ranges(uint32_t count, uint32_t workers, const Work& work) {
  workers = std::max<uint32_t>(1, std::min<uint32_t>({workers, count, static_cast<uint32_t>(max_useful_threads())}));
  if (workers == 1) {
    work(0u, count);
    return;
  }
  JoiningThreads pool;
  for (uint32_t w = 0; w < workers; ++w)
    pool.run_or_start(work, static_cast<uint32_t>(uint64_t(count) * w / workers),
                      static_cast<uint32_t>(uint64_t(count) * (w + 1) / workers));
  pool.join();
}

/// Runs work(i) for i = 0 … n − 1 on up to max_parts threads (as run_in_parts), each index once,
/// handed out in turn. When some fail it rethrows the failure of the lowest index, so which error
/// a caller sees does not depend on the thread count or on timing.
template <typename Work>
void for_each_index(int64_t n, uint64_t max_parts, const Work& work) {
  std::vector<std::exception_ptr> failures(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::atomic<int64_t> next{0};
  run_in_parts(max_parts, [&](int32_t, int32_t) {
    for (int64_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace judgestat
