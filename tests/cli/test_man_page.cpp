// The man page (issue 31 part 3) is help2man's rendering of `judgestat --help` and `--version`
// (CMake target `man`): help2man accepts the help and the page names every command. Skipped,
// saying so, where help2man is not installed (scripts/install-deps.sh installs it).
#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"

using namespace judgestat::testing_support;

TEST(ManPage, Help2manRendersEveryCommand) {
  if (run_shell("command -v help2man >/dev/null 2>&1 && echo yes").out != "yes\n")
    GTEST_SKIP() << "help2man is not installed (apt-get install help2man; scripts/install-deps.sh does)";
  const CliRun page = run_shell("help2man -N --no-discard-stderr " + kBinary + " 2>&1");
  ASSERT_EQ(page.status, 0) << page.out;
  EXPECT_TRUE(contains(page.out, ".TH JUDGESTAT \"1\"")) << page.out;
  for (const char* command : {"run", "metrics", "items", "import", "bench", "budget", "cascade", "profile", "synth",
                              "coverage", "systems", "repeats"})
    EXPECT_TRUE(contains(page.out, std::string("\n") + command + "\n") ||
                contains(page.out, std::string(command) + " "))
        << command;
  EXPECT_TRUE(contains(page.out, "EXIT STATUS") || contains(page.out, "Exit status")) << page.out;
}
