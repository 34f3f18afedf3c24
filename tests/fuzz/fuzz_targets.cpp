#include "fuzz/fuzz_targets.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "analyses/profile.hpp"
#include "judgestat/records.hpp"
#include "judgestat/study.hpp"
#include "records/numbering.hpp"
#include "records/pivot.hpp"
#include "records/read_csv.hpp"
#include "records/read_jsonl.hpp"
#include "sources/import.hpp"

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
  (void)loading::pivot(loading::number_records(records), file, {});
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

const std::vector<std::pair<std::string, std::function<void(std::string_view)>>>& targets() {
  static const std::vector<std::pair<std::string, std::function<void(std::string_view)>>> kTargets{
      {"csv", csv_records},
      {"jsonl", jsonl_records},
      {"profile_config", profile_config},
      {"judgebench", judgebench_import},
      {"llmbar", llmbar_import},
      {"study", study_file}};
  return kTargets;
}

}  // namespace judgestat::fuzz
