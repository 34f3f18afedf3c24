// Golden outputs: the JSON of every README command (scaled where the README asks for 10^8
// replicates or 10^9 draws) and of the options the library-layout move touched, compared byte
// for byte with digests recorded from main before the move (2026-12-01, commit 3b914f7).
//
// The digest is SHA-256 of dump_json() of the output with `timing` and `argv` removed (both
// differ from run to run) and this test's temporary folder written as "TMP/". Every command
// runs on `--backend cpu --threads 2`, so `settings.device` is the same on every machine.
//
// A change that alters an output on purpose updates its digest here in the same commit and
// says why in the commit message. Changed so far: the three metrics digests (2026-12-01), whose
// probability note cites docs/statistics.md §3.2 instead of SPEC §3.2 (a file users lack); the
// four metrics digests again (2026-12-01, issue 14), which gained §7's statistics, keys and row
// fields — every row the earlier output had is still there with the same bits (checked against
// the pre-move build: 536 of 536 rows identical); the three budget digests (issue 15, part 7),
// whose rows gained delta_p10 and escalated_median — every other key keeps its bits (checked
// against main's build at 017826b). readme_metrics_pairs, readme_budget_compare and
// readme_llmbar_agreement guard the README's commands that compare judges from their first run.
// The two cascade digests (2026-12-01, issue 15): settings.gate_orders now reads "present" (the
// SPEC §3.3 default, gating on the orders each item has; every JudgeBench item has both, so
// nothing else moves) and settings, pool, split gained keys (select_column, select_items, tau,
// by, benchmarks; fewer_orders, escalated_for_missing_orders; source, column, file) plus the
// top-level frozen and groups (null here); every value the earlier JSON had is unchanged, every
// statistic row bit for bit. readme_cascade_recipe_rules / _frozen guard the README's recipe
// (own labelled set, per benchmark, frozen τ) from its first run; {tmp}labelled.txt is the
// README's list: every other mmlu item of the JudgeBench split in file order.
// The four cascade digests again (2026-12-01, issue 15 parts 5–6): `statistics` gained 17 rows
// at its end (the first stage's aurc, selective_acc / selective_coverage at 50/80/90% and
// bin_acc / fallback_bin_acc per confidence bin) and `temperature` gained scaling, groups and
// brier_* / ece_* in selection and heldout; with those removed, each JSON equals the earlier
// build's text for text (every number the same; checked against the cascade15 build).
// The four cascade digests again (2026-12-01, issue 15 parts 3 and 8): `statistics` gained the
// pooled risk–coverage curve (`selective_risk` per AURC threshold, 80 rows, for the plot's CI band)
// and, under --by, each group's aurc, selective_acc / selective_coverage and bin_acc /
// fallback_bin_acc rows; with those rows removed, each JSON equals main's (a04e81f) key for key
// and row for row, in the same order and bit for bit (checked with --by benchmark --select 0.4 and
// --tau 0.9 as well).
// The thirteen digests with statistics rows again (2026-12-01, issue 18): every row (in
// `statistics`, cascade's fallback_alone and the profile statistics) gained `clusters` and
// `distinct` (docs/statistics.md §2); with those two keys removed from every row, each JSON's digest
// is the earlier one (checked with a stripping variant of golden_digest), so every other value
// keeps its bits. The four budget digests do not change.
// The four cascade digests with both of the above (merge of issues 15 part 8 and 18): with
// `clusters`, `distinct` and `note` removed from every row, the merged build's cascade JSON equals
// the plots build's (b764f5a) object for object (checked for --per-stratum).
// The thirteen digests with statistics rows again (2026-12-03, issues 30 and 31): every statistics
// row gained `undefined_share` (docs/statistics.md §2); metrics gained the rows acc_avg, mean_q and
// diff order_gain (JEV Tables 15, 18, 24, 25) and reliability's high_confidence.invalid and
// error_share_with_invalid (JEV Table 30); cascade's frozen split_statistics; profile the settings hard
// and invalid, Pearson r beside every ρ, the Spearman summaries, sum_over_means, across_judges and
// ranks (CAP Tables 3, 13, 14, 16, 17, 19). Compared with the build of a69db06 object by object
// (every old key and row present in the new JSON in its order, new keys and rows allowed): each of
// the seventeen has no other difference, but readme_profile_llmbar, whose config now sets
// "invalid": "exclude" (CAP Table 20: failed calls leave n); with a copy of the config that says
// "wrong", its JSON equals the old one but for settings.config. The four budget digests hold.
// readme_metrics_pairs again (2026-12-03, issue 30 row CAP-C2): --pairs all adds `disagree` (per
// ordered pair of categories) and `label_share` rows, 63 of them; with those rows removed the JSON
// equals the one of the build without them (cd9d122's code path, toggled off in one build) key for
// key and row for row, notes included.
// JUDGESTAT_GOLDEN_PRINT=1 prints the digests a build gives.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "records/sha256.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::kRoot;
using testing_support::run_cli;

