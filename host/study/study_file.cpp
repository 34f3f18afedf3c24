// Reading a study file (docs/study.md) into a Study: every key checked, every analysis's options
// read as typed values by the analyses' own readers (check_analysis, host/requests/), before
// anything runs.
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/study.hpp"
#include "records/json_depth.hpp"
#include "report/report.hpp"
#include "requests/analysis_parse.hpp"
#include "sources/import_map.hpp"
#include "study/atomic_file.hpp"
#include "study/study_cache.hpp"
#include "study/study_options.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;

// Errors name the study file, then where in it: "STUDY: analyses[2] (cascade): key 'tol': why".
struct Where {
  const std::string& path;
  std::string at;
  [[noreturn]] void fail(const std::string& why) const { throw UsageError(path + ": " + at + ": " + why); }
  [[noreturn]] void fail_key(const std::string& key, const std::string& why) const {
    fail("key '" + key + "': " + why);
  }
};

// Values that name files are relative to the study's folder.
std::string resolved(const std::string& dir, const std::string& path) {
  if (path.empty() || path == "-" || fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).lexically_normal().string();
}

const char* const kPathFlags[] = {"config", "select-items", "temperature-fit"};

bool is_path_flag(const std::string& flag) {
  return std::find(std::begin(kPathFlags), std::end(kPathFlags), flag) != std::end(kPathFlags);
}

// One option's JSON value as the CLI's words (the record of what ran, not parsed again).
std::string scalar_word(const Json& value, const Where& where, const std::string& key) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  where.fail_key(key, "expected a string or a number, got " + std::string(value.type_name()));
}

void append_option(std::vector<std::string>& args, const std::string& flag, const FlagKind& kind, const Json& value,
                   const Where& where, const std::string& key) {
  if (kind.boolean) {
    if (!value.is_boolean()) where.fail_key(key, "expected true or false (a switch)");
    if (value.get<bool>()) args.push_back("--" + flag);
    return;
  }
  if (value.is_boolean()) where.fail_key(key, "takes a value, not true/false");
  std::vector<std::string> words;
  if (kind.repeatable && value.is_object()) {  // {"judge": 0.0076} → judge=0.0076
    for (const auto& [judge, amount] : value.items()) words.push_back(judge + "=" + scalar_word(amount, where, key));
  } else if (value.is_array()) {
    for (const Json& element : value) words.push_back(scalar_word(element, where, key));
    if (!kind.repeatable) {
      std::string list;
      for (const std::string& word : words) list += (list.empty() ? "" : ",") + word;
      words = {list};
    }
  } else {
    words.push_back(scalar_word(value, where, key));
  }
  for (const std::string& word : words) args.push_back("--" + flag + "=" + word);
}

std::string normalized(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

std::vector<std::string> expand(const std::string& pattern, const Where& where) {
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (!fs::is_regular_file(pattern)) where.fail("no such file '" + pattern + "'");
    return {pattern};
  }
  glob_t found{};
  const int status = ::glob(pattern.c_str(), 0, nullptr, &found);
  std::vector<std::string> files(found.gl_pathv, found.gl_pathv + (status == 0 ? found.gl_pathc : 0));
  ::globfree(&found);
  if (files.empty()) where.fail("'" + pattern + "' matches no file");
  std::sort(files.begin(), files.end());
  return files;
}

// An input's paths or globs: one path, or a list of them.
std::vector<std::string> input_patterns(const Json& value, const Where& where) {
  std::vector<std::string> patterns;
  if (value.is_string()) {
    patterns.push_back(value.get<std::string>());
  } else if (value.is_array() && !value.empty()) {
    for (const Json& element : value) {
      if (!element.is_string()) where.fail("expected paths (strings)");
      patterns.push_back(element.get<std::string>());
    }
  } else {
    where.fail("expected a path or a list of paths or globs");
  }
  return patterns;
}

// {"files": …, "map": MAP}: the map into `input` (a path resolved against the study's folder, a
// built-in NAME as it is; docs/import.md), the files returned.
const Json& input_files_and_map(const Json& value, const std::string& dir, const Where& where, StudyInput& input) {
  for (const auto& [key, v] : value.items())
    if (key != "files" && key != "map") where.fail("unknown key '" + key + "'; expected \"files\" and \"map\"");
  if (!value.contains("files")) where.fail("expected \"files\": a path or a list of paths or globs");
  if (value.contains("map")) {
    if (!value["map"].is_string() || value["map"].get<std::string>().empty())
      where.fail("\"map\": expected a map file's path or a built-in map's NAME (docs/import.md)");
    const std::string map = value["map"].get<std::string>();
    const bool is_file =
        map.find('/') != std::string::npos || (map.size() > 5 && map.substr(map.size() - 5) == ".json");
    input.map = is_file ? resolved(dir, map) : map;
    try {  // checked whole before any record is read
      mapping::load_import_map(input.map);
    } catch (const std::runtime_error& error) {
      where.fail(std::string("\"map\": ") + error.what());
    }
  }
  return value["files"];
}

