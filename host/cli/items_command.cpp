// `judgestat items FILE`: the per-item table (docs/statistics.md §7.4) as CSV or JSONL.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/analysis_parse.hpp"
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

cxxopts::Options make_items_cli() {
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
  return options;
}

bool parse_items_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::Options options = make_items_cli();
  cxxopts::ParseResult parsed;
  out.command = "items";
  if (!parse_or_help(options, argc, argv, parsed)) return false;
  out.unmatched = parsed.unmatched();
  if (file_required && !parsed.count("file"))
    throw UsageError("missing FILE: give a judgment records file (see --help)");
  if (parsed.count("file")) out.common.file = parsed["file"].as<std::string>();
  ItemsOptions& items = out.items;
  items.judges = split_list(parsed["judges"].as<std::string>());
  items.benchmarks = split_list(parsed["benchmark"].as<std::string>());
  items.conditions = split_list(parsed["condition"].as<std::string>());
  items.variants = split_list(parsed["variant"].as<std::string>());
  items.disagree = parsed.count("disagree") > 0;
  out.common.load.labels = split_list(parsed["labels"].as<std::string>());
  out.out_path = parsed["out"].as<std::string>();
  out.common.quiet = parsed.count("quiet") > 0;
  return true;
}

namespace {

// The table as the result's JSON: the head's envelope, then the columns, the rows (one object per
// row, as in the JSONL) and the number of disagreeing rows.
Json items_json(const ItemsReport& report, const ReportHead& head) {
  Json json = head.envelope;
  json["columns"] = report.columns;
  Json rows = Json::array();
  const std::string jsonl = items_jsonl(report);
  for (size_t begin = 0; begin < jsonl.size();) {
    const size_t end = jsonl.find('\n', begin);
    const size_t stop = end == std::string::npos ? jsonl.size() : end;
    if (stop > begin) rows.push_back(Json::parse(jsonl.substr(begin, stop - begin)));
    begin = stop + 1;
  }
  json["rows"] = std::move(rows);
  json["disagreeing"] = report.disagreeing;
  return json;
}

}  // namespace

// context.format "jsonl" puts the JSONL into *context.formatted, anything else the CSV.
AnalysisResult run_items_analysis(const ParsedAnalysis& parsed, const ItemMatrix& matrix, const RunContext& context) {
  const ItemsReport report = with_flag_names(items_flags(), [&] { return run_items(matrix, parsed.items); });
  AnalysisResult result;
  result.json = items_json(report, context.head);
  result.text = result.csv = items_csv(report);
  if (context.formatted) *context.formatted = context.format == "jsonl" ? items_jsonl(report) : result.csv;
  if (context.hooks.progress) context.hooks.progress(1, 1);
  return result;
}

int command_items(int argc, char** argv) {
  ParsedAnalysis parsed;
  if (!parse_items_args(argc, argv, true, parsed)) return 0;
  const std::string& out_path = parsed.out_path;
  const bool quiet = parsed.common.quiet;
  check_paths_apart(analysis_run_paths(parsed));  // before anything is loaded

  // Under mpirun every rank computes the table and rank 0 writes it.
  const bool writes = distributed::is_root();
  std::unique_ptr<AtomicFile> out;  // created up front: an unwritable --out fails before loading
  if (writes && !out_path.empty() && out_path != "-") out = std::make_unique<AtomicFile>(out_path, "--out");

  const ItemMatrix matrix = load_item_matrix(parsed.common.file, parsed.common.load);
  const bool jsonl = ends_with(out_path, ".jsonl") || ends_with(out_path, ".json");
  // The table is streamed to its destination as it is built, never held whole: a large file's
  // table outweighs the file (issue 26 part 7). Selection errors are thrown before any text.
  ItemsTextWriter writer(jsonl, [&](std::string_view text) {
    if (!writes) return;
    if (out)
      out->write(text);
    else
      std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
  const int64_t disagreeing =
      with_flag_names(items_flags(), [&] { return stream_items(matrix, parsed.items, writer); });
  writer.flush();
  if (!writes) return 0;
  if (out)
    out->commit();
  else
    flush_stdout();
  if (!quiet)
    std::fprintf(stderr, "items: %lld rows (%lld items with disagreeing verdicts)\n",
                 static_cast<long long>(writer.rows()), static_cast<long long>(disagreeing));
  return 0;
}

}  // namespace judgestat
