// The study folder's rare branches (issue 26, docs/study.md "The folder"), driven for real through
// study::detail::folder_hooks(): a failure while the user's files are carried back after the swap,
// a DIR that is a mount point or holds the working directory (committed in place, file by file),
// and a DIR replaced between open and flock (the lock re-check tries again).
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "study/study_folder.hpp"
#include "study/study_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;
using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::run_into;
using study_testing::tree;
using study_testing::write_all;
using testing_support::kRoot;

// Clears the hooks however a test ends, so that no other test meets them.
struct HooksReset {
  ~HooksReset() { study::detail::folder_hooks() = {}; }
};

// metrics ("acc") and items ("disagree") over one input, or "acc" alone; `seed` changes every output.
std::string write_study(const std::string& dir, const std::string& name, bool with_items, int seed) {
  if (!fs::exists(dir + "/jb.csv")) write_all(dir + "/jb.csv", read_all(kRoot + "/data/judgebench/gpt4o_split.csv"));
  const std::string items =
      with_items ? R"(, {"name": "disagree", "analysis": "items", "input": "jb", "disagree": true})" : "";
  write_all(dir + "/" + name, R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2, "seed": )" +
                                  std::to_string(seed) + R"(}, "inputs": {"jb": "jb.csv"}, "analyses": [
      {"name": "acc", "analysis": "metrics", "input": "jb", "judges": ["o1-mini-2024-09-12"]})" +
                                  items + "]}");
  return dir + "/" + name;
}

// The names in `dir` that start with `prefix`.
std::vector<std::string> named_like(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) names.push_back(entry.path().string());
  return names;
}

ino_t inode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_ino;
}

// DIR holds one complete run of `analyses` with `seed`: results.json names them, every file the
// manifest lists is there, each analysis has its tables, and no stage is left inside.
void expect_one_complete_run(const std::string& out, const std::vector<std::string>& analyses, int seed) {
  const Json results = Json::parse(read_all(out + "/results.json"));
  ASSERT_EQ(results["analyses"].size(), analyses.size());
  for (size_t a = 0; a < analyses.size(); ++a) {
    EXPECT_EQ(results["analyses"][a]["name"], analyses[a]);
    EXPECT_TRUE(fs::is_regular_file(out + "/" + analyses[a] + "/tables.csv")) << analyses[a];
  }
  EXPECT_EQ(results["study"]["settings"]["seed"], seed);
  const Json manifest = Json::parse(read_all(out + "/" + study::kManifestName));
  for (const Json& file : manifest["files"])
    EXPECT_TRUE(fs::is_regular_file(out + "/" + file.get<std::string>())) << file;
  EXPECT_TRUE(named_like(out, ".judgestat-stage").empty());
}

// D1: the swap succeeded, then carrying the user's files back into the new DIR stops half-way.
TEST(StudyFolderBranches, AFailureCarryingFilesBackLeavesTheNewRunAndTheNextRunGivesTheRestBack) {
  const HooksReset reset;
  const std::string dir = fresh_dir("carry_back");
  const std::string out = dir + "/out";
  run_into(write_study(dir, "first.json", true, 1), out);
  write_all(out + "/a-mine.txt", "mine a");
  write_all(out + "/b-mine.txt", "mine b");
  int carried = 0;
  study::detail::folder_hooks().before_carry_back = [&](const std::string&) {
    if (++carried == 2) throw std::runtime_error("disk gone");
  };
  const std::string second = write_study(dir, "second.json", true, 9);
  std::string message;
  try {
    run_into(second, out);
  } catch (const std::runtime_error& failure) {
    message = failure.what();
  }
  study::detail::folder_hooks() = {};
  EXPECT_EQ(carried, 2);
  const std::string canonical = fs::canonical(out).string();
  EXPECT_NE(message.find("--out: the new run is complete in " + canonical +
                         ", but carrying your files back stopped (disk gone); those not yet back are in "),
            std::string::npos)
      << message;
  // DIR is the new run, whole; one user file is back, the other waits in the previous folder beside it.
  expect_one_complete_run(out, {"acc", "disagree"}, 9);
  const std::vector<std::string> previous = named_like(dir, ".judgestat-stage-");
  ASSERT_EQ(previous.size(), 1u);
  EXPECT_NE(message.find(previous[0] + ", and the next run into " + canonical + " gives them back"), std::string::npos)
      << message;
  EXPECT_EQ(fs::exists(out + "/a-mine.txt") + fs::exists(out + "/b-mine.txt"), 1);
  EXPECT_EQ(fs::exists(previous[0] + "/a-mine.txt") + fs::exists(previous[0] + "/b-mine.txt"), 1);
  // The next run (which drops "disagree") finds it, gives the file back and removes the rest of
  // the previous run: the previous folder's manifest stays until everything else is carried back,
  // so none of the old run's outputs is taken for a file of the user's.
  EXPECT_EQ(run_into(write_study(dir, "third.json", false, 9), out).reused.size(), 1u);
  EXPECT_EQ(read_all(out + "/a-mine.txt"), "mine a");
  EXPECT_EQ(read_all(out + "/b-mine.txt"), "mine b");
  EXPECT_TRUE(named_like(dir, ".judgestat-stage-").empty());
  EXPECT_TRUE(named_like(out, "kept-by-judgestat").empty());
  EXPECT_FALSE(fs::exists(out + "/disagree"));
  expect_one_complete_run(out, {"acc"}, 9);
}

