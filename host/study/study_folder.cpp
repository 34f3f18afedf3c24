#include "study/study_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "judgestat/records.hpp"
#include "records/sha256.hpp"
#include "report/report.hpp"
#include "study/atomic_file.hpp"
#include "study/study_cache.hpp"

namespace judgestat::study {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStagingMarker = ".judgestat-staging";
constexpr size_t kTempSuffix = 11;  // AtomicFile's ".tmp-XXXXXX"

// Each '/'-separated part a name of its own: no absolute path, "." or "..", nothing empty.
bool is_relative_inside(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  size_t start = 0;
  while (true) {
    const size_t end = path.find('/', start);
    const std::string part = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

std::string joined(const std::string& rel, const std::string& name) { return rel.empty() ? name : rel + "/" + name; }

// An flock on the folder itself (no lock file to leave behind); -1 when another process holds it.
// A run that swapped folders between our open and flock leaves us locking the wrong folder: the
// path must still name the locked one, else we try again.
int lock_folder(const std::string& dir) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("--out: cannot open '" + dir + "': " + std::strerror(errno));
    if (detail::folder_hooks().between_open_and_lock) {
      try {
        detail::folder_hooks().between_open_and_lock(dir);
      } catch (...) {
        ::close(fd);
        throw;
      }
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return -1;
    }
    struct stat locked {
    }, named{};
    if (::fstat(fd, &locked) == 0 && ::stat(dir.c_str(), &named) == 0 && locked.st_dev == named.st_dev &&
        locked.st_ino == named.st_ino)
      return fd;
    ::close(fd);
  }
  throw std::runtime_error("--out: '" + dir + "' keeps being replaced while it is locked");
}

// A regular file (not a link) at `path`: markers count only so, so that no user's folder or link
// named like one makes recovery remove a folder.
bool is_marker(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(fs::symlink_status(path, error));
}

bool exists_no_follow(const std::string& path) {
  std::error_code error;
  return fs::exists(fs::symlink_status(path, error));
}

bool is_real_folder(const std::string& path) {
  std::error_code error;
  return fs::is_directory(fs::symlink_status(path, error));
}

// DIR/kept-by-judgestat-N for the first N that names nothing yet.
std::string new_kept_dir(const std::string& root) {
  for (int n = 1;; ++n) {
    std::string candidate = root + "/kept-by-judgestat-" + std::to_string(n);
    if (!exists_no_follow(candidate)) return candidate;
  }
}

void unlock(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool is_empty_folder(const std::string& dir) {
  std::error_code error;
  return fs::is_empty(dir, error) && !error;
}

Manifest parse_manifest(const std::string& path) {
  const Json json = Json::parse(read_file(path));
  if (!json.is_object() || json.value("tool", "") != "judgestat" || !json.contains("files") ||
      !json["files"].is_array())
    throw std::runtime_error("not a judgestat manifest");
  Manifest manifest;
  for (const Json& file : json["files"]) {
    if (!file.is_string() || !is_relative_inside(file.get<std::string>()))
      throw std::runtime_error("a file outside the folder: " + file.dump());
    manifest.files.insert(file.get<std::string>());
  }
  return manifest;
}

// A folder from before manifests (results.json says judgestat): its files by the names runs gave them.
bool legacy_manifest(const std::string& dir, Manifest& manifest) {
  try {
    const Json results = Json::parse(read_file(dir + "/results.json"));
    if (results.at("study").at("tool") != "judgestat") return false;
    manifest.files = {"results.json", "report.html"};
    for (const Json& analysis : results.at("analyses")) {
      const std::string name = analysis.at("name");
      if (!is_plain_file_name(name, kMaxNameBytes)) continue;
      for (const char* file : {"tables.csv", "tables.txt", "statistics.csv", "budget.csv"})
        manifest.files.insert(name + "/" + file);
      std::error_code error;
      for (const auto& file : fs::directory_iterator(dir + "/" + name, error))
        if (file.path().extension() == ".svg") {
          manifest.files.insert(name + "/" + file.path().filename().string());
          manifest.files.insert(name + "/" + file.path().stem().string() + ".csv");
        }
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Moves the user's files of the old run's folder `old_root` into `new_root`; removes the tool's.
class Absorb {
 public:
  Absorb(std::string old_root, std::string new_root, const Manifest& manifest,
         std::function<void(const std::string&)> note)
      : old_(std::move(old_root)), new_(std::move(new_root)), manifest_(manifest), note_(std::move(note)) {}

  void run() {
    // A file of the user's named like the stage marker goes first: were this run killed with it
    // still here, recovery would take the folder for an unfinished stage and remove it.
    if (is_marker(old_ + "/" + kStagingMarker)) {
      if (!exists_no_follow(new_ + "/" + kStagingMarker))
        move(kStagingMarker, new_ + "/" + kStagingMarker);
      else
        keep_aside(kStagingMarker);
    }
    walk("", false);
    // The manifest goes last: were the carry-back stopped before the end, the next run's recovery
    // must still tell the old run's outputs from the user's files by it.
    std::error_code error;
    fs::remove(old_ + "/" + kManifestName, error);
    fs::remove(old_, error);  // empty by now; a leftover (an unreadable entry) stays where it is
    if (kept_ > 0)
      note_(std::to_string(kept_) + " file(s) of yours had the name of a new output; kept in " + kept_dir_);
  }

 private:
  // Never throws: an entry it cannot read or move stays in the old folder (which then stays too).
  // It descends into a folder of the new root only when that is a real folder (not a link), so
  // that nothing is moved through a link out of the new root.
  void walk(const std::string& rel, bool users) {
    std::vector<fs::directory_entry> entries;
    std::error_code error;
    fs::directory_iterator it(old_ + (rel.empty() ? "" : "/" + rel), error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) entries.push_back(*it);
    for (const fs::directory_entry& entry : entries) {
      const std::string path = joined(rel, entry.path().filename().string());
      const fs::file_status status = fs::symlink_status(entry.path(), error);
      const bool folder = fs::is_directory(status);
      const std::string target = new_ + "/" + path;
      if (folder && (users || !manifest_.is_tool_folder(path))) {
        if (!exists_no_follow(target))
          move(path, target);
        else if (is_real_folder(target))
          walk(path, true);
        else
          keep_aside(path);
      } else if (folder) {
        if (is_real_folder(target) || !exists_no_follow(target))
          walk(path, false);
        else
          keep_aside(path);
      } else if (!users && rel.empty() && path == kManifestName) {
        continue;  // removed by run() once everything else is carried back
      } else if (!users && manifest_.is_tool_file(path)) {
        fs::remove(entry.path(), error);
      } else if (!exists_no_follow(target)) {
        move(path, target);
      } else {
        keep_aside(path);
      }
    }
    if (!rel.empty()) fs::remove(old_ + "/" + rel, error);  // only when empty
  }

  void move(const std::string& path, const std::string& target) {
    if (detail::folder_hooks().before_carry_back) detail::folder_hooks().before_carry_back(path);
    std::error_code error;
    fs::create_directories(fs::path(target).parent_path(), error);
    fs::rename(old_ + "/" + path, target, error);
    if (error)
      note_("could not move your '" + path + "' back into the folder (" + error.message() + "); it is in " + old_);
  }

  void keep_aside(const std::string& path) {
    if (kept_dir_.empty()) kept_dir_ = new_kept_dir(new_);
    move(path, kept_dir_ + "/" + path);
    ++kept_;
  }

  std::string old_, new_;
  const Manifest& manifest_;
  std::function<void(const std::string&)> note_;
  std::string kept_dir_;
  int kept_ = 0;
};

// renameat2(RENAME_EXCHANGE): both paths swapped in one step; false where the file system cannot.
bool swap_paths(const std::string& a, const std::string& b) {
#ifdef SYS_renameat2
  constexpr unsigned kRenameExchange = 1u << 1;
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0;
#else
  (void)a, (void)b;
  return false;
#endif
}

}  // namespace

detail::FolderHooks& detail::folder_hooks() {
  static FolderHooks hooks;
  return hooks;
}

bool Manifest::is_tool_file(const std::string& path) const {
  if (files.count(path) || path == kManifestName) return true;
  if (path.rfind("cache/", 0) == 0 && path.find('/', 6) == std::string::npos && is_entry_file_name(path.substr(6)))
    return true;
  if (path.size() > kTempSuffix && path.compare(path.size() - kTempSuffix, 5, ".tmp-") == 0) {
    const std::string target = path.substr(0, path.size() - kTempSuffix);
    return files.count(target) || target == kManifestName;
  }
  return false;
}

bool Manifest::is_tool_folder(const std::string& path) const {
  if (path == "cache") return true;
  const auto after = files.lower_bound(path + "/");
  return after != files.end() && after->rfind(path + "/", 0) == 0;
}

void write_manifest(const std::string& dir, const std::vector<std::string>& files) {
  std::set<std::string> sorted(files.begin(), files.end());
  Json list = Json::array();
  for (const std::string& file : sorted) list.push_back(file);
  write_file_atomic(dir + "/" + kManifestName,
                    dump_json(Json{{"tool", "judgestat"}, {"manifest", 1}, {"files", list}}, 1) + "\n");
}

StudyFolder::StudyFolder(const std::string& dir, bool force, std::function<void(const std::string&)> note)
    : note_(std::move(note)) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error))
    throw UsageError("--out " + dir + ": not a folder (the study writes a folder)");
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error("--out: cannot create '" + dir + "': " + error.message());
  dir_ = fs::canonical(dir).string();
  const fs::path parent = fs::path(dir_).parent_path();
  const fs::path cwd = fs::current_path(error);
  const std::string cwd_text = cwd.string() + "/";
  // The folder itself cannot be swapped when it is "/", holds the working directory or is a mount
  // point (rename gives EBUSY, and a stage beside it lies on another file system).
  struct stat dir_stat {
  }, parent_stat{};
  const bool mount_point = detail::folder_hooks().is_mount_point
                               ? detail::folder_hooks().is_mount_point(dir_)
                               : ::stat(dir_.c_str(), &dir_stat) == 0 && ::stat(parent.c_str(), &parent_stat) == 0 &&
                                     dir_stat.st_dev != parent_stat.st_dev;
  in_place_ = parent == fs::path(dir_) || cwd_text.rfind(dir_ + "/", 0) == 0 || mount_point;
  sibling_prefix_ =
      (parent / (".judgestat-stage-" + sha256_hex(fs::path(dir_).filename().string()).substr(0, 12) + "-")).string();
  dir_lock_ = lock_folder(dir_);
  if (dir_lock_ < 0)
    throw UsageError("--out " + dir + ": another judgestat run is writing this folder; let it finish, then run again");
  try {
    recover_siblings();
    read_manifest(force);
  } catch (...) {
    unlock(dir_lock_);  // a constructor that throws runs no destructor
    throw;
  }
}

StudyFolder::~StudyFolder() {
  if (!stage_.empty() && !committed_) {
    std::error_code error;
    fs::remove_all(stage_, error);  // a folder of this run's own, with a unique name
  }
  unlock(stage_lock_);
  unlock(dir_lock_);
}

// An interrupted run can leave its stage (marked, unfinished: removed) or, interrupted during the
// swap, the previous run's folder (its user files go back into DIR, its own files go).
void StudyFolder::recover_siblings() {
  std::error_code error;
  std::vector<fs::path> found;
  const fs::path parent = fs::path(sibling_prefix_).parent_path();
  const std::string prefix = fs::path(sibling_prefix_).filename().string();
  const auto real_folder_named = [](const fs::directory_entry& entry, const std::string& start) {
    return entry.path().filename().string().rfind(start, 0) == 0 && is_real_folder(entry.path().string());
  };
  fs::directory_iterator it(parent, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error))
    if (real_folder_named(*it, prefix)) found.push_back(it->path());
  error.clear();
  // Inside DIR only a marked stage (study names may not start with ".judgestat").
  for (it = fs::directory_iterator(dir_, error); !error && it != fs::directory_iterator(); it.increment(error))
    if (real_folder_named(*it, ".judgestat-stage-") && is_marker(it->path() / kStagingMarker))
      found.push_back(it->path());
  for (const fs::path& sibling : found) {
    int fd = lock_folder(sibling.string());
    if (fd < 0) continue;  // a live run's
    try {
      if (is_marker(sibling / kStagingMarker)) {
        fs::remove_all(sibling, error);
      } else {
        Manifest old;
        try {
          old = parse_manifest((sibling / kManifestName).string());
        } catch (const std::exception&) {
          // Without its manifest every file counts as the user's: all move back.
        }
        Absorb(sibling.string(), dir_, old, note_).run();
      }
    } catch (...) {
      unlock(fd);  // held on, the lock would make this process's next run skip the sibling
      throw;
    }
    unlock(fd);
  }
}

