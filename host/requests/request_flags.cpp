#include "requests/request_flags.hpp"

#include <glob.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "distributed/distributed.hpp"
#include "report/atomic_file.hpp"
#include "requests/invalid_option.hpp"
#include "requests/option_reader.hpp"
#include "requests/text_lists.hpp"
#include "support/parallel.hpp"

namespace judgestat {

void add_common_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("file", "judgment records (.csv, .jsonl, .json; - = CSV on stdin)", cxxopts::value<std::string>())
      ("replicates", "bootstrap replicates", cxxopts::value<uint64_t>()->default_value("10000"))
      ("seed", "random seed (docs/statistics.md §2 Philox key)", cxxopts::value<uint64_t>()->default_value("1"))
      ("ci", "interval: percentile, basic, bca, t or studentized", cxxopts::value<std::string>()->default_value("percentile"))
      ("level", "confidence level", cxxopts::value<double>()->default_value("0.95"))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("devices", "CUDA devices to split the replicates between, e.g. 0,1 (default: one device per process; "
       "under mpirun, round-robin by rank)", cxxopts::value<std::string>()->default_value(""))
      ("threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
      ("chunk", "at most this many replicates per backend call (0 = sized from memory)",
       cxxopts::value<uint64_t>()->default_value("0"))
      ("labels", "label set, comma-separated (default: from the file)", cxxopts::value<std::string>()->default_value(""))
      ("map", "read each FILE through an import map: MAP.json or a built-in map's NAME (docs/import.md)",
       cxxopts::value<std::string>()->default_value(""))
      ("format", "text, md, csv or json", cxxopts::value<std::string>()->default_value("text"))
      ("json", "also write the JSON result to FILE", cxxopts::value<std::string>()->default_value(""))
      ("save-replicates", "also write every replicate value to FILE (CSV: a row per replicate, a column per statistic)",
       cxxopts::value<std::string>()->default_value(""))
      ("quiet", "no progress on stderr")
      ("invalid", "how invalid outputs count: wrong (an error, kept in n; JEV) or exclude (failed calls leave n; CAP)",
       cxxopts::value<std::string>()->default_value("wrong"))
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"file"});
  options.positional_help("FILE...");
}

namespace {

// A glob's matches in byte order; UsageError when it matches nothing.
std::vector<std::string> glob_matches(const std::string& pattern) {
  glob_t found{};
  const int rc = ::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &found);
  std::vector<std::string> paths(found.gl_pathv, found.gl_pathv + (rc == 0 ? found.gl_pathc : 0));
  globfree(&found);
  if (rc != 0) throw UsageError("FILE '" + pattern + "': the pattern matches no file");
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

std::vector<std::string> record_files(const std::vector<std::string>& words) {
  std::vector<std::string> files;
  for (const std::string& word : words) {
    if (word == "-") {
      files.push_back(word);
    } else if (word.find_first_of("*?[") != std::string::npos) {
      for (std::string& path : glob_matches(word)) files.push_back(std::move(path));
    } else {
      std::error_code error;
      if (!std::filesystem::exists(word, error))
        throw UsageError("FILE '" + word + "': no such file (every FILE given is read; none is skipped)");
      files.push_back(word);
    }
  }
  return files;
}

namespace {

// cxxopts says "Argument 'TEXT' failed to parse" without the option: find the option that took
// TEXT in argv ("--opt TEXT" or "--opt=TEXT") and name it, with what it expects.
std::string bad_value_message(const std::string& what, int argc, char** argv) {
  // cxxopts quotes with ‘…’ (or '…' where built without Unicode quotes).
  const bool curly = what.find("\u2018") != std::string::npos;
  const std::string left = curly ? "\u2018" : "'", right = curly ? "\u2019" : "'";
  const size_t open = what.find(left), close = what.rfind(right);
  if (open == std::string::npos || close == std::string::npos || close <= open) return what;
  const std::string value = what.substr(open + left.size(), close - open - left.size());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string option;
    if (arg == value && i > 1 && argv[i - 1][0] == '-') option = argv[i - 1];
    const size_t eq = arg.find('=');
    if (option.empty() && arg.rfind("-", 0) == 0 && eq != std::string::npos && arg.substr(eq + 1) == value)
      option = arg.substr(0, eq);
    if (!option.empty())
      return option + ": '" + value + "' is not a valid value (expected a number of the option's type" +
             (value.rfind("-", 0) == 0 ? ", not negative" : "") + "; see --help)";
  }
  return what;
}

// The output options a command may have; each one given is checked before any work starts.
// --plots (and `run`'s --out) name folders, the others files.
void check_output_options(const cxxopts::ParseResult& parsed, bool out_is_folder) {
  for (const auto& argument : parsed.arguments()) {
    const std::string& key = argument.key();
    if (key == "plots" || (key == "out" && out_is_folder))
      check_writable_dir(argument.value(), "--" + key);
    else if (key == "json" || key == "save-replicates" || key == "out" || key == "truth")
      check_writable(argument.value(), "--" + key);
  }
}

}  // namespace

