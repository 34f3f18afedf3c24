// A bound on JSON nesting, checked on the text before a document is built: nlohmann's
// documents copy, compare and dump recursively, so a file nested tens of thousands deep would
// overflow the stack. Real inputs (records, configs, benchmark outputs) nest a few levels.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace judgestat {

constexpr int kMaxJsonDepth = 256;

/// Throws InputError "<file>:<line>: column <c>: JSON nested deeper than <limit> levels …" when an
/// array or object in `text` opens below `limit` enclosing ones. `first_line` is the line number
/// of the text's first line (for one line of a JSONL file). Strings are skipped, so brackets
/// inside them do not count.
void check_json_depth(std::string_view text, const std::string& file, int64_t first_line = 1,
                      int limit = kMaxJsonDepth);

}  // namespace judgestat
