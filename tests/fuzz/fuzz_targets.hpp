// The fuzzed entry points: each takes arbitrary bytes as one input file's text and must either
// accept it or reject it with the project's errors (InputError, UsageError,
// std::invalid_argument); anything else (a crash, a sanitizer report, another exception)
// is a finding. fuzz_main.cc wraps one of them for libFuzzer; test_fuzz_regressions.cpp runs
// every one on the seed corpora and the saved reproducers in the ordinary test suite.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace judgestat::fuzz {

void csv_records(std::string_view text);        // records/read_csv + pivot
void jsonl_records(std::string_view text);      // records/read_jsonl + pivot
void profile_config(std::string_view text);     // analyses/profile_config
void judgebench_import(std::string_view text);  // sources/import, one outputs/*.jsonl file
void llmbar_import(std::string_view text);      // sources/import, one result.json
void study_file(std::string_view text);         // study/study_file (load_study), one study JSON
/// study/study_run (run_study) into a study folder whose cache entry is the text (signed with a
/// fresh digest when it is a JSON object, so the checks past the digest run too). Besides the
/// errors above, a run must keep the user's files in DIR and DIR/cache, write nothing beside DIR
/// and no <script> into report.html; a breach aborts.
void study_folder(std::string_view text);

/// name → target, the names of the fuzzer binaries (fuzz_<name>) and of the corpus folders.
const std::vector<std::pair<std::string, std::function<void(std::string_view)>>>& targets();

}  // namespace judgestat::fuzz
