// judgestat/option_table.hpp: the table of an analysis's options. Names, help and defaults are
// the flags' own (make_X_cli); each type is what the analysis's reader (read_X, the one the
// CLI, study files and Python share) asks the option for, recorded while it reads a request of
// the CLI's defaults. An option the reader reads only in another case (--draws only when given,
// profile's lists after its --config file is loaded) falls back to the type its flag parses
// (cxxopts: text, number, whole number or integer), or to the type the same flag has in another
// analysis.
#include "judgestat/option_table.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/analysis.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"

namespace judgestat {
namespace {

OptionType list_type(ListOf of) {
  switch (of) {
    case ListOf::kWords:
      return OptionType::kWords;
    case ListOf::kNumbers:
      return OptionType::kNumbers;
    case ListOf::kWholeNumbers:
      return OptionType::kWholeNumbers;
    case ListOf::kNumbersOrWords:
      return OptionType::kNumbersOrWords;
  }
  return OptionType::kWords;
}

// The analysis's own reader over typed values, noting what each option is read as (the first
// read names it: a reader that reads a list reads nothing else of it).
class RecordingReader : public OptionReader {
 public:
  RecordingReader(const std::string& command, const Json& values) : typed_(command, values) {}
  bool given(const std::string& name) const override { return typed_.given(name); }
  std::string text(const std::string& name) const override {
    note(name, OptionType::kText);
    return typed_.text(name);
  }
  double number(const std::string& name) const override {
    note(name, OptionType::kNumber);
    return typed_.number(name);
  }
  uint64_t whole(const std::string& name) const override {
    note(name, OptionType::kWhole);
    return typed_.whole(name);
  }
  int integer(const std::string& name) const override {
    note(name, OptionType::kInteger);
    return typed_.integer(name);
  }
  std::string text_or_number(const std::string& name) const override {
    note(name, OptionType::kTextOrNumber);
    return typed_.text_or_number(name);
  }
  std::vector<std::string> list(const std::string& name, ListSplit split, ListOf of) const override {
    note(name, list_type(of));
    return typed_.list(name, split, of);
  }
  std::map<std::string, double> per_call(const std::string& name) const override {
    note(name, OptionType::kPerJudge);
    return typed_.per_call(name);
  }
  std::string shown(const std::string& name) const override { return typed_.shown(name); }
  const std::map<std::string, OptionType>& types() const { return types_; }

 private:
  void note(const std::string& name, OptionType type) const { types_.emplace(name, type); }
  TypedOptions typed_;
  mutable std::map<std::string, OptionType> types_;
};

// The least each reader needs to read through to its end: the options it requires (their
// values are not checked against any records here). budget reads different options with
// --compare; profile stops at loading its --config file (what follows falls back).
std::vector<Json> requests_to_record(const std::string& command) {
  if (command == "cascade") return {Json{{"first", "A"}, {"fallback", "B"}}};
  if (command == "budget") return {Json{{"first", "A"}, {"fallback", "B"}}, Json{{"compare", "A,B"}}};
  return {Json::object()};
}

std::map<std::string, OptionType> recorded_types(const std::string& command) {
  std::map<std::string, OptionType> types;
  for (const Json& values : requests_to_record(command)) {
    RecordingReader reader(command, values);
    ParsedAnalysis parsed;
    parsed.command = command;
    try {
      analysis_parser(command).read(reader, parsed);
    } catch (const std::exception&) {  // read up to here; the rest falls back
    }
    types.insert(reader.types().begin(), reader.types().end());
  }
  return types;
}

// Whether the flag's parser takes `value` ("--name=value").
bool flag_takes(const std::string& command, const std::string& name, const std::string& value) {
  cxxopts::Options cli = analysis_parser(command).make_cli();
  std::string program = "judgestat " + command, word = "--" + name + "=" + value;
  char* argv[] = {program.data(), word.data()};
  try {
    cli.parse(2, argv);
    return true;
  } catch (const cxxopts::exceptions::exception&) {
    return false;
  }
}

// The type the flag's own parser gives a value-taking option.
OptionType parsed_type(const std::string& command, const std::string& name) {
  if (name.size() == 1 || flag_takes(command, name, "text")) return OptionType::kText;
  if (flag_takes(command, name, "0.5")) return OptionType::kNumber;
  return flag_takes(command, name, "-1") ? OptionType::kInteger : OptionType::kWhole;
}

// The same flag's recorded type in another analysis (profile's --judges is metrics' --judges).
bool type_elsewhere(const std::string& command, const std::string& name, OptionType& type) {
  for (const std::string& other : analysis_commands()) {
    if (other == command) continue;
    const std::map<std::string, OptionType> types = recorded_types(other);
    if (const auto found = types.find(name); found != types.end()) {
      type = found->second;
      return true;
    }
  }
  return false;
}

std::map<std::string, cxxopts::HelpOptionDetails> help_by_flag(const std::string& command) {
  const cxxopts::Options cli = analysis_parser(command).make_cli();
  std::map<std::string, cxxopts::HelpOptionDetails> details;
  for (const std::string& group : cli.groups())
    for (const cxxopts::HelpOptionDetails& option : cli.group_help(group).options) {
      for (const std::string& name : option.l) details.emplace(name, option);
      if (!option.s.empty()) details.emplace(option.s, option);  // budget's -k and -z
    }
  return details;
}

OptionType type_of(const std::string& command, const std::string& name, const cxxopts::HelpOptionDetails& details,
                   const std::map<std::string, OptionType>& recorded) {
  if (details.is_boolean) return OptionType::kSwitch;
  if (const auto found = recorded.find(name); found != recorded.end()) return found->second;
  if (details.is_container) return OptionType::kPerJudge;  // the repeatable JUDGE=VALUE flags
  const OptionType parsed = parsed_type(command, name);
  OptionType elsewhere = parsed;
  if (parsed == OptionType::kText && type_elsewhere(command, name, elsewhere)) return elsewhere;
  return parsed;
}

}  // namespace

std::vector<AnalysisOption> analysis_option_table(const std::string& command) {
  const std::map<std::string, cxxopts::HelpOptionDetails> details = help_by_flag(command);
  const std::map<std::string, OptionType> recorded = recorded_types(command);
  std::vector<AnalysisOption> table;
  for (const std::string& name : analysis_flags(command)) {
    const cxxopts::HelpOptionDetails& help = details.at(name);
    AnalysisOption option;
    option.name = name;
    option.type = type_of(command, name, help, recorded);
    option.help = help.desc;
    option.has_default = help.has_default;
    option.default_value = help.has_default ? help.default_value : "";
    option.output = is_output_flag(name);
    table.push_back(std::move(option));
  }
  return table;
}

const char* option_type_name(OptionType type) {
  static const char* const names[] = {"switch",         "text",  "number",  "whole",         "integer",
                                      "text_or_number", "words", "numbers", "whole_numbers", "numbers_or_words",
                                      "per_judge"};
  return names[static_cast<int>(type)];
}

}  // namespace judgestat
