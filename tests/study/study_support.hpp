// Shared by the study tests: temporary study folders, the bundled study run once per process.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace judgestat::study_testing {

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_all(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A fresh folder of the running test's own under the test temp dir.
inline std::string fresh_dir(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir =
      ::testing::TempDir() + "judgestat_" + test->test_suite_name() + "_" + test->name() + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Seconds and rates as the tables and the report print them ("0.31s", "3.1e5 draws/s",
/// "<td class="n">0.42</td>" in the time table) read as placeholders.
inline std::string without_timing(const std::string& text) {
  const std::string rates = std::regex_replace(text, std::regex("[0-9.e+]+ (draws|replicates)/s"), "R $1/s");
  return std::regex_replace(rates, std::regex("[0-9]+\\.[0-9]+s?\\b"), "T");
}

/// results.json without what differs between runs: timing everywhere, seconds and reused.
inline Json without_run_fields(Json json) {
  json["study"].erase("timing");
  for (Json& analysis : json["analyses"]) {
    analysis.erase("seconds");
    analysis.erase("reused");
    analysis["result"].erase("timing");
  }
  return json;
}

/// The bundled study (configs/study_bundled.json) with `replicates` run once per process into
/// one folder (on 2 CPU threads); its outcome and folder.
struct BundledRun {
  std::string dir;
  StudyOutcome outcome;
};
inline const BundledRun& bundled_run() {
  static const BundledRun run = [] {
    BundledRun out;
    out.dir = ::testing::TempDir() + "judgestat_study_bundled_" + std::to_string(::getpid());
    std::filesystem::remove_all(out.dir);
    const Study study = load_study(testing_support::kRoot + "/configs/study_bundled.json");
    StudyRunOptions options;
    options.out_dir = out.dir;
    options.replicates = 300;
    options.backend = "cpu";
    options.threads = 2;
    options.quiet = true;
    out.outcome = run_study(study, options);
    return out;
  }();
  return run;
}

/// Runs the study file at `study_path` into `out` quietly, as `judgestat run --out` would
/// (`force`: --force; `before_swap`: StudyRunOptions::before_swap, for interrupting a run).
inline StudyOutcome run_into(const std::string& study_path, const std::string& out, bool force = false,
                             std::function<void(const std::string&)> before_swap = nullptr) {
  StudyRunOptions options;
  options.out_dir = out;
  options.quiet = true;
  options.force = force;
  options.before_swap = std::move(before_swap);
  return run_study(load_study(study_path), options);
}

/// Every file under `dir` (relative paths) with its bytes, folders left out.
inline std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[std::filesystem::relative(entry.path(), dir).generic_string()] = read_all(entry.path().string());
  return files;
}

}  // namespace judgestat::study_testing
