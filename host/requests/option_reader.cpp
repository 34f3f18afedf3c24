#include "requests/option_reader.hpp"

#include <algorithm>
#include <climits>

#include "judgestat/records.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/request_flags.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {

bool ArgvOptions::given(const std::string& name) const { return parsed_.count(name) > 0; }
std::string ArgvOptions::text(const std::string& name) const { return parsed_[name].as<std::string>(); }
double ArgvOptions::number(const std::string& name) const { return parsed_[name].as<double>(); }
uint64_t ArgvOptions::whole(const std::string& name) const { return parsed_[name].as<uint64_t>(); }
int ArgvOptions::integer(const std::string& name) const { return parsed_[name].as<int>(); }

std::vector<std::string> ArgvOptions::list(const std::string& name, ListSplit split, ListOf) const {
  const std::string value = text(name);
  if (split == ListSplit::kDropEmpty) return split_list(value);
  return split == ListSplit::kTrimmed ? split_trimmed(value) : split_exact(value);
}

std::map<std::string, double> ArgvOptions::per_call(const std::string& name) const {
  if (!given(name)) return {};
  return parse_per_call(parsed_[name].as<std::vector<std::string>>(), name.c_str());
}

namespace {

// The program's flags parsed from no arguments: every default as the CLI has it.
cxxopts::ParseResult cli_defaults(const std::string& command) {
  cxxopts::Options cli = analysis_parser(command).make_cli();
  std::string program = "judgestat " + command;
  char* argv[] = {program.data()};
  return cli.parse(1, argv);
}

std::string flag_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

// What a wrong value was, for the message: its JSON type and (shortened) text.
std::string described(const Json& value) {
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return std::string(value.type_name()) + " " + text;
}

}  // namespace

TypedOptions::TypedOptions(const std::string& command, const Json& values) : defaults_(cli_defaults(command)) {
  if (!values.is_object()) throw UsageError(command + ": the options must be an object of NAME: value");
  const std::map<std::string, FlagKind> kinds = analysis_flag_kinds(command);
  for (const auto& [key, value] : values.items()) {
    const std::string flag = flag_name(key);
    const auto kind = kinds.find(flag);
    if (kind == kinds.end())
      throw UsageError("--" + flag + ": not an option of " + command + " (see judgestat " + command + " --help)");
    if (is_output_flag(flag))
      throw UsageError("--" + flag + ": an output flag; typed options write nothing (the result holds every output)");
    if (values_.count(flag)) throw UsageError("--" + flag + ": given twice ('" + key + "' and its other spelling)");
    if (kind->second.boolean && !value.is_boolean()) wrong_type(flag, "true or false (a switch)", value);
    values_[flag] = value;
  }
}

const Json* TypedOptions::find(const std::string& name) const {
  const auto found = values_.find(name);
  return found == values_.end() ? nullptr : &found->second;
}

void TypedOptions::wrong_type(const std::string& name, const std::string& expected, const Json& value) const {
  throw UsageError("--" + name + ": expected " + expected + ", got " + described(value));
}

bool TypedOptions::given(const std::string& name) const {
  const Json* value = find(name);
  return value != nullptr && (!value->is_boolean() || value->get<bool>());
}

std::string TypedOptions::text(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.text(name);
  if (!value->is_string()) wrong_type(name, "a string", *value);
  return value->get<std::string>();
}

double TypedOptions::number(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.number(name);
  if (!value->is_number()) wrong_type(name, "a number", *value);
  return value->get<double>();
}

uint64_t TypedOptions::whole(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.whole(name);
  if (value->is_number_unsigned()) return value->get<uint64_t>();
  if (value->is_number_integer() && value->get<int64_t>() >= 0) return static_cast<uint64_t>(value->get<int64_t>());
  wrong_type(name, "a whole number from 0 to 18446744073709551615", *value);
}

int TypedOptions::integer(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.integer(name);
  if (value->is_number_unsigned() && value->get<uint64_t>() <= INT_MAX) return static_cast<int>(value->get<uint64_t>());
  if (value->is_number_integer() && !value->is_number_unsigned() && value->get<int64_t>() >= INT_MIN &&
      value->get<int64_t>() <= INT_MAX)
    return static_cast<int>(value->get<int64_t>());
  wrong_type(name, "a whole number", *value);
}

std::string TypedOptions::text_or_number(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.text(name);
  if (value->is_string()) return value->get<std::string>();
  if (!value->is_number()) wrong_type(name, "a string or a number", *value);
  return value->dump();
}

std::string TypedOptions::shown(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.shown(name);
  return value->is_string() ? value->get<std::string>() : value->dump();
}

namespace {

bool element_fits(const Json& element, ListOf of) {
  switch (of) {
    case ListOf::kWords:
      return element.is_string();
    case ListOf::kNumbers:
      return element.is_number();
    case ListOf::kWholeNumbers:
      return element.is_number_unsigned() || (element.is_number_integer() && element.get<int64_t>() >= 0);
    case ListOf::kNumbersOrWords:
      return element.is_string() || element.is_number();
  }
  return false;
}

const char* list_of_what(ListOf of) {
  switch (of) {
    case ListOf::kWords:
      return "a list of strings (or one comma-separated string)";
    case ListOf::kNumbers:
      return "a list of numbers (or one comma-separated string)";
    case ListOf::kWholeNumbers:
      return "a list of whole numbers ≥ 0 (or one comma-separated string)";
    case ListOf::kNumbersOrWords:
      return "a number, a string or a list of them";
  }
  return "a list";
}

}  // namespace

std::vector<std::string> TypedOptions::list(const std::string& name, ListSplit split, ListOf of) const {
  const Json* value = find(name);
  if (value == nullptr) return default_reader_.list(name, split, of);
  if (value->is_string()) {  // the CLI's comma-separated text, split as the flag's
    const std::string text = value->get<std::string>();
    if (split == ListSplit::kDropEmpty) return split_list(text);
    return split == ListSplit::kTrimmed ? split_trimmed(text) : split_exact(text);
  }
  if (of == ListOf::kNumbersOrWords && value->is_number()) return {value->dump()};
  if (!value->is_array()) wrong_type(name, list_of_what(of), *value);
  std::vector<std::string> entries;
  for (const Json& element : *value) {
    if (!element_fits(element, of)) wrong_type(name, list_of_what(of), *value);
    entries.push_back(element.is_string() ? element.get<std::string>() : element.dump());
  }
  return entries;
}

std::map<std::string, double> TypedOptions::per_call(const std::string& name) const {
  const Json* value = find(name);
  if (value == nullptr) return {};
  if (value->is_array() && std::all_of(value->begin(), value->end(), [](const Json& e) { return e.is_string(); }))
    return parse_per_call(value->get<std::vector<std::string>>(), name.c_str());  // ["judge=value", …]
  if (!value->is_object()) wrong_type(name, "an object of JUDGE: number", *value);
  std::map<std::string, double> out;
  for (const auto& [judge, amount] : value->items()) {
    if (!amount.is_number()) wrong_type(name, "a number for judge '" + judge + "'", amount);
    check_per_call_value(amount.get<double>(), amount.dump(), judge, name.c_str());
    out[judge] = amount.get<double>();
  }
  return out;
}

}  // namespace judgestat
