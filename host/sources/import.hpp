// Importers: JudgeBench and LLMBar outputs in their own formats → judgment records (docs/statistics.md §1), as
// ../shared/data/README.md describes the conversion of the bundled files.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace judgestat {

/// One converted judgment record: the columns of the bundled converted files, as text.
struct ImportedRecord {
  std::string judge, item, cluster, benchmark, condition;
  int order = 0;
  std::string gold, verdict;
  std::string p_a, p_b;  // printed probabilities ("%.6f"); empty when the judge gives none
  std::string where;     // "file:line" or "file: entry i" it came from (not compared)

  bool operator==(const ImportedRecord& other) const;
};

/// judge,item,cluster,benchmark,condition,order,gold,verdict,p.A,p.B
const std::vector<std::string>& imported_header();

/// The records as CSV text: imported_header() and one row per record.
std::string imported_csv(const std::vector<ImportedRecord>& records);

/// Rejects (InputError, naming both sources) records the loader would reject: an empty judge,
/// item or gold, a second record of one (judge, item, order), an item whose gold, cluster,
/// benchmark or condition differs between its records. The converters check their own output;
/// a caller joining several files checks the union.
void check_importable(const std::vector<ImportedRecord>& records);

/// A reward model's p.A from its two scores: 1 / (1 + exp(-(score_a - score_b))).
double reward_probability(double score_a, double score_b);

/// A probability as written in converted files: six digits after the point.
std::string probability_text(double p);

/// One JudgeBench output line (a pair with its judgments): one record per judgment, order 0 =
/// as presented first, 1 = swapped, with the swapped decision and scores flipped back to
/// canonical terms. `where` ("file:line") prefixes error messages. Throws InputError.
std::vector<ImportedRecord> convert_judgebench_pair(const nlohmann::json& pair, const std::string& where);

/// A JudgeBench outputs/*.jsonl file, one pair per line.
std::vector<ImportedRecord> convert_judgebench_file(const std::string& path);
/// The same from the file's text; `path` names it in messages.
std::vector<ImportedRecord> convert_judgebench_text(std::string_view text, const std::string& path);

/// One LLMBar result.json (an array of items) of evaluator/strategy `judge` on subset
/// `condition` of `benchmark`; item i is "<condition>-<i>" and its own cluster. `where` names the
/// file in error messages. Throws InputError.
std::vector<ImportedRecord> convert_llmbar_results(const nlohmann::json& results, const std::string& judge,
                                                   const std::string& benchmark, const std::string& condition,
                                                   const std::string& where);

/// One result.json's text: its nesting bounded (records/json_depth.hpp), parsed, converted.
std::vector<ImportedRecord> convert_llmbar_text(std::string_view text, const std::string& judge,
                                                const std::string& benchmark, const std::string& condition,
                                                const std::string& where);

/// One result.json of an LLMBar dataset folder: its path, judge "<evaluator>/<strategy>",
/// benchmark and subset (condition).
struct LlmBarResult {
  std::string file, judge, benchmark, condition;
};

/// The <subset>/evaluators/<evaluator>/<strategy>/result.json files under an LLMBar dataset root
/// in convert_llmbar_dir's order (below). Throws InputError when `dir` is not a folder or has none.
std::vector<LlmBarResult> llmbar_results(const std::string& dir);

/// Their paths: what the built-in map `llmbar` (configs/import/llmbar.json) reads, giving the
/// records convert_llmbar_dir gives, byte for byte.
std::vector<std::string> llmbar_result_files(const std::string& dir);

/// Every <subset>/evaluators/<evaluator>/<strategy>/result.json under an LLMBar dataset root
/// (the folder holding Natural/ and Adversarial/): subsets by depth then path (Natural before
/// Adversarial/Neighbor), judges "<evaluator>/<strategy>" in byte order within a subset. The
/// benchmark of a nested subset is its parent folder's name (Adversarial), else "LLMBar".
std::vector<ImportedRecord> convert_llmbar_dir(const std::string& dir);

}  // namespace judgestat
