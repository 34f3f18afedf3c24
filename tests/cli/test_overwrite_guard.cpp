// Issue 26 §1 and §5 end to end: an output never replaces an input, a config the run read or
// another output of the run (through symbolic and hard links too), and a write to stdout that
// fails (/dev/full, a closed stdout) fails the run.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/output_guard.hpp"
#include "judgestat/records.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

namespace {

using namespace judgestat;
using namespace judgestat::testing_support;
namespace fs = std::filesystem;

const std::string kData = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kQuick = " --quiet --replicates 50 --judges o1-mini-2024-09-12,internlm_internlm2-7b-reward";

using testing_support::contains;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// A copy of the bundled records in `dir` (the test's own, so its bytes can be compared after).
std::string records_copy(const std::string& dir, const std::string& name = "v.csv") {
  const std::string path = dir + "/" + name;
  fs::copy_file(kData, path, fs::copy_options::overwrite_existing);
  return path;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// `judgestat ARGS REDIRECT` with stdout redirected (REDIRECT: "> /dev/full", ">&-") and stderr
// captured: run_cli folds stderr into stdout, which would send the message where stdout goes.
CliRun run_with_stdout(const std::string& args, const std::string& redirect) {
  return run_shell("{ " + kBinary + " " + args + " " + redirect + "; } 2>&1");
}

// Runs `args`, expects the refusal (exit 2) naming both paths, and the input's bytes unchanged.
void expect_refused(const std::string& args, const std::string& input, const std::vector<std::string>& named) {
  const std::string before = read_all(input);
  const CliRun r = run_cli(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  for (const std::string& part : named) EXPECT_TRUE(contains(r.out, part)) << args << "\n" << r.out;
  EXPECT_EQ(read_all(input), before) << args;
  EXPECT_FALSE(before.empty());
}

TEST(OverwriteGuard, AnOutputNamingTheRecordsIsRefused) {
  const std::string dir = test_dir(), v = records_copy(dir);
  const std::string same = "is the same file as FILE '" + v + "'";
  expect_refused("metrics " + quoted(v) + kQuick + " --json " + quoted(v), v, {"--json '" + v + "'", same});
  expect_refused("metrics " + quoted(v) + kQuick + " --save-replicates " + quoted(v), v,
                 {"--save-replicates '" + v + "'", same});
  expect_refused("cascade " + quoted(v) +
                     " --quiet --replicates 50 --first Skywork_Skywork-Reward-Llama-3.1-8B"
                     " --fallback o1-mini-2024-09-12 --json " +
                     quoted(v),
                 v, {"--json '" + v + "'", same});
  expect_refused("items " + quoted(v) + " --out " + quoted(v), v, {"--out '" + v + "'", same});
  expect_refused("coverage " + quoted(v) + " --quiet --json " + quoted(v), v, {"--json '" + v + "'", same});
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"v.csv"});  // no temporary file left
}

TEST(OverwriteGuard, AnOutputThroughASymbolicOrHardLinkIsRefused) {
  const std::string dir = test_dir(), v = records_copy(dir);
  fs::create_symlink(v, dir + "/link.csv");
  fs::create_hard_link(v, dir + "/hard.csv");
  expect_refused("metrics " + quoted(v) + kQuick + " --json " + quoted(dir + "/link.csv"), v,
                 {"--json '" + dir + "/link.csv' (" + v + ") is the same file as FILE '" + v + "'"});
  expect_refused("items " + quoted(dir + "/link.csv") + " --out " + quoted(v), v,
                 {"--out '" + v + "' is the same file as FILE '" + dir + "/link.csv' (" + v + ")"});
  expect_refused("metrics " + quoted(v) + kQuick + " --save-replicates " + quoted(dir + "/hard.csv"), v,
                 {"--save-replicates '" + dir + "/hard.csv'", "is the same file as FILE '" + v + "'"});
  EXPECT_TRUE(fs::is_symlink(dir + "/link.csv"));
}

TEST(OverwriteGuard, TwoOutputsOfOneRunNeedTwoPaths) {
  const std::string dir = test_dir(), v = records_copy(dir), x = dir + "/x.json";
  expect_refused("metrics " + quoted(v) + kQuick + " --json " + quoted(x) + " --save-replicates " + quoted(x), v,
                 {"--save-replicates '" + x + "' is the same file as --json '" + x + "'",
                  "each output of a run needs its own path"});
  EXPECT_FALSE(fs::exists(x));  // refused before anything was written
  expect_refused("synth cap --out " + quoted(x) + " --truth " + quoted(dir + "/./x.json"), v,
                 {"--truth '" + dir + "/./x.json' (" + x + ") is the same file as --out '" + x + "'"});
  EXPECT_FALSE(fs::exists(x));
}

TEST(OverwriteGuard, AConfigOrOptionFileTheRunReadsIsAnInput) {
  const std::string dir = test_dir(), v = records_copy(dir), config = dir + "/c.json";
  fs::copy_file(kRoot + "/configs/judgebench.json", config);
  expect_refused(
      "profile " + quoted(v) + " --quiet --replicates 20 --config " + quoted(config) + " --json " + quoted(config),
      config, {"--json '" + config + "' is the same file as --config '" + config + "'"});
  const std::string judges = dir + "/judges.json";
  fs::copy_file(kRoot + "/configs/synth_judges.json", judges);
  expect_refused("synth cap --judges " + quoted(judges) + " --out " + quoted(judges), judges,
                 {"--out '" + judges + "' is the same file as --judges '" + judges + "'"});
  const std::string fit = records_copy(dir, "fit.csv");
  expect_refused("metrics " + quoted(v) + kQuick + " --temperature-fit " + quoted(fit) + " --json " + quoted(fit), fit,
                 {"--json '" + fit + "' is the same file as --temperature-fit '" + fit + "'"});
}

TEST(OverwriteGuard, ImportNeverReplacesWhatItConverts) {
  const std::string dir = test_dir(), raw = dir + "/raw.jsonl";
  std::ofstream(raw) << "{\"pair_id\": \"not even read\"}\n";
  expect_refused("import judgebench " + quoted(raw) + " --out " + quoted(raw), raw,
                 {"--out '" + raw + "' is the same file as INPUT '" + raw + "'"});
  // A folder input (LLMBar's dataset): no output may replace a file inside it.
  fs::create_directories(dir + "/llmbar/Natural");
  const std::string inside = dir + "/llmbar/Natural/dataset.json";
  std::ofstream(inside) << "[]\n";
  expect_refused("import llmbar " + quoted(dir + "/llmbar") + " --out " + quoted(inside), inside,
                 {"--out '" + inside + "' is a file inside the input folder INPUT '" + dir + "/llmbar'"});
}

TEST(OverwriteGuard, PlotsIntoTheRecordsFolderMayNotReplaceThem) {
  // The records are named like the forest plot's CSV: --plots into their folder is refused
  // before loading; under another name the same folder is fine and the records stay.
  const std::string dir = test_dir(), v = records_copy(dir, "metrics_forest.csv");
  expect_refused("metrics " + quoted(v) + kQuick + " --plots " + quoted(dir), v,
                 {"--plots '" + dir + "' would hold figures", "beside FILE '" + v + "'"});
  const std::string plain = records_copy(dir, "v.csv"), before = read_all(plain);
  const CliRun ok = run_cli("metrics " + quoted(plain) + kQuick + " --plots " + quoted(dir) + " --format json");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(read_all(plain), before);
  EXPECT_TRUE(fs::exists(dir + "/metrics_forest.svg"));
}

TEST(OverwriteGuard, PlotsDotCollidingWithAnInputIsRefused) {
  // `--plots .` run from the records' folder, the records named like the cascade's figure.
  const std::string dir = test_dir(), v = records_copy(dir, "cascade_reliability.csv");
  const std::string before = read_all(v);
  const CliRun r =
      run_shell("cd " + quoted(dir) + " && " + kBinary +
                " cascade cascade_reliability.csv --quiet --replicates 50"
                " --first Skywork_Skywork-Reward-Llama-3.1-8B --fallback o1-mini-2024-09-12 --plots . 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--plots '.' (" + fs::canonical(dir).string() + ") would hold figures")) << r.out;
  EXPECT_EQ(read_all(v), before);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"cascade_reliability.csv"});
}

