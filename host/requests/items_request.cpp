// The per-item table asked for by flags (`judgestat items FILE`, judgestat/analysis.hpp;
// docs/statistics.md §7.4): the flags parsed into ItemsOptions, and run_items's table as an
// AnalysisResult (its CSV as the tables, its rows in the JSON).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "judgestat/items.hpp"
#include "requests/analysis_parse.hpp"
#include "requests/option_reader.hpp"
#include "requests/text_lists.hpp"

namespace judgestat {
namespace {

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
      ("map", "read each FILE through an import map: MAP.json or a built-in NAME (docs/import.md)", cxxopts::value<std::string>()->default_value(""))
      ("quiet", "no summary line on stderr")
      ("h,help", "show this help");
  // clang-format on
  options.parse_positional({"file"});
  options.positional_help("FILE");
  return options;
}

void read_items(const OptionReader& r, ParsedAnalysis& out) {
  ItemsOptions items;
  items.judges = r.list("judges", ListSplit::kDropEmpty, ListOf::kWords);
  items.benchmarks = r.list("benchmark", ListSplit::kDropEmpty, ListOf::kWords);
  items.conditions = r.list("condition", ListSplit::kDropEmpty, ListOf::kWords);
  items.variants = r.list("variant", ListSplit::kDropEmpty, ListOf::kWords);
  items.disagree = r.given("disagree");
  out.options = std::move(items);
  out.common.load.labels = r.list("labels", ListSplit::kDropEmpty, ListOf::kWords);
  out.common.load.map = r.text("map");
  out.out_path = r.text("out");
  out.common.quiet = r.given("quiet");
}

bool parse_items_args(int argc, char** argv, bool file_required, ParsedAnalysis& out) {
  cxxopts::ParseResult parsed;
  if (!parse_argv("items", make_items_cli, argc, argv, file_required, parsed, out)) return false;
  read_items(ArgvOptions(parsed), out);
  return true;
}

}  // namespace

const AnalysisParser kItemsParser{"items", make_items_cli, parse_items_args, read_items};

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

const FlagNames& items_flag_names() {
  static const FlagNames flags{{"judges", "--judges"},
                               {"benchmarks", "--benchmark"},
                               {"conditions", "--condition"},
                               {"variants", "--variant"},
                               {"disagree", "--disagree"}};
  return flags;
}

AnalysisResult run_items_request(const ItemsOptions& options, const ItemMatrix& matrix, const RunContext& context) {
  const ItemsReport report = run_items(matrix, options);
  AnalysisResult result;
  result.json = items_json(report, context.head);
  result.text = result.csv = items_csv(report);
  if (context.hooks.progress) context.hooks.progress(1, 1);
  return result;
}

}  // namespace judgestat
