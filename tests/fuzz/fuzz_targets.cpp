#include "fuzz/fuzz_targets.hpp"

#include <stdexcept>

#include "analyses/profile.hpp"
#include "judgestat/records.hpp"
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

const std::vector<std::pair<std::string, std::function<void(std::string_view)>>>& targets() {
  static const std::vector<std::pair<std::string, std::function<void(std::string_view)>>> kTargets{
      {"csv", csv_records},
      {"jsonl", jsonl_records},
      {"profile_config", profile_config},
      {"judgebench", judgebench_import},
      {"llmbar", llmbar_import}};
  return kTargets;
}

}  // namespace judgestat::fuzz