// D4: a DIR that cannot be exchanged is staged inside itself and committed file by file; it stays
// the same folder (inode), where an exchange would give DIR the stage's inode.
TEST(StudyFolderBranches, AMountPointIsCommittedInPlaceFileByFile) {
  const HooksReset reset;
  const std::string dir = fresh_dir("mount_point");
  const std::string out = dir + "/out";
  run_into(write_study(dir, "both.json", true, 1), out);
  write_all(out + "/mine.txt", "mine");
  const std::string canonical = fs::canonical(out).string();
  const ino_t before = inode_of(out);
  std::vector<std::string> asked;
  study::detail::folder_hooks().is_mount_point = [&](const std::string& folder) {
    asked.push_back(folder);
    return folder == canonical;
  };
  std::string stage;
  run_into(write_study(dir, "acc_only.json", false, 3), out, false, [&](const std::string& s) { stage = s; });
  EXPECT_EQ(asked, std::vector<std::string>{canonical});
  EXPECT_EQ(stage.rfind(canonical + "/.judgestat-stage-", 0), 0u) << stage;
  EXPECT_EQ(inode_of(out), before);
  EXPECT_EQ(read_all(out + "/mine.txt"), "mine");
  EXPECT_FALSE(fs::exists(out + "/disagree"));  // the removed analysis's files went
  expect_one_complete_run(out, {"acc"}, 3);
  EXPECT_EQ(std::distance(fs::directory_iterator(out + "/cache"), fs::directory_iterator()), 1);
  // The control: without the hook the same folder is exchanged (a new inode), the user's file carried over.
  study::detail::folder_hooks() = {};
  run_into(write_study(dir, "both.json", true, 1), out);
  EXPECT_NE(inode_of(out), before);
  EXPECT_EQ(read_all(out + "/mine.txt"), "mine");
  expect_one_complete_run(out, {"acc", "disagree"}, 1);
}

// D4 without a hook: the working directory in a folder of the user's inside DIR.
TEST(StudyFolderBranches, AWorkingDirectoryDeepInsideTheFolderCommitsInPlace) {
  const std::string dir = fresh_dir("cwd_inside");
  const std::string out = dir + "/out";
  run_into(write_study(dir, "both.json", true, 1), out);
  fs::create_directories(out + "/mine/deeper");
  write_all(out + "/mine/deeper/notes.txt", "notes");
  const ino_t before = inode_of(out);
  const std::string acc_only = write_study(dir, "acc_only.json", false, 3);
  const fs::path cwd = fs::current_path();
  fs::current_path(out + "/mine/deeper");
  std::string error, stage;
  try {
    run_into(acc_only, out, false, [&](const std::string& s) { stage = s; });
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(error, "");
  EXPECT_EQ(stage.rfind(fs::canonical(out).string() + "/.judgestat-stage-", 0), 0u) << stage;
  EXPECT_EQ(inode_of(out), before);
  EXPECT_EQ(read_all(out + "/mine/deeper/notes.txt"), "notes");
  EXPECT_FALSE(fs::exists(out + "/disagree"));
  expect_one_complete_run(out, {"acc"}, 3);
}

// D8: another run exchanged DIR between this run's open and flock; the lock taken is the old
// folder's, so the re-check opens the path again and locks the folder that now has the name.
TEST(StudyFolderBranches, AFolderReplacedBetweenOpenAndLockIsLockedAgainUnderItsName) {
  const HooksReset reset;
  const std::string dir = fresh_dir("relock");
  const std::string out = dir + "/out", replacement = dir + "/replacement", moved = dir + "/moved";
  run_into(write_study(dir, "both.json", true, 1), out);
  fs::copy(out, replacement, fs::copy_options::recursive);
  write_all(replacement + "/theirs.txt", "in the replacing folder");
  const std::string canonical = fs::canonical(out).string();
  int opened = 0;
  study::detail::folder_hooks().between_open_and_lock = [&](const std::string& folder) {
    if (folder != canonical || ++opened != 1) return;
    fs::rename(out, moved);
    fs::rename(replacement, out);
  };
  const auto moved_before = tree(out);
  run_into(write_study(dir, "acc_only.json", false, 3), out);
  EXPECT_EQ(opened, 2);                  // the first lock was on the folder moved away: tried again
  EXPECT_EQ(tree(moved), moved_before);  // the run wrote nothing into the folder it did not hold
  EXPECT_EQ(read_all(out + "/theirs.txt"), "in the replacing folder");
  expect_one_complete_run(out, {"acc"}, 3);
}

// D8's end: a folder that is replaced at every attempt is refused, naming it, and nothing is written.
TEST(StudyFolderBranches, AFolderReplacedAtEveryLockAttemptIsRefused) {
  const HooksReset reset;
  const std::string dir = fresh_dir("relock_forever");
  const std::string out = dir + "/out", other = dir + "/other", aside = dir + "/aside";
  fs::create_directories(out);
  fs::create_directories(other);
  int opened = 0;
  study::detail::folder_hooks().between_open_and_lock = [&](const std::string&) {
    ++opened;
    fs::rename(out, aside);
    fs::rename(other, out);
    fs::rename(aside, other);
  };
  const std::string canonical = fs::canonical(out).string();
  const std::string message = testing_support::thrown_message<std::runtime_error>(
      [&] { study::StudyFolder folder(out, false, [](const std::string&) {}); });
  EXPECT_EQ(message, "--out: '" + canonical + "' keeps being replaced while it is locked");
  EXPECT_EQ(opened, 100);
  EXPECT_TRUE(fs::is_empty(out));
  EXPECT_TRUE(fs::is_empty(other));
}

}  // namespace
}  // namespace judgestat
