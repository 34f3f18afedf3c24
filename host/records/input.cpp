// The input file's format and bytes.
#include "records/input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

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

// Everything `stream` has until its end: stdin, a pipe, a FIFO, a character device.
std::string read_stream(std::FILE* stream, const std::string& name) {
  std::string bytes;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, stream)) > 0) bytes.append(chunk, got);
  if (std::ferror(stream)) throw InputError(name + ": read error: " + std::string(std::strerror(errno)));
  return bytes;
}

}  // namespace

std::string read_bytes(const std::string& path) {
  if (path == "-") return read_stream(stdin, "stdin");
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputError(path + ": is a folder; give the path of a file in it");
  if (!S_ISREG(info.st_mode)) {  // a pipe or FIFO has no size to read up front: read it like stdin
    std::FILE* stream = std::fopen(path.c_str(), "rb");
    if (stream == nullptr) throw InputError(path + ": cannot open: " + std::strerror(errno));
    std::string bytes;
    try {
      bytes = read_stream(stream, path);
    } catch (...) {
      std::fclose(stream);
      throw;
    }
    std::fclose(stream);
    return bytes;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw InputError(path + ": read error: " + std::strerror(errno));
  }
  return bytes;
}

}  // namespace judgestat::loading
