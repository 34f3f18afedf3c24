// Running a study (judgestat/study.hpp): one execution target, each input loaded once per load
// options, each analysis's result cached in DIR/cache under the SHA-256 of what it depends on.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/analysis_parse.hpp"
#include "judgestat/study.hpp"
#include "records/csv.hpp"
#include "records/sha256.hpp"
#include "report/html_report.hpp"
#include "report/report.hpp"
#include "study/atomic_file.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// One analysis's outputs as the cache holds them.
struct Entry {
  std::string key;
  AnalysisResult result;
  double seconds = 0;
  bool reused = false;
};

Json entry_json(const Entry& entry, const StudyAnalysis& analysis) {
  Json plots = Json::array();
  for (const PlotFile& plot : entry.result.plots)
    plots.push_back({{"name", plot.name}, {"svg", plot.svg}, {"csv", plot.csv}});
  return {{"key", entry.key},         {"name", analysis.name},       {"analysis", analysis.request.command},
          {"seconds", entry.seconds}, {"result", entry.result.json}, {"text", entry.result.text},
          {"csv", entry.result.csv},  {"md", entry.result.md},       {"plots", plots}};
}

// The cached entry under `key`, when there is a whole one.
bool read_entry(const std::string& path, const std::string& key, Entry& entry) {
  if (!fs::is_regular_file(path)) return false;
  try {
    const Json json = Json::parse(study::read_file(path));
    if (json.at("key") != key) return false;
    entry.key = key;
    entry.seconds = json.at("seconds").get<double>();
    entry.result.json = json.at("result");
    entry.result.text = json.at("text").get<std::string>();
    entry.result.csv = json.at("csv").get<std::string>();
    entry.result.md = json.at("md").get<std::string>();
    for (const Json& plot : json.at("plots"))
      entry.result.plots.push_back({plot.at("name"), plot.at("svg"), plot.at("csv")});
    entry.reused = true;
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or from another layout: recompute
  }
}

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

