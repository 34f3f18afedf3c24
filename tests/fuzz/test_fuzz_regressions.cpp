// Every saved fuzzer reproducer (tests/fuzz/regressions/<target>/) and seed (tests/fuzz/seeds/)
// through its target in the ordinary suite: each is accepted or rejected with the project's
// errors, never a crash or another exception (fuzz_targets.hpp). CI's fuzzers
// (scripts/ci-sanitizers.sh) run the same files under ASan+UBSan.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "fuzz/fuzz_targets.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FuzzRegressions, EverySavedInputIsAcceptedOrRejectedClearly) {
  int inputs = 0;
  for (const auto& [name, target] : fuzz::targets()) {
    for (const char* folder : {"regressions", "seeds"}) {
      const fs::path dir = fs::path(testing_support::kRoot) / "tests/fuzz" / folder / name;
      if (!fs::is_directory(dir)) continue;
      for (const auto& entry : fs::directory_iterator(dir)) {
        SCOPED_TRACE(entry.path().string());
        EXPECT_NO_THROW(target(bytes_of(entry.path())));
        ++inputs;
      }
    }
  }
  EXPECT_GE(inputs, 12);  // the reproducers of issue #19 are all there
}

}  // namespace
}  // namespace judgestat
