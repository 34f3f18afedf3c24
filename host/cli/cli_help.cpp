#include "cli/cli_help.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace judgestat {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    // A prefix ("--rep") is what people type for a long flag: as near as a one-letter slip.
    const bool prefix = word.size() >= 3 && candidate.compare(0, word.size(), word) == 0;
    const size_t distance = prefix ? 1 : edit_distance(word, candidate);
    if (distance < best_distance) best = candidate, best_distance = distance;
  }
  return best;
}

std::vector<std::string> long_flag_names(const cxxopts::Options& options) {
  std::vector<std::string> names;
  for (const std::string& group : options.groups())
    for (const cxxopts::HelpOptionDetails& option : options.group_help(group).options)
      for (const std::string& name : option.l) names.push_back(name);
  return names;
}

std::string with_nearest_flag(const std::string& message, const cxxopts::Options& options) {
  // cxxopts: "Option ‘NAME’ does not exist" (‘ and ’ are 3 bytes each in UTF-8).
  static const std::string open = "Option \xE2\x80\x98", close = "\xE2\x80\x99 does not exist";
  const size_t start = message.find(open), end = message.find(close);
  if (start == std::string::npos || end == std::string::npos || end < start + open.size()) return message;
  std::string unknown = message.substr(start + open.size(), end - start - open.size());
  unknown.erase(0, unknown.find_first_not_of('-'));
  const std::string nearest = nearest_word(unknown, long_flag_names(options));
  return nearest.empty() ? message : message + "; did you mean `--" + nearest + "`?";
}

namespace {

bool mentions_default(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("default") != std::string::npos;
}

// cxxopts appends " (default: X)" to a description; kept once, and only where it says something.
std::string default_said_once(const std::string& description) {
  static const std::string tail = " (default: ";
  const size_t at = description.rfind(tail);
  if (at == std::string::npos || description.back() != ')') return description;
  const std::string value = description.substr(at + tail.size(), description.size() - at - tail.size() - 1);
  const std::string own = description.substr(0, at);
  return value == "\"\"" || mentions_default(own) ? own : description;
}

// `text` broken at spaces into lines of at most `width` columns (a longer word stays whole),
// the first after `first`, the others after `indent` spaces.
std::string wrapped(const std::string& first, const std::string& text, size_t indent, size_t width) {
  std::string out = first, line;
  size_t column = first.size();
  std::istringstream words(text);
  std::string word;
  bool line_empty = true;
  while (words >> word) {
    if (!line_empty && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) out += ' ', ++column;
    out += word;
    column += word.size();
    line_empty = false;
  }
  return out;
}

// An option line "  -x, --name ARG   description": where its description starts (after the first
// gap of two spaces past the option), or npos for other lines.
size_t description_column(const std::string& line) {
  const size_t option = line.find_first_not_of(' ');
  if (option == std::string::npos || option == 0 || line[option] != '-') return std::string::npos;
  const size_t gap = line.find("  ", option);
  if (gap == std::string::npos) return std::string::npos;
  return line.find_first_not_of(' ', gap);
}

}  // namespace

std::string tidy_help_text(const std::string& cxxopts_help) {
  std::istringstream lines(cxxopts_help);
  std::string line, out;
  while (std::getline(lines, line)) {
    const size_t column = description_column(line);
    if (column != std::string::npos) {
      const size_t indent = column + 30 <= kHelpWidth ? column : 8;
      const std::string head =
          column + 30 <= kHelpWidth ? line.substr(0, column) : line.substr(0, column) + "\n" + std::string(indent, ' ');
      out += wrapped(head, default_said_once(line.substr(column)), indent, kHelpWidth) + "\n";
    } else if (line.size() > kHelpWidth) {
      const size_t indent = std::min(line.find_first_not_of(' '), size_t{8});
      out += wrapped(line.substr(0, indent), line.substr(indent), indent, kHelpWidth) + "\n";
    } else {
      out += line + "\n";
    }
  }
  return out;
}

