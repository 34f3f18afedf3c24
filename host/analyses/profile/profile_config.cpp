// CAP profile config and several input files as one item matrix (docs/statistics.md §3.6).
#include "analyses/profile/profile_detail.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "records/json_depth.hpp"
#include "records/selection.hpp"

namespace judgestat {

using ConfigJson = nlohmann::ordered_json;

std::string to_string(Coverage status) {
  switch (status) {
    case Coverage::kDirect:
      return "direct";
    case Coverage::kApprox:
      return "approx";
    case Coverage::kAugmented:
      return "augmented";
    case Coverage::kUnavailable:
      return "unavailable";
  }
  return "?";
}

std::string to_string(CapOperator op) {
  switch (op) {
    case CapOperator::kPa:
      return "pa";
    case CapOperator::kAcc:
      return "acc";
    case CapOperator::kBc:
      return "bc";
    case CapOperator::kVariantBc:
      return "variant_bc";
    case CapOperator::kRationale:
      return "rationale";
  }
  return "?";
}

const std::vector<std::string>& cap_cell_names() {
  static const std::vector<std::string> kNames{"C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "overall"};
  return kNames;
}

// ---------------------------------------------------------------------------------------------
// Config.

namespace {

[[noreturn]] void config_error(const std::string& where, const std::string& what) {
  throw UsageError("profile config " + where + ": " + what);
}

}  // namespace

namespace {

void check_keys(const ConfigJson& object, const std::vector<std::string>& allowed, const std::string& where) {
  if (!object.is_object()) config_error(where, "expected a JSON object");
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      config_error(where, "unknown key '" + it.key() + "' (allowed: " + join(allowed) + ")");
}

std::string string_field(const ConfigJson& object, const std::string& key, const std::string& where,
                         const std::string& fallback = "") {
  if (!object.contains(key)) return fallback;
  if (!object[key].is_string()) config_error(where, "'" + key + "' must be a string");
  return object[key].get<std::string>();
}

// A string or a list of strings.
std::vector<std::string> names_field(const ConfigJson& object, const std::string& key, const std::string& where) {
  if (!object.contains(key)) return {};
  const ConfigJson& value = object[key];
  if (value.is_string()) return {value.get<std::string>()};
  if (!value.is_array()) config_error(where, "'" + key + "' must be a string or a list of strings");
  std::vector<std::string> out;
  for (const auto& element : value) {
    if (!element.is_string()) config_error(where, "'" + key + "' must list strings");
    out.push_back(element.get<std::string>());
  }
  return out;
}

Coverage parse_status(const std::string& text, const std::string& where) {
  if (text == "direct") return Coverage::kDirect;
  if (text == "approx") return Coverage::kApprox;
  if (text == "augmented") return Coverage::kAugmented;
  if (text == "unavailable") return Coverage::kUnavailable;
  config_error(where, "status '" + text + "': expected direct, approx, augmented or unavailable");
}

CapOperator parse_operator(const std::string& text, const std::string& where) {
  if (text == "pa") return CapOperator::kPa;
  if (text == "acc") return CapOperator::kAcc;
  if (text == "bc") return CapOperator::kBc;
  if (text == "variant_bc") return CapOperator::kVariantBc;
  if (text == "rationale") return CapOperator::kRationale;
  config_error(where, "operator '" + text + "': expected pa, acc, bc, variant_bc or rationale");
}

// docs/statistics.md §3.6's default operator and subset per condition.
CellSpec default_cell(const std::string& name) {
  static const std::map<std::string, std::string> kFailureType{
      {"C1", "factual"}, {"C2", "logical"}, {"C3", "overclaim"}, {"C4", "omission"}};
  CellSpec cell;
  cell.name = name;
  if (kFailureType.count(name)) {
    cell.op = CapOperator::kPa;
    cell.subset.conditions = {kFailureType.at(name)};
    cell.subset.variants = {"plain"};
  } else if (name == "C5" || name == "C6") {
    cell.op = CapOperator::kVariantBc;
    cell.variant_pair = {"plain", name == "C5" ? "polished" : "padded"};
  } else if (name == "C7") {
    cell.op = CapOperator::kBc;
  } else if (name == "C8") {
    cell.op = CapOperator::kRationale;
    cell.subset.variants = {"plain"};
  } else {  // overall: every plain item
    cell.op = CapOperator::kPa;
    cell.subset.variants = {"plain"};
    cell.status = Coverage::kDirect;
  }
  return cell;
}

CellSpec parse_cell(const ConfigJson& value, const std::string& name, const std::string& where) {
  check_keys(value, {"status", "operator", "benchmark", "condition", "variant", "variants", "main_table", "note"},
             where);
  CellSpec cell = default_cell(name);
  if (value.contains("status")) {
    cell.status = parse_status(string_field(value, "status", where), where);
  } else if (name != "overall") {
    config_error(where, "missing 'status' (direct, approx, augmented or unavailable)");
  }
  if (cell.status == Coverage::kUnavailable) return cell;
  if (value.contains("operator")) {
    const CapOperator op = parse_operator(string_field(value, "operator", where), where);
    if (op != cell.op) {  // another operator: the default subset no longer applies
      cell.subset.variants = op == CapOperator::kBc || op == CapOperator::kVariantBc
                                 ? std::vector<std::string>{}
                                 : std::vector<std::string>{"plain"};
      cell.variant_pair.clear();
    }
    cell.op = op;
  }
  const bool own_subset = value.contains("benchmark") || value.contains("condition");
  if (own_subset) {
    cell.subset.benchmarks = names_field(value, "benchmark", where);
    cell.subset.conditions = names_field(value, "condition", where);
  }
  if (value.contains("variant")) cell.subset.variants = names_field(value, "variant", where);
  if (value.contains("variants")) cell.variant_pair = names_field(value, "variants", where);
  if (cell.op == CapOperator::kVariantBc) {
    if (cell.variant_pair.size() != 2 || cell.variant_pair[0] == cell.variant_pair[1])
      config_error(where,
                   "operator variant_bc needs 'variants': [base, perturbed], two different "
                   "variant names (e.g. [\"plain\", \"polished\"])");
    if (value.contains("variant"))
      config_error(where, "operator variant_bc takes its variants from 'variants', not 'variant'");
  } else if (value.contains("variants")) {
    config_error(where, "'variants' belongs to operator variant_bc; use 'variant' to filter");
  }
  cell.main_table = cell.status != Coverage::kAugmented;
  if (value.contains("main_table")) {
    if (!value["main_table"].is_boolean()) config_error(where, "'main_table' must be true or false");
    cell.main_table = value["main_table"].get<bool>();
  }
  cell.note = string_field(value, "note", where);
  return cell;
}

RecordFilter parse_filter(const ConfigJson& value, const std::string& where) {
  check_keys(value, {"benchmark", "condition", "variant"}, where);
  RecordFilter filter;
  filter.benchmarks = names_field(value, "benchmark", where);
  filter.conditions = names_field(value, "condition", where);
  filter.variants = names_field(value, "variant", where);
  return filter;
}

// A list of condition names (C1 … C8, overall), each once.
std::vector<std::string> condition_list(const ConfigJson& object, const std::string& key, const std::string& where) {
  const std::vector<std::string> names = names_field(object, key, where);
  std::set<std::string> seen;
  for (const std::string& name : names) {
    const auto& all = cap_cell_names();
    if (std::find(all.begin(), all.end(), name) == all.end())
      config_error(where + ": " + key, "'" + name + "' is not a condition (expected " + join(all) + ")");
    if (!seen.insert(name).second) config_error(where + ": " + key, "'" + name + "' listed twice");
  }
  if (object.contains(key) && names.empty()) config_error(where + ": " + key, "list at least one condition");
  return names;
}

// families.sum_over: a list of conditions for every benchmark, or {benchmark: [conditions]}.
void parse_sum_over(const ConfigJson& value, const std::string& where, ProfileConfig& config) {
  if (!value.is_object()) {
    config.l1_over[""] = condition_list(ConfigJson{{"sum_over", value}}, "sum_over", where);
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    const bool known = std::any_of(config.benchmarks.begin(), config.benchmarks.end(),
                                   [&](const BenchmarkSpec& b) { return b.name == it.key(); });
    if (!known) config_error(where, "names benchmark '" + it.key() + "', which the config does not define");
    config.l1_over[it.key()] = condition_list(value, it.key(), where);
  }
}

// The keys of CAP §5, App. L and Table 3: differences, judge_sets, hard, invalid.
void parse_extras(const ConfigJson& root, const std::string& source, ProfileConfig& config) {
  if (root.contains("differences")) {
    const std::string where = source + ": differences";
    check_keys(root["differences"], {"reference", "judges"}, where);
    config.differences.reference = string_field(root["differences"], "reference", where);
    if (config.differences.reference.empty()) config_error(where, "missing 'reference' (a judge name)");
    config.differences.judges = names_field(root["differences"], "judges", where);
  }
  if (root.contains("judge_sets")) {
    const ConfigJson& sets = root["judge_sets"];
    if (!sets.is_object()) config_error(source + ": judge_sets", "expected {name: [judges…]}");
    for (auto it = sets.begin(); it != sets.end(); ++it) {
      JudgeSetSpec set{it.key(), names_field(sets, it.key(), source + ": judge_sets")};
      if (set.members.empty())
        config_error(source + ": judge_sets." + it.key(), "a judge set needs at least one member");
      config.judge_sets.push_back(std::move(set));
    }
  }
  if (root.contains("hard")) {
    if (!root["hard"].is_boolean()) config_error(source + ": hard", "must be true or false");
    config.hard = root["hard"].get<bool>();
  }
  config.invalid = string_field(root, "invalid", source);
  if (!config.invalid.empty() && config.invalid != "exclude" && config.invalid != "wrong")
    config_error(source + ": invalid", "'" + config.invalid + "': expected \"exclude\" or \"wrong\"");
}

}  // namespace

ProfileConfig parse_profile_config(const std::string& json_text, const std::string& source) {
  ConfigJson root;
  check_json_depth(json_text, source);  // the document is copied and walked recursively below
  try {
    root = ConfigJson::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("profile config " + source + ": not valid JSON: " + e.what());
  }
  check_keys(root,
             {"description", "benchmarks", "families", "stress", "bias_correction", "differences", "judge_sets", "hard",
              "invalid"},
             source);
  ProfileConfig config;
  config.source = source;
  config.description = string_field(root, "description", source);
  if (!root.contains("benchmarks") || !root["benchmarks"].is_array() || root["benchmarks"].empty())
    config_error(source, "'benchmarks' must be a non-empty list");
  std::set<std::string> names;
  for (size_t b = 0; b < root["benchmarks"].size(); ++b) {
    const ConfigJson& entry = root["benchmarks"][b];
    std::string where = source + ": benchmarks[" + std::to_string(b) + "]";
    check_keys(entry, {"name", "records", "conditions", "description"}, where);
    BenchmarkSpec spec;
    spec.name = string_field(entry, "name", where);
    if (spec.name.empty()) config_error(where, "missing 'name'");
    where += " (" + spec.name + ")";
    if (!names.insert(spec.name).second) config_error(where, "benchmark name used twice");
    spec.description = string_field(entry, "description", where);
    if (entry.contains("records")) spec.records = parse_filter(entry["records"], where + ": records");
    const ConfigJson conditions = entry.contains("conditions") ? entry["conditions"] : ConfigJson::object();
    check_keys(conditions, cap_cell_names(), where + ": conditions");
    for (const std::string& name : cap_cell_names()) {
      if (conditions.contains(name)) {
        spec.cells.push_back(parse_cell(conditions[name], name, where + ": conditions." + name));
      } else {
        CellSpec cell = default_cell(name);
        if (name != "overall") cell.status = Coverage::kUnavailable;
        spec.cells.push_back(cell);
      }
    }
    config.benchmarks.push_back(std::move(spec));
  }
  if (root.contains("families")) {
    const ConfigJson& families = root["families"];
    if (!families.is_object()) config_error(source + ": families", "expected {name: [judges…]}");
    for (auto it = families.begin(); it != families.end(); ++it) {
      if (it.key() == "sum_over") {  // reserved: the conditions of the extra L1 sum [CAP Table 17]
        parse_sum_over(families["sum_over"], source + ": families.sum_over", config);
        continue;
      }
      FamilySpec family{it.key(), names_field(families, it.key(), source + ": families")};
      if (family.members.empty()) config_error(source + ": families." + it.key(), "a family needs at least one member");
      config.families.push_back(std::move(family));
    }
  }
  if (root.contains("stress")) {
    if (!root["stress"].is_array()) config_error(source + ": stress", "expected a list of {from, to}");
    for (size_t s = 0; s < root["stress"].size(); ++s) {
      const std::string where = source + ": stress[" + std::to_string(s) + "]";
      check_keys(root["stress"][s], {"from", "to", "mean_over"}, where);
      StressSpec pair{string_field(root["stress"][s], "from", where), string_field(root["stress"][s], "to", where),
                      condition_list(root["stress"][s], "mean_over", where)};
      for (const std::string& name : {pair.from, pair.to})
        if (!names.count(name)) config_error(where, "names benchmark '" + name + "', which the config does not define");
      if (pair.from == pair.to) config_error(where, "'from' and 'to' are the same benchmark");
      config.stress.push_back(pair);
    }
  }
  if (root.contains("bias_correction")) {
    config.corrected = names_field(root, "bias_correction", source);
    for (const std::string& name : config.corrected)
      if (name != "C1" && name != "C2" && name != "C3" && name != "C4" && name != "overall")
        config_error(source + ": bias_correction",
                     "'" + name + "': the correction applies to C1–C4 and overall only [CAP App. K]");
  }
  parse_extras(root, source, config);
  return config;
}

ProfileConfig load_profile_config(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw std::invalid_argument("config: '" + path +
                                "' is a folder; give the config file (e.g. configs/judgereva.json)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("config: cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_profile_config(text.str(), path);
}

// ---------------------------------------------------------------------------------------------
// Several input files.

namespace {

std::string file_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  const size_t dot = name.find('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

}  // namespace

ProfileInput load_profile_inputs(const std::vector<std::string>& paths, const LoadOptions& options) {
  if (paths.empty()) throw UsageError("missing FILE: give one or more judgment records files");
  ProfileInput input;
  if (paths.size() == 1) {
    input.matrix = load_item_matrix(paths[0], options);
    input.files.push_back({paths[0], input.matrix.sha256, input.matrix.records, input.matrix.invalid});
    return input;
  }
  std::vector<Record> all;
  std::vector<int64_t> line_offset;  // file k's lines are (offset[k], offset[k + 1]]
  std::set<std::string> stems;
  int64_t offset = 0;
  for (size_t k = 0; k < paths.size(); ++k) {
    InputFile file{paths[k], "", 0, 0};
    std::vector<Record> records = read_records(paths[k], &file.sha256);
    build_item_matrix(records, paths[k], options);  // each file's own checks, with its name
    file.records = static_cast<int64_t>(records.size());
    std::string stem = file_stem(paths[k]);
    if (!stems.insert(stem).second) stem += "#" + std::to_string(k + 1);
    stems.insert(stem);
    int64_t last_line = 0;
    for (Record& record : records) {
      record.item = stem + "/" + record.item;
      if (!record.cluster.empty()) record.cluster = stem + "/" + record.cluster;
      if (record.benchmark.empty()) record.benchmark = stem;
      last_line = std::max(last_line, record.line);
      record.line += offset;
      all.push_back(std::move(record));
    }
    line_offset.push_back(offset);
    offset += last_line + 1;
    input.files.push_back(file);
  }
  line_offset.push_back(offset);
  std::string joined;
  for (const auto& path : paths) joined += (joined.empty() ? "" : ", ") + path;
  input.matrix = build_item_matrix(all, joined, options);
  // Invalid records per file, from the combined matrix's validity (one label set for all).
  for (size_t c = 0; c < input.matrix.verdict.size(); ++c) {
    if (input.matrix.verdict[c] != kInvalid) continue;
    const int64_t line = input.matrix.line[c];
    const size_t k = std::upper_bound(line_offset.begin(), line_offset.end(), line - 1) - line_offset.begin() - 1;
    if (k < input.files.size()) ++input.files[k].invalid;
  }
  return input;
}

}  // namespace judgestat
