// A client of an installed judgestat (tests/consumer/run.cmake), using only the public headers:
// o1-mini's order-0 accuracy on the bundled JudgeBench split, 248 of 350 pairs (the value
// tests/cli/test_cli.cpp and tests/analyses/cascade/test_cascade.cpp assert), computed three ways —
// run_metrics with typed options, run_analysis with a TypedAnalysisRequest, and a study file
// through load_study and run_study — each printed as "HOW correct/350".
//
//   consumer SOURCE_DIR WORK_DIR
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "judgestat/analysis.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/records.hpp"
#include "judgestat/study.hpp"

namespace {

constexpr const char* kJudge = "o1-mini-2024-09-12";
constexpr double kPairs = 350;

// The estimate of acc for kJudge in order 0 among docs/statistics.md §4's statistics rows, as a count of
// pairs; -1 when there is no such row.
double acc_count(const judgestat::Json& statistics) {
  for (const judgestat::Json& row : statistics)
    if (row["name"] == "acc" && row["judge"] == kJudge && row["order"] == 0)
      return std::round(row["estimate"].get<double>() * kPairs);
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string source = argv[1], work = argv[2];
  const std::string data = source + "/data/judgebench/gpt4o_split.csv";
  judgestat::ExecTarget target;
  target.kind = judgestat::ExecTarget::Kind::kCpu;
  target.threads = 2;

  // Typed options, straight to the analysis.
  const judgestat::ItemMatrix matrix = judgestat::load_item_matrix(data, {});
  judgestat::MetricsOptions metrics;
  metrics.judges = {kJudge};
  metrics.bootstrap.replicates = 200;
  const judgestat::MetricsReport report = judgestat::run_metrics(matrix, metrics, target);
  double direct = -1;
  for (size_t s = 0; s < report.statistics.labels.size(); ++s) {
    const judgestat::StatLabel& label = report.statistics.labels[s];
    if (label.name == "acc" && label.judge == kJudge && label.order == 0)
      direct = std::round(report.statistics.intervals[s].estimate * kPairs);
  }

  // The same options through the request layer.
  const judgestat::AnalysisResult typed =
      judgestat::run_analysis(judgestat::TypedAnalysisRequest{metrics}, matrix, target, judgestat::ReportHead{});

  // A study file naming the same analysis, run into WORK/study.
  const std::string study_path = work + "/study.json";
  std::ofstream(study_path) << R"({"settings": {"replicates": 200, "threads": 2},
    "inputs": {"jb": ")" << data
                            << R"("},
    "analyses": [{"name": "acc", "analysis": "metrics", "input": "jb", "judges": [")"
                            << kJudge << R"("]}]})";
  judgestat::StudyRunOptions run;
  run.out_dir = work + "/study";
  run.quiet = true;
  const judgestat::StudyOutcome outcome = judgestat::run_study(judgestat::load_study(study_path), run);
  std::ifstream results(outcome.results_path);
  std::stringstream text;
  text << results.rdbuf();
  const judgestat::Json written = judgestat::Json::parse(text.str());

  std::printf("run_metrics %.0f/350 run_analysis %.0f/350 run_study %.0f/350 computed %zu\n", direct,
              acc_count(typed.json["statistics"]), acc_count(written["analyses"][0]["result"]["statistics"]),
              outcome.computed.size());
  return 0;
}
