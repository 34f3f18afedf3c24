// docs/*.md match the code (issue 31 part 5): nothing the code does is still described as "not
// implemented" (the `t` and `studentized` intervals once were, in docs/statistics.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

using namespace judgestat::testing_support;

TEST(DocsMatchCode, NothingDescribedAsNotImplemented) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "/docs")) {
    if (entry.path().extension() != ".md") continue;
    ++files;
    const std::string text = read_all(entry.path().string());
    size_t at = text.find("not implemented");
    while (at != std::string::npos) {
      const size_t line_start = text.rfind('\n', at) + 1;
      ADD_FAILURE() << entry.path().filename().string() << ": "
                    << text.substr(line_start, text.find('\n', at) - line_start);
      at = text.find("not implemented", at + 1);
    }
  }
  EXPECT_GT(files, 0);
}
