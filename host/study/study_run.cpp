// Running a study (judgestat/study.hpp): one execution target, each input loaded once per load
// options, each analysis's result cached in DIR/cache under the SHA-256 of what it depends on.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "judgestat/import_map.hpp"
#include "judgestat/study.hpp"
#include "records/csv.hpp"
#include "records/sha256.hpp"
#include "report/html_report.hpp"
#include "report/report.hpp"
#include "requests/analysis_parse.hpp"
#include "sources/import_map.hpp"
#include "study/atomic_file.hpp"
#include "study/study_cache.hpp"
#include "study/study_folder.hpp"
#include "study/study_options.hpp"
#include "support/parallel.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct InputFiles {
  std::vector<std::pair<std::string, std::string>> files;  // path, SHA-256
};

// SHA-256 of every file the analysis reads besides its input (--config, --select-items, …).
std::string option_file_digests(const AnalysisRequest& request) {
  std::string digests;
  for (const std::string& arg : request.args)
    for (const char* flag : {"--config=", "--select-items=", "--temperature-fit="})
      if (arg.rfind(flag, 0) == 0) {
        const std::string path = arg.substr(std::string(flag).size());
        digests += path + " " + sha256_hex(study::read_file(path)) + "\n";
      }
  return digests;
}

// The engine that computes: version, compiler, build flags and the SHA-256 of the binary that
// holds this code (the judgestat program, or the Python module), so that a rebuilt engine
// recomputes what an older build cached.
const std::string& engine_build_identity() {
  static const std::string identity = [] {
    std::string text = std::string("judgestat ") + JUDGESTAT_VERSION + "; " + __VERSION__;
#ifdef JUDGESTAT_HAVE_CUDA
    text += "; cuda";
#endif
#ifdef NDEBUG
    text += "; NDEBUG";
#endif
    std::string binary = "/proc/self/exe";
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&engine_build_identity), &info) != 0 && info.dli_fname &&
        std::string(info.dli_fname).find(".so") != std::string::npos)
      binary = info.dli_fname;
    try {
      text += "; binary " + sha256_hex(study::read_file(binary));
    } catch (const std::exception&) {
      text += "; binary unknown";
    }
    return text;
  }();
  return identity;
}

// What the result depends on: the engine's build, the cache's format, command, flags, the input's bytes, the option
// files, where it runs (the JSON names the backend and device).
std::string cache_key(const AnalysisRequest& request, const InputFiles& input, const std::string& target) {
  std::string text = engine_build_identity() + "\ncache format " + std::to_string(study::kEntryFormat) + "\ncommand " +
                     request.command + "\n";
  for (const std::string& arg : request.args) text += "arg " + arg + "\n";
  for (const auto& [path, sha256] : input.files) text += "input " + sha256 + "\n";
  text += option_file_digests(request) + "target " + target + "\n";
  return sha256_hex(text);
}

StudySettings effective_settings(const Study& study, const StudyRunOptions& run) {
  StudySettings settings = study.settings;
  if (run.seed) settings.seed = run.seed;
  if (run.replicates) settings.replicates = run.replicates;
  if (run.backend) settings.backend = *run.backend;
  if (run.devices) settings.devices = *run.devices;
  if (run.threads) settings.threads = *run.threads;
  return settings;
}

ExecTarget study_target(const StudySettings& settings) { return analysis_values_target(study_target_values(settings)); }

// The resolved target as the cache key and provenance say it: cpu/cuda, devices, threads.
std::string target_text(const ExecTarget& target) {
  std::string text = exec_target_uses_cuda(target) ? "cuda" : "cpu";
  if (text == "cuda") {
    for (size_t d = 0; d < target.devices.size(); ++d) text += (d ? "," : ":") + std::to_string(target.devices[d]);
  } else {
    text += " threads=" + std::to_string(target.threads);
  }
  return text;
}