TEST(OverwriteGuard, TheFiguresThemselvesAreCheckedBeforeAnyIsWritten) {
  // The safety net behind the prefixes: a figure whose file is an input is refused by name.
  const std::string dir = test_dir(), v = records_copy(dir, "figure.csv");
  RunPaths paths;
  paths.inputs = {{"FILE", v}};
  paths.plots.path = dir;
  paths.plot_prefixes = {"metrics_forest"};
  EXPECT_NO_THROW(check_paths_apart(paths));  // figure.csv is no metrics_forest… name
  const std::vector<PlotFile> figures{{"other", "<svg/>", "x\n"}, {"figure", "<svg/>", "x\n"}};
  EXPECT_EQ(thrown_message<UsageError>([&] { check_plot_files_apart(paths, figures); }),
            "--plots '" + v + "' is the same file as FILE '" + v +
                "'; an output never replaces what the run reads: give another path");
  // Without CSV data only the SVG is written, which is no input.
  EXPECT_NO_THROW(check_plot_files_apart(paths, {{"figure", "<svg/>", ""}}));
}

TEST(OverwriteGuard, StreamsAndDistinctPathsPass) {
  const std::string dir = test_dir(), v = records_copy(dir);
  RunPaths paths;
  paths.inputs = {{"FILE", v}, {"FILE", "-"}, {"--config", ""}};
  paths.outputs = {{"--json", "-"},
                   {"--out", "-"},
                   {"--json", "/dev/null"},
                   {"--save-replicates", "/dev/null"},
                   {"--json", dir + "/a.json"},
                   {"--out", dir + "/b.csv"}};
  EXPECT_NO_THROW(check_paths_apart(paths));
}

