#include "records/json_depth.hpp"

#include "judgestat/records.hpp"

namespace judgestat {

void check_json_depth(std::string_view text, const std::string& file, int64_t first_line, int limit) {
  int depth = 0;
  int64_t line = first_line;
  size_t line_start = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        throw InputError(file + ":" + std::to_string(line) + ": column " + std::to_string(i - line_start + 1) +
                         ": JSON nested deeper than " + std::to_string(limit) +
                         " levels of arrays and objects; judgestat reads at most that depth, so flatten the "
                         "structure");
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
}

}  // namespace judgestat
