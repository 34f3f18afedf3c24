// Loading progress on stderr for a large file: "loading FILE: parsing 42% of 283 MB".
#pragma once
#include <cstddef>
#include <string>

namespace judgestat::loading {

/// Shows how far a load is, at most twice a second and only once it has taken a second, on
/// stderr when `wanted` (LoadOptions::progress) and stderr is a terminal; the line is cleared
/// when the load ends, so nothing of it stays in the terminal or reaches a redirected stderr.
class LoadProgress {
 public:
  LoadProgress(std::string file, size_t total_bytes, bool wanted);
  ~LoadProgress();
  LoadProgress(const LoadProgress&) = delete;
  LoadProgress& operator=(const LoadProgress&) = delete;

  void read(size_t bytes) { show("reading", bytes); }
  void parsed(size_t bytes) { show("parsing", bytes); }

 private:
  void show(const char* step, size_t bytes);

  std::string file_;
  size_t total_;
  bool shown_ = false, enabled_;
  double start_, last_ = 0;
};

}  // namespace judgestat::loading
