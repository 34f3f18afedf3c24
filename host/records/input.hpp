// The input file: its format by extension, its bytes, and its parse beside its SHA-256.
#pragma once
#include <future>
#include <string>
#include <string_view>

#include "records/fields.hpp"
#include "records/sha256.hpp"

namespace judgestat::loading {

enum class Format { kCsv, kJsonl };

/// The format named by the extension of `path` ("-": CSV on stdin). Throws InputError.
Format format_of(const std::string& path);

/// All bytes of `path` ("-": stdin). Throws InputError.
std::string read_bytes(const std::string& path);

/// The bytes of `path` given to `parse(text, file name)`; the SHA-256 of the bytes, when asked
/// for, is computed beside the parse (neither modifies the bytes).
template <class Parse>
auto parse_file(const std::string& path, std::string* sha256_out, Parse parse) {
  const std::string bytes = read_bytes(path);
  // The future's destructor waits for the digest also when parsing throws.
  std::future<std::string> digest;
  if (sha256_out != nullptr) {
    digest = std::async(std::launch::async, [&bytes] { return sha256_hex(bytes); });
  }
  auto parsed = parse(std::string_view(bytes), display_name(path));
  if (sha256_out != nullptr) *sha256_out = digest.get();
  return parsed;
}

}  // namespace judgestat::loading
