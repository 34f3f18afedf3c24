// The input file's format and bytes.
#include "records/input.hpp"

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

std::string read_bytes(const std::string& path) {
  std::string bytes;
  if (path == "-") {
    char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) bytes.append(chunk, got);
    if (std::ferror(stdin)) throw InputError("stdin: read error: " + std::string(std::strerror(errno)));
    return bytes;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  in.seekg(0);
  bytes.resize(static_cast<size_t>(std::max<std::streamoff>(size, 0)));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw InputError(path + ": read error: " + std::strerror(errno));
  }
  return bytes;
}

}  // namespace judgestat::loading