// The target as the report's provenance shows it: the threads the CPU engines really run (a
// study's threads 0 means one per hardware thread), not the request's 0. The cache key keeps
// target_text: threads never change a result.
std::string target_shown(const ExecTarget& target) {
  if (exec_target_uses_cuda(target)) return target_text(target);
  const int threads = capped_threads(target.threads);
  return "cpu " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// The load options a matrix is loaded once for: labels, item column and score scale.
std::string load_key(const std::string& input, const LoadOptions& load) {
  std::string key = input + "\n" + load.item_column + "\n";
  for (const std::string& label : load.labels) key += label + ",";
  if (load.scale) {
    char scale[64];
    std::snprintf(scale, sizeof scale, "\nscale %.17g:%.17g", load.scale->low, load.scale->high);
    key += scale;
  }
  return key;
}

// Matrices loaded once per (input, load options).
class Matrices {
 public:
  explicit Matrices(const Study& study) : study_(study) {}
  const ItemMatrix& get(const std::string& input, const LoadOptions& load, double& load_s) {
    const std::string key = load_key(input, load);
    if (auto found = loaded_.find(key); found != loaded_.end()) {
      load_s = found->second.second;
      return found->second.first;
    }
    const double start = now_s();
    LoadOptions read_through = load;  // the input's import map (docs/import.md), if any
    for (const StudyInput& in : study_.inputs)
      if (in.name == input) read_through.map = in.map;
    ItemMatrix matrix = load_item_matrix(files_of(input), read_through);
    load_s = now_s() - start;
    return loaded_.emplace(key, std::make_pair(std::move(matrix), load_s)).first->second.first;
  }
  const std::vector<std::string>& files_of(const std::string& input) const {
    for (const StudyInput& in : study_.inputs)
      if (in.name == input) return in.files;
    throw std::invalid_argument("input: no input named '" + input + "'");
  }

 private:
  const Study& study_;
  std::map<std::string, std::pair<ItemMatrix, double>> loaded_;
};

// The single command's argv: "judgestat COMMAND", the input's files, the flags.
std::vector<std::string> command_words(const AnalysisRequest& request, const std::vector<std::string>& files) {
  std::vector<std::string> words{"judgestat " + request.command};
  words.insert(words.end(), files.begin(), files.end());
  words.insert(words.end(), request.args.begin(), request.args.end());
  return words;
}

// A reused result names the input's files as they are called now (the key holds their bytes, not
// their names): argv, and every string that was an old file's path (or the paths joined).
void refresh_paths(Json& result, const std::vector<std::string>& words, size_t n_files) {
  if (!result.contains("argv") || !result["argv"].is_array() || result["argv"].size() < 1 + n_files) return;
  std::map<std::string, std::string> renamed;
  std::string old_joined, new_joined;
  for (size_t f = 1; f <= n_files; ++f) {
    const std::string old_path = result["argv"][f].is_string() ? result["argv"][f].get<std::string>() : "";
    renamed[old_path] = words[f];
    old_joined += (f > 1 ? ", " : "") + old_path;
    new_joined += (f > 1 ? ", " : "") + words[f];
  }
  renamed[old_joined] = new_joined;
  const std::function<void(Json&)> replace = [&](Json& value) {
    if (value.is_string()) {
      if (const auto found = renamed.find(value.get<std::string>()); found != renamed.end()) value = found->second;
    } else if (value.is_structured()) {
      for (Json& element : value) replace(element);
    }
  };
  replace(result);
  result["argv"] = words;
}

// docs/statistics.md §4's envelope for an analysis of the study: argv as the single command's.
ReportHead study_head(const AnalysisRequest& request, const std::vector<std::string>& files, const ItemMatrix& matrix,
                      const std::vector<std::pair<std::string, std::string>>& digests, double load_s) {
  std::vector<std::string> words = command_words(request, files);
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  ReportHead head{json_envelope(request.command, static_cast<int>(argv.size()), argv.data(), matrix), load_s};
  if (files.size() > 1) {
    Json inputs = Json::array();
    for (const auto& [path, sha256] : digests) inputs.push_back({{"path", path}, {"sha256", sha256}});
    head.envelope["input"]["files"] = inputs;
  }
  return head;
}

// An array of JSON rows as tidy CSV: one line per row, a column per scalar key (first-appearance
// order), an interval [lo, hi] as KEY_lo, KEY_hi; nested arrays and objects are left out.
std::string tidy_csv(const Json& rows) {
  std::vector<std::string> columns;
  auto add_column = [&](const std::string& name) {
    if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
  };
  auto is_interval = [](const Json& value) {
    return value.is_array() && value.size() == 2 && (value[0].is_number() || value[0].is_null());
  };
  for (const Json& row : rows)
    for (const auto& [key, value] : row.items()) {
      if (is_interval(value)) {
        add_column(key + "_lo");
        add_column(key + "_hi");
      } else if (!value.is_structured()) {
        add_column(key);
      }
    }
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
  out += "\n";
  for (const Json& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& column = columns[c];
      Json value;
      if (row.contains(column)) {
        value = row[column];
      } else if (column.size() > 3 && (column.compare(column.size() - 3, 3, "_lo") == 0 ||
                                       column.compare(column.size() - 3, 3, "_hi") == 0)) {
        const std::string key = column.substr(0, column.size() - 3);
        if (row.contains(key) && is_interval(row[key])) value = row[key][column.back() == 'o' ? 0 : 1];
      }
      if (c) out += ',';
      if (value.is_string())
        out += csv_field(value.get<std::string>());
      else if (!value.is_null() && !value.is_structured())
        out += dump_json(value);
    }
    out += "\n";
  }
  return out;
}

