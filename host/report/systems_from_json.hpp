// The systems report read back from its JSON and render state (report/report_from_json.hpp), so
// that a study reuses a systems entry and renders its tables and figures from its result.
#pragma once
#include "judgestat/report.hpp"
#include "judgestat/systems.hpp"

namespace judgestat {

/// What the systems writers read that the JSON lacks: the bootstrap's n_clusters and per
/// interval its size_cv and note (why a studentized interval is null).
Json render_state(const SystemsReport& report);

/// The systems report from to_json's document and `render`, its render_state;
/// std::invalid_argument("result.KEY…: …" or "render…: …") naming a missing or wrong-typed field.
SystemsReport systems_report_from_json(const Json& json, const Json& render);

}  // namespace judgestat
