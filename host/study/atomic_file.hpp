// Files a study writes, each replaced whole: a temporary file in the target's folder is written,
// flushed and renamed over the target, so a reader (or a run interrupted midway) sees the old
// file or the new one, never part of one.
#pragma once
#include <string>

namespace judgestat::study {

/// Writes `text` to `path` atomically (creating the folder); std::runtime_error naming the path
/// on failure, leaving no temporary file behind.
void write_file_atomic(const std::string& path, const std::string& text);

/// The file's bytes; std::runtime_error naming the path when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace judgestat::study