const std::vector<std::string>& command_examples(const std::string& command) {
  static const std::string jb = " data/judgebench/gpt4o_split.csv";
  static const std::string o1 = "o1-mini-2024-09-12", skywork = "Skywork_Skywork-Reward-Llama-3.1-8B";
  static const std::map<std::string, std::vector<std::string>> examples{
      {"run",
       {"judgestat run configs/study_bundled.json --out study/",
        "judgestat run configs/study_bundled.json --out study/ --replicates 500 --force"}},
      {"metrics",
       {"judgestat metrics" + jb, "judgestat metrics data/llmbar/natural_neighbor.csv --by condition --ci bca",
        "judgestat metrics" + jb + " --judges " + o1 + "," + skywork + " --diff acc,pa --format csv"}},
      {"items",
       {"judgestat items" + jb + " --out items.csv",
        "judgestat items" + jb + " --judges " + o1 + "," + skywork + " --disagree --out disputes.jsonl"}},
      {"import",
       {"judgestat import rewardbench data/import/rewardbench/Skywork-Reward-Llama-3.1-8B_all.jsonl --out rb.csv",
        "judgestat import --map configs/import/arena-hard.json data/import/arena-hard/gpt-4-1106-preview.jsonl "
        "--out arena.csv"}},
      {"bench", {"judgestat bench w1 --clusters 500 --replicates 2000", "judgestat bench w2 -k 48 --draws 2000"}},
      {"budget",
       {"judgestat budget" + jb + " --first " + skywork + " --fallback " + o1 + " --k 48,96 --draws 2000",
        "judgestat budget" + jb + " --compare Skywork_Skywork-Reward-Gemma-2-27B," + o1 + " --k 50,100 --draws 2000"}},
      {"cascade",
       {"judgestat cascade" + jb + " --first " + skywork + " --fallback " + o1,
        "judgestat cascade" + jb + " --first " + skywork + " --fallback " + o1 + " --fee " + o1 +
            "=0.0076 --select 0.4 --by benchmark"}},
      {"profile",
       {"judgestat profile" + jb + " --config configs/judgebench.json",
        "judgestat profile data/llmbar/natural_neighbor.csv --config configs/llmbar.json --plots figures/"}},
      {"synth cap",
       {"judgestat synth cap --out synth.csv --truth truth.json",
        "judgestat synth cap --out harder.csv --skill-scale 0.8 --seed 7"}},
      {"coverage", {"judgestat coverage" + jb + " --judges " + o1 + "," + skywork + " --datasets 20"}},
      {"systems",
       {"judgestat systems data/examples/win_rates.csv --systems x.model_a,x.model_b --baseline mistral-7b"}},
      {"repeats",
       {"judgestat repeats data/examples/repeats.csv", "judgestat repeats data/examples/repeats.csv --format json"}},
  };
  static const std::vector<std::string> none;
  const auto found = examples.find(command);
  return found == examples.end() ? none : found->second;
}

std::string exit_status_text() {
  return "Exit status:\n"
         "  0  success\n"
         "  1  error while running: a failed write (full disk, closed stdout), out of\n"
         "     memory, a CUDA failure\n"
         "  2  usage error: an unknown command or flag, a bad flag value or config, an\n"
         "     output that would overwrite an input\n"
         "  3  bad input: a records file (or a log being imported) that cannot be read as\n"
         "     such (the message names the file, line and column)\n";
}

namespace {

// A command line broken at spaces with shell continuations, so that it still pastes as one.
std::string example_lines(const std::string& example) {
  std::string out = "  ", word;
  size_t column = 2;
  bool line_start = true;
  std::istringstream words(example);
  while (words >> word) {
    if (!line_start && column + 1 + word.size() + 2 > kHelpWidth) {
      out += " \\\n     ";
      column = 5;
      line_start = true;
    }
    if (!line_start) out += ' ', ++column;
    out += word;
    column += word.size();
    line_start = false;
  }
  return out + "\n";
}

}  // namespace

std::string command_help(const cxxopts::Options& options) {
  cxxopts::Options wide = options;
  wide.set_width(100000);  // one line per option: tidy_help_text drops defaults, then wraps
  std::string text = tidy_help_text(wide.help());
  const std::string prefix = "judgestat ";
  const std::string command = options.program().rfind(prefix, 0) == 0 ? options.program().substr(prefix.size()) : "";
  const std::vector<std::string>& examples = command_examples(command);
  if (!examples.empty()) {
    text += "\nExamples (from the repository's root, on the bundled data):\n";
    for (const std::string& example : examples) text += example_lines(example);
  }
  return text + "\n" + exit_status_text();
}

}  // namespace judgestat