std::vector<StudyInput> read_inputs(const Json& inputs, const std::string& dir, const std::string& path) {
  if (!inputs.is_object() || inputs.empty())
    Where{path, "inputs"}.fail(
        "expected an object of NAME: path, NAME: [paths or globs], or NAME: {\"files\": …, \"map\": MAP}");
  std::vector<StudyInput> out;
  for (const auto& [name, value] : inputs.items()) {
    const Where where{path, "inputs." + name};
    StudyInput input{name, {}, {}, {}};
    input.patterns = input_patterns(value.is_object() ? input_files_and_map(value, dir, where, input) : value, where);
    for (const std::string& pattern : input.patterns)
      for (const std::string& file : expand(resolved(dir, pattern), where)) input.files.push_back(file);
    out.push_back(std::move(input));
  }
  return out;
}

// A whole number as the CLI takes one (--seed, --replicates: 0 to 2^64 - 1, the same words, "0x"
// included), from a JSON number or a string.
uint64_t whole_number(const Json& value, const Where& where, const std::string& key) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_string()) {
    try {
      uint64_t number = 0;
      cxxopts::values::parse_value(value.get<std::string>(), number);
      return number;
    } catch (const std::exception&) {
    }
  }
  where.fail_key(key, "expected a whole number from 0 to 18446744073709551615, got " + value.dump());
}

template <typename T>
T setting(const Json& value, const Where& where, const std::string& key) {
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!value.is_string()) where.fail_key(key, "expected a string");
    } else if constexpr (std::is_same_v<T, double>) {
      if (!value.is_number()) where.fail_key(key, "expected a number");
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      return whole_number(value, where, key);
    }
    return value.get<T>();
  } catch (const Json::exception&) {
    where.fail_key(key, "bad value " + value.dump());
  }
}

StudySettings read_settings(const Json& json, const std::string& path) {
  StudySettings settings;
  if (json.is_null()) return settings;
  const Where where{path, "settings"};
  if (!json.is_object()) where.fail("expected an object");
  for (const auto& [raw, value] : json.items()) {
    const std::string key = normalized(raw);
    if (key == "seed")
      settings.seed = setting<uint64_t>(value, where, raw);
    else if (key == "replicates")
      settings.replicates = setting<uint64_t>(value, where, raw);
    else if (key == "draws")
      settings.draws = setting<uint64_t>(value, where, raw);
    else if (key == "ci")
      settings.ci = setting<std::string>(value, where, raw);
    else if (key == "level")
      settings.level = setting<double>(value, where, raw);
    else if (key == "backend")
      settings.backend = setting<std::string>(value, where, raw);
    else if (key == "devices")
      settings.devices = setting<std::string>(value, where, raw);
    else if (key == "threads")
      settings.threads = static_cast<int>(setting<uint64_t>(value, where, raw));
    else if (key == "chunk")
      settings.chunk = setting<uint64_t>(value, where, raw);
    else
      where.fail_key(raw, "unknown setting (seed, replicates, draws, ci, level, backend, devices, threads, chunk)");
  }
  return settings;
}

// "--level: expected …" from the CLI's parser, said as the study's key: as written in the file
// where `keys` (flag → JSON key) has it.
std::string as_key_message(const std::string& message, const std::map<std::string, std::string>& keys = {}) {
  if (message.rfind("--", 0) != 0) return message;
  const size_t colon = message.find(": ");
  const size_t space = message.find(' ');
  const size_t end = std::min(colon, space);
  if (end == std::string::npos) return message;
  const std::string flag = message.substr(2, end - 2);
  const auto key = keys.find(flag);
  return "key '" + (key == keys.end() ? flag : key->second) + "'" + message.substr(end);
}

