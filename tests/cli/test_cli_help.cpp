// The CLI as people know it from other tools (issue 31 part 3): help on stdout with exit 0,
// `help [COMMAND]`, -V/--version, the nearest command or flag suggested after a typo, defaults
// shown once in lines that fit 80 columns, examples that run on the bundled data, the exit codes,
// and the study's final line without a doubled '/'.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_help.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::vector<std::string> kCommands{"run",     "metrics", "items", "import",   "bench",   "budget",
                                         "cascade", "profile", "synth", "coverage", "systems", "repeats"};

// stdout alone (stderr dropped) and the exit code.
CliRun run_stdout(const std::string& args) { return run_shell(kBinary + " " + args + " 2>/dev/null"); }

// Display columns of a UTF-8 line.
size_t columns(const std::string& line) {
  size_t width = 0;
  for (unsigned char c : line) width += (c & 0xC0) != 0x80;
  return width;
}

// The help's examples as command_examples gives them, for `command` as main dispatches it.
std::string example_key(const std::string& command) { return command == "synth" ? "synth cap" : command; }

}  // namespace

TEST(CliHelp, EditDistanceAndNearestWord) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // the textbook pair: k→s, e→i, +g
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("metrics", "metrics"), 0u);
  EXPECT_EQ(nearest_word("metric", kCommands), "metrics");
  EXPECT_EQ(nearest_word("casade", kCommands), "cascade");
  EXPECT_EQ(nearest_word("rep", {"replicates", "seed"}), "replicates");  // a prefix
  EXPECT_EQ(nearest_word("xyzzy", kCommands), "");
}

TEST(CliHelp, TidyHelpSaysEachDefaultOnce) {
  const std::string help =
      "  --judges arg   judges, comma-separated (default: all) (default: \"\")\n"
      "  --seed arg     random seed (default: 1)\n"
      "  --draws arg    draws (default 1e6 on CUDA) (default: 0)\n";
  EXPECT_EQ(tidy_help_text(help),
            "  --judges arg   judges, comma-separated (default: all)\n"
            "  --seed arg     random seed (default: 1)\n"
            "  --draws arg    draws (default 1e6 on CUDA)\n");
  const std::string long_line =
      "  --x arg   " + std::string(30, 'a') + " " + std::string(30, 'b') + " " + std::string(30, 'c') + "\n";
  EXPECT_EQ(tidy_help_text(long_line), "  --x arg   " + std::string(30, 'a') + " " + std::string(30, 'b') + "\n" +
                                           std::string(12, ' ') + std::string(30, 'c') + "\n");
}

TEST(CliHelp, HelpGoesToStdoutWithExitZero) {
  for (const char* args : {"--help", "-h", "help"}) {
    const CliRun r = run_stdout(args);
    EXPECT_EQ(r.status, 0) << args;
    for (const std::string& command : kCommands) EXPECT_TRUE(contains(r.out, "\n  " + command + " ")) << command;
    EXPECT_TRUE(contains(r.out, "  2  usage error")) << r.out;
    EXPECT_TRUE(contains(r.out, "  3  bad input")) << r.out;
    EXPECT_FALSE(contains(r.out, "w1 only")) << r.out;
  }
  const CliRun none = run_cli("");
  EXPECT_EQ(none.status, 2);  // no command is a usage error; the usage goes to stderr
  EXPECT_EQ(run_stdout("").out, "");
}

TEST(CliHelp, HelpCommandIsTheCommandsHelp) {
  for (const std::string& command : kCommands) {
    const CliRun help = run_stdout("help " + command), own = run_stdout(command + " --help");
    EXPECT_EQ(help.status, 0) << command << help.out;
    EXPECT_EQ(own.status, 0) << command;
    EXPECT_EQ(help.out, own.out) << command;
    EXPECT_TRUE(contains(help.out, "Exit status:")) << command;
    EXPECT_TRUE(contains(help.out, "Examples")) << command;
  }
  EXPECT_TRUE(contains(run_stdout("help synth").out, "--skill-scale"));  // synth's one generator
  const CliRun unknown = run_cli("help metric");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_TRUE(contains(unknown.out, "did you mean `metrics`?")) << unknown.out;
}

