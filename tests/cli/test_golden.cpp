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
     "0f87571bcc7759adb7553c36461c4fc96503a99519094cc5160707bfa5c2af1e"},
    {"readme_cascade", "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES "--plots {tmp}plots ",
     "74359cb1834c4205f89f46fefc9e0a16f69b9fb28db68901e6ed84092ab086c8"},
    {"readme_budget", "budget data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR "--k 48,96,192 --per-stratum " JS_FEES,
     "3e8b7b481123f5d8f74a50559aac600ce1141c964e9ff90bd1a9f29136f2c6b0"},
    {"readme_mpi_metrics_scaled",
     "metrics data/judgebench/gpt4o_split.csv --judges o1-mini-2024-09-12 --replicates 100000 ",
     "08eadd5f47580fbdb39bcf01ebf8628c74f813646dae5187a06a9dc2db23e4f0"},
    {"readme_srun_budget_scaled",
     "budget data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR "--k 24,48,96,192 --draws 100000 ",
     "564231b97e58a64e20835bd546b766cce9e1abba346f741df2311ad9e28e68cf"},
    {"readme_profile_judgebench", "profile data/judgebench/gpt4o_split.csv --config configs/judgebench.json ",
     "70e1a8b75adc7a8931eddf5be90c6275deb565e7847a472cc701a5678dfeda8b"},
    {"readme_profile_llmbar", "profile data/llmbar/natural_neighbor.csv --config configs/llmbar.json " JS_LLMBAR_JUDGES,
     "dfee3b8337459a88e085ffbc53d253381a5283563f533df673c63432a4571dd1"},
    {"profile_judgereva_synth", "profile {tmp}synth.csv --config configs/judgereva.json --replicates 2000 ",
     "23d83a6edd23be6cf72ff559140f1182f91a6ade5d9f3d6a4cb3a964a01ef7c0"},
    {"metrics_by_benchmark", "metrics data/judgebench/gpt4o_split.csv --by benchmark ",
     "5f971bdb2866b0709dd98f056f40231b6ec9bc929975e01ea4dbce295c46a775"},
    {"metrics_ci_bca", "metrics data/judgebench/gpt4o_split.csv --ci bca ",
     "a9379ccdbacbf0ac4b2f834a96082d1a9fadfc3dd68b10ab2c8874cc62a760a2"},
    {"cascade_per_stratum", "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES "--per-stratum ",
     "5ee3211042302f02c13b82d9b67f97ea7b8fd731eabc745313324180a074cd25"},
    {"readme_metrics_pairs", "metrics data/judgebench/gpt4o_split.csv --pairs all --diff acc,pa,brier,auroc_err ",
     "d38eba79ba2dc2b5cfe877f63e44bca8f15e1fca202477f61f94d8cf9edbef00"},
    {"readme_llmbar_agreement",
     "metrics data/llmbar/natural_neighbor.csv " JS_LLMBAR_JUDGES "--reference GPT-4/Vanilla --diff acc "
     "--raters ChatGPT-0301/Vanilla,ChatGPT/Vanilla,Falcon/Vanilla,GPT-4/Vanilla,LLaMA2/Vanilla,PaLM2/Vanilla ",
     "c70e64d1064474edb5eb1bca1e14ada3c6e054d8f29b44ed8251f3cbdf886d73"},
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
     "6492005f63470856d82df60e9755064de12daa59fc5ffe5149b2679af9a0b99c"},
    {"readme_cascade_recipe_frozen",
     "cascade data/judgebench/gpt4o_split.csv " JS_CASCADE_PAIR JS_FEES
     "--select-items {tmp}labelled.txt --tau 1 --by benchmark ",
     "c794ad20d5943a3a3d25753190e35ca9855d4e18c8e479858b15f9e1ece7dd73"},
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
