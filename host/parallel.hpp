// Waiting on host threads that write into one shared output.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <future>
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

/// Runs work(part, n_parts) for part = 0 … n_parts − 1 on n_parts threads (the caller's among
/// them), n_parts = min(max_parts, hardware threads, at least 1), and waits for all.
template <typename Work>
void run_in_parts(uint64_t max_parts, const Work& work) {
  const auto n_parts = static_cast<int32_t>(std::max<uint64_t>(
      1, std::min<uint64_t>(max_parts, std::max(1u, std::thread::hardware_concurrency()))));
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

}  // namespace judgestat