// What the result depends on: version, command, flags, the input's bytes, the option files,
// where it runs (the JSON names the backend and device).
std::string cache_key(const AnalysisRequest& request, const InputFiles& input, const std::string& target) {
  std::string text = std::string("judgestat ") + JUDGESTAT_VERSION + "\ncommand " + request.command + "\n";
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

ExecTarget study_target(const StudySettings& settings) {
  return analysis_target(
      {"metrics",
       {"--backend=" + settings.backend, "--devices=" + settings.devices,
        "--threads=" + std::to_string(settings.threads), "--chunk=" + std::to_string(settings.chunk)}});
}

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

// Matrices loaded once per (input, load options).
class Matrices {
 public:
  explicit Matrices(const Study& study) : study_(study) {}
  const ItemMatrix& get(const std::string& input, const LoadOptions& load, double& load_s) {
    const std::string key = input + "\n" + load.item_column + "\n" + [&] {
      std::string labels;
      for (const std::string& label : load.labels) labels += label + ",";
      return labels;
    }();
    if (auto found = loaded_.find(key); found != loaded_.end()) {
      load_s = found->second.second;
      return found->second.first;
    }
    const double start = now_s();
    ItemMatrix matrix = load_item_matrix(files_of(input), load);
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

// docs/statistics.md §4's envelope for an analysis of the study: argv as the single command's.
ReportHead study_head(const AnalysisRequest& request, const std::vector<std::string>& files, const ItemMatrix& matrix,
                      const std::vector<std::pair<std::string, std::string>>& digests, double load_s) {
  std::vector<std::string> words{"judgestat " + request.command};
  words.insert(words.end(), files.begin(), files.end());
  words.insert(words.end(), request.args.begin(), request.args.end());
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

void remove_temporaries(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return;
  for (const auto& file : fs::directory_iterator(dir, error))
    if (file.path().filename().string().find(".tmp-") != std::string::npos) fs::remove(file.path(), error);
}

std::string progress_line(size_t index, size_t count, const std::string& name, uint64_t done, uint64_t total) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + name + ": " + std::to_string(done) +
         "/" + std::to_string(total);
}

}  // namespace

StudyOutcome run_study(const Study& study, const StudyRunOptions& run) {
  if (run.out_dir.empty()) throw UsageError("--out: give the folder the study writes into");
  const double start = now_s();
  const StudySettings settings = effective_settings(study, run);
  const ExecTarget target = study_target(settings);
  const std::string target_key = target_text(target);
  const std::string cache_dir = run.out_dir + "/cache";
  std::error_code error;
  fs::create_directories(cache_dir, error);
  if (error) throw std::runtime_error("--out: cannot create '" + cache_dir + "': " + error.message());
  remove_temporaries(run.out_dir);
  remove_temporaries(cache_dir);
  auto log = [&](const std::string& line, bool transient) {
    if (run.log && !run.quiet) run.log(line, transient);
  };

  std::map<std::string, InputFiles> inputs;
  for (const StudyInput& input : study.inputs)
    for (const std::string& file : input.files)
      inputs[input.name].files.emplace_back(file, sha256_hex(study::read_file(file)));

  Matrices matrices(study);
  std::vector<Entry> entries;
  std::vector<AnalysisRequest> requests;
  StudyOutcome outcome;
  for (size_t a = 0; a < study.analyses.size(); ++a) {
    const StudyAnalysis& analysis = study.analyses[a];
    const AnalysisRequest request = study_request(analysis, settings);
    requests.push_back(request);
    Entry entry;
    entry.key = cache_key(request, inputs[analysis.input], target_key);
    const std::string cache_path = cache_dir + "/" + entry.key + ".json";
    if (!run.force && read_entry(cache_path, entry.key, entry)) {
      log("[" + std::to_string(a + 1) + "/" + std::to_string(study.analyses.size()) + "] " + analysis.name +
              ": reused (cached)",
          false);
      outcome.reused.push_back(analysis.name);
      entries.push_back(std::move(entry));
      continue;
    }
    const double analysis_start = now_s();
    double load_s = 0;
    const ItemMatrix& matrix = matrices.get(analysis.input, analysis_load_options(request), load_s);
    const ReportHead head =
        study_head(request, matrices.files_of(analysis.input), matrix, inputs[analysis.input].files, load_s);
    const AnalysisHooks hooks{[&](uint64_t done, uint64_t total) {
      log(progress_line(a, study.analyses.size(), analysis.name, done, total), true);
    }};
    try {
      entry.result = run_analysis(request, matrix, target, head, hooks);
    } catch (const std::exception& failure) {
      throw UsageError(study.path + ": analyses[" + std::to_string(a) + "] (" + analysis.name + "): " + failure.what());
    }
    entry.seconds = now_s() - analysis_start;
    study::write_file_atomic(cache_path, dump_json(entry_json(entry, analysis)) + "\n");
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2fs", entry.seconds);
    log("[" + std::to_string(a + 1) + "/" + std::to_string(study.analyses.size()) + "] " + analysis.name +
            ": computed in " + seconds,
        false);
    outcome.computed.push_back(analysis.name);
    entries.push_back(std::move(entry));
  }

  // Per analysis its tables and figures; then results.json and report.html, each replaced whole.
  Json analyses = Json::array();
  HtmlStudy html{study.title, study.description, study.path, JUDGESTAT_VERSION, {}, {}, {}};
  for (size_t a = 0; a < study.analyses.size(); ++a) {
    const StudyAnalysis& analysis = study.analyses[a];
    const Entry& entry = entries[a];
    const std::string dir = run.out_dir + "/" + analysis.name;
    study::write_file_atomic(dir + "/tables.csv", entry.result.csv);
    study::write_file_atomic(dir + "/tables.txt", entry.result.text);
    // Tidy numbers: one row per statistic (estimate, CI, SE …), and budget's rows per k and rule.
    for (const char* rows : {"statistics", "budget"})
      if (entry.result.json.contains(rows) && entry.result.json[rows].is_array() && !entry.result.json[rows].empty())
        study::write_file_atomic(dir + "/" + rows + ".csv", tidy_csv(entry.result.json[rows]));
    write_plots(entry.result.plots, dir);  // NAME.svg and NAME.csv, as --plots writes them
    analyses.push_back({{"name", analysis.name},
                        {"analysis", analysis.request.command},
                        {"input", analysis.input},
                        {"options", requests[a].args},
                        {"reused", entry.reused},
                        {"key", entry.key},
                        {"seconds", entry.seconds},
                        {"result", entry.result.json}});
    html.analyses.push_back({analysis.name, analysis.request.command, analysis.input, requests[a].args, entry.result.md,
                             entry.result.csv, entry.result.plots, entry.seconds});
  }
  Json input_json = Json::array();
  for (const StudyInput& input : study.inputs) {
    HtmlInput html_input{input.name, inputs[input.name].files};
    Json files = Json::array();
    for (const auto& [path, sha256] : html_input.files) files.push_back({{"path", path}, {"sha256", sha256}});
    input_json.push_back({{"name", input.name}, {"files", files}});
    html.inputs.push_back(std::move(html_input));
  }
  Json settings_json = {{"seed", settings.seed ? Json(*settings.seed) : Json(nullptr)},
                        {"replicates", settings.replicates ? Json(*settings.replicates) : Json(nullptr)},
                        {"draws", settings.draws ? Json(*settings.draws) : Json(nullptr)},
                        {"ci", settings.ci ? Json(*settings.ci) : Json(nullptr)},
                        {"level", settings.level ? Json(*settings.level) : Json(nullptr)},
                        {"backend", settings.backend},
                        {"target", target_key}};
  for (const auto& [name, value] : settings_json.items())
    if (!value.is_null()) html.settings.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  const Json results = {{"study",
                         {{"tool", "judgestat"},
                          {"version", JUDGESTAT_VERSION},
                          {"path", study.path},
                          {"title", study.title},
                          {"inputs", input_json},
                          {"settings", settings_json},
                          {"timing", {{"total_s", now_s() - start}}}}},
                        {"analyses", analyses}};
  outcome.results_path = run.out_dir + "/results.json";
  outcome.report_path = run.out_dir + "/report.html";
  study::write_file_atomic(outcome.results_path, dump_json(results, 1) + "\n");
  study::write_file_atomic(outcome.report_path, html_report(html));

  // Entries no analysis of this run uses are stale.
  std::set<std::string> keep;
  for (const Entry& entry : entries) keep.insert(entry.key + ".json");
  for (const auto& file : fs::directory_iterator(cache_dir, error))
    if (!keep.count(file.path().filename().string())) fs::remove(file.path(), error);
  return outcome;
}

}  // namespace judgestat
