// `judgestat items FILE`: the per-item table (docs/statistics.md §7.4) as CSV or JSONL.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/text_lists.hpp"
#include "distributed/distributed.hpp"
#include "judgestat/items.hpp"

namespace judgestat {
namespace {

// The analysis's own fields and their flags (the shared ones are in common_flags()); this
// filters are spelled as in metrics.
const FlagNames& items_flags() {
  static const FlagNames flags{{"judges", "--judges"},
                               {"benchmarks", "--benchmark"},
                               {"conditions", "--condition"},
                               {"variants", "--variant"},
                               {"disagree", "--disagree"}};
  return flags;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void cannot_write(const std::string& path, const std::string& why) {
  throw std::runtime_error("--out: cannot write '" + path + "': " + why);
}

// --out PATH written atomically: a temporary file beside PATH is created up front (so an
// unwritable path fails before anything is computed), filled, then renamed over PATH. Readers
// see the old file or the whole new one, never a half-written table; a run that fails leaves
// no file behind.
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path) : path_(std::move(path)) {
    struct stat existing {};
    const bool exists = ::stat(path_.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode)) cannot_write(path_, "it is a folder; give a file path");
    if (exists && ::access(path_.c_str(), W_OK) != 0) cannot_write(path_, std::strerror(errno));
    std::string pattern = path_ + ".tmp-XXXXXX";
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) cannot_write(path_, std::strerror(errno));
    temp_ = pattern;
    // mkstemp makes the file private (0600); give it the mode a plain write would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, exists ? existing.st_mode & 07777 : 0666 & ~mask);
  }
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty()) std::remove(temp_.c_str());
  }

  void commit(const std::string& text) {
    for (size_t done = 0; done < text.size();) {
      const ssize_t wrote = ::write(fd_, text.data() + done, text.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) cannot_write(path_, std::strerror(errno));
      done += static_cast<size_t>(wrote);
    }
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) cannot_write(path_, std::strerror(errno));
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) cannot_write(path_, std::strerror(errno));
    temp_.clear();
  }

 private:
  std::string path_, temp_;
  int fd_ = -1;
};

}  // namespace

int command_items(int argc, char** argv) {
  cxxopts::Options options("judgestat items",
                           "One row per item (docs/statistics.md §7.4): item fields, each judge's verdict and "
                           "correctness per order, pa, q, consistency, and the judges wrong in order 0");
  // clang-format off
  options.add_options()
      ("file", "judgment records (.csv, .jsonl, .json; - = CSV on stdin)", cxxopts::value<std::string>())
      ("judges", "judges, comma-separated, in column order (default: all)", cxxopts::value<std::string>()->default_value(""))
      ("benchmark", "only these benchmarks, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("condition", "only these conditions, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("variant", "only these variants, comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("disagree", "only items whose judges' order-0 verdicts differ (to send to adjudication)")
      ("out", "write to PATH: CSV, or JSONL when PATH ends in .jsonl or .json (default: CSV on stdout)",
       cxxopts::value<std::string>()->default_value(""))
      ("labels", "label set, comma-separated (default: from the file)", cxxopts::value<std::string>()->default_value(""))
      ("quiet", "no summary line on stderr")
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"file"});
  options.positional_help("FILE");
  cxxopts::ParseResult parsed;
  if (!parse_or_help(options, argc, argv, parsed)) return 0;
  if (!parsed.count("file")) throw UsageError("missing FILE: give a judgment records file (see --help)");
  ItemsOptions items;
  items.judges = split_list(parsed["judges"].as<std::string>());
  items.benchmarks = split_list(parsed["benchmark"].as<std::string>());
  items.conditions = split_list(parsed["condition"].as<std::string>());
  items.variants = split_list(parsed["variant"].as<std::string>());
  items.disagree = parsed.count("disagree") > 0;
  LoadOptions load;
  load.labels = split_list(parsed["labels"].as<std::string>());
  const std::string out_path = parsed["out"].as<std::string>();
  const bool quiet = parsed.count("quiet") > 0;

  // Under mpirun every rank computes the table and rank 0 writes it.
  const bool writes = distributed::is_root();
  std::unique_ptr<AtomicOutput> out;
  if (writes && !out_path.empty() && out_path != "-") out = std::make_unique<AtomicOutput>(out_path);

  const ItemMatrix matrix = load_item_matrix(parsed["file"].as<std::string>(), load);
  const ItemsReport report = with_flag_names(items_flags(), [&] { return run_items(matrix, items); });
  if (!writes) return 0;
  const bool jsonl = ends_with(out_path, ".jsonl") || ends_with(out_path, ".json");
  const std::string text = jsonl ? items_jsonl(report) : items_csv(report);
  if (out) {
    out->commit(text);
  } else {
    std::cout << text;
    std::cout.flush();
  }
  if (!quiet)
    std::fprintf(stderr, "items: %zu rows (%lld items with disagreeing verdicts)\n", report.rows.size(),
                 static_cast<long long>(report.disagreeing));
  return 0;
}

}  // namespace judgestat