void StudyFolder::read_manifest(bool force) {
  const std::string path = dir_ + "/" + kManifestName;
  std::error_code error;
  if (fs::exists(fs::symlink_status(path, error))) {
    try {
      manifest_ = parse_manifest(path);
      return;
    } catch (const std::exception& failure) {
      if (!force)
        throw UsageError("--out " + dir_ + ": " + path + " is not a judgestat manifest (" + failure.what() +
                         "); remove it, or pass --force to write into the folder (its files are kept)");
    }
  } else if (!is_empty_folder(dir_) && !legacy_manifest(dir_, manifest_) && !force) {
    throw UsageError("--out " + dir_ +
                     ": the folder holds files and is not a judgestat study folder (no .judgestat-study.json); "
                     "give a new or empty folder, or pass --force to write into it (its files are kept)");
  }
  // From now on a study folder, also when this run stops early.
  write_manifest(dir_, std::vector<std::string>(manifest_.files.begin(), manifest_.files.end()));
}

const std::string& StudyFolder::stage() {
  if (!stage_.empty()) return stage_;
  for (int n = 0;; ++n) {
    const std::string base = in_place_ ? dir_ + "/.judgestat-stage-" : sibling_prefix_;
    const std::string candidate = base + std::to_string(::getpid()) + "-" + std::to_string(n);
    if (::mkdir(candidate.c_str(), 0777) == 0) {
      stage_ = candidate;
      break;
    }
    if (errno == EEXIST) continue;
    if (in_place_) throw std::runtime_error("--out: cannot create '" + candidate + "': " + std::strerror(errno));
    in_place_ = true;  // DIR's parent takes no new folder: stage inside DIR instead
  }
  stage_lock_ = lock_folder(stage_);
  write_file_atomic(stage_ + "/" + kStagingMarker, "");
  return stage_;
}

