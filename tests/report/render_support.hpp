// What the tests of report/report_from_json.hpp share: an analysis run as a study runs it, its
// JSON as the cache stores it, and the check that a report read back from its JSON renders the
// same bytes as the run (tables in text, csv and md, every figure's SVG and CSV).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "judgestat/analysis.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

namespace judgestat::render_support {

/// The analysis `request` on the records file `records`, as a study runs it (2 CPU threads;
/// metrics with every table, `--full`, as the study's tables.txt).
inline AnalysisResult run_on(const std::string& records, AnalysisRequest request) {
  if (request.command == "metrics") request.args.push_back("--full");
  const ItemMatrix matrix = load_item_matrix(records, analysis_load_options(request));
  return run_analysis(request, matrix, testing_support::cpu_target(2), ReportHead{});
}

/// The JSON as the cache stores it: written by dump_json (17 digits, NaN as null) and parsed.
inline Json stored(const Json& json) { return Json::parse(dump_json(json)); }

inline void expect_same_outputs(const AnalysisResult& run, const RenderedReport& rendered) {
  EXPECT_EQ(rendered.text, run.text);
  EXPECT_EQ(rendered.csv, run.csv);
  EXPECT_EQ(rendered.md, run.md);
  ASSERT_EQ(rendered.plots.size(), run.plots.size());
  for (size_t p = 0; p < run.plots.size(); ++p) {
    SCOPED_TRACE(run.plots[p].name);
    EXPECT_EQ(rendered.plots[p].name, run.plots[p].name);
    EXPECT_EQ(rendered.plots[p].svg, run.plots[p].svg);
    EXPECT_EQ(rendered.plots[p].csv, run.plots[p].csv);
  }
}

/// The run's outputs rendered again from its stored JSON and render state are the run's, byte for byte.
inline void expect_renders_the_run(const std::string& command, const AnalysisResult& run) {
  ASSERT_FALSE(run.text.empty());
  ASSERT_TRUE(renders_from_json(command, stored(run.json)));
  expect_same_outputs(run, render_from_json(command, stored(run.json), stored(run.render)));
}

}  // namespace judgestat::render_support
