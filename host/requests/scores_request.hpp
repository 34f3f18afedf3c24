// The flags of score judges (docs/statistics.md §8.2), defined and read once for the CLI, studies
// and Python: --scale, the loading option of every analysis that reads a scored matrix (metrics,
// systems, repeats), and metrics' --alpha-level, --tie-margin and --score-pairs.
#pragma once
#include <optional>
#include <string>

#include <cxxopts.hpp>

#include "judgestat/records.hpp"
#include "judgestat/scores.hpp"
#include "requests/option_reader.hpp"

namespace judgestat {

/// --scale LOW:HIGH, beside add_common_options' --labels.
void add_scale_option(cxxopts::Options& options);
/// --scale read into load.scale (parse_score_scale); read after read_common, since a scale and
/// --labels together are a UsageError naming --scale.
void read_scale(const OptionReader& reader, LoadOptions& load);

/// --alpha-level, --tie-margin and --score-pairs (metrics).
void add_score_options(cxxopts::Options& options);

/// `--scale LOW:HIGH` (LoadOptions::scale); nothing for ""; UsageError naming --scale otherwise
/// unless LOW and HIGH are finite numbers with LOW < HIGH.
std::optional<ScoreScale> parse_score_scale(const std::string& text);

/// The flags read; UsageError naming the flag for a level that is none of the four or a negative
/// or non-finite margin.
ScoreOptions read_score_options(const OptionReader& reader);

}  // namespace judgestat
