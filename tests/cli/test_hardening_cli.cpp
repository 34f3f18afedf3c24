// Issue #19 end to end: unwritable outputs fail before any work, failed runs keep the previous
// files, bad option values name their option, huge --threads is capped with a note, a folder
// as input is named, and --save-replicates streams the whole distribution.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

using namespace judgestat::testing_support;
namespace fs = std::filesystem;

const std::string kData = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kTwoJudges = " --judges o1-mini-2024-09-12,internlm_internlm2-7b-reward";

TEST(CliHardening, UnwritableOutputFailsBeforeLoading) {
  // The input does not exist either: the output path is what the message names, so it was
  // checked first.
  for (const std::string& option : {"--json", "--save-replicates"}) {
    const CliRun r = run_cli("metrics /nonexistent/records.csv --quiet " + option + " /proc/x/y");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, option + ": cannot write '/proc/x/y': folder '/proc/x' does not exist")) << r.out;
  }
  const CliRun items = run_cli("items /nonexistent/records.csv --out /proc/x/y.csv");
  EXPECT_EQ(items.status, 2) << items.out;
  EXPECT_TRUE(contains(items.out, "--out: cannot write '/proc/x/y.csv'")) << items.out;
  const CliRun plots = run_cli("cascade /nonexistent/records.csv --plots /etc/hostname/plots --quiet");
  EXPECT_EQ(plots.status, 2) << plots.out;
  EXPECT_TRUE(contains(plots.out, "--plots: cannot write '/etc/hostname/plots'")) << plots.out;
}

TEST(CliHardening, FailedRunKeepsThePreviousJson) {
  const std::string dir = test_dir(), json = dir + "/result.json";
  std::ofstream(json) << "{\"previous\": true}\n";
  const CliRun r = run_cli("metrics " + kData + " --quiet --replicates 50 --judges nobody --json " + json);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_EQ(read_all(json), "{\"previous\": true}\n");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary file left
}

TEST(CliHardening, BadOptionValueNamesTheOption) {
  const CliRun r = run_cli("metrics " + kData + " --replicates -5");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--replicates: '-5' is not a valid value")) << r.out;
  const CliRun eq = run_cli("metrics " + kData + " --seed=x1");
  EXPECT_TRUE(contains(eq.out, "--seed: 'x1' is not a valid value")) << eq.out;
}

TEST(CliHardening, HugeThreadCountIsCappedWithANote) {
  const CliRun r = run_cli("metrics " + kData + kTwoJudges + " --quiet --replicates 200 --threads 40000 --format json");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "note: --threads 40000 capped at ")) << r.out;
  // The same bits as two threads.
  const CliRun two = run_cli("metrics " + kData + kTwoJudges + " --quiet --replicates 200 --threads 2 --format json");
  const size_t at = r.out.find("\"statistics\""), two_at = two.out.find("\"statistics\"");
  ASSERT_NE(at, std::string::npos);
  ASSERT_NE(two_at, std::string::npos);
  EXPECT_EQ(r.out.substr(at, r.out.find("\"timing\"") - at),
            two.out.substr(two_at, two.out.find("\"timing\"") - two_at));
}

TEST(CliHardening, FolderAsInputIsNamed) {
  const std::string dir = test_dir() + "/records.csv";
  fs::create_directories(dir);
  const CliRun r = run_cli("metrics " + dir + " --quiet");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_TRUE(contains(r.out, dir + ": is a folder; give the path of a file in it")) << r.out;
}

TEST(CliHardening, SavedReplicatesHaveEveryRow) {
  const std::string dir = test_dir(), path = dir + "/replicates.csv";
  const CliRun r = run_cli("metrics " + kData + kTwoJudges + " --quiet --replicates 3000 --save-replicates " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string text = read_all(path);
  size_t rows = 0, header_commas = 0;
  for (char c : text) rows += c == '\n';
  for (char c : text.substr(0, text.find('\n'))) header_commas += c == ',';
  EXPECT_EQ(rows, 3001u);  // the header and one row per replicate, across the streamed pieces
  EXPECT_GT(header_commas, 10u);
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
