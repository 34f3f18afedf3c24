// Each analysis's options as a table — name, value type, CLI default, help — read from the flags
// the analysis defines (host/requests/*_request.cpp) and from how its own option reader reads
// each of them, so that a client presenting the options in its own form (the Python module's
// signatures and docstrings) lists exactly the options the request layer accepts.
#pragma once
#include <string>
#include <vector>

namespace judgestat {

/// What an option's value is, as a typed request (AnalysisValues) gives it.
enum class OptionType {
  kSwitch,          // true or false
  kText,            // a string (or path)
  kNumber,          // a number
  kWhole,           // a whole number ≥ 0
  kInteger,         // a whole number, maybe negative
  kTextOrNumber,    // a string or a number (cascade's --gate-orders, --bins)
  kWords,           // a list of strings, or one comma-separated string
  kNumbers,         // a list of numbers, or one comma-separated string
  kWholeNumbers,    // a list of whole numbers ≥ 0, or one comma-separated string
  kNumbersOrWords,  // a number, a string or a list of them (cascade's --tau)
  kPerJudge,        // JUDGE → number (--fee, --latency)
};

struct AnalysisOption {
  std::string name;  // the long flag without "--" (analysis_flags' order)
  OptionType type = OptionType::kText;
  std::string help;           // the flag's --help text
  std::string default_value;  // the CLI's default as its help shows it ("" with has_default false)
  bool has_default = false;
  bool output = false;  // is_output_flag: a typed request refuses it
};

/// Every option of `command` (analysis_commands()), in analysis_flags(command)'s order;
/// std::invalid_argument("command: …") for an unknown command.
std::vector<AnalysisOption> analysis_option_table(const std::string& command);

/// "switch", "text", "number", "whole", "integer", "text_or_number", "words", "numbers",
/// "whole_numbers", "numbers_or_words" or "per_judge".
const char* option_type_name(OptionType type);

}  // namespace judgestat
