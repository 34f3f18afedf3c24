// Output files that are whole or absent: written to a temporary file in the target's directory,
// flushed to disk and renamed over the target, so that readers (and a later run) see the old
// file or the complete new one, never a truncated one.
#pragma once
#include <string>
#include <string_view>

namespace judgestat {

/// One output file in the making. The constructor creates `<path>.tmp-XXXXXX` beside `path`
/// (so an unwritable path fails before anything is computed); write() appends; commit() flushes,
/// fsyncs and renames it over `path`. Destroyed uncommitted (an error, an exception), it removes
/// the temporary file and leaves `path` as it was; SIGINT and SIGTERM remove it too (a handler
/// installed with the first AtomicFile, unless the program has its own). A process killed
/// outright (SIGKILL, power loss) can leave a `.tmp-XXXXXX` file behind, never a partial `path`.
/// `path` "-" writes to stdout directly (commit flushes); an existing non-regular file (/dev/null,
/// a FIFO) is written in place; a symbolic link's target is the file replaced. Errors are std::runtime_error
/// "<flag>: cannot write '<path>': <reason>" (flag omitted when empty).
class AtomicFile {
 public:
  explicit AtomicFile(std::string path, std::string flag = "");
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void write(std::string_view text);
  void commit();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& why) const;
  std::string path_, flag_, temp_;
  std::string target_;  // path_, or the file a symbolic link path_ points to
  int fd_ = -1;
  bool to_stdout_ = false;
};

/// Fails now (std::runtime_error as AtomicFile's) when `path` could not be written later: a
/// folder, a read-only file, or a directory where no file can be created. Creates and removes a
/// temporary file beside `path`; "" and "-" pass.
void check_writable(const std::string& path, const std::string& flag = "");

/// The same for a directory that files will be written into (--plots DIR): DIR, or the nearest
/// existing folder above it (where DIR would be created), must take a new file.
void check_writable_dir(const std::string& dir, const std::string& flag = "");

/// Flushes what was written to stdout (std::cout and C stdio alike) and checks it arrived: a
/// full disk (`> /dev/full`), a closed stdout or a broken pipe throws std::runtime_error
/// "cannot write to stdout: <reason>" (exit 1: the result was computed but not delivered).
void flush_stdout();

}  // namespace judgestat