bool parse_flags(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed, bool out_is_folder) {
  try {
    parsed = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    throw UsageError(bad_value_message(e.what(), argc, argv));
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (parsed.count("help")) return false;
  try {
    check_output_options(parsed, out_is_folder);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return true;
}

bool parse_common(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed, CommonOptions& common,
                  bool file_required) {
  if (!parse_flags(options, argc, argv, parsed)) return false;
  if (file_required && !parsed.count("file"))
    throw UsageError("missing FILE: give a judgment records file (see --help)");
  if (parsed.count("file")) common.file = parsed["file"].as<std::string>();
  read_common(ArgvOptions(parsed), common);
  return true;
}

void read_common(const OptionReader& options, CommonOptions& common) {
  try {
    common.replicates = options.whole("replicates");
    common.seed = options.whole("seed");
    common.ci = parse_ci_method(options.text("ci"));
    common.level = options.number("level");
    common.load.labels = options.list("labels", ListSplit::kDropEmpty, ListOf::kWords);
    common.load.map = options.text("map");
    common.format = options.text("format");
    common.json_path = options.text("json");
    common.replicates_path = options.text("save-replicates");
    common.quiet = options.given("quiet");
    common.exclude_invalid = excludes_invalid(options.text("invalid"));
    common.load.progress = !common.quiet;  // loading progress, on a terminal only
    common.target = read_exec_target(options);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (common.format != "text" && common.format != "md" && common.format != "csv" && common.format != "json")
    throw UsageError("--format: expected text, md, csv or json, got '" + common.format + "'");
  try {  // the library's one check of bootstrap options, before any file is read
    validate_bootstrap_options(bootstrap_options(common));
  } catch (const std::invalid_argument& e) {
    rethrow_with_flag_names(e, {});
  }
}

BootstrapOptions bootstrap_options(const CommonOptions& common) {
  BootstrapOptions boot;
  boot.replicates = common.replicates;
  boot.seed = common.seed;
  boot.ci = common.ci;
  boot.level = common.level;
  boot.keep_replicates = !common.replicates_path.empty();
  return boot;
}

// "JUDGE=VALUE" options (--fee, --latency) → judge → value.
std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option) {
  std::map<std::string, double> out;
  for (const std::string& entry : entries) {
    const size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(std::string("--") + option + ": expected JUDGE=VALUE, got '" + entry + "'");
    const std::string judge = entry.substr(0, eq), text = entry.substr(eq + 1);
    char* end = nullptr;
    const double value = text.empty() ? NAN : std::strtod(text.c_str(), &end);
    check_per_call_value(text.empty() || *end != '\0' ? NAN : value, text, judge, option);
    out[judge] = value;
  }
  return out;
}

void check_per_call_value(double value, const std::string& text, const std::string& judge, const char* option) {
  if (!std::isfinite(value) || value < 0)
    throw UsageError(std::string("--") + option + ": '" + text + "' for " + judge + " is not a non-negative number");
}

void check_per_call_judges(const std::map<std::string, double>& per_call, const char* option, const std::string& first,
                           const std::string& fallback) {
  for (const auto& [judge, value] : per_call)
    if (judge != first && judge != fallback)
      throw UsageError(std::string("--") + option + ": judge '" + judge + "' is neither the first stage (" + first +
                       ") nor the fallback (" + fallback + ")");
}

std::map<std::string, double> parse_per_call(const std::vector<std::string>& entries, const char* option,
                                             const std::string& first, const std::string& fallback) {
  std::map<std::string, double> out = parse_per_call(entries, option);
  check_per_call_judges(out, option, first, fallback);
  return out;
}

ExecTarget parse_exec_target(const cxxopts::ParseResult& parsed) { return read_exec_target(ArgvOptions(parsed)); }

ExecTarget read_exec_target(const OptionReader& options) {
  ExecTarget target;
  try {
    // --backend cuda:0,1 is --backend cuda --devices 0,1 in one word.
    const std::string backend = options.text("backend");
    const bool listed = backend.rfind("cuda:", 0) == 0;
    if (!listed && backend != "auto" && backend != "cpu" && backend != "cuda")
      throw UsageError("--backend: expected auto, cpu, cuda or cuda:DEVICES (e.g. cuda:0,1), got '" + backend + "'");
    target.kind = listed ? ExecTarget::Kind::kCuda : parse_exec_kind(backend);
    if (listed) target.devices = parse_device_list(backend.substr(5), "--devices");
    // Not every command has --devices (bench): read it only when given.
    const std::vector<std::string> devices = options.given("devices")
                                                 ? options.list("devices", ListSplit::kExact, ListOf::kWholeNumbers)
                                                 : std::vector<std::string>{};
    if (!devices.empty()) target.devices = parse_device_list(devices, "--devices");
    if (options.given("threads")) target.threads = options.integer("threads");
    if (options.given("chunk")) target.chunk = options.whole("chunk");
    check_exec_target(target);
    if (static_cast<uint64_t>(target.threads) > max_useful_threads() && distributed::is_root())
      std::fprintf(stderr, "note: --threads %d capped at %d (4 x %llu hardware threads); more do not help\n",
                   target.threads, capped_threads(target.threads), static_cast<unsigned long long>(hardware_threads()));
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  } catch (const std::invalid_argument& e) {
    rethrow_with_flag_names(e, {});
  }
  return target;
}

const FlagNames& common_flags() {
  static const FlagNames flags{{"kind", "--backend"},
                               {"cuda", "--backend cuda"},
                               {"devices", "--devices"},
                               {"threads", "--threads"},
                               {"chunk", "--chunk"},
                               {"replicates", "--replicates"},
                               {"seed", "--seed"},
                               {"level", "--level"},
                               {"ci", "--ci"},
                               {"labels", "--labels"},
                               {"judges", "--judges"},
                               {"variants", "--variant"},
                               {"benchmarks", "--benchmark"},
                               {"conditions", "--condition"},
                               {"by", "--by"},
                               {"grid", "--grid"},
                               {"gate_orders", "--gate-orders"},
                               {"select", "--select"},
                               {"strata", "--strata"}};
  return flags;
}

void rethrow_with_flag_names(const std::invalid_argument& error, const FlagNames& flags) {
  const std::string message = error.what();
  const size_t colon = message.find(": ");
  if (colon != std::string::npos) {
    const std::string field = message.substr(0, colon);
    if (const auto flag = flags.find(field); flag != flags.end())
      throw UsageError(flag->second + message.substr(colon));
    if (const auto flag = common_flags().find(field); flag != common_flags().end())
      throw UsageError(flag->second + message.substr(colon));
  }
  throw UsageError(message);
}

}  // namespace judgestat
