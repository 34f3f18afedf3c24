// Whole-or-absent output files: temporary file beside the target, fsync, rename.
#include "report/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <utility>

namespace judgestat {
namespace {

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

[[noreturn]] void cannot_write(const std::string& flag, const std::string& path, const std::string& why) {
  throw std::runtime_error((flag.empty() ? "" : flag + ": ") + "cannot write '" + path + "': " + why);
}

// Why `path` cannot be replaced, or "" when it can as far as stat tells.
std::string unwritable_reason(const std::string& path, struct stat* existing, bool* exists) {
  *exists = ::stat(path.c_str(), existing) == 0;
  if (*exists && S_ISDIR(existing->st_mode)) return "it is a folder; give a file path";
  if (*exists && ::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
  struct stat folder {};
  const std::string parent = parent_of(path);
  if (::stat(parent.c_str(), &folder) != 0)
    return "folder '" + parent + "' does not exist; create it or give another path";
  if (!S_ISDIR(folder.st_mode)) return "'" + parent + "' is not a folder";
  return "";
}

// mkstemp beside `path`; -1 with errno on failure.
int make_temp(const std::string& path, std::string& temp) {
  temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) temp.clear();
  return fd;
}

// Temporary files in the making, removed by SIGINT/SIGTERM before the signal ends the process
// (destructors do not run then): an interrupted run leaves neither a partial output nor a
// temporary file. Slots hold the temporary paths' c_str(), stable while a file is open.
constexpr int kSlots = 32;
std::atomic<const char*> g_temp_files[kSlots];

extern "C" void remove_temp_files_and_reraise(int signal_number) {
  for (auto& slot : g_temp_files)
    if (const char* temp = slot.load()) ::unlink(temp);  // async-signal-safe
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_cleanup() {
  static const bool installed = [] {
    for (int signal_number : {SIGINT, SIGTERM}) {
      const auto previous = std::signal(signal_number, remove_temp_files_and_reraise);
      if (previous != SIG_DFL && previous != SIG_ERR) std::signal(signal_number, previous);  // someone else's
    }
    return true;
  }();
  (void)installed;
}

// Flushes std::cout and C's stdout; "" when everything written so far arrived, else why not.
std::string stdout_flush_error() {
  errno = 0;
  std::cout.flush();
  int why = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (why == 0) why = errno;
  if (flushed && std::cout && !std::ferror(stdout)) return "";
  return why != 0 ? std::strerror(why) : "stdout is closed or full";
}

void register_temp(const std::string& temp) {
  install_signal_cleanup();
  for (auto& slot : g_temp_files) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, temp.c_str())) return;
  }
}

void unregister_temp(const std::string& temp) {
  for (auto& slot : g_temp_files) {
    const char* mine = temp.c_str();
    if (slot.compare_exchange_strong(mine, nullptr)) return;
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path, std::string flag) : path_(std::move(path)), flag_(std::move(flag)) {
  if (path_ == "-") {
    to_stdout_ = true;
    return;
  }
  // A symbolic link keeps pointing where it did: the file it names is the one replaced.
  target_ = path_;
  struct stat link {};
  if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char* resolved = ::realpath(path_.c_str(), nullptr);
    if (resolved != nullptr) {
      target_ = resolved;
      std::free(resolved);
    }
  }
  struct stat existing {};
  bool exists = false;
  const std::string why = unwritable_reason(target_, &existing, &exists);
  if (!why.empty()) fail(why);
  if (exists && !S_ISREG(existing.st_mode)) {
    // /dev/null, /dev/stdout, a FIFO: written in place (renaming over a device would replace it).
    fd_ = ::open(path_.c_str(), O_WRONLY | O_TRUNC);
    if (fd_ < 0) fail(std::strerror(errno));
    return;
  }
  fd_ = make_temp(target_, temp_);
  if (fd_ < 0) fail(std::strerror(errno));
  register_temp(temp_);
  // mkstemp makes the file private (0600); give it the mode a plain write would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, exists ? existing.st_mode & 07777 : 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) {
    unregister_temp(temp_);
    std::remove(temp_.c_str());
  }
}

void AtomicFile::fail(const std::string& why) const { cannot_write(flag_, path_, why); }

void AtomicFile::write(std::string_view text) {
  if (to_stdout_) {
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
    return;
  }
  if (fd_ < 0) fail("already committed");
  for (size_t done = 0; done < text.size();) {
    const ssize_t wrote = ::write(fd_, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) fail(wrote < 0 ? std::strerror(errno) : "nothing written");
    done += static_cast<size_t>(wrote);
  }
}

void AtomicFile::commit() {
  if (to_stdout_) {
    const std::string why = stdout_flush_error();
    if (!why.empty()) fail(why);
    return;
  }
  if (fd_ < 0) fail("already committed");
  // A full disk shows here at the latest; the old file is still untouched.
  if (::fsync(fd_) != 0 && errno != EINVAL) fail(std::strerror(errno));
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail(std::strerror(errno));
  if (temp_.empty()) return;  // written in place
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail(std::strerror(errno));
  unregister_temp(temp_);
  temp_.clear();
  // The rename itself is durable once the folder is synced (best effort).
  const int folder = ::open(parent_of(target_).c_str(), O_RDONLY | O_DIRECTORY);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

void flush_stdout() {
  const std::string why = stdout_flush_error();
  if (!why.empty()) throw std::runtime_error("cannot write to stdout: " + why);
}

void check_writable(const std::string& path, const std::string& flag) {
  if (path.empty() || path == "-") return;
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) {
    // A device or FIFO is written in place; opening a FIFO here would wait for its reader.
    if (::access(path.c_str(), W_OK) != 0) cannot_write(flag, path, std::strerror(errno));
    return;
  }
  AtomicFile probe(path, flag);  // creates the temporary file and removes it again
}

void check_writable_dir(const std::string& dir, const std::string& flag) {
  if (dir.empty()) return;
  std::string existing = dir;
  struct stat info {};
  while (::stat(existing.c_str(), &info) != 0) {
    const std::string parent = parent_of(existing);
    if (parent == existing) break;
    existing = parent;
  }
  if (!S_ISDIR(info.st_mode)) cannot_write(flag, dir, "'" + existing + "' is not a folder; give a folder path");
  std::string temp;
  const int fd = make_temp(existing + "/.judgestat-check", temp);
  if (fd < 0)
    cannot_write(flag, dir, std::string("cannot create files in '") + existing + "': " + std::strerror(errno));
  ::close(fd);
  std::remove(temp.c_str());
}

}  // namespace judgestat