std::string progress_line(size_t index, size_t count, const std::string& name, uint64_t done, uint64_t total) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + name + ": " + std::to_string(done) +
         "/" + std::to_string(total);
}

// One analysis's outputs for this run: from the cache or computed.
struct Entry {
  study::CacheEntry cached;
  bool reused = false;
};

struct RunState {
  const Study& study;
  const StudyRunOptions& run;
  const StudySettings& settings;  // after the run's overrides
  const ExecTarget& target;
  std::function<void(const std::string&, bool)> log;
  std::map<std::string, InputFiles> inputs;
  Matrices matrices;
  StudyOutcome outcome;
};

void note(RunState& state, const std::string& text) {
  state.outcome.notes.push_back(text);
  state.log("note: " + text, false);
}

std::string count_prefix(size_t a, size_t n) { return "[" + std::to_string(a + 1) + "/" + std::to_string(n) + "] "; }

// The analysis's entry: the cached one when it passes its checks, otherwise computed and cached.
Entry obtain_entry(RunState& state, size_t a, const AnalysisRequest& request, const std::string& cache_dir,
                   const std::string& target_key) {
  const StudyAnalysis& analysis = state.study.analyses[a];
  const size_t n = state.study.analyses.size();
  const std::vector<std::string>& files = state.matrices.files_of(analysis.input);
  Entry entry;
  entry.cached.key = cache_key(request, state.inputs[analysis.input], target_key);
  const std::string cache_path = cache_dir + "/" + entry.cached.key + ".json";
  std::string why;
  if (!state.run.force) {
    const study::EntryState found = study::read_entry(cache_path, entry.cached.key, request.command, entry.cached, why);
    if (found == study::EntryState::kValid) {
      refresh_paths(entry.cached.result.json, command_words(request, files), files.size());
      state.log(count_prefix(a, n) + analysis.name + ": reused (cached)", false);
      state.outcome.reused.push_back(analysis.name);
      entry.reused = true;
      return entry;
    }
    if (found == study::EntryState::kRejected)
      note(state, analysis.name + ": the cached result cache/" + entry.cached.key + ".json was not reused: " + why +
                      "; recomputed");
  }
  const double analysis_start = now_s();
  double load_s = 0;
  // The options read once from their typed values; errors name the flags.
  TypedAnalysisRequest typed = parse_analysis_values(study_values(analysis, state.settings));
  // tables.txt holds every table (`--full`), as a cached entry renders them again from its result.
  if (auto* metrics = std::get_if<MetricsOptions>(&typed.options)) metrics->full_text = true;
  const ItemMatrix& matrix = state.matrices.get(analysis.input, typed.load, load_s);
  const ReportHead head = study_head(request, files, matrix, state.inputs[analysis.input].files, load_s);
  const AnalysisHooks hooks{
      [&](uint64_t done, uint64_t total) { state.log(progress_line(a, n, analysis.name, done, total), true); }};
  try {
    entry.cached.result = with_flag_names(flag_names_of(typed.options),
                                          [&] { return run_analysis(typed, matrix, state.target, head, hooks); });
    for (const PlotFile& plot : entry.cached.result.plots)
      if (!study::is_plain_file_name(plot.name, study::kMaxFigureNameBytes))
        throw std::invalid_argument("figure name '" + plot.name + "' is not a plain file name of at most " +
                                    std::to_string(study::kMaxFigureNameBytes) + " bytes");
  } catch (const std::exception& failure) {
    throw UsageError(state.study.path + ": analyses[" + std::to_string(a) + "] (" + analysis.name +
                     "): " + failure.what());
  }
  entry.cached.seconds = now_s() - analysis_start;
  study::write_file_atomic(cache_path, study::entry_text(entry.cached, analysis.name, request.command));
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2fs", entry.cached.seconds);
  state.log(count_prefix(a, n) + analysis.name + ": computed in " + seconds, false);
  state.outcome.computed.push_back(analysis.name);
  return entry;
}

