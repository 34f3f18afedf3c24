// An analysis's options read by name from either form they are asked in: the CLI's flags (argv
// parsed by cxxopts) or typed values (a study file's JSON, Python's keyword arguments; both a
// Json object). Each analysis reads its options through this one interface (read_X in its
// *_request.cpp), so one list of flags (make_X_cli: names, defaults) and one set of checks serve
// the CLI, the study file and the Python binding, and they cannot drift apart.
//
// Errors name the option as the CLI does ("--level: …"); the study says it as its JSON key and
// Python as the keyword. A typed value of the wrong type is an error too ("--replicates: expected
// a whole number ≥ 0, got string \"10\""), never text parsed again.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "judgestat/report.hpp"

namespace judgestat {

/// How the CLI's text of a list option splits into entries: split_list (empty entries dropped),
/// split_trimmed (entries trimmed, empty ones kept for the check to name) or at every comma.
enum class ListSplit { kDropEmpty, kTrimmed, kExact };
/// What a typed list's elements must be; numbers become their shortest round-trip text, the form
/// the library's list parsers take (threshold_grid, parse_frozen_tau, parse_k_list).
enum class ListOf { kWords, kNumbers, kWholeNumbers, kNumbersOrWords };

class OptionReader {
 public:
  virtual ~OptionReader() = default;
  /// Whether the option was given; a switch: given and on.
  virtual bool given(const std::string& name) const = 0;
  virtual std::string text(const std::string& name) const = 0;
  virtual double number(const std::string& name) const = 0;
  virtual uint64_t whole(const std::string& name) const = 0;
  virtual int integer(const std::string& name) const = 0;
  /// A text option that may also be given as a number (cascade's --gate-orders 2).
  virtual std::string text_or_number(const std::string& name) const = 0;
  /// The entries of a list option (the CLI's comma-separated text split as `split`).
  virtual std::vector<std::string> list(const std::string& name, ListSplit split, ListOf of) const = 0;
  /// A per-judge option (--fee, --latency): judge → non-negative number; empty when not given.
  virtual std::map<std::string, double> per_call(const std::string& name) const = 0;
  /// The option as given, for a message: the flag's text, or the typed value as JSON.
  virtual std::string shown(const std::string& name) const = 0;
};

/// The CLI's flags as cxxopts parsed them (cxxopts' exceptions pass through).
class ArgvOptions : public OptionReader {
 public:
  explicit ArgvOptions(const cxxopts::ParseResult& parsed) : parsed_(parsed) {}
  bool given(const std::string& name) const override;
  std::string text(const std::string& name) const override;
  double number(const std::string& name) const override;
  uint64_t whole(const std::string& name) const override;
  int integer(const std::string& name) const override;
  std::string text_or_number(const std::string& name) const override { return text(name); }
  std::vector<std::string> list(const std::string& name, ListSplit split, ListOf of) const override;
  std::map<std::string, double> per_call(const std::string& name) const override;
  std::string shown(const std::string& name) const override { return text(name); }

 private:
  const cxxopts::ParseResult& parsed_;
};

/// Typed values by flag name ("-" or "_" alike); an option not given reads as the CLI's default
/// (its flags' parse of no arguments). UsageError for a key the CLI does not define, and for the output
/// flags (format, json, save-replicates, plots, out, quiet): a typed request writes nothing.
class TypedOptions : public OptionReader {
 public:
  /// `values` by the flag names of `command`'s CLI (analysis_parser(command)).
  TypedOptions(const std::string& command, const Json& values);
  TypedOptions(const TypedOptions&) = delete;
  TypedOptions& operator=(const TypedOptions&) = delete;
  bool given(const std::string& name) const override;
  std::string text(const std::string& name) const override;
  double number(const std::string& name) const override;
  uint64_t whole(const std::string& name) const override;
  int integer(const std::string& name) const override;
  std::string text_or_number(const std::string& name) const override;
  std::vector<std::string> list(const std::string& name, ListSplit split, ListOf of) const override;
  std::map<std::string, double> per_call(const std::string& name) const override;
  std::string shown(const std::string& name) const override;

 private:
  const Json* find(const std::string& name) const;
  [[noreturn]] void wrong_type(const std::string& name, const std::string& expected, const Json& value) const;
  std::map<std::string, Json> values_;  // by flag name
  cxxopts::ParseResult defaults_;
  ArgvOptions default_reader_{defaults_};
};

}  // namespace judgestat