TEST(CliHelp, VersionShortAndLong) {
  for (const char* flag : {"-V", "--version"}) {
    const CliRun r = run_stdout(flag);
    EXPECT_EQ(r.status, 0) << flag;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("^judgestat [0-9]+\\.[0-9]+\\.[0-9]+\n"))) << r.out;
  }
}

TEST(CliHelp, UnknownCommandSuggestsTheNearest) {
  CliRun r = run_cli("metric data.csv");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "unknown command 'metric'; did you mean `metrics`?")) << r.out;
  r = run_cli("xyzzy");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "unknown command 'xyzzy'")) << r.out;
  EXPECT_FALSE(contains(r.out, "did you mean")) << r.out;
}

TEST(CliHelp, UnknownFlagSuggestsTheNearest) {
  const std::string jb = kRoot + "/data/judgebench/gpt4o_split.csv";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"metrics " + jb + " --replicate 50", "--replicates"},
      {"cascade " + jb + " --fallbak x", "--fallback"},
      {"run study.json --forse", "--force"},
      {"bench w1 --clustrs 5", "--clusters"},
      {"coverage " + jb + " --dataset 3", "--datasets"},
      {"import --mapp x.json", "--map"},
      {"synth cap --out - --sede 3", "--seed"},
      {"items " + jb + " --disagre", "--disagree"},
  };
  for (const auto& [args, flag] : cases) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "did you mean `" + flag + "`?")) << args << "\n" << r.out;
  }
}

TEST(CliHelp, DefaultsShownOnceAndLinesFitEightyColumns) {
  for (const std::string& command : kCommands) {
    const std::string help = run_stdout(command + " --help").out;
    std::istringstream lines(help);
    std::string line;
    while (std::getline(lines, line)) {
      EXPECT_LE(columns(line), kHelpWidth) << command << ": " << line;
      EXPECT_FALSE(contains(line, "(default: \"\")")) << command << ": " << line;
      const size_t first = line.find("default");
      EXPECT_TRUE(first == std::string::npos || line.find("(default: ", first + 1) == std::string::npos)
          << command << ": " << line;
    }
  }
}

TEST(CliHelp, EveryCommandsExamplesRunOnTheBundledData) {
  // From a folder of the test's own holding data/ and configs/ as links to the repository's: the
  // examples' paths resolve as from the root, and what they write stays here.
  const std::string dir = test_dir();
  std::filesystem::create_directory_symlink(kRoot + "/data", dir + "/data");
  std::filesystem::create_directory_symlink(kRoot + "/configs", dir + "/configs");
  for (const std::string& command : kCommands) {
    const std::vector<std::string>& examples = command_examples(example_key(command));
    ASSERT_GE(examples.size(), command == "coverage" || command == "systems" ? 1u : 2u) << command;
    const std::string help = run_stdout(command + " --help").out;
    const bool has_replicates = contains(help, "--replicates");
    for (const std::string& example : examples) {
      EXPECT_TRUE(contains(help, example.substr(0, example.find(' ', 10)))) << command;
      const std::string args = example.substr(std::string("judgestat ").size());
      const CliRun r = run_shell("cd " + dir + " && " + kBinary + " " + args +
                                 (has_replicates ? " --replicates 50" : "") + " 2>&1 >/dev/null");
      EXPECT_EQ(r.status, 0) << example << "\n" << r.out;
      if (command == "run") {
        EXPECT_TRUE(contains(r.out, "wrote study/results.json and study/report.html")) << r.out;
        EXPECT_FALSE(contains(r.out, "//")) << r.out;
      }
    }
  }
}