// One analysis's tables and figures into stage/NAME; their paths relative to the stage.
void stage_analysis_files(const std::string& stage, const std::string& name, const AnalysisResult& result,
                          std::vector<std::string>& files) {
  auto write = [&](const std::string& file, const std::string& text) {
    study::write_file_atomic(stage + "/" + name + "/" + file, text);
    files.push_back(name + "/" + file);
  };
  write("tables.csv", result.csv);
  write("tables.txt", result.text);
  // Tidy numbers: one row per statistic (estimate, CI, SE …), and budget's rows per k and rule.
  for (const char* rows : {"statistics", "budget"})
    if (result.json.contains(rows) && result.json[rows].is_array() && !result.json[rows].empty())
      write(std::string(rows) + ".csv", tidy_csv(result.json[rows]));
  for (const PlotFile& plot : result.plots) {  // NAME.svg and NAME.csv, as --plots writes them
    write(plot.name + ".svg", plot.svg);
    if (!plot.csv.empty()) write(plot.name + ".csv", plot.csv);
  }
}

Json settings_json(const StudySettings& settings, const std::string& target_key) {
  return {{"seed", settings.seed ? Json(*settings.seed) : Json(nullptr)},
          {"replicates", settings.replicates ? Json(*settings.replicates) : Json(nullptr)},
          {"draws", settings.draws ? Json(*settings.draws) : Json(nullptr)},
          {"ci", settings.ci ? Json(*settings.ci) : Json(nullptr)},
          {"level", settings.level ? Json(*settings.level) : Json(nullptr)},
          {"backend", settings.backend},
          {"target", target_key}};
}

