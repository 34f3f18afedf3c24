// `judgestat import`: JudgeBench outputs/*.jsonl and LLMBar evaluator result.json files →
// judgment records. The conversion rules are those of ../shared/data/README.md; the bundled
// converted files (data/judgebench, data/llmbar) are reproduced row for row.
#include "sources/import.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "records/input.hpp"
#include "records/json_depth.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& what) {
  throw InputError(where + ": field '" + field + "': " + what);
}

std::string shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 60) + "…" : text;
}

const Json& member(const Json& object, const char* key, const std::string& where) {
  auto found = object.find(key);
  if (found == object.end()) fail(where, key, "missing; expected it in every entry");
  return *found;
}

std::string string_member(const Json& object, const char* key, const std::string& where) {
  const Json& value = member(object, key, where);
  if (!value.is_string()) fail(where, key, "expected a string, got " + shown(value));
  return value.get<std::string>();
}

// nlohmann's other parse failures (a number such as 2e308 that overflows a double: out_of_range.406)
// in the project's words.
std::string json_value_problem(const Json::exception& error) {
  if (error.id == 406)
    return "a number does not fit a double (" + std::string(error.what()) +
           "); write it within ±1.7e308, or as a string where the field takes text";
  return std::string("unreadable JSON value (") + error.what() + ")";
}

// Parses one import file's JSON text; errors name `where`, the `unit` ("column" of a line,
// "byte" of a file) where parsing stopped, and what the file should hold.
Json parse_import_json(std::string_view text, const std::string& where, const char* unit, const char* expected) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    throw InputError(where + ": " + unit + " " + std::to_string(error.byte) + ": malformed JSON; expected " + expected +
                     " (" + error.what() + ")");
  } catch (const Json::exception& error) {
    throw InputError(where + ": " + json_value_problem(error));
  }
}

// The loader's reader: folders, FIFOs and devices are refused by name before anything is read.
std::string read_text(const std::string& path) { return loading::read_bytes(path); }

// --- JudgeBench ------------------------------------------------------------------------------

/// JudgeBench's pairwise decision in the presented order: A, B, tie, or "" (no usable decision).
std::string judgebench_verdict(const Json& decision) {
  if (!decision.is_string()) return "";
  const std::string& text = decision.get_ref<const std::string&>();
  if (text == "A>B" || text == "A>>B") return "A";
  if (text == "B>A" || text == "B>>A") return "B";
  if (text == "A=B") return "tie";
  return "";
}

std::string swapped(const std::string& verdict) {
  if (verdict == "A") return "B";
  if (verdict == "B") return "A";
  return verdict;  // tie and the empty (invalid) verdict read the same in both orders
}

/// original_id names the source question; several pairs may share it, so it is the cluster.
std::string judgebench_cluster(const Json& pair) {
  auto found = pair.find("original_id");
  if (found == pair.end() || found->is_null()) return "";
  if (found->is_string()) return found->get<std::string>();
  if (found->is_number_integer() || found->is_number_unsigned()) return found->dump();
  if (found->is_number_float()) {
    const double id = found->get<double>();
    if (id == std::floor(id) && std::fabs(id) < 1e15) {
      return std::to_string(static_cast<long long>(id));
    }
  }
  return found->dump();
}

