// The input file's format and bytes.
#include "records/input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "records/memory.hpp"
#include "records/progress.hpp"

namespace judgestat::loading {

Format format_of(const std::string& path) {
  if (path == "-") return Format::kCsv;
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  std::string extension;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    extension = path.substr(dot);
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (extension == ".csv") return Format::kCsv;
  if (extension == ".jsonl" || extension == ".json") return Format::kJsonl;
  throw InputError(path + ": unknown file type" +
                   (extension.empty() ? std::string(" (no extension)") : " '" + extension + "'") +
                   ": expected a .csv, .jsonl or .json file, or - for CSV on stdin; rename the "
                   "file to say its format");
}

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

[[noreturn]] void fail_long_line(const std::string& file, size_t line) {
  throw InputError(file + ":" + std::to_string(line) + ": column " + std::to_string(kMaxLineBytes + 1) +
                   ": the line is longer than 16 MiB, the most a line of records may hold; this is no "
                   "records file, or a field holds a whole document (leave it out of the records)");
}

/// Lines and the length of the last, unfinished one, as a stream is read: refuses an over-long
/// line as soon as it has been read, not at the end of the stream.
struct LineWatch {
  size_t lines = 1;        // the line being read, 1-based
  size_t open_length = 0;  // bytes of it read so far
  void add(const char* at, size_t size, const std::string& file) {
    const char* const end = at + size;
    while (at < end) {
      const char* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      const size_t length = static_cast<size_t>((newline ? newline : end) - at);
      open_length += length;
      if (open_length > kMaxLineBytes) fail_long_line(file, lines);
      if (newline == nullptr) return;
      ++lines;
      open_length = 0;
      at = newline + 1;
    }
  }
};

// Everything stdin has until its end; for records (`records`), within the budget and the line length.
std::string read_stream(std::FILE* stream, const std::string& name, const ReadLimits& limits, bool records) {
  std::string bytes;
  std::string chunk(kChunkBytes, '\0');
  LineWatch watch;
  size_t got;
  while ((got = std::fread(chunk.data(), 1, chunk.size(), stream)) > 0) {
    if (records) watch.add(chunk.data(), got, name);
    bytes.append(chunk.data(), got);
    if (limits.budget != nullptr) {
      check_memory(name, static_cast<double>(bytes.size()),
                   "the " + gigabytes(static_cast<double>(bytes.size())) + " read so far, before parsing",
                   *limits.budget);
    }
    if (limits.progress != nullptr) limits.progress->read(bytes.size());
  }
  if (std::ferror(stream)) throw InputError(name + ": read error: " + std::string(std::strerror(errno)));
  return bytes;
}

/// What a non-regular file is, for the message that refuses it.
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (FIFO) or pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// stat of a regular file; InputError for anything else.
struct stat regular_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputError(path + ": is a folder; give the path of a file in it");
  if (!S_ISREG(info.st_mode)) {
    throw InputError(path + ": is " + kind_of(info.st_mode) +
                     ", not a regular file: judgestat plans a load from the file's size before reading it, "
                     "and such an input has none and may never end; save the data to a file first (records "
                     "may also be piped to - for stdin)");
  }
  return info;
}

std::string read_regular(const std::string& path, size_t size, LoadProgress* progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::string bytes(size, '\0');
  // In chunks, to show progress on a large file.
  for (size_t done = 0; done < size;) {
    const size_t step = std::min(size - done, 64 * kChunkBytes);
    if (!in.read(bytes.data() + done, static_cast<std::streamsize>(step))) {
      throw InputError(path + ": read error: " + std::strerror(errno));
    }
    done += step;
    if (progress != nullptr) progress->read(done);
  }
  return bytes;
}

}  // namespace

size_t file_size(const std::string& path) {
  struct stat info {};
  if (path == "-" || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return 0;
  return static_cast<size_t>(info.st_size);
}

std::string read_bytes(const std::string& path) {
  if (path == "-") return read_stream(stdin, "stdin", {}, false);
  return read_regular(path, static_cast<size_t>(regular_file(path).st_size), nullptr);
}

std::string read_records_bytes(const std::string& path, const ReadLimits& limits) {
  if (path == "-") return read_stream(stdin, "stdin", limits, true);
  const auto size = static_cast<size_t>(regular_file(path).st_size);
  if (limits.budget != nullptr) {
    check_memory(path, static_cast<double>(size), "the file alone, before parsing", *limits.budget);
  }
  std::string bytes = read_regular(path, size, limits.progress);
  check_line_lengths(bytes, path);
  return bytes;
}

void check_line_lengths(std::string_view text, const std::string& file) {
  LineWatch watch;
  watch.add(text.data(), text.size(), file);
}

}  // namespace judgestat::loading
