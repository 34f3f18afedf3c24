// Waiting on host threads that write into one shared output.
#pragma once
#include <exception>
#include <future>
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

}  // namespace judgestat
