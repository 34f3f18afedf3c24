// Shared by the test suites: the repository root, running the judgestat CLI, temp files.
#pragma once
#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "judgestat/exec_target.hpp"

/// Skips a CUDA test, visibly, where no device is usable (cuda_available() from backend.hpp).
#define REQUIRE_CUDA()                                                                                   \
  do {                                                                                                   \
    std::string why_unavailable;                                                                         \
    if (!cuda_available(&why_unavailable)) GTEST_SKIP() << "no usable CUDA device: " << why_unavailable; \
  } while (0)

namespace judgestat::testing_support {

/// The message of the `Error` that call() throws; a test failure and "" when it throws none.
template <typename Error = std::exception, typename Call>
std::string thrown_message(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

/// The CPU backend on `threads` threads.
inline ExecTarget cpu_target(int threads) {
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = threads;
  return target;
}

// Built-in paths, overridable so a test binary built here can run in another checkout (the
// lent GPU machine: bench/gpu_session.sh sets both).
inline std::string env_or(const char* name, const char* built_in) {
  const char* value = std::getenv(name);
  return value && *value ? value : built_in;
}
// Defined in tests/test_paths.cpp, the one source compiled with the build's paths, so that every
// other test object is the same in any build folder (ccache shares them).
extern const char* const kBuiltInSourceDir;
extern const char* const kBuiltInBinary;
inline const std::string kRoot = env_or("JUDGESTAT_TEST_ROOT", kBuiltInSourceDir);
inline const std::string kBinary = env_or("JUDGESTAT_TEST_BINARY", kBuiltInBinary);

struct CliRun {
  int status;       // exit code
  std::string out;  // stdout and stderr together
};

/// Runs a shell command line and captures its stdout (stderr goes where the line routes it).
inline CliRun run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer{};
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), got);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

/// Runs `judgestat ARGS` with stderr folded into the captured output.
inline CliRun run_cli(const std::string& args) { return run_shell(kBinary + " " + args + " 2>&1"); }

/// A path of the running test's own under the test temp dir (named after the test, so parallel
/// tests never share one).
inline std::string temp_path(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "judgestat_" + test->test_suite_name() + "_" + test->name() + "_" + name;
}

/// Writes `text` (bytes as given) to temp_path(name) and returns that path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// Whether `text` holds `part`.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A fresh, empty folder of the running test's own under the test temp dir.
inline std::string test_dir() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "judgestat_" + test->test_suite_name() + "_" + test->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The file's bytes ("" when it cannot be read).
inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace judgestat::testing_support
