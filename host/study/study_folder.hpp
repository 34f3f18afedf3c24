// The folder a study runs into (docs/study.md, "The folder"): which of its files are the tool's
// (DIR/.judgestat-study.json lists every file a run wrote; cache entries go by their own naming),
// a lock so that one run writes it at a time, and the swap that puts a complete new run in
// place of the old one, so that DIR holds one whole run at every moment.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace judgestat::study {

/// The manifest's file name in DIR.
inline constexpr const char* kManifestName = ".judgestat-study.json";

/// The files of DIR a run wrote, as relative paths ('/'-separated).
struct Manifest {
  std::set<std::string> files;
  /// Whether `path` (relative to DIR) is the tool's: listed, the manifest itself, a cache entry by
  /// its naming (cache/<64 hex>.json) or the temporary file of one of these.
  bool is_tool_file(const std::string& path) const;
  /// Whether `path` is a folder the tool made: cache, or one that holds a listed file.
  bool is_tool_folder(const std::string& path) const;
};

class StudyFolder {
 public:
  /// Opens DIR for a run: creates it when missing, locks it (UsageError when another run holds
  /// the lock), finishes what an interrupted run left beside it, and reads which files are the
  /// tool's. A folder that holds files and is not a study folder is refused (UsageError) unless
  /// `force`; its files are then all the user's and are kept. `note` receives what a run should
  /// say (files it kept aside).
  StudyFolder(const std::string& dir, bool force, std::function<void(const std::string&)> note);
  ~StudyFolder();  // an unfinished stage is removed and the locks released
  StudyFolder(const StudyFolder&) = delete;
  StudyFolder& operator=(const StudyFolder&) = delete;

  const std::string& dir() const { return dir_; }  // the canonical path
  std::string cache_dir() const { return dir_ + "/cache"; }

  /// A new empty folder beside DIR (or inside it, when DIR cannot be swapped) that the run's
  /// outputs are written into.
  const std::string& stage();

  /// Puts the staged run in place of DIR. `files` are the stage's files and `cache_entries` the
  /// names of the entries of DIR/cache the run used; every other file of the tool's in DIR goes,
  /// every file of the user's stays (one that clashes with a new output is kept in
  /// DIR/kept-by-judgestat-N/, with a note).
  void commit(const std::vector<std::string>& files, const std::vector<std::string>& cache_entries);

 private:
  void recover_siblings();
  void read_manifest(bool force);
  void commit_by_exchange(const std::vector<std::string>& files, const std::vector<std::string>& cache_entries);
  void commit_in_place(const std::vector<std::string>& files, const std::vector<std::string>& cache_entries);
  void take_mode_of_dir();
  void clear_way_to(const std::string& file);
  void keep_users(const std::string& rel);
  void remove_stale(const std::set<std::string>& now);

  std::string dir_, sibling_prefix_, stage_, kept_dir_;
  int kept_ = 0;
  int dir_lock_ = -1, stage_lock_ = -1;
  bool committed_ = false, in_place_ = false;
  Manifest manifest_;
  std::function<void(const std::string&)> note_;
};

/// Writes the manifest listing `files` into `dir`.
void write_manifest(const std::string& dir, const std::vector<std::string>& files);

namespace detail {

/// Test-only seams into the folder's rare branches (tests/study/test_study_folder_branches.cpp),
/// which no file system fault or mount can be made to reach from a test. Empty (the default)
/// everywhere but in those tests; nothing outside a test sets them, and no environment is read.
struct FolderHooks {
  /// Called in lock_folder between open() and flock() of `dir` (a test replaces the folder there:
  /// the lock re-check's retry).
  std::function<void(const std::string& dir)> between_open_and_lock;
  /// Called before each file or folder `rel` of the user's is carried back into DIR after the
  /// swap (a throw stands for any failure there).
  std::function<void(const std::string& rel)> before_carry_back;
  /// Replaces the st_dev comparison that tells whether `dir` is a mount point.
  std::function<bool(const std::string& dir)> is_mount_point;
};
FolderHooks& folder_hooks();

}  // namespace detail

}  // namespace judgestat::study