/// The last component of a folder path, also when it was given as "Natural/" or ".".
std::string folder_name(const fs::path& folder) {
  fs::path normal = fs::absolute(folder).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  return normal.filename().string();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

bool ImportedRecord::operator==(const ImportedRecord& other) const {
  return std::tie(judge, item, cluster, benchmark, condition, order, gold, verdict, p_a, p_b) ==
         std::tie(other.judge, other.item, other.cluster, other.benchmark, other.condition, other.order, other.gold,
                  other.verdict, other.p_a, other.p_b);
}

const std::vector<std::string>& imported_header() {
  static const std::vector<std::string> kHeader = {"judge", "item", "cluster", "benchmark", "condition",
                                                   "order", "gold", "verdict", "p.A",       "p.B"};
  return kHeader;
}

std::string imported_csv(const std::vector<ImportedRecord>& records) {
  std::string text;
  append_csv_row(text, imported_header());
  for (const ImportedRecord& r : records) {
    append_csv_row(text, {r.judge, r.item, r.cluster, r.benchmark, r.condition, std::to_string(r.order), r.gold,
                          r.verdict, r.p_a, r.p_b});
  }
  return text;
}

void check_importable(const std::vector<ImportedRecord>& records) {
  std::map<std::tuple<std::string, std::string, int>, const ImportedRecord*> cells;
  std::map<std::string, const ImportedRecord*> items;
  for (const ImportedRecord& r : records) {
    if (r.judge.empty()) fail(r.where, "judge", "empty judge name; every judgment must name its judge model");
    if (r.item.empty()) fail(r.where, "item", "empty item id; every pair needs an id");
    const auto [cell, fresh] = cells.emplace(std::make_tuple(r.judge, r.item, r.order), &r);
    if (!fresh)
      throw InputError(r.where + ": judge \"" + r.judge + "\", item \"" + r.item + "\", order " +
                       std::to_string(r.order) + " is already imported from " + cell->second->where +
                       "; each pair may occur once per judge, so remove the repeated entry or file");
    const auto [item, first] = items.emplace(r.item, &r);
    if (first) continue;
    const ImportedRecord& o = *item->second;
    for (const auto& [field, here, there] :
         {std::make_tuple("gold", &r.gold, &o.gold), std::make_tuple("cluster", &r.cluster, &o.cluster),
          std::make_tuple("benchmark", &r.benchmark, &o.benchmark),
          std::make_tuple("condition", &r.condition, &o.condition)})
      if (*here != *there)
        fail(r.where, field,
             "item \"" + r.item + "\" has " + field + " \"" + *here + "\" here but \"" + *there + "\" in " + o.where +
                 "; one item has one " + field + ", so correct one of the two entries");
  }
}

double reward_probability(double score_a, double score_b) { return 1.0 / (1.0 + std::exp(-(score_a - score_b))); }

std::string probability_text(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6f", p);
  return buffer;
}

std::vector<ImportedRecord> convert_judgebench_pair(const Json& pair, const std::string& where) {
  if (!pair.is_object()) throw InputError(where + ": expected a JSON object (one pair per line)");
  ImportedRecord base;
  base.item = string_member(pair, "pair_id", where);
  base.cluster = judgebench_cluster(pair);
  base.condition = string_member(pair, "source", where);
  // Sources are mmlu-pro-<subject>, livebench-<task>, livecodebench: the benchmark is the part
  // before the first '-'.
  base.benchmark = base.condition.substr(0, base.condition.find('-'));
  const std::string label = string_member(pair, "label", where);
  if (label == "A>B")
    base.gold = "A";
  else if (label == "B>A")
    base.gold = "B";
  else
    fail(where, "label", "expected \"A>B\" or \"B>A\", got \"" + label + "\"");

  const Json& judgments = member(pair, "judgments", where);
  if (!judgments.is_array() || judgments.empty() || judgments.size() > 2) {
    fail(where, "judgments",
         "expected a list of one or two judgments (original and swapped order), got " + shown(judgments));
  }
  std::vector<ImportedRecord> records;
  for (size_t order = 0; order < judgments.size(); ++order) {
    const Json& entry = judgments[order];
    const std::string entry_where = where + ": judgments[" + std::to_string(order) + "]";
    if (!entry.is_object()) fail(entry_where, "judgment", "expected an object");
    const Json& judgment = member(entry, "judgment", entry_where);
    if (!judgment.is_object()) fail(entry_where, "judgment", "expected an object");

    ImportedRecord record = base;
    record.order = static_cast<int>(order);
    record.where = entry_where;
    // Judge names as in the outputs' file names: "Skywork/Skywork-Reward-…" → "Skywork_…".
    record.judge = string_member(judgment, "judge_model", entry_where);
    std::replace(record.judge.begin(), record.judge.end(), '/', '_');

    // The verdict is JudgeBench's own decision (for reward models too), flipped back to
    // canonical terms in the swapped order.
    auto decision = entry.find("decision");
    record.verdict = judgebench_verdict(decision == entry.end() ? Json() : *decision);
    if (order == 1) record.verdict = swapped(record.verdict);

    auto scores = judgment.find("scores");
    if (scores != judgment.end() && !scores->is_null()) {
      if (!scores->is_array() || scores->size() != 2 || !(*scores)[0].is_number() || !(*scores)[1].is_number()) {
        fail(entry_where, "scores", "expected two numbers, got " + shown(*scores));
      }
      // Scores are in presentation order; in the swapped order the first is response B's.
      double score_a = (*scores)[0].get<double>(), score_b = (*scores)[1].get<double>();
      if (order == 1) std::swap(score_a, score_b);
      const double p_a = reward_probability(score_a, score_b);
      record.p_a = probability_text(p_a);
      record.p_b = probability_text(1.0 - p_a);
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<ImportedRecord> convert_judgebench_file(const std::string& path) {
  return convert_judgebench_text(read_text(path), path);
}

std::vector<ImportedRecord> convert_judgebench_text(std::string_view text, const std::string& path) {
  std::vector<ImportedRecord> records;
  size_t pos = 0;
  int64_t line = 0;
  while (pos < text.size()) {
    ++line;
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line_text(text.data() + pos, end - pos);
    pos = end + 1;
    if (line_text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = path + ":" + std::to_string(line);
    check_json_depth(line_text, path, line);  // shown() dumps values recursively
    const Json pair = parse_import_json(line_text, where, "column", "one JudgeBench pair object per line");
    std::vector<ImportedRecord> converted = convert_judgebench_pair(pair, where);
    records.insert(records.end(), converted.begin(), converted.end());
  }
  if (records.empty()) {
    throw InputError(path + ":1: no JudgeBench pairs; expected one JSON object per line");
  }
  check_importable(records);
  return records;
}

// --- LLMBar ----------------------------------------------------------------------------------

std::vector<ImportedRecord> convert_llmbar_results(const Json& results, const std::string& judge,
                                                   const std::string& benchmark, const std::string& condition,
                                                   const std::string& where) {
  if (!results.is_array()) {
    throw InputError(where + ": expected a JSON array of evaluated items, got " + shown(results));
  }
  // LLMBar stores winners in canonical terms already ("1" = output_1 = A) for both orders.
  auto letter = [](const Json& value) -> std::string {
    if (value == "1" || value == 1) return "A";
    if (value == "2" || value == 2) return "B";
    return "";  // no parsable winner: an invalid output
  };
  static const char* const kOrderKeys[] = {"swap = False", "swap = True"};

  std::vector<ImportedRecord> records;
  for (size_t i = 0; i < results.size(); ++i) {
    const Json& entry = results[i];
    const std::string entry_where = where + ": entry " + std::to_string(i);
    if (!entry.is_object()) throw InputError(entry_where + ": expected an object");
    ImportedRecord base;
    base.judge = judge;
    base.item = condition + "-" + std::to_string(i);
    base.cluster = base.item;
    base.benchmark = benchmark;
    base.condition = condition;
    base.gold = letter(member(entry, "label", entry_where));
    if (base.gold.empty()) {
      fail(entry_where, "label", "expected 1 or 2, got " + shown(entry["label"]));
    }
    const Json& rounds = member(entry, "results", entry_where);
    if (!rounds.is_array() || rounds.empty() || !rounds.back().is_object()) {
      fail(entry_where, "results", "expected a non-empty list of objects, got " + shown(rounds));
    }
    // Swap strategies append a further round when the two orders disagree; the last round
    // holds the final verdicts.
    const Json& final_round = rounds.back();
    for (int order = 0; order < 2; ++order) {
      auto outcome = final_round.find(kOrderKeys[order]);
      if (outcome == final_round.end()) continue;
      ImportedRecord record = base;
      record.order = order;
      record.where = entry_where;
      auto winner = outcome->is_object() ? outcome->find("winner") : outcome->end();
      record.verdict = winner == outcome->end() ? "" : letter(*winner);
      records.push_back(std::move(record));
    }
  }
  return records;
}

std::vector<ImportedRecord> convert_llmbar_text(std::string_view text, const std::string& judge,
                                                const std::string& benchmark, const std::string& condition,
                                                const std::string& where) {
  check_json_depth(text, where);
  const Json results = parse_import_json(text, where, "byte", "LLMBar's result.json array");
  return convert_llmbar_results(results, judge, benchmark, condition, where);
}

namespace {

InputError no_llmbar_results(const std::string& dir) {
  return InputError(dir +
                    ": no <subset>/evaluators/<evaluator>/<strategy>/result.json files; "
                    "expected the LLMBar dataset folder that holds Natural/ and Adversarial/");
}

}  // namespace

std::vector<LlmBarResult> llmbar_results(const std::string& dir) {
  const fs::path root(dir);
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw InputError(dir +
                     ": not a directory; expected the LLMBar dataset folder that holds "
                     "Natural/ and Adversarial/");
  }
  // Subsets: folders holding an evaluators/ folder.
  std::vector<fs::path> subsets;
  if (fs::is_directory(root / "evaluators")) subsets.push_back(root);
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_directory()) continue;
    if (it->path().filename() == "evaluators") {
      subsets.push_back(it->path().parent_path());
      it.disable_recursion_pending();
    }
  }
  auto depth = [&](const fs::path& subset) {
    const fs::path relative = subset.lexically_relative(root);
    return relative == "." ? 0 : static_cast<int>(std::distance(relative.begin(), relative.end()));
  };
  std::sort(subsets.begin(), subsets.end(), [&](const fs::path& a, const fs::path& b) {
    return std::make_pair(depth(a), a.generic_string()) < std::make_pair(depth(b), b.generic_string());
  });

  std::vector<LlmBarResult> results;
  for (const fs::path& subset : subsets) {
    const fs::path relative = subset.lexically_relative(root);
    const std::string condition = relative == "." ? folder_name(root) : folder_name(subset);
    const std::string benchmark = depth(subset) >= 2 ? relative.begin()->string() : std::string("LLMBar");

    // Judges "<evaluator>/<strategy>", in byte order of the whole name.
    std::set<std::pair<std::string, fs::path>> judges;
    for (const auto& evaluator : fs::directory_iterator(subset / "evaluators")) {
      if (!evaluator.is_directory()) continue;
      for (const auto& strategy : fs::directory_iterator(evaluator.path())) {
        const fs::path result = strategy.path() / "result.json";
        if (strategy.is_directory() && fs::is_regular_file(result)) {
          judges.emplace(evaluator.path().filename().string() + "/" + strategy.path().filename().string(), result);
        }
      }
    }
    for (const auto& judge : judges) results.push_back({judge.second.string(), judge.first, benchmark, condition});
  }
  if (results.empty()) throw no_llmbar_results(dir);
  return results;
}

std::vector<std::string> llmbar_result_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const LlmBarResult& result : llmbar_results(dir)) files.push_back(result.file);
  return files;
}

std::vector<ImportedRecord> convert_llmbar_dir(const std::string& dir) {
  std::vector<ImportedRecord> records;
  for (const LlmBarResult& result : llmbar_results(dir)) {
    std::vector<ImportedRecord> converted =
        convert_llmbar_text(read_text(result.file), result.judge, result.benchmark, result.condition, result.file);
    records.insert(records.end(), converted.begin(), converted.end());
  }
  if (records.empty()) throw no_llmbar_results(dir);  // every result.json an empty array
  check_importable(records);
  return records;
}

}  // namespace judgestat
