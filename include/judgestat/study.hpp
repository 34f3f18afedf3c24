// A study (docs/study.md): named inputs and a list of analyses asked for with the CLI's options,
// run together into one folder: results.json, per analysis its tables as CSV and its figures, and
// report.html. Each analysis's result is cached in the folder under the SHA-256 of what it depends
// on, so running again recomputes only what changed.
//
//   const Study study = load_study("configs/study_bundled.json");  // every error before any output
//   StudyRunOptions run;  run.out_dir = "report";
//   const StudyOutcome outcome = run_study(study, run);
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

struct StudyInput {
  std::string name;
  std::vector<std::string> patterns;  // as written (relative paths resolved against the study's folder)
  std::vector<std::string> files;     // the patterns expanded (globs sorted), in order
  /// The import map the files are read through (docs/import.md): a map file's path (resolved
  /// against the study's folder) or a built-in map's NAME; "" reads them as records.
  std::string map;
};

struct StudyAnalysis {
  std::string name;   // "name" key, or "<analysis>_<input>" (then _2, _3 … when taken)
  std::string input;  // a StudyInput's name
  /// The command and its flags from the analysis's keys, before the run-wide settings join: the
  /// command line the analysis is recorded as (results.json's options, the cache key, argv).
  AnalysisRequest request;
  /// The same options as typed values by flag name (files resolved against the study's folder),
  /// what the analysis runs with (study_values).
  Json options = Json::object();
};

/// The study's run-wide settings ("settings" key). Each enters an analysis only when its command
/// takes the flag and the analysis does not set it itself.
struct StudySettings {
  std::optional<uint64_t> seed, replicates, draws;
  std::optional<std::string> ci;
  std::optional<double> level;
  std::string backend = "auto", devices;
  int threads = 0;
  uint64_t chunk = 0;
};

struct Study {
  std::string path, dir;           // the study file and its folder
  std::string title, description;  // the report's heading and introduction ("title", "description")
  StudySettings settings;
  std::vector<StudyInput> inputs;
  std::vector<StudyAnalysis> analyses;
};

/// Reads and checks a study file: unknown keys, a missing input, an input whose files are not
/// there, and an option the analysis does not take (or a bad value, as check_analysis finds it)
/// throw UsageError "STUDY: analyses[I] (NAME): key 'KEY': why" before anything runs.
Study load_study(const std::string& path);

struct StudyRunOptions {
  std::string out_dir;  // required
  /// The run's overrides of the study's settings (judgestat run --seed …).
  std::optional<uint64_t> seed, replicates;
  std::optional<std::string> backend, devices;
  std::optional<int> threads;
  /// Recompute every analysis; and write into an --out folder that holds files but is not a
  /// study folder (its files are kept).
  bool force = false;
  bool quiet = false;
  /// Progress lines (the CLI writes them to stderr): per analysis "[i/n] name: done/total" as it
  /// runs and one line when it finishes (reused or computed, seconds).
  std::function<void(const std::string& line, bool transient)> log;
  /// Called with the staged folder when every output is in it, before it replaces out_dir (tests
  /// interrupt a run here by throwing).
  std::function<void(const std::string& stage)> before_swap;
};

struct StudyOutcome {
  std::vector<std::string> computed, reused;  // analysis names
  std::string results_path, report_path;
  /// What the run had to say besides progress (a cache entry that failed its check and was
  /// recomputed, files of the user's kept aside); also in results.json's "notes" and on the log.
  std::vector<std::string> notes;
};

/// Runs the study into run.out_dir (see the head of this file and docs/study.md, "The folder").
/// The outputs are written into a folder beside out_dir that then takes its place in one step,
/// so out_dir holds one complete run at every moment; a run that stops (a failing analysis, an
/// interruption) leaves the previous run in place, and the analyses finished before it keep
/// their cache entries. Only files the tool wrote are ever removed. UsageError when out_dir is a
/// non-empty folder that is not a study folder (unless force) or another run is writing it.
StudyOutcome run_study(const Study& study, const StudyRunOptions& run);

/// The command line an analysis is recorded as: its own flags, then the settings (after the run's
/// overrides) its command takes and it does not set.
AnalysisRequest study_request(const StudyAnalysis& analysis, const StudySettings& settings);
/// The typed values an analysis runs with (parse_analysis): its options, then the same settings.
AnalysisValues study_values(const StudyAnalysis& analysis, const StudySettings& settings);

}  // namespace judgestat
