// What the request-layer tests share: a typed request from values or from flags, the error a
// wrong value gets, and the check that run_analysis gives what the analysis's own run_X gives.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/analysis.hpp"
#include "test_support.hpp"

namespace judgestat::testing_support {

using Words = std::vector<std::string>;

inline TypedAnalysisRequest from_values(const std::string& command, const Json& values) {
  return parse_analysis_values(AnalysisValues{command, values});
}

inline TypedAnalysisRequest from_flags(const std::string& command, const Words& args) {
  return parse_analysis(AnalysisRequest{command, args});
}

inline std::string values_error(const std::string& command, const Json& values) {
  return thrown_message<UsageError>([&] { check_analysis_values(AnalysisValues{command, values}); });
}

inline bool same_number(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The tables without the run line's wall time ("…, backend cpu (2 threads), 0.02s"): two runs of
// the same request differ only there.
inline std::string without_seconds(const std::string& tables) {
  const size_t end = tables.find_last_not_of('\n');
  const size_t comma = tables.rfind(", ", end);
  const bool timed = end != std::string::npos && comma != std::string::npos && tables[end] == 's';
  return timed ? tables.substr(0, comma) : tables;
}

// run_analysis on `request` over the records at `path` gives, but for wall times, the JSON and the
// `format` tables of run(matrix, options) — the analysis's own run_X; returns both for more checks.
template <class Options, class Run>
auto expect_run_analysis_is(const TypedAnalysisRequest& request, const std::string& path, const std::string& format,
                            Run run) {
  const ExecTarget target{ExecTarget::Kind::kCpu};
  ReportHead head;
  head.envelope = Json::object();
  const ItemMatrix matrix = load_item_matrix(path, request.load);
  AnalysisResult result = run_analysis(request, matrix, target, head);
  auto direct = run(matrix, std::get<Options>(request.options), target);
  Json expected = to_json(direct, head), got = result.json;
  expected.erase("timing"), got.erase("timing");
  EXPECT_EQ(got.dump(), expected.dump());
  const std::string& text = format == "md" ? result.md : result.text;
  EXPECT_EQ(without_seconds(text), without_seconds(tables(direct, format)));
  return std::make_pair(std::move(result), std::move(direct));
}

}  // namespace judgestat::testing_support