// The analysis's options (every key but analysis, input and name) as typed values by flag name,
// files resolved against the study's folder; the words the CLI would take for them into
// analysis.request.args (the command line results.json and the envelope record); checked as the
// analysis reads them, with the settings joined.
void read_options(const Json& json, const Study& study, const Where& where, StudyAnalysis& analysis) {
  const std::map<std::string, FlagKind> kinds = analysis_flag_kinds(analysis.request.command);
  std::map<std::string, std::string> keys;  // flag → the key as written
  for (const auto& [raw, value] : json.items()) {
    if (raw == "analysis" || raw == "input" || raw == "name") continue;
    const std::string flag = normalized(raw);
    if (kinds.find(flag) == kinds.end())
      where.fail_key(raw, "not an option of " + analysis.request.command + " (see judgestat " +
                              analysis.request.command + " --help)");
    if (is_output_flag(flag)) where.fail_key(raw, "the study writes its own outputs; leave it out");
    if (is_execution_flag(flag))
      where.fail_key(raw,
                     "where the study runs is a setting: put it in \"settings\" or on judgestat run's command line");
    if (keys.count(flag)) where.fail_key(raw, "given twice (also as '" + keys[flag] + "'); say it once");
    const bool path = is_path_flag(flag) && value.is_string();
    analysis.options[flag] = path ? Json(resolved(study.dir, value.get<std::string>())) : value;
    keys[flag] = raw;
  }
  try {
    check_analysis_values(study_values(analysis, study.settings));
  } catch (const std::exception& error) {
    where.fail(as_key_message(error.what(), keys));
  }
  for (const auto& [flag, value] : analysis.options.items())
    append_option(analysis.request.args, flag, kinds.at(flag), value, where, keys[flag]);
}

StudyAnalysis read_analysis(const Json& json, size_t index, const Study& study, std::set<std::string>& names) {
  Where where{study.path, "analyses[" + std::to_string(index) + "]"};
  if (!json.is_object()) where.fail("expected an object with \"analysis\", \"input\" and options");
  StudyAnalysis analysis;
  const auto command = json.find("analysis");
  if (command == json.end() || !command->is_string()) where.fail_key("analysis", "missing (metrics, cascade, …)");
  analysis.request.command = command->get<std::string>();
  const auto& commands = analysis_commands();
  if (std::find(commands.begin(), commands.end(), analysis.request.command) == commands.end())
    where.fail_key("analysis", "expected metrics, cascade, budget, profile, items, repeats or systems, got '" +
                                   analysis.request.command + "'");
  const auto input = json.find("input");
  if (input == json.end() || !input->is_string()) where.fail_key("input", "missing: name one of the study's inputs");
  analysis.input = input->get<std::string>();
  if (std::none_of(study.inputs.begin(), study.inputs.end(),
                   [&](const StudyInput& in) { return in.name == analysis.input; }))
    where.fail_key("input", "no input named '" + analysis.input + "' in \"inputs\"");
  std::string name = analysis.request.command + "_" + analysis.input;
  if (const auto given = json.find("name"); given != json.end()) {
    if (!given->is_string() || given->get<std::string>().empty() ||
        given->get<std::string>().find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
      where.fail_key("name", "expected letters, digits, '.', '_' or '-' (it names the analysis's files)");
    name = given->get<std::string>();
    if (names.count(name)) where.fail_key("name", "'" + name + "' is taken by an earlier analysis");
    // DIR's own names, and those of its hidden files and kept-aside folders (".judgestat…",
    // "kept-by-judgestat-…"): an analysis there would be taken for the tool's staging or manifest.
    if (name == "cache" || name == "results.json" || name == "report.html" || name == "." || name == ".." ||
        name.rfind(".judgestat", 0) == 0 || name.rfind("kept-by-judgestat-", 0) == 0)
      where.fail_key("name", "'" + name + "' is a file or folder of the study's own in DIR; choose another");
  } else {
    for (int n = 2; names.count(name); ++n)
      name = analysis.request.command + "_" + analysis.input + "_" + std::to_string(n);
  }
  // The name is a folder in DIR: a default name carries the input's name, which may not fit.
  if (!study::is_plain_file_name(name, study::kMaxNameBytes))
    where.fail_key(json.contains("name") ? "name" : "input",
                   "the analysis's folder name '" + name.substr(0, 80) + (name.size() > 80 ? "…" : "") +
                       "' must be letters, digits, '.', '_' or '-', at most " + std::to_string(study::kMaxNameBytes) +
                       " bytes" + (json.contains("name") ? "" : " (give the analysis a \"name\")"));
  names.insert(name);
  analysis.name = name;
  where.at += " (" + name + ")";

  read_options(json, study, where, analysis);
  return analysis;
}

}  // namespace

AnalysisValues study_target_values(const StudySettings& settings) {
  return {"metrics",
          {{"backend", settings.backend},
           {"devices", settings.devices},
           {"threads", settings.threads},
           {"chunk", settings.chunk}}};
}

AnalysisRequest study_request(const StudyAnalysis& analysis, const StudySettings& settings) {
  AnalysisRequest request = analysis.request;
  const std::map<std::string, FlagKind> kinds = analysis_flag_kinds(request.command);
  auto sets = [&](const std::string& flag) {
    for (const std::string& arg : analysis.request.args)
      if (arg == "--" + flag || arg.rfind("--" + flag + "=", 0) == 0) return true;
    return false;
  };
  auto add = [&](const std::string& flag, const std::string& value) {
    if (kinds.count(flag) && !sets(flag)) request.args.push_back("--" + flag + "=" + value);
  };
  if (settings.seed) add("seed", std::to_string(*settings.seed));
  if (settings.replicates) add("replicates", std::to_string(*settings.replicates));
  if (settings.draws) add("draws", std::to_string(*settings.draws));
  if (settings.ci) add("ci", *settings.ci);
  if (settings.level) add("level", Json(*settings.level).dump());
  return request;
}

