// What one run of a command reads and writes, named as the user named them, so that the CLI's
// output guard (host/cli/output_guard.hpp) can refuse an output that would replace an input
// before anything is loaded.
#pragma once
#include <string>
#include <vector>

namespace judgestat {

/// A path as the user gave it and what named it ("FILE", "--config", "--json", …).
struct NamedPath {
  std::string flag, path;
};

/// What one run reads and writes.
struct RunPaths {
  std::vector<NamedPath> inputs;   // files or folders read ("" skipped; "-" is stdin, a file when redirected from one)
  std::vector<NamedPath> outputs;  // files written ("" and "-" = stdout skipped)
  NamedPath plots{"--plots", ""};  // --plots DIR: the figures DIR/NAME.svg and DIR/NAME.csv
  /// Every figure's NAME starts with one of these (the command's own), so the files --plots
  /// could write are known before computing.
  std::vector<std::string> plot_prefixes;
};

}  // namespace judgestat
