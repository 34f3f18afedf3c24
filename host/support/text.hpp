// Small text helpers every room shares (one copy each).
#pragma once
#include <string>
#include <vector>

namespace judgestat {

/// names[0] + separator + names[1] + …
inline std::string join(const std::vector<std::string>& names, const char* separator = ", ") {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined += separator;
    joined += names[i];
  }
  return joined;
}

}  // namespace judgestat
