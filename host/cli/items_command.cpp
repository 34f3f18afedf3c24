// `judgestat items FILE`: the per-item table (docs/statistics.md §7.4) as CSV or JSONL, streamed
// to --out or stdout as it is built. The flags are the request layer's
// (host/requests/items_request.cpp).
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/analysis_command.hpp"
#include "cli/commands.hpp"
#include "cli/output_guard.hpp"
#include "distributed/distributed.hpp"
#include "judgestat/items.hpp"
#include "report/atomic_file.hpp"

namespace judgestat {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int command_items(int argc, char** argv) {
  ParsedAnalysis parsed;
  if (!parse_analysis_or_help("items", argc, argv, parsed)) return 0;
  const ItemsOptions& items = std::get<ItemsOptions>(parsed.options);
  const std::string& out_path = parsed.out_path;
  const bool quiet = parsed.common.quiet;
  check_paths_apart(analysis_run_paths(parsed));  // before anything is loaded

  // Under mpirun every rank computes the table and rank 0 writes it.
  const bool writes = distributed::is_root();
  std::unique_ptr<AtomicFile> out;  // created up front: an unwritable --out fails before loading
  if (writes && !out_path.empty() && out_path != "-") out = std::make_unique<AtomicFile>(out_path, "--out");

  const ItemMatrix matrix = load_item_matrix(analysis_record_files(parsed), parsed.common.load);
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
  const int64_t disagreeing = with_flag_names(items_flag_names(), [&] { return stream_items(matrix, items, writer); });
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