void StudyFolder::commit(const std::vector<std::string>& files, const std::vector<std::string>& cache_entries) {
  // Analyses with one cache key (same options on one input, or identical input copies) share an entry.
  const std::set<std::string> unique(cache_entries.begin(), cache_entries.end());
  const std::vector<std::string> entries(unique.begin(), unique.end());
  if (in_place_)
    commit_in_place(files, entries);
  else
    commit_by_exchange(files, entries);
}

void StudyFolder::commit_by_exchange(const std::vector<std::string>& files,
                                     const std::vector<std::string>& cache_entries) {
  std::vector<std::string> listed = files;
  std::error_code error;
  fs::create_directories(stage_ + "/cache", error);
  if (error) throw std::runtime_error("--out: cannot create '" + stage_ + "/cache': " + error.message());
  for (const std::string& entry : cache_entries) {
    listed.push_back("cache/" + entry);
    const std::string staged = stage_ + "/cache/" + entry;
    fs::create_hard_link(cache_dir() + "/" + entry, staged, error);
    if (error && !exists_no_follow(staged)) fs::copy_file(cache_dir() + "/" + entry, staged);  // throws, naming both
  }
  write_manifest(stage_, listed);
  take_mode_of_dir();
  fs::remove(stage_ + "/" + kStagingMarker, error);
  if (!swap_paths(stage_, dir_)) {
    write_file_atomic(stage_ + "/" + kStagingMarker, "");
    in_place_ = true;
    commit_in_place(files, cache_entries);
    return;
  }
  // The previous run now lies at the stage's path and holds the user's files: from here on nothing
  // may remove it whole, whatever happens. Its user files join the new folder, its own files go.
  committed_ = true;
  const std::string previous = stage_;
  stage_.clear();
  try {
    Absorb(previous, dir_, manifest_, note_).run();
  } catch (const std::exception& failure) {
    throw std::runtime_error("--out: the new run is complete in " + dir_ + ", but carrying your files back stopped (" +
                             failure.what() + "); those not yet back are in " + previous + ", and the next run into " +
                             dir_ + " gives them back");
  }
}

