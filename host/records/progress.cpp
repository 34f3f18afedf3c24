// Loading progress on a terminal.
#include "records/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace judgestat::loading {
namespace {
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

LoadProgress::LoadProgress(std::string file, size_t total_bytes, bool wanted)
    : file_(std::move(file)), total_(total_bytes), enabled_(wanted && ::isatty(STDERR_FILENO) == 1), start_(now_s()) {}

LoadProgress::~LoadProgress() {
  if (shown_) std::fprintf(stderr, "\r\033[K");  // clears the line: the command's own output follows
}

void LoadProgress::show(const char* step, size_t bytes) {
  if (!enabled_) return;
  const double now = now_s();
  if (now - start_ < 1.0 || now - last_ < 0.5) return;
  last_ = now;
  shown_ = true;
  if (total_ > 0) {
    std::fprintf(stderr, "\rloading %s: %s %.0f%% of %.0f MB   ", file_.c_str(), step, 100.0 * bytes / total_,
                 total_ / 1e6);
  } else {
    std::fprintf(stderr, "\rloading %s: %s %.0f MB   ", file_.c_str(), step, bytes / 1e6);
  }
  std::fflush(stderr);
}

}  // namespace judgestat::loading
