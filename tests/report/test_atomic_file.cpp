// Issue #19 part 5: outputs are whole or absent. A file is written beside its target and
// renamed over it; a run that fails before commit leaves the old file and no temporary file; an
// unwritable path fails when checked, before any work.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report/atomic_file.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;
namespace fs = std::filesystem;

using testing_support::test_dir;

using testing_support::read_all;

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.is_regular_file();
  return n;
}

TEST(AtomicFile, CommitReplacesTheWholeFile) {
  const std::string dir = test_dir(), path = dir + "/out.json";
  std::ofstream(path) << "old contents, longer than the new ones";
  write_file(path, "new");
  EXPECT_EQ(read_all(path), "new");
  EXPECT_EQ(files_in(dir), 1u);  // no temporary file left
}

TEST(AtomicFile, FailureBeforeCommitKeepsTheOldFileAndLeavesNoTemporary) {
  const std::string dir = test_dir(), path = dir + "/replicates.csv";
  std::ofstream(path) << "previous result";
  try {
    AtomicFile file(path, "--save-replicates");
    file.write("half of a new ");
    throw std::runtime_error("the run fails (a full disk, an interrupt)");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_all(path), "previous result");
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(AtomicFile, InterruptWhileWritingLeavesTheOldFileAndNoTemporary) {
  const std::string dir = test_dir(), path = dir + "/replicates.csv";
  std::ofstream(path) << "previous result";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the run being interrupted half-way through its output
    AtomicFile file(path, "--save-replicates");
    file.write("half of a new ");
    std::raise(SIGINT);
    std::_Exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  EXPECT_EQ(read_all(path), "previous result");
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(AtomicFile, StreamedPiecesArriveInOrder) {
  const std::string dir = test_dir(), path = dir + "/r.csv";
  AtomicFile file(path);
  for (int k = 0; k < 1000; ++k) file.write(std::to_string(k) + "\n");
  EXPECT_FALSE(fs::exists(path));  // nothing visible before commit
  file.commit();
  std::string expected;
  for (int k = 0; k < 1000; ++k) expected += std::to_string(k) + "\n";
  EXPECT_EQ(read_all(path), expected);
}

TEST(AtomicFile, KeepsTheModeOfTheFileItReplaces) {
  const std::string dir = test_dir(), path = dir + "/shared.json";
  std::ofstream(path) << "x";
  ::chmod(path.c_str(), 0640);
  write_file(path, "y");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
}

TEST(AtomicFile, DevicesAreWrittenInPlaceAndLinksKeepPointing) {
  write_file("/dev/null", "discarded");
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));  // still the device, not a file renamed over it
  EXPECT_NO_THROW(check_writable("/dev/null", "--json"));

  const std::string dir = test_dir(), target = dir + "/real.json", link = dir + "/link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  write_file(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_all(target), "new");
}

TEST(AtomicFile, UnwritablePathsFailWhenChecked) {
  const std::string dir = test_dir();
  EXPECT_EQ(thrown_message<std::runtime_error>([] { check_writable("/proc/x/y", "--json"); }),
            "--json: cannot write '/proc/x/y': folder '/proc/x' does not exist; create it or give another path");
  EXPECT_EQ(thrown_message<std::runtime_error>([&] { check_writable(dir, "--out"); }),
            "--out: cannot write '" + dir + "': it is a folder; give a file path");
  EXPECT_NO_THROW(check_writable(dir + "/new.json", "--json"));
  EXPECT_NO_THROW(check_writable("-", "--json"));
  EXPECT_EQ(files_in(dir), 0u);  // the check leaves nothing behind
}

TEST(AtomicFile, PlotFoldersAreCheckedAtTheirNearestExistingParent) {
  const std::string dir = test_dir();
  EXPECT_NO_THROW(check_writable_dir(dir + "/plots/sub", "--plots"));
  EXPECT_FALSE(fs::exists(dir + "/plots"));  // checked, not created
  std::ofstream(dir + "/file") << "x";
  EXPECT_EQ(thrown_message<std::runtime_error>([&] { check_writable_dir(dir + "/file/plots", "--plots"); }),
            "--plots: cannot write '" + dir + "/file/plots': '" + dir + "/file' is not a folder; give a folder path");
}

}  // namespace
}  // namespace judgestat
