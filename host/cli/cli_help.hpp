// The CLI's help and mistakes as people know them from other tools (issue 31 part 3): help on
// stdout with each default said once, examples on the bundled data and the exit codes at its end;
// an unknown command or flag answered with the nearest one ("did you mean …?").
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/records.hpp"

namespace judgestat {

/// Help text lines are wrapped to this many columns (descriptions keep their column).
inline constexpr size_t kHelpWidth = 80;

/// Levenshtein distance: insertions, deletions and substitutions of one byte each.
size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate nearest to `word` when it is near enough to be a typo of it (distance at most
/// max(2, |word| / 3), or `word` a prefix of it); "" otherwise. Ties go to the first candidate.
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

/// Every long flag `options` defines, without the dashes.
std::vector<std::string> long_flag_names(const cxxopts::Options& options);

/// A parse error that names an unknown flag ("Option ‘replicate’ does not exist …") with
/// "; did you mean `--replicates`?" added when a flag of `options` is near; others unchanged.
std::string with_nearest_flag(const std::string& message, const cxxopts::Options& options);

/// Runs parse(); a UsageError from it is thrown again through with_nearest_flag.
template <typename Parse>
auto suggesting_flags(const cxxopts::Options& options, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const UsageError& e) {
    throw UsageError(with_nearest_flag(e.what(), options));
  }
}

/// cxxopts' help line by line with each default shown once: its appended "(default: X)" is
/// dropped where the description already speaks of the default or X is empty; every line
/// wrapped to kHelpWidth with a description's continuation under its first word.
std::string tidy_help_text(const std::string& cxxopts_help);

/// The examples at the end of `command`'s help ("metrics", "synth cap", …): command lines on
/// the bundled data, run from the repository's root; empty for an unknown command.
const std::vector<std::string>& command_examples(const std::string& command);

/// What the exit status means (main.cpp and distributed::describe_failure map errors to it).
std::string exit_status_text();

/// The help `judgestat COMMAND --help` prints: tidy_help_text, the command's examples and the
/// exit status. `command` is the program name without "judgestat " ("synth cap").
std::string command_help(const cxxopts::Options& options);

}  // namespace judgestat