AnalysisValues study_values(const StudyAnalysis& analysis, const StudySettings& settings) {
  AnalysisValues values{analysis.request.command, analysis.options};
  const std::map<std::string, FlagKind> kinds = analysis_flag_kinds(values.command);
  auto add = [&](const std::string& flag, const Json& value) {
    if (kinds.count(flag) && !values.values.contains(flag)) values.values[flag] = value;
  };
  if (settings.seed) add("seed", *settings.seed);
  if (settings.replicates) add("replicates", *settings.replicates);
  if (settings.draws) add("draws", *settings.draws);
  if (settings.ci) add("ci", *settings.ci);
  if (settings.level) add("level", *settings.level);
  return values;
}

// A JSON object keeps one of two equal keys; a study file must say each thing once. The parser's
// callback sees every key with the object it is in ("settings", "analyses[1]", "top level").
Json parse_without_duplicate_keys(const std::string& text, const std::string& path) {
  struct Frame {
    bool object;
    std::string where;
    std::set<std::string> keys;
    std::string last_key;
    size_t index = 0;
  };
  std::vector<Frame> frames;
  auto child_where = [&]() -> std::string {
    if (frames.empty()) return "top level";
    const Frame& top = frames.back();
    const std::string base = top.where == "top level" ? "" : top.where;
    if (top.object) return base.empty() ? top.last_key : base + "." + top.last_key;
    return base + "[" + std::to_string(top.index) + "]";
  };
  auto element_done = [&] {
    if (!frames.empty() && !frames.back().object) ++frames.back().index;
  };
  std::string duplicate, duplicate_where;
  const Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        frames.push_back({event == Json::parse_event_t::object_start, child_where(), {}, {}, 0});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        element_done();
        break;
      case Json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        if (!frames.empty() && !frames.back().keys.insert(key).second && duplicate.empty()) {
          duplicate = key;
          duplicate_where = frames.back().where;
        }
        if (!frames.empty()) frames.back().last_key = key;
        break;
      }
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  Json json = Json::parse(text, callback);
  if (!duplicate.empty())
    Where{path, duplicate_where}.fail_key(duplicate, "given twice (a JSON object keeps only one; say it once)");
  return json;
}

Study load_study(const std::string& path) {
  Study study;
  study.path = path;
  study.dir = fs::path(path).parent_path().string();
  Json json;
  try {
    const std::string text = study::read_file(path);
    check_json_depth(text, path);  // nlohmann's parser recurses: bound the nesting first
    json = parse_without_duplicate_keys(text, path);
  } catch (const UsageError&) {
    throw;
  } catch (const InputError& error) {
    throw UsageError(error.what());
  } catch (const Json::exception& error) {  // a syntax error, or a number beyond a double (1e400)
    throw UsageError(path + ": not valid JSON: " + error.what());
  } catch (const std::runtime_error& error) {
    throw UsageError(std::string(error.what()) + " (the study file)");
  }
  const Where top{path, "top level"};
  if (!json.is_object()) top.fail("expected an object with \"inputs\" and \"analyses\"");
  for (const auto& [key, value] : json.items())
    if (key != "title" && key != "description" && key != "settings" && key != "inputs" && key != "analyses")
      top.fail_key(key, "unknown (title, description, settings, inputs, analyses)");
  if (json.contains("title") && !json["title"].is_string()) top.fail_key("title", "expected a string");
  if (json.contains("description") && !json["description"].is_string())
    top.fail_key("description", "expected a string");
  study.title = json.value("title", "Judge study");
  study.description = json.value("description", "");
  study.settings = read_settings(json.value("settings", Json()), path);
  // The run-wide execution settings, checked as the CLI checks its flags.
  try {
    check_analysis_values(study_target_values(study.settings));
  } catch (const std::exception& error) {
    Where{path, "settings"}.fail(as_key_message(error.what()));
  }
  if (!json.contains("inputs")) top.fail_key("inputs", "missing: name the record files, {\"NAME\": \"path\"}");
  study.inputs = read_inputs(json["inputs"], study.dir, path);
  if (!json.contains("analyses") || !json["analyses"].is_array() || json["analyses"].empty())
    top.fail_key("analyses", "expected a non-empty list of analyses");
  std::set<std::string> names;
  for (size_t a = 0; a < json["analyses"].size(); ++a)
    study.analyses.push_back(read_analysis(json["analyses"][a], a, study, names));
  return study;
}

}  // namespace judgestat