// Swapped in, the stage becomes DIR: it takes DIR's group (where allowed) and mode, not the umask's.
void StudyFolder::take_mode_of_dir() {
  struct stat dir_stat {};
  if (::stat(dir_.c_str(), &dir_stat) != 0) return;
  if (::chown(stage_.c_str(), static_cast<uid_t>(-1), dir_stat.st_gid) != 0) {
    // Not a member of DIR's group: the stage keeps ours.
  }
  if (::chmod(stage_.c_str(), dir_stat.st_mode & 07777) != 0)
    throw std::runtime_error("--out: cannot give '" + stage_ + "' the mode of '" + dir_ + "': " + std::strerror(errno));
}

// Makes DIR/`file`'s parent folders real folders of DIR: a link or a file of the user's in the way
// goes into DIR/kept-by-judgestat-N (never written through), a stale file of the tool's goes.
void StudyFolder::clear_way_to(const std::string& file) {
  std::string rel;
  const std::vector<std::string> parts = [&] {
    std::vector<std::string> out;
    for (const auto& part : fs::path(file)) out.push_back(part.string());
    return out;
  }();
  for (size_t i = 0; i < parts.size(); ++i) {
    rel = joined(rel, parts[i]);
    const std::string path = dir_ + "/" + rel;
    const bool last = i + 1 == parts.size();
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    if (!fs::exists(status)) {
      if (!last && ::mkdir(path.c_str(), 0777) != 0)
        throw std::runtime_error("--out: cannot create '" + path + "': " + std::strerror(errno));
      continue;
    }
    if (last ? fs::is_regular_file(status) && manifest_.is_tool_file(rel) : fs::is_directory(status))
      continue;  // the old run's output (renamed over), or a real folder
    if (!last && fs::is_regular_file(status) && manifest_.is_tool_file(rel)) {
      if (!fs::remove(path, error) || ::mkdir(path.c_str(), 0777) != 0)
        throw std::runtime_error("--out: cannot replace '" + path + "' by a folder");
      continue;
    }
    keep_users(rel);
    if (!last && ::mkdir(path.c_str(), 0777) != 0)
      throw std::runtime_error("--out: cannot create '" + path + "': " + std::strerror(errno));
  }
}

