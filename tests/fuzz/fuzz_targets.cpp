#include "fuzz/fuzz_targets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "analyses/profile/profile_detail.hpp"
#include "judgestat/records.hpp"
#include "judgestat/study.hpp"
#include "records/numbering.hpp"
#include "records/pivot.hpp"
#include "records/read_csv.hpp"
#include "records/read_jsonl.hpp"
#include "report/report.hpp"
#include "sources/import.hpp"
#include "study/study_cache.hpp"

namespace judgestat::fuzz {
namespace {

// The errors a user may see for bad input; every other outcome escapes to the fuzzer.
template <typename Work>
void expecting_clear_errors(const Work& work) {
  try {
    work();
  } catch (const InputError&) {
  } catch (const UsageError&) {
  } catch (const std::invalid_argument&) {
  }
}

void pivot_records(const std::vector<Record>& records, const std::string& file) {
  const ItemMatrix m = loading::pivot(loading::number_records(records), file, {});
  // The new shapes (docs/statistics.md §8): covariates needing one value per item, the items with
  // gold (which copies covariates and repeat cells), and the same records as scores.
  for (const Covariate& covariate : m.covariates) (void)m.item_levels(covariate.name, "fuzz");
  if (m.items_without_gold < m.n_items()) (void)items_with_gold(m, "fuzz");
  LoadOptions scores;
  scores.scale = ScoreScale{0, 10};
  (void)loading::pivot(loading::number_records(records), file, scores);
}

}  // namespace

void csv_records(std::string_view text) {
  expecting_clear_errors([&] {
    pivot_records(loading::read_csv(text, "fuzz.csv"), "fuzz.csv");
    (void)loading::pivot(loading::number_csv(text, "fuzz.csv", ""), "fuzz.csv", {});  // the large-file path
  });
}

void jsonl_records(std::string_view text) {
  expecting_clear_errors([&] { pivot_records(loading::read_jsonl(text, "fuzz.jsonl"), "fuzz.jsonl"); });
}

void profile_config(std::string_view text) {
  expecting_clear_errors([&] { (void)parse_profile_config(std::string(text), "fuzz.json"); });
}

void judgebench_import(std::string_view text) {
  expecting_clear_errors([&] { (void)imported_csv(convert_judgebench_text(text, "fuzz.jsonl")); });
}

void llmbar_import(std::string_view text) {
  expecting_clear_errors(
      [&] { (void)imported_csv(convert_llmbar_text(text, "eval/strategy", "LLMBar", "Natural", "result.json")); });
}

// load_study reads a path: the text goes to a file of this process's own in the temporary folder.
// Texts with glob characters are skipped: a pattern like "/**" would make the fuzzer time the
// machine's file system, not the parser.
void study_file(std::string_view text) {
  if (text.find_first_of("*?") != std::string_view::npos) return;
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("judgestat_fuzz_study_" + std::to_string(::getpid()) + ".json"))
          .string();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  expecting_clear_errors([&] { (void)load_study(path); });
}

namespace {

// A small study (metrics with a figure, and items) run once into ROOT/out; its metrics entry is
// the one the fuzzer's text replaces (its tables and figure are rebuilt from its result on reuse).
struct FolderFixture {
  std::string root, study, out, entry, key;
};

FolderFixture folder_fixture() {
  FolderFixture f;
  f.root = (std::filesystem::temp_directory_path() / ("judgestat_fuzz_folder_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(f.root);
  std::filesystem::create_directories(f.root);
  std::string records = "judge,item,cluster,benchmark,condition,order,gold,verdict\n";
  for (int item = 0; item < 12; ++item)
    for (const char* judge : {"a", "b"})
      for (int order = 0; order < 2; ++order)
        records += std::string(judge) + ",i" + std::to_string(item) + "," + std::to_string(item / 2) + ",bench,c," +
                   std::to_string(order) + ",A," + ((item + order + (judge[0] == 'b')) % 3 ? "A" : "B") + "\n";
  std::ofstream(f.root + "/records.csv") << records;
  std::ofstream(f.root + "/study.json") << R"({"settings": {"replicates": 20, "backend": "cpu", "threads": 1},
    "inputs": {"r": "records.csv"},
    "analyses": [{"name": "m", "analysis": "metrics", "input": "r"}, {"name": "i", "analysis": "items", "input": "r"}]})";
  f.study = f.root + "/study.json";
  f.out = f.root + "/out";
  StudyRunOptions run;
  run.out_dir = f.out;
  run.quiet = true;
  (void)run_study(load_study(f.study), run);
  std::ifstream results(f.out + "/results.json");
  f.key = nlohmann::json::parse(results)["analyses"][0]["key"].get<std::string>();
  f.entry = f.out + "/cache/" + f.key + ".json";
  std::ofstream(f.out + "/cache/notes.txt") << "mine";
  std::ofstream(f.out + "/thesis.tmp-draft.txt") << "mine";
  static std::string root;  // removed when the process ends
  root = f.root;
  std::atexit([] {
    std::error_code error;
    std::filesystem::remove_all(root, error);
  });
  return f;
}

[[noreturn]] void breach(const std::string& what) {
  std::fprintf(stderr, "study_folder: %s\n", what.c_str());
  std::abort();
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

void study_folder(std::string_view text) {
  static const FolderFixture fixture = folder_fixture();
  std::string entry(text);
  try {
    Json json = Json::parse(entry);
    if (json.is_object()) {
      if (!json.contains("key")) json["key"] = fixture.key;
      json["digest"] = study::entry_digest(json);
      entry = dump_json(json) + "\n";
    }
  } catch (const Json::exception&) {
  }
  std::ofstream(fixture.entry, std::ios::binary | std::ios::trunc) << entry;
  StudyRunOptions run;
  run.out_dir = fixture.out;
  run.quiet = true;
  expecting_clear_errors([&] { (void)run_study(load_study(fixture.study), run); });
  for (const char* file : {"/cache/notes.txt", "/thesis.tmp-draft.txt"})
    if (file_text(fixture.out + file) != "mine") breach(std::string("the user's file ") + file + " changed");
  std::vector<std::string> beside;
  for (const auto& item : std::filesystem::directory_iterator(fixture.root))
    beside.push_back(item.path().filename().string());
  std::sort(beside.begin(), beside.end());
  if (beside != std::vector<std::string>{"out", "records.csv", "study.json"}) breach("a file beside the folder");
  // One script, the report's own table sorter (html_report.cpp): any other came from the input unescaped.
  const std::string html = file_text(fixture.out + "/report.html");
  const size_t script = html.find("<script");
  if (script != std::string::npos && html.find("<script", script + 1) != std::string::npos)
    breach("a second script in report.html");
}

const std::vector<std::pair<std::string, std::function<void(std::string_view)>>>& targets() {
  static const std::vector<std::pair<std::string, std::function<void(std::string_view)>>> kTargets{
      {"csv", csv_records},
      {"jsonl", jsonl_records},
      {"profile_config", profile_config},
      {"judgebench", judgebench_import},
      {"llmbar", llmbar_import},
      {"study", study_file},
      {"study_folder", study_folder}};
  return kTargets;
}

}  // namespace judgestat::fuzz