TEST(OverwriteGuard, StdinRedirectedFromAFileIsThatFile) {
  const std::string dir = test_dir(), v = records_copy(dir);
  const std::string before = read_all(v);
  // `metrics - --json /dev/stdin < v.csv` and `--json v.csv` would replace the records being read.
  for (const std::string& output : {std::string("/dev/stdin"), v}) {
    const CliRun r = run_shell("{ " + kBinary + " metrics -" + kQuick + " --json " + quoted(output) + " < " +
                               quoted(v) + "; } 2>&1");
    EXPECT_EQ(r.status, 2) << output << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "is the same file as FILE '-'")) << r.out;
    EXPECT_EQ(read_all(v), before) << output;
  }
  // From a pipe, stdin is a stream: the same run writes its JSON.
  const CliRun piped = run_shell("cat " + quoted(v) + " | " + kBinary + " metrics -" + kQuick + " --json " +
                                 quoted(dir + "/m.json") + " 2>&1");
  EXPECT_EQ(piped.status, 0) << piped.out;
  EXPECT_TRUE(Json::parse(read_all(dir + "/m.json")).is_object());
}

TEST(OverwriteGuard, RunOutMayNotHoldTheStudyOrItsInputs) {
  const std::string dir = test_dir(), v = records_copy(dir);
  const std::string study = dir + "/study.json";
  std::ofstream(study) << R"({"inputs": {"jb": "v.csv"}, "settings": {"replicates": 50},
    "analyses": [{"name": "m", "analysis": "metrics", "input": "jb",
                  "judges": ["o1-mini-2024-09-12", "internlm_internlm2-7b-reward"]}]})";
  expect_refused("run " + quoted(study) + " --quiet --out " + quoted(dir), v,
                 {"--out '" + dir + "' holds STUDY '" + study + "'", "give --out a folder of its own"});
  fs::create_directories(dir + "/data");
  const std::string moved = dir + "/data/v.csv";
  fs::rename(v, moved);
  std::ofstream(study) << R"({"inputs": {"jb": "data/v.csv"}, "settings": {"replicates": 50},
    "analyses": [{"name": "m", "analysis": "metrics", "input": "jb",
                  "judges": ["o1-mini-2024-09-12", "internlm_internlm2-7b-reward"]}]})";
  expect_refused("run " + quoted(study) + " --quiet --out " + quoted(dir + "/data"), moved,
                 {"--out '" + dir + "/data' holds input 'jb' '" + moved + "'"});
  EXPECT_EQ(names_in(dir + "/data"), std::vector<std::string>{"v.csv"});
}