struct GoldenCase {
  const char* name;
  const char* args;    // after `judgestat`; {tmp} is this test's temporary folder
  const char* digest;  // recorded before the move
};

#define JS_CASCADE_PAIR "--first Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12 "
#define JS_FEES "--fee Skywork_Skywork-Reward-Llama-3.1-8B=0 --fee o1-mini-2024-09-12=0.0076 "
#define JS_LLMBAR_JUDGES                                                                       \
  "--judges ChatGPT-0301/Vanilla,ChatGPT/Vanilla,Falcon/Vanilla,GPT-4/Vanilla,LLaMA2/Vanilla," \
  "PaLM2/Vanilla "

const GoldenCase kCases[] = {
    {"readme_metrics", "metrics data/judgebench/gpt4o_split.csv ",
     "aded78f60f4b497643d3ba77d192ee9ec1c54ffd0bd8addc19e5804fd9cd3d80"},
    {"readme_cascade", "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES "--plots {tmp}plots ",
     "03bfc762169fff0153bddadaa2d4639007b6ea3d432a821a39fe44dcf406b173"},
    {"readme_budget", "budget data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR "--k 48,96,192 --per-stratum " JS_FEES,
     "3e8b7b481123f5d8f74a50559aac600ce1141c964e9ff90bd1a9f29136f2c6b0"},
    {"readme_mpi_metrics_scaled",
     "metrics data/judgebench/gpt4o_split.csv --judges o1-mini-2024-09-12 --replicates 100000 ",
     "7951658f49c5ce412494625bd544f52a55d218442456c7c9b600c17d39f611b0"},
    {"readme_srun_budget_scaled",
     "budget data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR "--k 24,48,96,192 --draws 100000 ",
     "564231b97e58a64e20835bd546b766cce9e1abba346f741df2311ad9e28e68cf"},
    {"readme_profile_judgebench", "profile data/judgebench/gpt4o_split.csv --config configs/judgebench.json ",
     "a488c69e2ae6b7d69521da1a3cfbd60fe089e202810ba5f539a90d5b64a5e87f"},
    {"readme_profile_llmbar", "profile data/llmbar/natural_neighbor.csv --config configs/llmbar.json " JS_LLMBAR_JUDGES,
     "e1a04b5a2d033fb02a79188db88d588dd3cf285436d215a662b32eeff6d58d21"},
    {"profile_judgereva_synth", "profile {tmp}synth.csv --config configs/judgereva.json --replicates 2000 ",
     "0299fff9d63dcef2801ff4a740d84dc0dd23139a30c99a838111175f752c0d9f"},
    {"metrics_by_benchmark", "metrics data/judgebench/gpt4o_split.csv --by benchmark ",
     "3d92d55ef2584b6a306b9e55447971e15ce41797e8b69d55188c0d06400df81a"},
    {"metrics_ci_bca", "metrics data/judgebench/gpt4o_split.csv --ci bca ",
     "10f4d065512fe70ebe259a61bd4ebf26c6af88fb4a207bf6abc5cbbce63cc5bd"},
    {"cascade_per_stratum", "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES "--per-stratum ",
     "ed9ac9ef3f56bc5b8eeba48ccf53228a5d5505d27619bcb054e0508c9c8262b3"},
    {"readme_metrics_pairs", "metrics data/judgebench/gpt4o_split.csv --pairs all --diff acc,pa,brier,auroc_err ",
     "74b29bff2273a7e7707baffa696a7cf944d5fea45092eaf6efeb1c6358463cc5"},
    {"readme_llmbar_agreement",
     "metrics data/llmbar/natural_neighbor.csv " JS_LLMBAR_JUDGES "--reference GPT-4/Vanilla --diff acc "
     "--raters ChatGPT-0301/Vanilla,ChatGPT/Vanilla,Falcon/Vanilla,GPT-4/Vanilla,LLaMA2/Vanilla,PaLM2/Vanilla ",
     "c78c8e3317c1b898d957ba4704d82ccae3989d3b802474997510a01d811d835a"},
    {"readme_budget_compare",
     "budget data/judgebench/gpt4o_split.csv --compare Skywork_Skywork-Reward-Gemma-2-27B,o1-mini-2024-09-12 "
     "--k 50,100,200,300 ",
     "6a2ac77b70c5cffb2aa2cb36472ac71aa4259a1568427988fb58717a01b8b806"},
    {"budget_rule_both_per_stratum",
     "budget data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR "--k 48,96,192 --rule both --per-stratum ",
     "fd60253bf887803ee044f541739f54d0d3e4b7201a1eb44d7c6fbce5ec6f546d"},
    {"readme_cascade_recipe_rules",
     "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES
     "--select-items {tmp}labelled.txt --by benchmark ",
     "a43c55f80286dc2850a333088ca932d2787ece3750332109703988da2fdc0cb5"},
    {"readme_cascade_recipe_frozen",
     "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES
     "--select-items {tmp}labelled.txt --tau 1 --by benchmark ",
     "415885b70cf6e72a6cf4cffc8ffe848cab0860803da26bd06af8f800c848e7c8"},
};