// Moves the user's DIR/`rel` into DIR/kept-by-judgestat-N/`rel`; an error stops the commit.
void StudyFolder::keep_users(const std::string& rel) {
  if (kept_dir_.empty()) kept_dir_ = new_kept_dir(dir_);
  const fs::path target = fs::path(kept_dir_) / rel;
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (!error) fs::rename(dir_ + "/" + rel, target, error);
  if (error)
    throw std::runtime_error("--out: your '" + dir_ + "/" + rel +
                             "' has the name of a new output and could not be "
                             "moved aside to " +
                             target.string() + " (" + error.message() + "); nothing of it changed");
  ++kept_;
}

// Where DIR cannot be swapped: each new file renamed into place, then the previous run's files
// that are not the new run's removed. Not one step, but only the tool's files change.
void StudyFolder::commit_in_place(const std::vector<std::string>& files,
                                  const std::vector<std::string>& cache_entries) {
  std::set<std::string> now(files.begin(), files.end());
  for (const std::string& entry : cache_entries) now.insert("cache/" + entry);
  // Stopped half-way, DIR holds files of both runs: the manifest lists them all first, so that
  // the next run knows every one for the tool's.
  std::set<std::string> both = manifest_.files;
  both.insert(now.begin(), now.end());
  write_manifest(dir_, std::vector<std::string>(both.begin(), both.end()));
  for (const std::string& file : files) {
    clear_way_to(file);
    std::error_code error;
    fs::rename(stage_ + "/" + file, dir_ + "/" + file, error);
    if (error)
      throw std::runtime_error("--out: cannot move '" + stage_ + "/" + file + "' into place: " + error.message());
  }
  if (kept_ > 0) note_(std::to_string(kept_) + " file(s) of yours had the name of a new output; kept in " + kept_dir_);
  write_manifest(dir_, std::vector<std::string>(now.begin(), now.end()));
  committed_ = true;
  remove_stale(now);
  std::error_code error;
  fs::remove_all(stage_, error);  // the stage holds only this run's outputs
}

// The previous run's files that this run did not write.
void StudyFolder::remove_stale(const std::set<std::string>& now) {
  std::vector<std::string> stale;
  std::error_code error;
  fs::recursive_directory_iterator it(dir_, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const std::string rel = fs::relative(it->path(), dir_, error).generic_string();
    const fs::file_status status = it->symlink_status(error);
    if (fs::is_directory(status) && !manifest_.is_tool_folder(rel) && rel != "cache") {
      it.disable_recursion_pending();
    } else if (fs::is_regular_file(status) && manifest_.is_tool_file(rel) && !now.count(rel) && rel != kManifestName) {
      stale.push_back(rel);
    }
  }
  for (const std::string& rel : stale) {
    fs::remove(dir_ + "/" + rel, error);
    for (fs::path folder = fs::path(rel).parent_path(); !folder.empty(); folder = folder.parent_path())
      if (!fs::remove(dir_ + "/" + folder.string(), error)) break;  // only when empty
  }
}

}  // namespace judgestat::study
