// The input file: its format by extension, its bytes, and its parse beside its SHA-256.
#pragma once
#include <cstddef>
#include <future>
#include <string>
#include <string_view>

#include "records/fields.hpp"
#include "records/sha256.hpp"

namespace judgestat::loading {

struct MemoryBudget;
class LoadProgress;

enum class Format { kCsv, kJsonl };

/// The most bytes a line of a records file may hold: a longer line (a binary file, /dev/zero on
/// stdin, a file with no line breaks) is refused, naming it, before anything is parsed.
inline constexpr size_t kMaxLineBytes = size_t{16} << 20;

/// The format named by the extension of `path` ("-": CSV on stdin). Throws InputError.
Format format_of(const std::string& path);

/// All bytes of `path` ("-": stdin). A folder, FIFO, device or socket is refused before
/// anything is read: such an input has no size to plan for and may never end. Throws InputError.
std::string read_bytes(const std::string& path);

/// The size of a regular file, 0 for stdin or anything else (for progress).
size_t file_size(const std::string& path);

/// How a records file is read: within a memory budget, telling a progress display.
struct ReadLimits {
  const MemoryBudget* budget = nullptr;  // null: no size check
  LoadProgress* progress = nullptr;      // null: no progress
};

/// The bytes of a records file: as read_bytes, but a file larger than the budget is refused
/// before it is read (stdin as soon as it passes it), and so is a line longer than kMaxLineBytes
/// (stdin as soon as it is read). Throws InputError.
std::string read_records_bytes(const std::string& path, const ReadLimits& limits = {});

/// InputError naming the file, line and column for the first line longer than kMaxLineBytes.
void check_line_lengths(std::string_view text, const std::string& file);

/// The bytes of `path` (read_records_bytes) given to `parse(text, file name)`; the SHA-256 of
/// the bytes, when asked for, is computed beside the parse (neither modifies the bytes).
template <class Parse>
auto parse_file(const std::string& path, std::string* sha256_out, Parse parse, const ReadLimits& limits = {}) {
  const std::string bytes = read_records_bytes(path, limits);
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
