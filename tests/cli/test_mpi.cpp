// The CLI under `mpirun -n 1/2/3` on the CPU backend prints the JSON of the plain run byte for
// byte (minus `timing`), for metrics, budget, cascade and profile; a run whose ranks fail prints no
// result and names a rank. Skipped in builds without MPI (JUDGESTAT_MPIEXEC comes from CMake).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

#ifdef JUDGESTAT_MPIEXEC

namespace {

struct ShellRun {
  int status = -1;
  std::string out, err;
};

// `command` through the shell: exit status, stdout, stderr (via a temporary file).
ShellRun run_shell(const std::string& command) {
  char err_path[] = "/tmp/judgestat_mpi_stderr_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  ShellRun run;
  FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, got);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  run.err = text.str();
  std::remove(err_path);
  return run;
}

// The JSON text without its "timing" member (the last one, docs/statistics.md §4), which holds wall times.
std::string without_timing(const std::string& json) {
  const size_t key = json.find(",\n \"timing\": {");
  if (key == std::string::npos) return json;
  const size_t close = json.find("\n }", key);
  if (close == std::string::npos) return json;
  return json.substr(0, key) + json.substr(close + 3);
}

const std::string kMpiexec = JUDGESTAT_MPIEXEC;

const std::string kData = judgestat::testing_support::kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kCascadeJudges = " --first Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12";

// Runs `judgestat ARGS` plainly and on 1, 2 and 3 ranks; the JSON must agree byte for byte.
void expect_same_json_for_any_rank_count(const std::string& args) {
  // Open MPI refuses to run as root (CI containers) unless told it may.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  const std::string command = judgestat::testing_support::kBinary + " " + args + " --format json --quiet";
  const ShellRun plain = run_shell(command);
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_NE(plain.out.find("\"timing\""), std::string::npos) << plain.out;
  const std::string expected = without_timing(plain.out);
  for (int ranks : {1, 2, 3}) {
    const ShellRun run = run_shell(kMpiexec + " " + std::to_string(ranks) + " " + command);
    ASSERT_EQ(run.status, 0) << ranks << " ranks: " << run.err;
    EXPECT_EQ(without_timing(run.out), expected) << ranks << " ranks";
  }
}

}  // namespace

TEST(Mpi, MetricsJsonIdenticalOnAnyRankCount) {
  expect_same_json_for_any_rank_count("metrics " + kData + " --backend cpu --threads 1 --replicates 2000");
}

TEST(Mpi, BudgetJsonIdenticalOnAnyRankCount) {
  expect_same_json_for_any_rank_count("budget " + kData + kCascadeJudges +
                                      " --k 48 --draws 20000 --backend cpu --threads 1");
}

TEST(Mpi, BudgetPerStratumJsonIdenticalOnAnyRankCount) {
  expect_same_json_for_any_rank_count("budget " + kData + kCascadeJudges +
                                      " --k 48,96 --rule lower --per-stratum --draws 5001 --backend cpu --threads 1");
}

TEST(Mpi, CascadeJsonIdenticalOnAnyRankCount) {
  expect_same_json_for_any_rank_count("cascade " + kData + kCascadeJudges +
                                      " --backend cpu --threads 1 --replicates 2000");
}

TEST(Mpi, ProfileJsonIdenticalOnAnyRankCount) {
  expect_same_json_for_any_rank_count("profile " + kData + " --config " + judgestat::testing_support::kRoot +
                                      "/configs/judgebench.json --backend cpu --threads 1 --replicates 1000");
}

TEST(Mpi, FailingRanksFailTheRunWithoutAResult) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  // Device 99 exists nowhere: every rank fails to open it.
  const ShellRun run = run_shell(kMpiexec + " 2 " + judgestat::testing_support::kBinary + " metrics " + kData +
                                 " --devices 99 --replicates 200 --format json --quiet");
  EXPECT_NE(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "") << "no partial result";
  EXPECT_NE(run.err.find("judgestat: rank "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" of 2: "), std::string::npos) << run.err;
}

#else

TEST(Mpi, NeedsABuildWithMpi) { GTEST_SKIP() << "this build has no MPI (-DJUDGESTAT_MPI=OFF or MPI not found)"; }

#endif
