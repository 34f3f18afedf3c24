// Shared by the test suites: the repository root and running the judgestat CLI.
#pragma once
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace judgestat::testing_support {

inline const std::string kRoot = JUDGESTAT_SOURCE_DIR;
inline const std::string kBinary = JUDGESTAT_BINARY;

struct CliRun {
  int status;       // exit code
  std::string out;  // stdout and stderr together
};

/// Runs `judgestat ARGS` with stderr folded into the captured output.
inline CliRun run_cli(const std::string& args) {
  const std::string command = kBinary + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer{};
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), got);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

}  // namespace judgestat::testing_support
