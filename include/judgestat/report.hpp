// What every analysis's report shares: the JSON type and the head a client gives its writers.
// An analysis is `XReport run_X(matrix, XOptions, ExecTarget)`; its writers are
// `Json to_json(const XReport&, const ReportHead&)`, `std::string tables(const XReport&,
// format)` (text, md or csv) and, where it has plots, `plots(const XReport&, dir)`.
#pragma once
#include <nlohmann/json.hpp>

namespace judgestat {

using Json = nlohmann::ordered_json;

/// Made by the client, which knows how it was asked: docs/statistics.md §4's envelope (tool, version,
/// command, argv, input; json_envelope() in the CLI) and the time it took to load the input,
/// which joins the report's own `timing`.
struct ReportHead {
  Json envelope = Json::object();
  double load_s = 0;
};

}  // namespace judgestat
