// `judgestat items FILE`: the per-item table (docs/statistics.md §7.4) as CSV or JSONL.
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
#include "report/atomic_file.hpp"

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
  std::unique_ptr<AtomicFile> out;  // created up front: an unwritable --out fails before loading
  if (writes && !out_path.empty() && out_path != "-") out = std::make_unique<AtomicFile>(out_path, "--out");

  const ItemMatrix matrix = load_item_matrix(parsed["file"].as<std::string>(), load);
  const ItemsReport report = with_flag_names(items_flags(), [&] { return run_items(matrix, items); });
  if (!writes) return 0;
  const bool jsonl = ends_with(out_path, ".jsonl") || ends_with(out_path, ".json");
  const std::string text = jsonl ? items_jsonl(report) : items_csv(report);
  if (out) {
    out->write(text);
    out->commit();
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
