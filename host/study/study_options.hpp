// What the study's run-wide settings ask of every analysis, as typed values.
#pragma once
#include "judgestat/analysis.hpp"
#include "judgestat/study.hpp"

namespace judgestat {

/// The settings' backend, devices, threads and chunk as typed values for analysis_target (and
/// check_analysis) of the metrics command, whose flags they are.
AnalysisValues study_target_values(const StudySettings& settings);

}  // namespace judgestat
