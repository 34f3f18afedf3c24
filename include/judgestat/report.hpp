// What every analysis's report shares: the JSON type and the head a client gives its writers.
// An analysis is `XReport run_X(matrix, XOptions, ExecTarget)`; its writers are
// `Json to_json(const XReport&, const ReportHead&)`, `std::string tables(const XReport&,
// format)` (text, md or csv) and, where it has plots, `plot_files(const XReport&)` (the figures in
// memory, which the study report inlines) and `plots(const XReport&, dir)` (the same, written).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace judgestat {

struct ItemMatrix;

using Json = nlohmann::ordered_json;

/// Made by the client, which knows how it was asked: docs/statistics.md §4's envelope (tool, version,
/// command, argv, input; json_envelope() below) and the time it took to load the input,
/// which joins the report's own `timing`.
struct ReportHead {
  Json envelope = Json::object();
  double load_s = 0;
};

/// Records and invalid verdicts of one judge on the analysed units (docs/statistics.md §1
/// validity); every analysis with judges carries its judges' so that one whose records are all
/// invalid is named above its tables.
struct JudgeValidity {
  std::string judge;
  int64_t records = 0, invalid = 0;
  std::string invalid_reason;  // the most common reason its invalid records are invalid; "" when none
  /// The most common invalid value ("verdict 'C'", "no verdict", …) and how many records gave it,
  /// named above the tables when more than 5% of the records are invalid; "" when none or unknown.
  std::string common_invalid_value;
  int64_t common_invalid_count = 0;
  /// docs/statistics.md §8.1, the same in every entry of one report: the analysed items and how
  /// many of them have no gold, and the statistics that need gold ("" when every statistic of the
  /// analysis does); one note names them above the tables when some item has no gold.
  int64_t items = 0, items_without_gold = 0;
  std::string gold_statistics;
  /// docs/statistics.md §8.5, the same in every entry: the input's records of repeat >= 1, which only
  /// `repeats` reads; one note says how many an analysis left out (0: no note).
  int64_t repeat_records = 0;
};

/// One figure of a report: its file stem ("cascade_accuracy_fee"), the SVG text and the plotted
/// data as tidy CSV (empty when the figure has none to give).
struct PlotFile {
  std::string name, svg, csv;
};

/// The envelope's head (docs/statistics.md §4): tool, version, command, argv (the command line
/// that gives the same result) and the input (path, sha256, records, invalid).
Json json_envelope(const std::string& command, int argc, char** argv, const ItemMatrix& input);

/// JSON text with every floating-point number printed with 17 significant digits, as every
/// --json output is; NaN and infinities print as null.
std::string dump_json(const Json& value, int indent = -1);

/// Writes each figure as DIR/NAME.svg and, when it has data, DIR/NAME.csv beside it; creates DIR
/// when missing. Throws std::runtime_error naming the file or directory on failure.
void write_plots(const std::vector<PlotFile>& figures, const std::string& dir);

}  // namespace judgestat