// Every output into the stage: per analysis its files, then results.json and report.html.
std::vector<std::string> stage_outputs(RunState& state, const std::string& stage, const std::vector<Entry>& entries,
                                       const std::vector<AnalysisRequest>& requests, const Json& settings,
                                       double start) {
  const Study& study = state.study;
  std::vector<std::string> files;
  Json analyses = Json::array();
  HtmlStudy html{study.title, study.description, study.path, JUDGESTAT_VERSION, {}, {}, {}, state.outcome.notes};
  for (size_t a = 0; a < study.analyses.size(); ++a) {
    const StudyAnalysis& analysis = study.analyses[a];
    const study::CacheEntry& entry = entries[a].cached;
    stage_analysis_files(stage, analysis.name, entry.result, files);
    analyses.push_back({{"name", analysis.name},
                        {"analysis", analysis.request.command},
                        {"input", analysis.input},
                        {"options", requests[a].args},
                        {"reused", entries[a].reused},
                        {"key", entry.key},
                        {"seconds", entry.seconds},
                        {"result", entry.result.json}});
    html.analyses.push_back({analysis.name, analysis.request.command, analysis.input, requests[a].args, entry.result.md,
                             entry.result.csv, entry.result.plots, entry.seconds, entry.result.json});
  }
  Json input_json = Json::array();
  for (const StudyInput& input : study.inputs) {
    HtmlInput html_input{input.name, state.inputs[input.name].files};
    Json listed = Json::array();
    for (const auto& [path, sha256] : html_input.files) listed.push_back({{"path", path}, {"sha256", sha256}});
    input_json.push_back({{"name", input.name}, {"files", listed}});
    html.inputs.push_back(std::move(html_input));
  }
  for (const auto& [name, value] : settings.items())
    if (!value.is_null()) html.settings.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  const Json results = {{"study",
                         {{"tool", "judgestat"},
                          {"version", JUDGESTAT_VERSION},
                          {"path", study.path},
                          {"title", study.title},
                          {"inputs", input_json},
                          {"settings", settings},
                          {"notes", state.outcome.notes},
                          {"timing", {{"total_s", now_s() - start}}}}},
                        {"analyses", analyses}};
  study::write_file_atomic(stage + "/results.json", dump_json(results, 1) + "\n");
  study::write_file_atomic(stage + "/report.html", html_report(html));
  files.push_back("results.json");
  files.push_back("report.html");
  return files;
}

}  // namespace

StudyOutcome run_study(const Study& study, const StudyRunOptions& run) {
  if (run.out_dir.empty()) throw UsageError("--out: give the folder the study writes into");
  const double start = now_s();
  const StudySettings settings = effective_settings(study, run);
  const ExecTarget target = study_target(settings);
  const std::string target_key = target_text(target);
  auto log = [&](const std::string& line, bool transient) {
    if (run.log && !run.quiet) run.log(line, transient);
  };
  RunState state{study, run, settings, target, log, {}, Matrices(study), {}};
  study::StudyFolder folder(run.out_dir, run.force, [&](const std::string& text) { note(state, text); });
  std::error_code error;
  fs::create_directories(folder.cache_dir(), error);
  if (error) throw std::runtime_error("--out: cannot create '" + folder.cache_dir() + "': " + error.message());

  for (const StudyInput& input : study.inputs)
    for (const std::string& file : input.files)
      state.inputs[input.name].files.emplace_back(file, sha256_hex(study::read_file(file)));
  // The map and the files it joins decide the records as the files' bytes do.
  for (const StudyInput& input : study.inputs)
    if (!input.map.empty()) {
      state.inputs[input.name].files.emplace_back(input.map, sha256_hex(import_map_text(input.map)));
      for (const mapping::JoinTable& joined : mapping::load_import_map(input.map).joins)
        state.inputs[input.name].files.emplace_back(joined.file, sha256_hex(study::read_file(joined.file)));
    }
  std::vector<Entry> entries;
  std::vector<AnalysisRequest> requests;
  for (size_t a = 0; a < study.analyses.size(); ++a) {
    requests.push_back(study_request(study.analyses[a], settings));
    entries.push_back(obtain_entry(state, a, requests.back(), folder.cache_dir(), target_key));
  }

  const std::string& stage = folder.stage();
  const std::vector<std::string> files =
      stage_outputs(state, stage, entries, requests, settings_json(settings, target_shown(target)), start);
  std::vector<std::string> cache_entries;
  for (const Entry& entry : entries) cache_entries.push_back(entry.cached.key + ".json");
  if (run.before_swap) run.before_swap(stage);
  folder.commit(files, cache_entries);
  // "report/" + "/results.json" would print as report//results.json: one separator.
  const std::string dir = run.out_dir.size() > 1 && run.out_dir.back() == '/'
                              ? run.out_dir.substr(0, run.out_dir.find_last_not_of('/') + 1)
                              : run.out_dir;
  state.outcome.results_path = (dir == "/" ? "" : dir) + "/results.json";
  state.outcome.report_path = (dir == "/" ? "" : dir) + "/report.html";
  return state.outcome;
}

}  // namespace judgestat