TEST(OverwriteGuard, CoverageRefusesTheReplicatesItDoesNotKeep) {
  // Nothing a user asks for is silently dropped: coverage has the shared --save-replicates flag
  // but no distribution to save.
  const std::string dir = test_dir(), v = records_copy(dir);
  const CliRun r = run_cli("coverage " + quoted(v) + " --quiet --save-replicates " + quoted(dir + "/r.csv"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--save-replicates: coverage keeps no replicate distribution")) << r.out;
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"v.csv"});
}

// §5: a result that cannot be delivered is a failure (exit 1, "cannot write to stdout").
TEST(StdoutWrites, AFullDiskFailsEveryFormat) {
  const std::string dir = test_dir(), v = records_copy(dir);
  for (const std::string format : {"text", "csv", "md", "json"}) {
    const CliRun r = run_with_stdout("metrics " + quoted(v) + kQuick + " --format " + format, "> /dev/full");
    EXPECT_EQ(r.status, 1) << format << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "judgestat: error: cannot write to stdout")) << format << "\n" << r.out;
  }
  const CliRun items = run_with_stdout("items " + quoted(v), "> /dev/full");
  EXPECT_EQ(items.status, 1) << items.out;
  EXPECT_TRUE(contains(items.out, "cannot write to stdout")) << items.out;
  const CliRun help = run_with_stdout("metrics --help", "> /dev/full");
  EXPECT_EQ(help.status, 1) << help.out;
  const CliRun version = run_with_stdout("--version", "> /dev/full");
  EXPECT_EQ(version.status, 1) << version.out;
  EXPECT_TRUE(contains(version.out, "cannot write to stdout")) << version.out;
  // The same commands with a working stdout succeed (the failure is the disk's, not theirs).
  EXPECT_EQ(run_with_stdout("items " + quoted(v), "> /dev/null").status, 0);
}

TEST(StdoutWrites, AClosedStdoutFailsAndNeverLandsInAFile) {
  // With descriptor 1 closed, the next file opened would get it: the table must not end up in
  // the --json file, and the run must say stdout failed.
  const std::string dir = test_dir(), v = records_copy(dir), json = dir + "/out.json";
  const CliRun r = run_with_stdout("metrics " + quoted(v) + kQuick + " --format text --json " + quoted(json), ">&-");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "cannot write to stdout")) << r.out;
  const Json written = Json::parse(read_all(json));  // whole JSON, no table mixed in
  EXPECT_EQ(written["command"], "metrics");
  const CliRun items = run_with_stdout("items " + quoted(v), ">&-");
  EXPECT_EQ(items.status, 1) << items.out;
  EXPECT_TRUE(contains(items.out, "cannot write to stdout")) << items.out;
  const CliRun synth = run_with_stdout("synth cap --out - --quiet", ">&-");
  EXPECT_EQ(synth.status, 1) << synth.out;
  EXPECT_TRUE(contains(synth.out, "--out: cannot write '-'")) << synth.out;
}

}  // namespace