using testing_support::read_all;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The README's labelled list: every other mmlu item of the JudgeBench split, in file order (its
// awk command: NR > 1 && $4 == "mmlu" && !seen[$2]++ && n++ % 2 == 0).
std::string labelled_mmlu_items() {
  std::istringstream lines(read_all(kRoot + "/data/judgebench/gpt4o_split.csv"));
  std::string line, out;
  std::set<std::string> seen;
  int n = 0;
  std::getline(lines, line);  // header: judge,item,cluster,benchmark,…
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    if (fields.size() < 4 || fields[3] != "mmlu" || !seen.insert(fields[1]).second) continue;
    if (n++ % 2 == 0) out += fields[1] + "\n";
  }
  return out;
}

std::string golden_digest(const std::string& json_text, const std::string& tmp) {
  Json json = Json::parse(replace_all(json_text, tmp, "TMP/"));
  json.erase("timing");
  json.erase("argv");
  return sha256_hex(dump_json(json));
}

class GoldenOutputs : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenOutputs, JsonDigestUnchanged) {
  const GoldenCase& c = GetParam();
  const std::string tmp = ::testing::TempDir() + "judgestat_golden_" + c.name + "/";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const std::string cd = "cd '" + kRoot + "' && ";
  if (std::string(c.args).find("{tmp}synth.csv") != std::string::npos) {
    const auto synth = run_cli("synth cap --quiet --seed 1 --out " + tmp + "synth.csv");
    ASSERT_EQ(synth.status, 0) << synth.out;
  }
  if (std::string(c.args).find("{tmp}labelled.txt") != std::string::npos)
    std::ofstream(tmp + "labelled.txt") << labelled_mmlu_items();
  const std::string json_path = tmp + "out.json";
  const std::string args = replace_all(c.args, "{tmp}", tmp) + "--backend cpu --threads 2 --quiet --json " + json_path;
  // run_cli prefixes the binary; the commands name data/ and configs/ relative to the root.
  const auto run = std::system((cd + testing_support::kBinary + " " + args + " > /dev/null").c_str());
  ASSERT_EQ(run, 0) << args;
  const std::string digest = golden_digest(read_all(json_path), tmp);
  if (const char* print = std::getenv("JUDGESTAT_GOLDEN_PRINT"); print && *print == '1')
    std::printf("golden %s %s\n", c.name, digest.c_str());
  EXPECT_EQ(digest, c.digest) << c.name << ": " << args;
}

INSTANTIATE_TEST_SUITE_P(BeforeTheMove, GoldenOutputs, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace judgestat
